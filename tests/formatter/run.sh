#!/usr/bin/env bash
# Formatter invariance: real TypeScript from the npm registry, anchored one symbol per
# top-level function / class / method, must stay `fresh` under several prettier option sets.
# A control run makes one real behavioural edit and expects that anchor to go `stale`.
#
# usage: tests/formatter/run.sh [path/to/knit]      (default: target/debug/knit)
# env:   KNIT_FORMATTER_PACKAGES  npm specs to pack (default below, pinned)
#        KNIT_FORMATTER_KEEP=1    keep the temp dir for inspection
# Needs node + npm and access to the npm registry. Nothing fetched is committed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KNIT="${1:-target/debug/knit}"
case "$KNIT" in /*) ;; *) KNIT="$PWD/$KNIT" ;; esac
if [[ ! -x "$KNIT" ]]; then
  echo "knit binary not found or not executable: $KNIT (build it with: cargo build -p knit-cli)" >&2
  exit 2
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then echo "node and npm are required" >&2; exit 2; fi

# @effect/*: curried generic arrows, yield* casts and conditional types whose parentheses
# prettier moves (print scheme 4; 7 of 190 of their anchors turned stale before).
PACKAGES="${KNIT_FORMATTER_PACKAGES:-immer@11.2.13 @tanstack/query-core@5.108.4 @trpc/server@11.4.3 @effect/experimental@0.54.6 @effect/sql@0.44.2}"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/knit-formatter.XXXXXX")"
if [[ "${KNIT_FORMATTER_KEEP:-}" == 1 ]]; then echo "keeping $TMP"; else trap 'rm -rf "$TMP"' EXIT; fi
TOOLS="$TMP/tools"
WS="$TMP/ws"
mkdir -p "$TOOLS" "$WS/src" "$TMP/pkgs" "$TMP/out"

echo "== installing prettier and typescript (test tooling) into $TOOLS"
npm install --silent --no-audit --no-fund --prefix "$TOOLS" prettier@3 typescript@5 >/dev/null
PRETTIER="$TOOLS/node_modules/.bin/prettier"

echo "== fetching real TypeScript sources: $PACKAGES"
SRC_DIRS=()
for spec in $PACKAGES; do
  tarball="$(cd "$TMP/pkgs" && npm pack --silent "$spec" | tail -n 1)"
  name="$(echo "${spec%@*}" | sed 's/^@//; s#/#-#g')"
  mkdir -p "$TMP/pkgs/$name"
  tar -xzf "$TMP/pkgs/$tarball" -C "$TMP/pkgs/$name"
  if [[ ! -d "$TMP/pkgs/$name/package/src" ]]; then
    echo "$spec ships no src/ folder; pick another package" >&2
    exit 2
  fi
  mkdir -p "$WS/src/$name"
  # only hand-written .ts sources (no .d.ts, no tests)
  (cd "$TMP/pkgs/$name/package/src" && find . -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' \) \
      ! -name '*.d.ts' ! -name '*.d.mts' ! -name '*.d.cts' ! -name '*.test.ts' ! -name '*.spec.ts' ! -path '*__tests__*' -print0 |
    while IFS= read -r -d '' f; do mkdir -p "$WS/src/$name/$(dirname "$f")"; cp "$f" "$WS/src/$name/$f"; done)
  SRC_DIRS+=("src/$name")
  echo "   $spec: $(find "$WS/src/$name" -type f | wc -l) files"
done

echo "== enumerating declarations"
node "$HERE/enumerate.js" "$TOOLS" "$WS" "${SRC_DIRS[@]}" >"$TMP/anchors.json"
N_ANCHORS="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).length)' "$TMP/anchors.json")"
echo "   $N_ANCHORS anchors in $(cd "$WS/docs" && printf '%s ' *.md)"

run_check() { # $1 = output file; knit exits 1 when anything is not fresh
  local rc=0
  "$KNIT" check --root "$WS" --format json >"$1" 2>"$1.stderr" || rc=$?
  if (( rc > 1 )); then
    echo "   knit check exited $rc:" >&2; head -n 20 "$1.stderr" >&2
    return 1
  fi
}

PASSED=0
FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "PASS $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }
field() { node -e 'const o=JSON.parse(process.argv[1]); console.log(o[process.argv[2]])' "$1" "$2"; }

echo "== knit anchors record"
rc=0
"$KNIT" anchors record --root "$WS" >"$TMP/out/record.txt" 2>&1 || rc=$?
if (( rc > 1 )); then echo "knit anchors record failed ($rc):"; cat "$TMP/out/record.txt"; exit 1; fi
if (( rc == 1 )); then echo "   record reported anchors it could not record:"; head -n 20 "$TMP/out/record.txt" | sed 's/^/   /'; fi

# Baseline (not a test of its own): anchors not fresh right after recording are ones knit
# cannot check on this code at all (e.g. a file its grammar does not parse); they are listed
# and left out of the formatter runs, which judge only anchors that were fresh here.
BASE="$TMP/out/baseline.json"
run_check "$BASE" || { echo "FAIL knit check failed right after record"; echo "0 passed, 1 failed"; exit 1; }
r="$(node "$HERE/analyze.js" "$BASE" "$TMP/anchors.json")"
nf="$(field "$r" notFresh)"; rep="$(field "$r" reported)"
echo "   baseline: $((rep - nf)) of $N_ANCHORS anchors fresh right after record ($nf not fresh, $((N_ANCHORS - rep)) not reported)"
if (( rep - nf == 0 )); then echo "FAIL no anchor is fresh after record"; echo "0 passed, 1 failed"; exit 1; fi
LAST="$BASE"

# Widths 40, 80, 120 and 200 (prettier adds parentheses around nested conditionals it
# joins on one line and drops them when it breaks them), with the other option sets.
OPTION_SETS=(
  ""
  "--print-width 40 --tab-width 4 --use-tabs"
  "--no-semi --single-quote --trailing-comma all --arrow-parens avoid"
  "--print-width 120 --trailing-comma none --arrow-parens always --bracket-same-line"
  "--print-width 200 --no-bracket-spacing --quote-props consistent"
  "--print-width 80 --trailing-comma es5 --object-wrap collapse"
)
i=0
for opts in "${OPTION_SETS[@]}"; do
  i=$((i + 1))
  label="prettier ${opts:-(defaults)}"
  # shellcheck disable=SC2086
  if ! (cd "$WS" && "$PRETTIER" --no-config --no-editorconfig --log-level warn --write $opts "src/**/*.{ts,mts,cts}" >"$TMP/out/prettier$i.txt" 2>&1); then
    fail "$label: prettier failed: $(head -n 3 "$TMP/out/prettier$i.txt")"; continue
  fi
  out="$TMP/out/check$i.json"
  if ! run_check "$out"; then fail "$label: knit check failed"; continue; fi
  LAST="$out" # the state just before the control edit
  r="$(node "$HERE/analyze.js" "$out" "$TMP/anchors.json" --only-fresh-in "$BASE")"
  nf="$(field "$r" notFresh)"; considered="$(field "$r" considered)"
  if [[ "$nf" == 0 && "$considered" -gt 0 ]]; then
    pass "$label: $considered anchors, 0 not fresh"
  else
    fail "$label: $nf of $considered anchors not fresh"
  fi
