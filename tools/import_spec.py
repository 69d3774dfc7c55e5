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
    """The file's clauses, and its variant paragraphs: a bullet that is no clause but names
    variants (the text of the bullet and its continuation lines, joined)."""
    section = ""
    current = None
    paragraph = None
    clauses, paragraphs = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        m = CLAUSE.match(line)
        if m:
            if current:
                clauses.append(current)
            current = {"id": m.group(1), "op": op, "section": section, "text": m.group(2)}
            paragraph = None
            continue
        if current and (line.startswith("  ") or (line.strip() and not line.startswith(("-", "#", "`")))):
            current["text"] += " " + line.strip()
        elif current and (not line.strip() or line.startswith(("-", "#"))):
            clauses.append(current)
            current = None
        if current is None:
            if line.startswith("- "):
                paragraph = [line[2:].strip()]
                paragraphs.append(paragraph)
            elif paragraph is not None and line.startswith("  "):
                paragraph.append(line.strip())
            else:
                paragraph = None
    if current:
        clauses.append(current)
    texts = [" ".join(" ".join(p).split()) for p in paragraphs]
    return clauses, [t for t in texts if VARIANT.search(t)]


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


CLAUSE_ID = re.compile(r"\b[A-Z]+(?:-[A-Z0-9]+)+-[0-9]+\b")


def attach_paragraph_variants(paragraph, clauses):
    """A paragraph's variants, each added to the clauses it overrides: those whose IDs its text
    names; for a variant that names none, those whose condition its text names: a clause "S is P:
    ..." (e.g. "x is NaN or +-inf") for the words "P S" ("NaN x")."""
    found = list(VARIANT.finditer(paragraph))
    for k, m in enumerate(found):
        end = found[k + 1].start() if k + 1 < len(found) else len(paragraph)
        text = paragraph[m.end():end]
        desc = text.replace("**", "").strip().lstrip(":").strip()
        ids = set(CLAUSE_ID.findall(text))
        for c in clauses:
            if ids:
                hit = c["id"] in ids
            else:
                cond = re.match(r"(\S+) is ([^\s:,.]+)", c["text"])
                hit = bool(cond) and re.search(
                    r"(?<!\S)" + re.escape(cond.group(2)) + r" " + re.escape(cond.group(1)) +
                    r"(?![\w])", text) is not None
            if hit:
                c["variants"].append({"name": m.group(1), "text": desc})


def main():
    root = Path(sys.argv[1])
    out = []
    for name, op in spec_files(root).items():
        clauses, paragraphs = clauses_of(root / name, op)
        clauses = [finish(c) for c in clauses]
        # Variants named in a paragraph of their own rather than under a clause.
        for paragraph in paragraphs:
            attach_paragraph_variants(paragraph, clauses)
        out.extend(clauses)
    json.dump({"schema": 1, "source": "shared/spec (transcribed by tools/import_spec.py)",
               "clauses": out}, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
