#!/usr/bin/env bash
# Formatter invariance beyond TypeScript: real Rust (crates.io), Python (PyPI) and Go (the
# Go distribution's own library) sources, fetched at test time, anchored one symbol per
# declaration found without knit (enumerate_other.py), must stay `fresh` when rustfmt
# (max_width 60 and 140), black (line length 40 and 120) and gofmt (on a re-indented
# copy) rewrite their layout. A control run per language makes one behavioural edit and
# expects that anchor, and only it, to go `stale`. Nothing fetched is committed.
#
# usage: tests/formatter/others.sh [path/to/knit]      (default: target/debug/knit)
# needs: python3 with pip (PyPI), curl (static.crates.io), rustfmt, gofmt/go (Debian's
#        golang-go; tests/run.sh installs it) and node (analyze.js). A language whose
#        formatter is missing fails, it is not skipped.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KNIT="${1:-target/debug/knit}"
case "$KNIT" in /*) ;; *) KNIT="$PWD/$KNIT" ;; esac
[[ -x "$KNIT" ]] || { echo "knit binary not found: $KNIT" >&2; exit 2; }

CRATES="${KNIT_FORMATTER_CRATES:-semver@1.0.26 log@0.4.22}"
WHEELS="${KNIT_FORMATTER_WHEELS:-attrs==24.2.0}"
GO_PACKAGES="${KNIT_FORMATTER_GO_PACKAGES:-strings sort bufio container/list}"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/knit-formatter-others.XXXXXX")"
if [[ "${KNIT_FORMATTER_KEEP:-}" == 1 ]]; then echo "keeping $TMP"; else trap 'rm -rf "$TMP"' EXIT; fi

PASSED=0
FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "PASS $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }
field() { node -e 'const o=JSON.parse(process.argv[1]); console.log(o[process.argv[2]])' "$1" "$2"; }

# check WS OUT: knit check's JSON report (exit 1 only means "something is not fresh")
check() {
  local rc=0
  "$KNIT" check --root "$1" --format json >"$2" 2>"$2.stderr" || rc=$?
  (( rc <= 1 )) || { echo "   knit check exited $rc: $(head -n 5 "$2.stderr")"; return 1; }
}

# sweep LANG WS LABEL CMD... : record, then each formatter pass (a command run in WS,
# given as one string per pass in PASSES), then the control edit.
sweep() {
  local lang=$1 ws=$2 out="$TMP/out-$1"
  mkdir -p "$out" "$ws/docs"
  : >"$ws/knit.toml"
  local dirs=()
  for d in "$ws"/src/*/; do dirs+=("src/$(basename "$d")"); done
  python3 "$HERE/enumerate_other.py" "$lang" "$ws" "${dirs[@]}" >"$out/anchors.json"
  local n
  n=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).length)' "$out/anchors.json")
  echo "== $lang: $n anchors"
  if (( n == 0 )); then fail "$lang: no declaration found to anchor"; return; fi
  "$KNIT" anchors record --root "$ws" >"$out/record.txt" 2>&1 || true
  check "$ws" "$out/base.json" || { fail "$lang: knit check failed after record"; return; }
  local r nf rep
  r="$(node "$HERE/analyze.js" "$out/base.json" "$out/anchors.json")"
  nf="$(field "$r" notFresh)"; rep="$(field "$r" reported)"
  echo "   baseline: $((rep - nf)) of $n fresh right after record"
  if (( rep - nf == 0 )); then fail "$lang: no anchor is fresh after record"; return; fi
  local last="$out/base.json" i=0
  for label in "${PASS_LABELS[@]}"; do
    i=$((i + 1))
    if ! (cd "$ws" && eval "${PASS_CMDS[$((i - 1))]}") >"$out/pass$i.txt" 2>&1; then
      fail "$lang $label: the formatter failed: $(head -n 3 "$out/pass$i.txt")"; continue
    fi
    check "$ws" "$out/check$i.json" || { fail "$lang $label: knit check failed"; continue; }
    last="$out/check$i.json"
    r="$(node "$HERE/analyze.js" "$out/check$i.json" "$out/anchors.json" --only-fresh-in "$out/base.json")"
    nf="$(field "$r" notFresh)"
    if [[ "$nf" == 0 && "$(field "$r" considered)" -gt 0 ]]; then
      pass "$lang $label: $(field "$r" considered) anchors, 0 not fresh"
    else
      fail "$lang $label: $nf of $(field "$r" considered) anchors not fresh"
    fi
  done
  # control: the first function anchor still fresh gets a statement
  local target
  target="$(node -e '
    const fs = require("fs");
    const fresh = new Set(JSON.parse(fs.readFileSync(process.argv[2])).anchors.filter((x) => x.state === "fresh").map((x) => x.doc + ":" + x.line));
    const a = JSON.parse(fs.readFileSync(process.argv[1])).find((x) => x.kind === "function" && fresh.has(x.doc + ":" + x.line));
    if (a) console.log([a.doc + ":" + a.line, a.path, a.fragment].join("\t"));' "$out/anchors.json" "$last")"
  if [[ -z "$target" ]]; then fail "$lang control: no function anchor to edit"; return; fi
  local where cpath cname
  IFS=$'\t' read -r where cpath cname <<<"$target"
  python3 "$HERE/control_edit_other.py" "$lang" "$ws/$cpath" "$cname"
  check "$ws" "$out/control.json" || { fail "$lang control: knit check failed"; return; }
  r="$(node "$HERE/analyze.js" "$out/control.json" "$out/anchors.json" --only-fresh-in "$last" --expect-stale "$where")"
  if [[ "$(field "$r" staleOk)" == true && "$(field "$r" notFresh)" == 0 ]]; then
    pass "$lang control: $cpath#$cname is stale after a behavioural edit; the other $(field "$r" considered) anchors unaffected"
  else
    fail "$lang control: expected only $cpath#$cname ($where) to go stale: $r"
  fi
}

