#!/usr/bin/env bash
# Runs every knit fuzz target for a bounded time (tests/run.sh calls this as one step).
#
#   KNIT_FUZZ_SECONDS   seconds per target (default 30)
#   KNIT_FUZZ_TARGETS   space-separated targets (default: all of fuzz/Cargo.toml)
#   KNIT_FUZZ_TOOLCHAIN `stable` forces what a machine without nightly does (CI's case)
#   KNIT_FUZZ_TARGET_DIR  cargo's target dir (default fuzz/target; under CI, a folder in
#                       the user's cache that outlives the checkout: the instrumented
#                       build of every dependency takes tens of minutes on 2 cores, and
#                       CI clones afresh each run)
#   KNIT_FUZZ_CLEAN=1   remove that target dir after the run (about 1.7 GB: a CI machine
#                       with little disk needs the room for the steps after this one)
#
# Installs what it needs: a nightly toolchain (rustup, minimal profile) when there is none
# — or, when none can be had, the stable one with RUSTC_BOOTSTRAP=1, which accepts the
# -Z flags cargo-fuzz passes — and cargo-fuzz (`cargo install cargo-fuzz --locked`).
# Each target starts from seeds made from fixtures/ (seed.py → corpus/<target>/seed-*) plus whatever corpus
# earlier local runs left, with hangs (>10 s per input) and memory blow-ups (>2 GiB)
# counted as crashes. A crash fails the script and prints the reproducer's path and the
# command that replays it.
set -uo pipefail
cd "$(dirname "$0")"
FUZZ_DIR="$PWD"
seconds="${KNIT_FUZZ_SECONDS:-30}"
if [ -n "${CI:-}" ]; then
  target_dir="${KNIT_FUZZ_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/knit-fuzz/target}"
else
  target_dir="${KNIT_FUZZ_TARGET_DIR:-$FUZZ_DIR/target}"
fi
if [ -n "${KNIT_FUZZ_CLEAN:-}" ]; then
  trap 'rm -rf "$target_dir"' EXIT
fi
targets="${KNIT_FUZZ_TARGETS:-$(sed -n 's/^name = "\([a-z_]*\)"$/\1/p' Cargo.toml | grep -v '^knit-fuzz$')}"

# A toolchain cargo-fuzz can build with.
toolchain="${KNIT_FUZZ_TOOLCHAIN:-nightly}"
if [ "$toolchain" = stable ]; then
  export RUSTC_BOOTSTRAP=1
elif ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz: no nightly toolchain; installing one (minimal profile)"
  if ! timeout 300 rustup toolchain install nightly --profile minimal >/dev/null 2>&1; then
    # The machine's default toolchain, whatever its name (stable, or a pinned version).
    toolchain="$(rustup default 2>/dev/null | cut -d' ' -f1)"
    toolchain="${toolchain:-stable}"
    echo "fuzz: nightly cannot be installed here; using $toolchain with RUSTC_BOOTSTRAP=1"
    export RUSTC_BOOTSTRAP=1
  fi
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  cargo "+$toolchain" install cargo-fuzz --locked --quiet || { echo "fuzz: cannot install cargo-fuzz"; exit 1; }
fi

python3 seed.py || { echo "fuzz: cannot make the seed corpora (python3 fuzz/seed.py)"; exit 1; }
echo "fuzz: building the targets ($(rustup run "$toolchain" rustc --version))"
cargo "+$toolchain" fuzz build --target-dir "$target_dir" || { echo "fuzz: build failed"; exit 1; }

failed=()
for t in $targets; do
  log="$(mktemp)"
  dict=()
  case "$t" in
    markdown | fragment_baseline | check) dict=(-dict=dicts/markdown.dict) ;;
    lsp_framing | lsp_session) dict=(-dict=dicts/lsp.dict) ;;
    mcp) dict=(-dict=dicts/mcp.dict) ;;
  esac
  mkdir -p "corpus/$t" "artifacts/$t"
  start=$(date +%s)
  cargo "+$toolchain" fuzz run --target-dir "$target_dir" "$t" "corpus/$t" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="artifacts/$t/" "${dict[@]}" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ "$rc" = 0 ]; then
    echo "fuzz: $t: ok, ${execs:-?} inputs in $(( $(date +%s) - start )) s (${rate:-?}/s)"
  else
    echo "fuzz: $t: FAILED (exit $rc). The end of libFuzzer's output:"
    tail -n 60 "$log" | sed 's/^/    /'
    for a in $(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log"); do
      echo "fuzz: $t: reproducer: $FUZZ_DIR/$a"
      echo "fuzz: $t: replay it:  (cd $FUZZ_DIR && cargo +$toolchain fuzz run $t $a)"
    done
    failed+=("$t")
  fi
  rm -f "$log"
done
# The harnesses work under fixed /tmp/knit-fuzz-* folders (the LSP seeds name
# file:///tmp/knit-fuzz-lsp/… URIs) and are killed rather than torn down: remove them.
rm -rf /tmp/knit-fuzz-*
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in: ${failed[*]}"
  exit 1
fi
echo "fuzz: every target ran ${seconds} s without a crash"
