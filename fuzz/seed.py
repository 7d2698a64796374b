#!/usr/bin/env python3
"""Writes the seed corpora of knit's fuzz targets into <OUT>/<target>/seed-* (default
OUT: fuzz/corpus), from the repository's fixtures: docs, sources of every language, anchor cases (doc + source),
LSP sessions over fixtures/lsp/basic, MCP sessions over fixtures/example, and context
packs (fuzz/src/pack.rs) over fixture files written beside fixtures/example.

Deterministic (same fixtures, same seeds) and small: at most PER_TARGET files per target,
each at most MAX_BYTES. Run it after changing fixtures; the fuzzers' own corpus entries
(hash names) are not committed, and neither are the seeds: they are copies of fixtures,
made where they are needed (fuzz/run.sh before fuzzing, tests/fuzz_replay.rs before
replaying).

Usage: fuzz/seed.py [OUT]
"""
import hashlib
import json
import os
import re
import sys
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
ROOT = FUZZ.parent
FIX = ROOT / "fixtures"
PER_TARGET = 64
MAX_BYTES = 16 << 10
# The byte that selects a language in the `syntax` and `check` targets (fuzz/src/common.rs).
LANGS = {"ts": 0, "tsx": 1, "swift": 2, "js": 3, "rs": 4, "py": 5, "go": 6, "kt": 7}
LSP_ROOT = "file:///tmp/knit-fuzz-lsp/ws"


def files(pattern, under=FIX):
    return sorted(p for p in under.rglob(pattern) if p.is_file() and p.stat().st_size <= MAX_BYTES)


OUT = FUZZ / "corpus"


def write(target, seeds):
    out = OUT / target
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("seed-*"):
        old.unlink()
    seen = set()
    kept = 0
    for name, data in seeds:
        if isinstance(data, str):
            data = data.encode()
        digest = hashlib.sha1(data).hexdigest()
        if digest in seen or len(data) > MAX_BYTES or kept >= PER_TARGET:
            continue
        seen.add(digest)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)[-60:].replace(".md", "-md")
        (out / f"seed-{kept:02}-{safe}").write_bytes(data)
        kept += 1
    if kept == 0:
        sys.exit(f"no seeds for {target}: are the fixtures there?")


def spread(paths, n):
    """n paths spread over the sorted list (not just the first folder)."""
    if len(paths) <= n:
        return paths
    step = len(paths) / n
    return [paths[int(i * step)] for i in range(n)]


def markdown_seeds():
    docs = spread(files("*.md"), PER_TARGET - 4)
    seeds = [(str(p.relative_to(FIX)), p.read_bytes()) for p in docs]
    seeds.append(("ARCHITECTURE", (ROOT / "ARCHITECTURE.md").read_bytes()[:MAX_BYTES]))
    seeds.append(("tricky", "# T\n\n[a](<x y.ts#f> 'knit:1x') [b]: z.ts#L1-L2\n`src/a.ts:3-9`\n\n```\n[no](a.ts#f)\n```\n## T\n# T\n"))
    return seeds


def fragment_seeds():
    text = "\n".join(p.read_text(errors="replace") for p in files("*.md"))
    frags = sorted(set(re.findall(r"\]\([^)#\s]*#([^)\s\"']+)", text)))
    baselines = sorted(set(re.findall(r"knit:([A-Za-z0-9_.-]+)", text)))
    extra = ["function:f~2", "impl:Session~2", "Mixer.blend(first:second:)", "L3-L9", "L12", "get:Cart.total",
             "Reviewed knit:1MHabc by me", 'See [f](a.ts#f "knit:1MHabc_-9") now']
    picked = spread(frags, 28) + spread(baselines, 28) + extra
    return [(f"f{i}", s) for i, s in enumerate(picked)]


def syntax_seeds():
    seeds = []
    for ext, b in LANGS.items():
        for p in spread(files(f"*.{ext}"), 8):
            seeds.append((str(p.relative_to(FIX)), bytes([b]) + p.read_bytes()))
    return seeds