done

echo "== control: a real behavioural edit must make its anchor stale"
target="$(node -e '
  const fs = require("fs");
  const fresh = new Set(JSON.parse(fs.readFileSync(process.argv[2])).anchors
    .filter((x) => x.state === "fresh").map((x) => x.doc + ":" + x.line));
  const a = JSON.parse(fs.readFileSync(process.argv[1]))
    .find((x) => x.kind === "function" && fresh.has(x.doc + ":" + x.line));
  if (a) console.log([a.doc + ":" + a.line, a.path, a.fragment].join("\t"));' "$TMP/anchors.json" "$LAST")"
if [[ -z "$target" ]]; then
  fail "control: no top-level function anchor to edit"
else
  IFS=$'\t' read -r where cpath cname <<<"$target"
  node "$HERE/control-edit.js" "$TOOLS" "$WS/$cpath" "$cname"
  out="$TMP/out/control.json"
  if run_check "$out"; then
    # judged against the last clean run: the edited anchor must be stale, and no anchor that
    # was fresh before the edit may change state because of it
    r="$(node "$HERE/analyze.js" "$out" "$TMP/anchors.json" --only-fresh-in "$LAST" --expect-stale "$where")"
    if [[ "$(field "$r" staleOk)" == true && "$(field "$r" notFresh)" == 0 ]]; then
      pass "control: $cpath#$cname is stale after a behavioural edit; the other $(field "$r" considered) anchors unaffected"
    else
      fail "control: expected only $cpath#$cname ($where) to go stale: $r"
    fi
  else
    fail "control: knit check failed"
  fi
fi

echo "$PASSED passed, $FAILED failed"
(( FAILED == 0 ))
