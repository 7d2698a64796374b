"""The shipped Helix languages.toml parses, starts `knit lsp`, sends the documented
config, and attaches knit to Markdown (next to marksman) and to every code language knit
reads, after Helix's default servers for it (a `language-servers` list replaces the
default one, so dropping one would turn it off). Prints one line per check and
`N passed, N failed`; exits non-zero on failure."""
import pathlib
import sys
import tomllib

path = pathlib.Path(__file__).resolve().parent.parent / "languages.toml"
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print(f"ok - {name}")
    else:
        failed += 1
        print(f"not ok - {name} {detail}")


try:
    data = tomllib.loads(path.read_text())
except Exception as e:  # a syntax error is the first thing this test must catch
    check("languages.toml parses", False, repr(e))
    print(f"{passed} passed, {failed} failed")
    sys.exit(1)
check("languages.toml parses", True)

server = data.get("language-server", {}).get("knit", {})
check("knit server runs `knit lsp`", server.get("command") == "knit" and server.get("args") == ["lsp"], repr(server))
check("config asks for workspace diagnostics", server.get("config") == {"diagnostics": {"workspace": True}}, repr(server.get("config")))

langs = {l["name"]: [s if isinstance(s, str) else s.get("name") for s in l.get("language-servers", [])] for l in data.get("language", [])}
# Helix's default servers (its languages.toml, 25.07) for every language knit reads.
defaults = {
    "markdown": ["marksman"],
    "typescript": ["typescript-language-server"],
    "tsx": ["typescript-language-server"],
    "javascript": ["typescript-language-server"],
    "jsx": ["typescript-language-server"],
    "swift": ["sourcekit-lsp"],
    "rust": ["rust-analyzer"],
    "python": ["ty", "ruff", "jedi", "pylsp"],
    "go": ["gopls", "golangci-lint-lsp"],
    "kotlin": ["kotlin-language-server"],
}
for lang, default in defaults.items():
    servers = langs.get(lang, [])
    check(f"{lang}: knit attached", "knit" in servers, repr(servers))
    check(f"{lang}: keeps {', '.join(default)}", all(d in servers for d in default), repr(servers))
    if lang != "markdown":
        check(f"{lang}: Helix's default servers first, in their order, knit last", servers == default + ["knit"], repr(servers))
check("markdown: knit answers hover/definition first", langs.get("markdown", [])[:1] == ["knit"])
unknown = set(langs) - set(defaults)
check("no other languages touched", not unknown, repr(unknown))

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
