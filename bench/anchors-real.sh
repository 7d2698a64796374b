#!/usr/bin/env bash
# Anchor benchmark on a real TypeScript code base fetched from the npm registry at run
# time (nothing of it is committed): rxjs ships its TypeScript sources under src/.
# Usage: bash bench/anchors-real.sh [npm-spec]   (default rxjs@7.8.1)
set -euo pipefail
cd "$(dirname "$0")/.."
SPEC="${1:-rxjs@7.8.1}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
( cd "$TMP" && npm pack --silent "$SPEC" >/dev/null && tar xzf ./*.tgz )
SRC="$TMP/package/src"
[ -d "$SRC" ] || SRC="$TMP/package"
echo "fetched $SPEC: $(find "$SRC" -name '*.ts' | wc -l) .ts files"
cargo build --release -q -p knit-cli
./target/release/knit bench anchors --repo "$SRC" --per-file 1000 --runs 5
