#!/usr/bin/env bash
# Headless Neovim end-to-end test of editors/neovim against the real `knit lsp`.
# Usage: test/e2e.sh /path/to/knit     (needs `nvim` ≥ 0.7 on PATH)
# Copies fixtures/example and fixtures/clients-polyglot (its anchors recorded with this
# knit, so they are fresh whatever the baseline scheme) to a temp folder, runs
# test/e2e.lua, then test/completion.lua (real Insert-mode completion keystrokes), each in
# `nvim --headless`, and ends with "N passed, N failed" over both; exits non-zero on failure.
set -u
KNIT=${1:?usage: e2e.sh /path/to/knit}
KNIT=$(cd "$(dirname "$KNIT")" && pwd)/$(basename "$KNIT")
HERE=$(cd "$(dirname "$0")/.." && pwd)
REPO=$(cd "$HERE/../.." && pwd)
if ! command -v nvim >/dev/null 2>&1; then
  echo "not ok - nvim is not installed (apt-get install -y neovim)"
  echo "0 passed, 1 failed"
  exit 1
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cp -R "$REPO/fixtures/example" "$TMP/example"
cp -R "$REPO/fixtures/clients-polyglot" "$TMP/polyglot"
export KNIT_CACHE_DIR="$TMP/cache" KNIT_STATE_DIR="$TMP/state"
# The example's history: its stale anchor reviewed in one commit, changed in the next.
if ! bash "$REPO/editors/test-history.sh" "$TMP/example" "$KNIT" >"$TMP/history" 2>&1; then
  echo "not ok - editors/test-history.sh gives the example its history"
  sed 's/^/    # /' "$TMP/history"
  echo "0 passed, 1 failed"
  exit 1
fi
if ! "$KNIT" --root "$TMP/polyglot" anchors record >"$TMP/record" 2>&1; then
  echo "not ok - knit anchors record in the polyglot workspace"
  sed 's/^/    # /' "$TMP/record"
  echo "0 passed, 1 failed"
  exit 1
fi
export KNIT_E2E_ROOT KNIT_E2E_POLYGLOT
KNIT_E2E_ROOT=$(cd "$TMP/example" && pwd -P)
KNIT_E2E_POLYGLOT=$(cd "$TMP/polyglot" && pwd -P)
export KNIT_BIN="$KNIT" KNIT_PLUGIN_DIR="$HERE"
echo "# $(nvim --version | head -n 1)"
# Runs one Lua test in headless Neovim; prints its lines, and the totals go to $TMP/counts.
run_lua() {
  local script=$1
  timeout "${KNIT_E2E_TIMEOUT:-300}" nvim --headless -u NONE -i NONE -n \
    -c "luafile $HERE/test/$script" </dev/null >"$TMP/out" 2>"$TMP/err"
  local code=$?
  # the Lua test prints its own "ok"/"not ok" lines and the closing count
  grep -v '^$' "$TMP/out" | grep -Ev '^[0-9]+ passed, [0-9]+ failed$'
  local last
  last=$(grep -v '^$' "$TMP/out" | tail -n 1)
  if ! echo "$last" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$'; then
    echo "not ok - nvim exited ($code) before $script finished"
    sed 's/^/    # /' "$TMP/err" | tail -n 30
    echo "0 1" >>"$TMP/counts"
    return
  fi
  if [ "$code" -ne 0 ] && [ -s "$TMP/err" ]; then
    sed 's/^/    # /' "$TMP/err" | tail -n 30 >&2
  fi
  echo "$last" | awk '{ print $1, $3 }' >>"$TMP/counts"
}
: >"$TMP/counts"
run_lua e2e.lua
# real Insert-mode keystrokes: <C-x><C-o> (omnifunc) and <C-x><C-u> (completefunc)
run_lua completion.lua
read -r p f < <(awk '{ p += $1; f += $2 } END { print p, f }' "$TMP/counts")
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
