#!/usr/bin/env python3
"""The control of the Rust, Python and Go sweeps: one behavioural edit to a function.

usage: control_edit_other.py LANG FILE NAME   (NAME: `f` or `Type.f`)

Inserts a statement as the first line of the function's body (`let _knit_control = 0;`,
`_knit_control = 0`, `_ = 0`), which must turn its anchor stale and no other.
"""
import re
import sys

lang, path, name = sys.argv[1], sys.argv[2], sys.argv[3]
simple = name.split(".")[-1]
with open(path, encoding="utf-8") as f:
    lines = f.read().split("\n")
head = {"rust": rf"^\s*(pub(\([^)]*\))?\s+)?(const\s+|async\s+|unsafe\s+)*fn\s+{simple}\b",
        "python": rf"^\s*(async\s+)?def\s+{simple}\s*\(",
        "go": rf"^func\s+(\([^)]*\)\s*)?{simple}\s*[\[(]"}[lang]
start = next(i for i, l in enumerate(lines) if re.match(head, l))
if lang == "python":
    end = next(i for i in range(start, len(lines)) if re.sub(r"#.*$", "", lines[i]).rstrip().endswith(":"))
    body = next(i for i in range(end + 1, len(lines)) if lines[i].strip())
    indent = lines[body][: len(lines[body]) - len(lines[body].lstrip())]
    lines.insert(body, f"{indent}_knit_control = 0")
else:
    stmt = "let _knit_control = 0;" if lang == "rust" else "_ = 0;"
    line = lines[start]
    if "{" in line and line.rstrip().endswith("}"):
        # a one-line function: the statement goes after its opening brace
        at = line.index("{", line.index(simple)) + 1
        lines[start] = f"{line[:at]} {stmt}{line[at:]}"
    else:
        end = next(i for i in range(start, len(lines)) if lines[i].rstrip().endswith("{"))
        lines.insert(end + 1, stmt)
with open(path, "w", encoding="utf-8") as f:
    f.write("\n".join(lines))
