#!/usr/bin/env python3
"""Anchors for the Rust, Python and Go formatter sweeps, found without knit.

usage: enumerate_other.py LANG WORKSPACE SRC_DIR...   (LANG: rust | python | go)

Writes WORKSPACE/docs/<src dir name>.md with one anchor per declaration it finds and
prints the anchors as JSON ([{doc, line, path, fragment, kind}], the shape analyze.js
reads). Declarations are found independently of knit — Python's own `ast`, and for Rust
and Go the items a formatter cannot move between scopes (items at column 0, methods of
`impl`/receiver blocks) — and a name that occurs twice in a file is left out, so every
fragment designates one declaration.
"""
import ast
import json
import os
import re
import sys

RUST_ITEM = re.compile(r"^(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?(fn|struct|enum|trait)\s+([A-Za-z_]\w*)")
RUST_IMPL = re.compile(r"^impl(?:<.*?>)?\s+(?:.+?\s+for\s+)?(?:[\w:]+::)?([A-Za-z_]\w*)")
RUST_METHOD = re.compile(r"^    (?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+([A-Za-z_]\w*)")
GO_FUNC = re.compile(r"^func\s+([A-Za-z_]\w*)\s*[\[(]")
GO_METHOD = re.compile(r"^func\s+\(\s*\w*\s*\*?\s*([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*([A-Za-z_]\w*)\s*\(")
GO_TYPE = re.compile(r"^type\s+([A-Za-z_]\w*)\s+(struct|interface)\b")


def rust_decls(text):
    out = []
    impl = None
    for line in text.split("\n"):
        if line.startswith("}"):
            impl = None
        m = RUST_ITEM.match(line)
        if m:
            out.append((m.group(2), "function" if m.group(1) == "fn" else m.group(1)))
            continue
        m = RUST_IMPL.match(line)
        if m and line.rstrip().endswith("{"):
            impl = m.group(1)
            continue
        m = RUST_METHOD.match(line)
        if m and impl:
            out.append((f"{impl}.{m.group(1)}", "method"))
    return out


def python_decls(text):
    out = []
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return out
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((node.name, "function"))
        elif isinstance(node, ast.ClassDef):
            out.append((node.name, "class"))
            for m in node.body:
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.append((f"{node.name}.{m.name}", "method"))
    return out


def go_decls(text):
    out = []
    for line in text.split("\n"):
        m = GO_METHOD.match(line)
        if m:
            out.append((f"{m.group(1)}.{m.group(2)}", "method"))
            continue
        m = GO_FUNC.match(line)
        if m:
            out.append((m.group(1), "function"))
            continue
        m = GO_TYPE.match(line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


FINDERS = {"rust": (".rs", rust_decls), "python": (".py", python_decls), "go": (".go", go_decls)}


def main():
    lang, ws, dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    ext, find = FINDERS[lang]
    os.makedirs(os.path.join(ws, "docs"), exist_ok=True)
    anchors = []
    for src_dir in dirs:
        doc_rel = f"docs/{os.path.basename(src_dir)}.md"
        lines = [f"# {os.path.basename(src_dir)}", ""]
        files = []
        for root, _, names in os.walk(os.path.join(ws, src_dir)):
            files += [os.path.join(root, n) for n in names if n.endswith(ext)]
        for path in sorted(files):
            rel = os.path.relpath(path, ws)
            with open(path, encoding="utf-8", errors="replace") as f:
                found = find(f.read())
            counts = {}
            for name, _ in found:
                counts[name] = counts.get(name, 0) + 1
            unique = [(n, k) for n, k in found if counts[n] == 1]
            if not unique:
                continue
            lines += [f"## {rel}", ""]
            for name, kind in unique:
                lines.append(f"- [{name}](../{rel}#{name})")
                anchors.append({"doc": doc_rel, "line": len(lines), "path": rel, "fragment": name, "kind": kind})
            lines.append("")
        with open(os.path.join(ws, doc_rel), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    json.dump(anchors, sys.stdout)


if __name__ == "__main__":
    main()
