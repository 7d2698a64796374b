#!/usr/bin/env bash
# Gives a copy of fixtures/example the git history the editors' end-to-end tests review:
# the resolver's anchor (docs/architecture.md line 3) is confirmed and committed with the
# whole example ("Example workspace"), then `AnchorResolver.resolve` changes in a second
# commit — so the anchor is stale, "Show changes since review" finds the reviewed
# version in the first commit and names the second. Git runs with no user or system
# configuration and no hooks.
# Usage: editors/test-history.sh WORKSPACE_COPY /path/to/knit
set -euo pipefail
ws=${1:?usage: test-history.sh WORKSPACE /path/to/knit}
knit=${2:?usage: test-history.sh WORKSPACE /path/to/knit}
git_() {
  GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -C "$ws" -c user.name=e2e -c user.email=e2e@example.invalid \
    -c commit.gpgsign=false -c core.hooksPath=/dev/null "$@"
}
(cd "$ws" && "$knit" anchors confirm docs/architecture.md:3 >/dev/null)
git_ init -q
git_ add -A
git_ commit -qm "Example workspace"
sed -i 's/return `unsupported: ${anchor.path}`;/return `unsupported language: ${anchor.path}`;/' "$ws/src/resolve.ts"
grep -q 'unsupported language' "$ws/src/resolve.ts"
git_ commit -qam "Resolver: name the unsupported language"
