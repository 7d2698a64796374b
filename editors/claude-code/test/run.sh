#!/usr/bin/env bash
# Tests of the Claude Code plugin: the manifests have the documented shape, and the Stop
# hook blocks (exit 2, doc:line + message on stderr) on stale or lost anchors in changed
# code and passes when clean — against the real `knit` binary in a throwaway git repo.
# Usage: test/run.sh /path/to/knit      Ends with "N passed, N failed".
set -u
KNIT=${1:?usage: run.sh /path/to/knit}
KNIT=$(cd "$(dirname "$KNIT")" && pwd)/$(basename "$KNIT")
HERE=$(cd "$(dirname "$0")/.." && pwd)
HOOK="$HERE/hooks/stop-check.sh"
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/    # /'; }

# ---- manifests ---------------------------------------------------------------------
if out=$(python3 - "$HERE" <<'PY' 2>&1
import json, os, re, sys
root = sys.argv[1]
def load(rel):
    with open(os.path.join(root, rel)) as f:
        return json.load(f)
errors = []
def need(cond, msg):
    if not cond:
        errors.append(msg)

m = load(".claude-plugin/plugin.json")
need(isinstance(m.get("name"), str) and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", m["name"]), "plugin.json: name must be kebab-case")
need(re.fullmatch(r"\d+\.\d+\.\d+", m.get("version", "")), "plugin.json: version must be semver")
need(isinstance(m.get("description"), str) and m["description"], "plugin.json: description")
need(isinstance(m.get("author"), dict) and isinstance(m["author"].get("name"), str), "plugin.json: author.name")
known = {"name", "version", "description", "author", "homepage", "repository", "license", "keywords",
         "commands", "agents", "skills", "hooks", "mcpServers", "lspServers", "outputStyles"}
need(not (set(m) - known), "plugin.json: unknown keys %s" % sorted(set(m) - known))

lsp = load(".lsp.json")
need(set(lsp) == {"knit"}, ".lsp.json: one server named knit")
srv = lsp.get("knit", {})
need(srv.get("command") == "knit" and srv.get("args") == ["lsp"], ".lsp.json: command knit, args [lsp]")
ext = srv.get("extensionToLanguage", {})
# Markdown and every extension knit reads code from, with its LSP language id: Claude Code
# sends knit only the files whose extension is listed here.
want = {".md": "markdown", ".markdown": "markdown",
        ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
        ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
        ".swift": "swift", ".rs": "rust", ".py": "python", ".pyi": "python", ".go": "go",
        ".kt": "kotlin", ".kts": "kotlin"}
for e, lang in want.items():
    need(ext.get(e) == lang, ".lsp.json: %s -> %s" % (e, lang))
need(not (set(ext) - set(want)), ".lsp.json: extensions knit does not read: %s" % sorted(set(ext) - set(want)))
need(all(k.startswith(".") and isinstance(v, str) and v for k, v in ext.items()), ".lsp.json: keys are .ext, values language ids")
# The table above against the server's own list (the `extensions` of each language in
# knit-syntax), so a language added to knit cannot be forgotten here.
lang_dir = os.path.join(root, "..", "..", "server", "knit-syntax", "src", "lang")
if os.path.isdir(lang_dir):
    read = set()
    for name in os.listdir(lang_dir):
        with open(os.path.join(lang_dir, name)) as f:
            src = f.read()
        # Each language's descriptor value: `extensions: &["ts", "mts", "cts"],`.
        for body in re.findall(r"\bextensions: &\[(.*?)\]", src, re.S):
            read |= {"." + e for e in re.findall(r'"([A-Za-z0-9]+)"', body)}
    code = set(want) - {".md", ".markdown"}
    need(read == code, ".lsp.json vs knit-syntax: knit reads %s, the test table has %s" % (sorted(read), sorted(code)))

hooks = load("hooks/hooks.json")["hooks"]
stop = hooks.get("Stop")
need(isinstance(stop, list) and len(stop) == 1, "hooks.json: one Stop entry")
cmds = [h for e in stop or [] for h in e.get("hooks", [])]
need(len(cmds) == 1 and cmds[0].get("type") == "command", "hooks.json: one command hook")
cmd = cmds[0].get("command", "") if cmds else ""
need("${CLAUDE_PLUGIN_ROOT}/hooks/stop-check.sh" in cmd, "hooks.json: command runs ${CLAUDE_PLUGIN_ROOT}/hooks/stop-check.sh")
script = os.path.join(root, "hooks/stop-check.sh")
need(os.access(script, os.X_OK), "hooks/stop-check.sh is executable")
need(isinstance(cmds[0].get("timeout", 60) if cmds else 0, int), "hooks.json: timeout is an integer")

mcp = load(".mcp.json")["mcpServers"]["knit"]
need(mcp == {"command": "knit", "args": ["mcp"]}, ".mcp.json: knit mcp")

mk = load("../.claude-plugin/marketplace.json")
need(isinstance(mk.get("owner", {}).get("name"), str), "marketplace.json: owner.name")
entry = [p for p in mk.get("plugins", []) if p.get("name") == m.get("name")]
need(len(entry) == 1, "marketplace.json lists the plugin")
if entry:
    src = os.path.normpath(os.path.join(root, "..", entry[0]["source"]))
    need(src == os.path.normpath(root), "marketplace.json: source points at the plugin folder")
if errors:
    print("\n".join(errors))
    sys.exit(1)
PY
); then ok "plugin manifests have the documented shape"; else not_ok "plugin manifests have the documented shape" "$out"; fi

# ---- the Stop hook against the real knit --------------------------------------------
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export KNIT_CACHE_DIR="$TMP/cache" KNIT_STATE_DIR="$TMP/state" TMPDIR="$TMP"
REPO="$TMP/repo"
mkdir -p "$REPO/src" "$REPO/docs"
cat >"$REPO/src/price.ts" <<'TS'
export function discount(total: number, rate: number): number {
  const cut = total * rate;
  if (cut > total) {
    return 0;
  }
  return total - cut;
}

export function unrelated(a: number): number {
  return a + 1;
}
TS
cat >"$REPO/src/other.ts" <<'TS'
export const answer = 42;
TS
cat >"$REPO/docs/pricing.md" <<'MD'
# Pricing

The [discount](../src/price.ts#discount) never goes below zero.
MD
g() { git -C "$REPO" -c user.name=t -c user.email=t@example.com "$@" >/dev/null 2>&1; }
g init -q
"$KNIT" --root "$REPO" anchors record >/dev/null 2>&1 || not_ok "knit anchors record" "$("$KNIT" --root "$REPO" anchors record 2>&1)"
grep -q '"knit:' "$REPO/docs/pricing.md" || not_ok "the doc got a baseline" "$(cat "$REPO/docs/pricing.md")"
g add -A
g commit -q -m base

hook() { # hook STDIN-JSON -> sets $code and $err
  err=$(printf '%s' "$1" | CLAUDE_PROJECT_DIR="$REPO" KNIT_BIN="$KNIT" "$HOOK" 2>&1 >/dev/null)
  code=$?
}
input='{"session_id":"s1","transcript_path":"/dev/null","cwd":"'"$REPO"'","hook_event_name":"Stop","stop_hook_active":false}'
again='{"session_id":"s1","transcript_path":"/dev/null","cwd":"'"$REPO"'","hook_event_name":"Stop","stop_hook_active":true}'

hook "$input"
if [ "$code" = 0 ]; then ok "passes on a clean tree"; else not_ok "passes on a clean tree (exit $code)" "$err"; fi

echo 'export const answer = 43;' >"$REPO/src/other.ts"
hook "$input"
if [ "$code" = 0 ]; then ok "passes when the changed code is not anchored"; else not_ok "passes when the changed code is not anchored (exit $code)" "$err"; fi

sed -i 's/cut > total/cut >= total/' "$REPO/src/price.ts"
for parser in python3 human; do
  err=$(printf '%s' "$input" | CLAUDE_PROJECT_DIR="$REPO" KNIT_BIN="$KNIT" KNIT_HOOK_PARSER=$parser "$HOOK" 2>&1 >/dev/null)
  code=$?
  if [ "$code" = 2 ] && printf '%s' "$err" | grep -q 'docs/pricing.md:3  stale' && printf '%s' "$err" | grep -q 'knit anchors confirm docs/pricing.md:3'; then
    ok "blocks (exit 2) on a stale anchor of changed code, doc:line on stderr ($parser)"
  else
    not_ok "blocks (exit 2) on a stale anchor of changed code ($parser, exit $code)" "$err"
  fi
done

# the cwd from the hook input is enough when CLAUDE_PROJECT_DIR is not set
err=$(printf '%s' "$input" | (cd / && env -u CLAUDE_PROJECT_DIR KNIT_BIN="$KNIT" "$HOOK") 2>&1 >/dev/null)
code=$?
if [ "$code" = 2 ]; then ok "finds the project from the hook input's cwd"; else not_ok "finds the project from the hook input's cwd (exit $code)" "$err"; fi

# loop guard: consecutive blocks are capped, then the stop is let through (non-blocking)
rm -f "$TMP"/knit-stop-hook-s1.count
hook "$input"; c1=$code
hook "$again"; c2=$code
hook "$again"; c3=$code
hook "$again"; c4=$code
if [ "$c1$c2$c3$c4" = 2221 ] && printf '%s' "$err" | grep -q 'after 3 reminders'; then
  ok "caps consecutive blocks (2,2,2 then 1)"
else
  not_ok "caps consecutive blocks (got $c1,$c2,$c3,$c4)" "$err"
fi

# confirming the reviewed doc line clears it
"$KNIT" --root "$REPO" anchors confirm "$REPO/docs/pricing.md:3" >/dev/null 2>&1
hook "$input"
if [ "$code" = 0 ]; then ok "passes after the doc line is confirmed"; else not_ok "passes after the doc line is confirmed (exit $code)" "$err"; fi

# a deleted declaration is lost
g add -A
g commit -q -m reviewed
cat >"$REPO/src/price.ts" <<'TS'
export function unrelated(a: number): number {
  return a + 1;
}
TS
hook "$input"
if [ "$code" = 2 ] && printf '%s' "$err" | grep -q 'docs/pricing.md:3  lost'; then ok "blocks on a lost anchor"; else not_ok "blocks on a lost anchor (exit $code)" "$err"; fi
KNIT_STOP_STATES=stale hook "$input"
if [ "$code" = 0 ]; then ok "KNIT_STOP_STATES narrows what blocks"; else not_ok "KNIT_STOP_STATES narrows what blocks (exit $code)" "$err"; fi

# problems of the hook itself never block
err=$(printf '%s' "$input" | CLAUDE_PROJECT_DIR="$REPO" KNIT_BIN="$TMP/no-such-knit" "$HOOK" 2>&1 >/dev/null)
code=$?
if [ "$code" = 1 ] && printf '%s' "$err" | grep -q 'cargo install --locked --path server/knit-cli'; then ok "a missing knit is a non-blocking error with the install command"; else not_ok "a missing knit is a non-blocking error (exit $code)" "$err"; fi
mkdir -p "$TMP/plain"
err=$(printf '%s' "$input" | CLAUDE_PROJECT_DIR="$TMP/plain" KNIT_BIN="$KNIT" "$HOOK" 2>&1 >/dev/null)
code=$?
if [ "$code" = 0 ]; then ok "passes outside a git work tree"; else not_ok "passes outside a git work tree (exit $code)" "$err"; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