def check_seeds():
    """An anchor case's doc with its first source rewritten to src/a.<ext>, NUL, the source."""
    seeds = []
    # fixtures/anchors also holds the case format's README.md: only folders are groups
    for group in sorted(g for g in (FIX / "anchors").iterdir() if g.is_dir()):
        cases = [c / "before" for c in sorted(group.iterdir()) if (c / "before").is_dir()]
        for before in spread(cases, 6):
            doc = next(iter(files("*.md", before)), None)
            if doc is None:
                continue
            text = doc.read_text(errors="replace")
            for dest in re.findall(r"\]\(([^)#\s]+)#", text):
                ext = dest.rsplit(".", 1)[-1].lower()
                src = (doc.parent / dest).resolve()
                if ext in LANGS and src.is_file():
                    flags = LANGS[ext] | (8 if len(seeds) % 3 == 1 else 0) | (16 if len(seeds) % 5 == 2 else 0)
                    doc_text = text.replace(f"]({dest}", f"](../src/a.{ext}")
                    seeds.append((f"{group.name}-{before.parent.name}", bytes([flags]) + doc_text.encode() + b"\0" + src.read_bytes()))
                    break
    return seeds


def frame(msg):
    body = json.dumps(msg, separators=(",", ":")) if not isinstance(msg, (bytes, str)) else msg
    if isinstance(body, str):
        body = body.encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def lsp_sessions():
    basic = FIX / "lsp" / "basic"
    guide = f"{LSP_ROOT}/docs/guide.md"
    arch = f"{LSP_ROOT}/docs/arch.md"
    cart = f"{LSP_ROOT}/src/cart.ts"
    arch_text = (basic / "docs" / "arch.md").read_text()
    cart_text = (basic / "src" / "cart.ts").read_text()
    pos = {"line": 2, "character": 12}
    td = lambda uri: {"textDocument": {"uri": uri}}
    req = lambda i, m, p: {"jsonrpc": "2.0", "id": i, "method": m, "params": p}
    note = lambda m, p: {"jsonrpc": "2.0", "method": m, "params": p}
    open_arch = note("textDocument/didOpen", {"textDocument": {"uri": arch, "languageId": "markdown", "version": 1, "text": arch_text}})
    open_cart = note("textDocument/didOpen", {"textDocument": {"uri": cart, "languageId": "typescript", "version": 1, "text": cart_text}})
    sessions = {
        "open-hover-definition": [open_arch, req(1, "textDocument/hover", {**td(arch), "position": pos}),
                                  req(2, "textDocument/definition", {**td(arch), "position": pos})],
        "edit-doc": [open_arch, note("textDocument/didChange", {"textDocument": {"uri": arch, "version": 2},
                     "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "text": "[x](../src/cart.ts#Cart.total)\n"}]}),
                     note("textDocument/didSave", td(arch)), note("textDocument/didClose", td(arch))],
        "edit-code": [open_cart, note("textDocument/didChange", {"textDocument": {"uri": cart, "version": 2}, "contentChanges": [{"text": cart_text.replace("0", "1")}]}),
                      req(3, "textDocument/references", {**td(cart), "position": {"line": 1, "character": 14}, "context": {"includeDeclaration": True}}),
                      req(4, "textDocument/codeLens", td(cart))],
        "completion-actions": [open_arch, req(5, "textDocument/completion", {**td(arch), "position": pos}),
                               req(6, "textDocument/codeAction", {**td(arch), "range": {"start": pos, "end": pos}, "context": {"diagnostics": []}})],
        "commands": [req(7, "workspace/executeCommand", {"command": "knit.checkWorkspace", "arguments": []}),
                     req(8, "workspace/executeCommand", {"command": "knit.recordFile", "arguments": [arch]}),
                     req(9, "workspace/executeCommand", {"command": "knit.pin", "arguments": ["src/cart.ts"]})],
        "context-pack": [req(10, "knit/contextPack", {"query": "cart total", "limit": 5}),
                         note("knit/didRead", {"uri": cart}), req(11, "knit/contextPack", {"focus": {"uri": cart, "position": {"line": 3}}})],
        "workspace-events": [note("workspace/didChangeWatchedFiles", {"changes": [{"uri": cart, "type": 2}, {"uri": f"{LSP_ROOT}/docs/new.md", "type": 1}]}),
                             note("workspace/didChangeConfiguration", {"settings": {"knit": {"diagnostics": {"workspace": False}}}}),
                             note("workspace/didChangeWorkspaceFolders", {"event": {"added": [], "removed": [{"uri": LSP_ROOT, "name": "ws"}]}})],
        "cancel-shutdown": [req(12, "workspace/executeCommand", {"command": "knit.checkWorkspace"}), note("$/cancelRequest", {"id": 12}),
                            req(13, "shutdown", None)],
        "malformed": [b"{ this is not json", b'{"jsonrpc":"2.0","id":"x","method":42}', b"", "é".encode("latin-1"),
                      req(14, "knit/noSuchMethod", {}), req(15, "textDocument/hover", {**td("file:///etc/passwd"), "position": {"line": 99999, "character": 99999}})],
        "exit": [note("exit", None)],
    }
    out = []
    for name, msgs in sessions.items():
        out.append((name, b"".join(frame(m) for m in msgs)))
    out.append(("garbage-between-frames", b"junk" + frame(note("initialized", {})) + b"Content-Length: 5\r\n\r\n{}" + b"Content-Length: x\r\n\r\n"))
    out.append(("header-without-end", b"Content-Length: 10\r\n" + b"x" * 9000 + frame(req(16, "textDocument/hover", {**td(arch), "position": pos}))))
    out.append(("oversized", b"Content-Length: 99999999999\r\n\r\n{}"))
    return out


def mcp_seeds():
    line = lambda m: json.dumps(m, separators=(",", ":"))
    req = lambda i, m, p=None: {"jsonrpc": "2.0", "id": i, "method": m, **({"params": p} if p is not None else {})}
    call = lambda i, name, args: req(i, "tools/call", {"name": name, "arguments": args})
    init = req(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}})
    sessions = {
        "handshake": [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}, req(1, "tools/list"), req(2, "ping")],
        "check": [init, call(1, "check_anchors", {}), call(2, "check_anchors", {"paths": ["docs", "file://docs/architecture.md"]})],
        "check-changed": [call(1, "check_anchors", {"changed": True}), call(2, "check_anchors", {"changed": True, "since": "HEAD"}),
                          call(3, "check_anchors", {"changed": True, "since": "HEAD~1^{tree}@{0}"})],
        "check-outside": [call(1, "check_anchors", {"paths": ["../..", "/etc", "docs/../../x"]}), call(2, "check_anchors", {"changed": "yes"})],
        "pack-query": [init, call(1, "context_pack", {"query": "resolve an anchor", "limit": 3})],
        "pack-conversation": [call(1, "context_pack", {"query": ["fix the resolver", "it misses renamed files"], "kinds": ["code"]})],
        "pack-focus-open": [call(1, "context_pack", {"focus": {"uri": "src/resolve.ts", "position": {"line": 4, "character": 2}}, "open": ["src/lang.ts"]})],
        "mark-read": [call(1, "mark_read", {"paths": ["docs/architecture.md", "src/lang.ts"]}), call(2, "context_pack", {"query": "language registry"})],
        "errors": ["{", "[1,2]", "42", line({"jsonrpc": "1.0", "id": 1, "method": "ping"}), line(req(None, "ping")),
                   line(req(3, "tools/call", {"name": 5})), line(req(4, "tools/call", {"name": "nope", "arguments": []})),
                   line({"jsonrpc": "2.0", "id": 5, "result": {}}), "   ", line(req(6, "unknown/method"))],
    }
    out = []
    for name, msgs in sessions.items():
        lines = [m if isinstance(m, str) else line(m) for m in msgs]
        out.append((name, ("\n".join(lines) + "\n").encode()))
    out.append(("crlf-and-binary", b'{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n\xff\xfe\n\n'))
    return out


