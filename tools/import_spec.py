#!/usr/bin/env python3
"""Transcribes the numbered clauses of the specification of record into spec/clauses.json.

Run by hand when the specification changes (the build never reads the specification itself):
    python3 tools/import_spec.py ../shared/spec > spec/clauses.json
Each clause keeps its ID, op, kind (error, value or rule), status code where the text gives one,
whether it is a project rule, its full text, and the variants it names with their text.
"""
import json
import re
import sys
from pathlib import Path

def spec_files(root):
    """The specification's files in its own order, each with its catalogue op: README.md holds the
    shared ("common") rules and names the op files in a "Files:" sentence; an op's name is its
    file's stem in CamelCase (grouped_bias_add_grad.md -> GroupedBiasAddGrad). A new op therefore
    needs no edit here; tests/properties/test_registry.cpp checks the catalogue against the op
    registry."""
    readme = (root / "README.md").read_text(encoding="utf-8")
    m = re.search(r"Files:(.*?)\.\s", readme, re.S)
    if not m:
        sys.exit("import_spec: no 'Files:' sentence in README.md naming the op files")
    files = re.findall(r"`([a-z0-9_]+\.md)`", m.group(1))
    if not files:
        sys.exit("import_spec: the 'Files:' sentence of README.md names no .md file")
    ops = {"README.md": "common"}
    for name in files:
        ops[name] = "".join(w.capitalize() for w in name[:-3].split("_"))
    return ops
CLAUSE = re.compile(r"^- `([A-Z]+(?:-[A-Z0-9]+)+-[0-9]+)`\s*(.*)$")
VARIANT = re.compile(r"\*\*variant\*\*\s*`([a-z0-9-]+)`")


def clauses_of(path, op):
    section = ""
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        m = CLAUSE.match(line)
        if m:
            if current:
                yield current
            current = {"id": m.group(1), "op": op, "section": section, "text": m.group(2)}
            continue
        if current and (line.startswith("  ") or (line.strip() and not line.startswith(("-", "#", "`")))):
            current["text"] += " " + line.strip()
        elif current and (not line.strip() or line.startswith(("-", "#"))):
            yield current
            current = None
    if current:
        yield current


def finish(c):
    text = " ".join(c["text"].split())
    main, *variant_parts = re.split(r"(?=\*\*variant\*\*)", text)
    c["text"] = main.strip()
    c["project"] = "*(project)*" in text
    codes = re.findall(r"\b(161001|161002|361001)\b", main)
    c["status"] = int(codes[0]) if codes and c["section"].startswith("Errors") else None
    if c["section"].startswith("Errors") and c["status"] is None:
        c["kind"] = "success"  # e.g. GELU-EMPTY-1: listed with the errors, says what succeeds
    elif c["section"].startswith("Errors"):
        c["kind"] = "error"
    elif c["section"].startswith("Values"):
        c["kind"] = "value"
    else:
        c["kind"] = "rule"
    c["variants"] = []
    for part in variant_parts:
        m = VARIANT.search(part)
        if m:
            desc = part[m.end():].strip().lstrip(":").strip()
            c["variants"].append({"name": m.group(1), "text": desc})
    return c


def main():
    root = Path(sys.argv[1])
    out = []
    for name, op in spec_files(root).items():
        for c in clauses_of(root / name, op):
            out.append(finish(c))
    # LogitGrad names two variants in a paragraph of their own rather than under a clause: attach
    # each to the clauses its text says it overrides.
    text = (root / "logit_grad.md").read_text(encoding="utf-8")
    para = text[text.index("The variants, which every known implementation follows"):]
    para = " ".join(para.split())
    overrides = {
        "range-rule": ["LOGIT-EPS-GT1-1", "LOGIT-EPS-EQ1-1", "LOGIT-X-NONFINITE-1",
                       "LOGIT-DY-NONFINITE-1"],
        "kernel-nan-x": ["LOGIT-X-NONFINITE-1", "LOGIT-EPS-NAN-1"],
    }
    for m in VARIANT.finditer(para):
        name = m.group(1)
        rest = para[m.end():]
        nxt = VARIANT.search(rest)
        desc = (rest[:nxt.start()] if nxt else rest).split(" - eps is carried")[0]
        desc = desc.replace("**", "").strip().lstrip(":").strip()
        for c in out:
            if c["id"] in overrides.get(name, []):
                c["variants"].append({"name": name, "text": desc})
    json.dump({"schema": 1, "source": "shared/spec (transcribed by tools/import_spec.py)",
               "clauses": out}, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
