#!/usr/bin/env bash
# Runs every test of the project: the Rust workspace (unit, conformance, LSP, MCP,
# context evaluation, hostile inputs, the LSP soak, fuzz regressions), knit checking its
# own docs, every fuzz target for a bounded time, formatter invariance on real
# TypeScript, Rust, Python and Go, and the editor clients. Installs what the tests need when run as root on
# a fresh Debian machine (CI does exactly this through .ci/run).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
passed=0
failed=0
# A failed step's name and the end of its output (its log in $RUN_TMP, made before the
# first step) are printed again after the last step: CI may keep only the tail of a run's
# output, and a failure above the editor clients' long log was once invisible there.
failures=()
# Runs one suite and says how long it took (a first build is most of a fresh run).
step() {
  local name="$1"; shift
  echo "==> $name ($(df -Ph . | awk 'NR == 2 { print $4 }') free on disk)"
  local start=$SECONDS log="$RUN_TMP/step-$((passed + failed)).log"
  "$@" 2>&1 | tee "$log"
  if [ "${PIPESTATUS[0]}" = 0 ]; then
    passed=$((passed + 1)); echo "==> $name: ok ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); echo "==> $name: FAILED ($((SECONDS - start)) s)"
    failures+=("$name" "$log")
  fi
}

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  need=()
  command -v nvim >/dev/null || need+=(neovim)
  command -v git >/dev/null || need+=(git)
  # gofmt and the Go library sources for the formatter sweep; curl fetches crates
  command -v gofmt >/dev/null || need+=(golang-go)
  command -v curl >/dev/null || need+=(curl)
  if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

# The tests' cache and state live in a temp folder removed at exit (also on failure), so a
# run never touches the user's real ~/.cache/knit nor leaves folders behind.
RUN_TMP=$(mktemp -d)
trap 'rm -rf "$RUN_TMP"' EXIT
# What the user's own knit folders hold now: the last step fails if a test wrote there.
user_folders() { ls -A "$HOME/.cache/knit" "$HOME/.local/state/knit" 2>/dev/null | sort; }
user_before=$(user_folders)
export KNIT_CACHE_DIR="${KNIT_CACHE_DIR:-$RUN_TMP/cache}"
export KNIT_STATE_DIR="${KNIT_STATE_DIR:-$RUN_TMP/state}"
# Every temp file of the run goes in there too, so what a test forgets to remove is seen
# (and still removed at exit): the last step fails on leftovers of this project's own
# making — Rust's tempfile (`.tmp*`), mktemp (`tmp.*`) and knit's `knit*` folders.
mkdir -p "$RUN_TMP/tmp"
export TMPDIR="$RUN_TMP/tmp"

step "cargo build" cargo build --workspace --bins --quiet
step "cargo test" cargo test --workspace --quiet
step "knit checks its own docs" ./target/debug/knit check --root "$ROOT"
# Every cargo-fuzz target for a bounded time (KNIT_FUZZ_SECONDS per target, default 30);
# fuzz/run.sh installs cargo-fuzz (and a nightly toolchain) when missing, and a crash fails
# the step with the reproducer's path.
step "fuzz targets (${KNIT_FUZZ_SECONDS:-30} s each)" bash fuzz/run.sh
if [ -f tests/formatter/run.sh ]; then
  step "formatter invariance (prettier on real TypeScript)" bash tests/formatter/run.sh "$ROOT/target/debug/knit"
  step "formatter invariance (rustfmt, black, gofmt on real Rust, Python, Go)" bash tests/formatter/others.sh "$ROOT/target/debug/knit"
fi
# A real VS Code (code-server) for the extension's end-to-end test: installed when the
# workplace's installer is present (CI has ../shared beside the checkout) and we are
# root, or used from $CODE_SERVER. KNIT_SKIP_VSCODE_E2E=1 skips it.
if [ -z "${CODE_SERVER:-}" ] && [ -z "${KNIT_SKIP_VSCODE_E2E:-}" ] && [ "$(id -u)" = "0" ]; then
  installer="$ROOT/../shared/tools/install-code-server.sh"
  prefix="${KNIT_CODE_SERVER_PREFIX:-/opt/knit-code-server}"
  if [ -x "$prefix/node_modules/.bin/code-server" ]; then
    export CODE_SERVER="$prefix/node_modules/.bin/code-server"
  elif [ -f "$installer" ]; then
    echo "==> installing code-server and chromium for the VS Code end-to-end test"
    # The installer is the workplace's, not ours, and keeps a scratch folder of its own
    # (`mktemp -d`, never removed): it gets a temp dir outside the one the last step
    # checks for this project's leftovers (both are removed at exit).
    mkdir -p "$RUN_TMP/installer"
    if TMPDIR="$RUN_TMP/installer" bash "$installer" "$prefix" && { command -v chromium >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; then
      export CODE_SERVER="$prefix/node_modules/.bin/code-server"
    else
      # An installer that cannot reach its packages must not block every other test;
      # the skip is loud and the editors suite says "skipped" for this test.
      echo "==> WARNING: code-server install failed: the VS Code end-to-end test is NOT run"
    fi
  fi
fi
if [ -f editors/test.sh ]; then
  step "editor clients" bash editors/test.sh "$ROOT/target/debug/knit"
fi
no_user_folders_touched() {
  local after
  after=$(user_folders)
  if [ "$after" != "$user_before" ]; then
    echo "new entries in ~/.cache/knit or ~/.local/state/knit:"
    diff <(echo "$user_before") <(echo "$after") | sed 's/^/  /'
    return 1
  fi
}
step "no test wrote into the user's knit cache or state" no_user_folders_touched
no_temp_leftovers() {
  local left
  left=$(cd "$TMPDIR" && ls -A | grep -E '^(\.tmp|tmp\.|knit)' || true)
  if [ -n "$left" ]; then
    echo "left in the temp dir by the tests:"
    echo "$left" | sed 's/^/  /'
    return 1
  fi
}
step "no test left files in the temp dir" no_temp_leftovers
for ((i = 0; i < ${#failures[@]}; i += 2)); do
  echo "==> FAILED: ${failures[i]}; the end of its output:"
  tail -n 60 "${failures[i + 1]}" | sed 's/^/    /'
done
echo "suites: $passed passed, $failed failed"
[ "$failed" = 0 ]