def pack_seeds():
    """flags, focus pick, cursor line, cursor character, then query NUL (path LF content) NUL …
    flags: 1 query, 2 focus, 4 focus is an open buffer, 8 code only, high nibble the limit."""
    def seed(flags, pick, line, char, query, files):
        body = b"\0".join([query.encode()] + [p.encode() + b"\n" + c for p, c in files])
        return bytes([flags, pick, line, char]) + body

    sources = spread([p for p in files("*") if p.suffix in (".ts", ".md", ".py", ".rs", ".swift", ".go")], 40)
    seeds = []
    for i in range(0, len(sources) - 1, 2):
        a, b = sources[i], sources[i + 1]
        picked = [(f"src/{a.name}", a.read_bytes()[:6000]), (f"docs/{b.name}" if b.suffix == ".md" else f"lib/{b.name}", b.read_bytes()[:6000])]
        words = " ".join(re.findall(r"[A-Za-z_]{4,}", a.read_text(errors="replace"))[:6])
        flags = [1, 2, 3, 6, 7, 0x31, 0x8B, 0xF7][(i // 2) % 8]
        seeds.append((f"{a.stem}-{b.stem}", seed(flags, 0x80 | (i % 7) if i % 3 == 0 else i % 7, i % 12, i % 5, words, picked)))
    seeds.append(("empty-query", seed(1, 0, 0, 0, "", [])))
    seeds.append(("focus-fixture", seed(2, 3, 4, 2, "", [])))
    seeds.append(("hostile-names", seed(7, 9, 1, 0, "resolve anchors", [
        ("../../etc/passwd", b"root:x:0:0"), ("/abs/path.ts", b"export const a = 1\n"), (".git/config", b"[core]\n\tfsmonitor = evil\n"),
        ("src/resolve.ts", b"export function resolve() {}\n"), ("src", b"a file where a folder is"), ("docs/\xff\xfe.md", b"# T\n")])))
    seeds.append(("binary-and-crlf", seed(7, 5, 200, 255, "line\r\nbreaks", [
        ("src/bin.ts", bytes(range(256)) * 4), ("docs/cr.md", b"# CR\rtitle\r\rbody\r"), ("src/crlf.py", b"def f():\r\n    return 1\r\n" * 50)])))
    seeds.append(("long-line", seed(3, 2, 0, 0, "x" * 300, [("src/long.ts", b"const a = '" + b"y" * 12000 + b"'\n")])))
    seeds.append(("knit-toml", seed(1, 0, 0, 0, "resolve", [("knit.toml", b"[context]\nexclude = [\"**\"]\n[check\n")])))
    # a changelog's passage is its newest release, found from its headings
    seeds.append(("changelogs", seed(3, 1, 3, 0, "retry backoff release", [
        ("CHANGELOG.md", b"# Changelog\n\n## [Unreleased]\n\n### Fixed\n\n- retry backoff\n\n## [1.0.0] - 2024-01-01\n\n- retry added\n"),
        ("docs/HISTORY.md", b"TBD\n===\nUnreleased.\n\n* backoff\n\n1.0 (2024)\n==========\n* retry\n"),
        ("NEWS.md", b"## 9.9\n" + b"- retry\n" * 300 + b"```\n## 1.0\n```\n")])))
    return seeds


def main():
    global OUT
    if len(sys.argv) > 1:
        OUT = Path(sys.argv[1])
    write("markdown", markdown_seeds())
    write("fragment_baseline", fragment_seeds())
    write("syntax", syntax_seeds())
    write("check", check_seeds())
    sessions = lsp_sessions()
    write("lsp_framing", sessions)
    write("lsp_session", sessions)
    write("mcp", mcp_seeds())
    write("pack", pack_seeds())


if __name__ == "__main__":
    sys.exit(main())
