#!/bin/sh
# knit Stop hook for Claude Code.
#
# Runs `knit check --changed --format json` in the project and blocks the stop (exit 2,
# reasons on stderr, which Claude Code hands back to the agent) while a doc line anchors
# code changed in the working tree and that anchor is stale or lost. Passes (exit 0) when
# clean, outside a git work tree, or when knit has nothing to say. Problems of the hook
# itself (knit missing, knit failing) are non-blocking errors (exit 1): a broken hook
# must never trap the agent.
#
# Environment:
#   KNIT_BIN              knit binary (default: `knit` on PATH)
#   KNIT_STOP_STATES      comma-separated states that block (default: stale,lost; add
#                         moved,renamed,moved-renamed,invalid,broken-link to be stricter)
#   KNIT_STOP_MAX_BLOCKS  consecutive blocks before the hook lets the agent stop anyway
#                         (default: 3)
#   KNIT_HOOK_PARSER      python3 | human (default: python3 when available, else knit's
#                         human output)
set -u

input=$(cat 2>/dev/null | tr -d '\n\r')
knit=${KNIT_BIN:-knit}
states=${KNIT_STOP_STATES:-stale,lost}
max_blocks=${KNIT_STOP_MAX_BLOCKS:-3}

field() { # a top-level string field of the hook input
  printf '%s' "$input" | sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\([^\"]*\)\".*/\1/p"
}

if ! command -v "$knit" >/dev/null 2>&1; then
  echo "knit stop hook: \`$knit\` was not found. Install it with \`cargo install --locked --path server/knit-cli\` from a knit checkout, or set KNIT_BIN." >&2
  exit 1
fi

dir=${CLAUDE_PROJECT_DIR:-}
[ -n "$dir" ] || dir=$(field cwd)
[ -n "$dir" ] || dir=$PWD
cd "$dir" 2>/dev/null || exit 0
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || exit 0

session=$(field session_id | tr -cd 'A-Za-z0-9_-')
counter="${TMPDIR:-/tmp}/knit-stop-hook-${session:-default}.count"
case "$input" in
  *'"stop_hook_active"'*true*) active=1 ;;
  *) active=0 ;;
esac
[ "$active" = 1 ] || rm -f "$counter"

parser=${KNIT_HOOK_PARSER:-}
if [ -z "$parser" ]; then
  if command -v python3 >/dev/null 2>&1; then parser=python3; else parser=human; fi
fi

errfile=$(mktemp "${TMPDIR:-/tmp}/knit-stop-hook.XXXXXX") || exit 1
trap 'rm -f "$errfile"' EXIT

# findings: one "doc:line<TAB>state<TAB>message" line per blocking anchor
if [ "$parser" = python3 ]; then
  report=$("$knit" check --changed --format json 2>"$errfile")
  code=$?
  if [ "$code" -eq 1 ]; then
    findings=$(printf '%s' "$report" | python3 -c '
import json, sys
states = set(s.strip() for s in sys.argv[1].split(",") if s.strip())
report = json.load(sys.stdin)
for a in report.get("anchors", []):
    if a.get("state") in states:
        msg = (a.get("detail") or {}).get("message", "")
        print("%s:%s\t%s\t%s" % (a.get("doc"), a.get("line"), a.get("state"), msg.replace("\t", " ").replace("\n", " ")))
if "broken-link" in states:
    for b in report.get("broken_links", []):
        print("%s:%s\tbroken-link\t%s" % (b.get("doc"), b.get("line"), b.get("message", "")))
' "$states") || { echo "knit stop hook: cannot read the output of knit check" >&2; exit 1; }
  fi
else
  report=$("$knit" check --changed --format human 2>"$errfile")
  code=$?
  if [ "$code" -eq 1 ]; then
    alternatives=$(printf '%s' "$states" | sed 's/[^A-Za-z,-]//g; s/,/|/g')
    findings=$(printf '%s\n' "$report" | sed -n -E "s/^(.+:[0-9]+) +($alternatives) +(.*)$/\\1	\\2	\\3/p")
  fi
fi

case "$code" in
  0) rm -f "$counter"; exit 0 ;;
  1) ;;
  *)
    echo "knit stop hook: \`knit check --changed\` failed (exit $code): $(cat "$errfile")" >&2
    exit 1
    ;;
esac

if [ -z "$findings" ]; then
  rm -f "$counter"
  exit 0
fi

count=$(printf '%s\n' "$findings" | wc -l | tr -d ' ')
blocks=0
[ -f "$counter" ] && blocks=$(cat "$counter" 2>/dev/null | tr -cd '0-9')
blocks=${blocks:-0}
if [ "$blocks" -ge "$max_blocks" ]; then
  rm -f "$counter"
  echo "knit: $count doc line(s) still describe changed code that no longer matches them, after $blocks reminders; letting the session stop. Run \`knit check --changed\` to see them." >&2
  exit 1
fi
echo $((blocks + 1)) >"$counter"

lines=$(printf '%s\n' "$findings" | cut -f1 | tr '\n' ' ')
{
  echo "knit: $count doc line(s) describe code changed in this working tree and no longer match it:"
  printf '%s\n' "$findings" | while IFS='	' read -r where state message; do
    echo "  $where  $state  $message"
  done
  echo "Before stopping, fix each of these doc lines:"
  echo "- stale: the code changed since the doc was reviewed. Read the code, update the sentence so it describes the code as it is now, then record the review with \`knit anchors confirm ${lines% }\` (confirming alone is right when the doc is still true as written)."
  echo "- lost: the anchored declaration is gone. Point the link at where the behaviour lives now (then confirm), or remove the anchor and rewrite the sentence."
  echo "Check again with \`knit check --changed\`."
} >&2
exit 2