# ---- Rust: crates from static.crates.io, rustfmt at max_width 60 and 140 ----------------
RS="$TMP/rust"
mkdir -p "$RS/src"
for spec in $CRATES; do
  name=${spec%@*} version=${spec#*@}
  curl -sSfL "https://static.crates.io/crates/$name/$name-$version.crate" -o "$TMP/$name.crate"
  tar -xzf "$TMP/$name.crate" -C "$TMP"
  mkdir -p "$RS/src/$name"
  cp -R "$TMP/$name-$version/src/." "$RS/src/$name/"
done
if command -v rustfmt >/dev/null; then
  PASS_LABELS=("rustfmt max_width=60" "rustfmt max_width=140")
  PASS_CMDS=(
    'find src -name "*.rs" -print0 | xargs -0 rustfmt --edition 2021 --config max_width=60,skip_children=true'
    'find src -name "*.rs" -print0 | xargs -0 rustfmt --edition 2021 --config max_width=140,skip_children=true'
  )
  sweep rust "$RS"
else
  fail "rust: rustfmt is not installed"
fi

# ---- Python: wheels from PyPI, black at line length 40 and 120 --------------------------
PY="$TMP/python"
mkdir -p "$PY/src" "$TMP/wheels" "$TMP/pytools"
if python3 -m pip install --quiet --disable-pip-version-check --target "$TMP/pytools" "black==24.10.0" >"$TMP/pip.txt" 2>&1 &&
  python3 -m pip download --quiet --disable-pip-version-check --no-deps -d "$TMP/wheels" $WHEELS >>"$TMP/pip.txt" 2>&1; then
  for w in "$TMP"/wheels/*.whl; do
    name=$(basename "$w" | cut -d- -f1)
    mkdir -p "$PY/src/$name"
    python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [z.extract(n, sys.argv[2]) for n in z.namelist() if n.endswith(".py") and ".dist-info/" not in n]' "$w" "$PY/src/$name"
  done
  BLACK="PYTHONPATH=$TMP/pytools python3 -m black --quiet"
  PASS_LABELS=("black -l 40" "black -l 120 --skip-string-normalization")
  PASS_CMDS=("$BLACK -l 40 src" "$BLACK -l 120 --skip-string-normalization src")
  sweep python "$PY"
else
  fail "python: cannot install black or fetch $WHEELS: $(tail -n 3 "$TMP/pip.txt")"
fi

# ---- Go: the Go distribution's library sources, re-indented, then gofmt -----------------
GO="$TMP/go"
mkdir -p "$GO/src"
if command -v gofmt >/dev/null && command -v go >/dev/null; then
  goroot="$(go env GOROOT)"
  for pkg in $GO_PACKAGES; do
    dest="$GO/src/go-${pkg//\//-}"
    mkdir -p "$dest"
    # Files without raw (backquoted) strings: re-indenting must not touch string content.
    for f in "$goroot/src/$pkg"/*.go; do
      case "$f" in *_test.go) continue ;; esac
      grep -q '`' "$f" || cp "$f" "$dest/"
    done
  done
  PASS_LABELS=("re-indented (spaces, no blank lines)" "gofmt")
  PASS_CMDS=(
    "python3 -c 'import pathlib, re, sys
for p in pathlib.Path(\"src\").rglob(\"*.go\"):
    lines = [re.sub(r\"^\\t+\", lambda m: \"  \" * len(m.group(0)), l) for l in p.read_text().split(\"\\n\") if l.strip()]
    p.write_text(\"\\n\".join(lines) + \"\\n\")'"
    'gofmt -w src'
  )
  sweep go "$GO"
else
  fail "go: gofmt is not installed (apt-get install golang-go)"
fi

echo "$PASSED passed, $FAILED failed"
(( FAILED == 0 ))
