#!/usr/bin/env bash
# Headless Neovim end-to-end test of editors/neovim against the real `knit lsp`.
# Usage: test/e2e.sh /path/to/knit     (needs `nvim` ≥ 0.7 on PATH)
# Copies fixtures/example and fixtures/clients-polyglot (its anchors recorded with this
# knit, so they are fresh whatever the baseline scheme) to a temp folder, runs
# test/e2e.lua in `nvim --headless`, and ends with "N passed, N failed"; exits non-zero
# on failure.
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
timeout "${KNIT_E2E_TIMEOUT:-300}" nvim --headless -u NONE -i NONE -n \
  -c "luafile $HERE/test/e2e.lua" </dev/null >"$TMP/out" 2>"$TMP/err"
code=$?
# the Lua test prints its own "ok"/"not ok" lines and the closing count
grep -v '^$' "$TMP/out"
if ! tail -n 1 "$TMP/out" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$'; then
  echo "not ok - nvim exited ($code) before the test finished"
  sed 's/^/    # /' "$TMP/err" | tail -n 30
  echo "0 passed, 1 failed"
  exit 1
fi
if [ "$code" -ne 0 ] && [ -s "$TMP/err" ]; then
  sed 's/^/    # /' "$TMP/err" | tail -n 30 >&2
fi
exit "$code"
