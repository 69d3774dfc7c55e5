#!/usr/bin/env python3
"""Checks the project's per-op lists against the op registry, so that none can drift.

    check_op_lists.py --cli build/cli/aclnn-conform --root . lists
    check_op_lists.py --cli ... --root . impl-names
    check_op_lists.py --cli ... --root . sizes

The registry is `aclnn-conform list ops` (properties/registry.cpp). The checks:
- lists: every file of tests/lists/op_lists.json names every registry op in each of its forms,
  unless the op is excluded there with a reason (an exclusion of an op the registry does not have
  fails too); every file under the manifest's scanned folders that names three ops or more is in
  the manifest (lists, derived or not_lists).
- impl-names: no file of impl/ outside an op's own files (impl/<op>.cpp,
  impl/kernels/<op>-inl.hpp and the parts it includes, impl/kernels/<op>_<part>-inl.hpp, and
  where its tests need the kernels' declarations, impl/kernels/<op>.hpp) names an op (its registry
  name, ABI name, snake-case name, or either without the Backward/Grad/V2 suffix;
  case-insensitive).
- sizes: no source file of impl/ is longer than 600 lines, of campaign/ or cli/ 500.
Exit 0 when every check passes, 1 with one line per failure otherwise.
"""
import argparse
import glob
import json
import re
import subprocess
import sys
from pathlib import Path


def registry(cli):
    """(name, abi name) of every op, in the registry's order."""
    out = subprocess.run([cli, "list", "ops"], check=True, capture_output=True, text=True).stdout
    ops = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].startswith("aclnn"):
            ops.append((parts[0], parts[1]))
    if not ops:
        sys.exit(f"check_op_lists: `{cli} list ops` listed no op")
    return ops


def snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def form_pattern(form, name, abi):
    if form == "name":
        return re.compile(r"(?<![A-Za-z0-9_])" + name + r"(?![A-Za-z0-9])")
    if form == "abi":
        return re.compile(re.escape(abi + "GetWorkspaceSize"))
    if form == "snake":
        return re.compile(r"(?<![a-z0-9])" + snake(name) + r"(?![a-z0-9_])")
    if form == "accessor":
        return re.compile(r"(?<![a-z0-9_])" + snake(name) + r"_op\(\)")
    if form == "def":
        return re.compile(r"^def " + snake(name) + r"\(", re.MULTILINE)
    sys.exit(f"check_op_lists: unknown form {form!r}")


def read(path):
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def own_file(path, ops):
    """An op's own file: <op>.cpp, test_<op>.cpp, kernels/<op>-inl.hpp (a fuzz target, a test, a
    kernel of one op), which may name related ops (a V2) without being a list."""
    stem = re.sub(r"^test_|-inl$", "", path.name.split(".")[0])
    return stem in {snake(n) for n, _ in ops}


def check_lists(root, ops, manifest):
    failures = []
    names = {n for n, _ in ops}
    listed = set()
    for entry in manifest["lists"]:
        files = sorted({p for g in entry["files"] for p in glob.glob(str(root / g))})
        if not files:
            failures.append(f"{entry['files']}: no such file")
            continue
        exclude = entry.get("exclude", {})
        for op in exclude:
            if op not in names:
                failures.append(f"{entry['files']}: excludes {op}, which the registry does not have")
        groups = [files] if entry.get("together") else [[f] for f in files]
        for group in groups:
            text = "\n".join(read(Path(f)) or "" for f in group)
            where = ", ".join(str(Path(f).relative_to(root)) for f in group)
            for name, abi in ops:
                if name in exclude:
                    continue
                for form in entry["forms"]:
                    if not form_pattern(form, name, abi).search(text):
                        failures.append(f"{where}: does not name {name} ({form} form); add it, or "
                                        f"exclude it with a reason in tests/lists/op_lists.json")
        listed.update(str(Path(f).relative_to(root)) for f in files)
    known = listed | set(manifest.get("derived", {})) | set(manifest.get("not_lists", {}))
    for rel in list(manifest.get("derived", {})) + list(manifest.get("not_lists", {})):
        if not (root / rel).exists():
            failures.append(f"{rel}: in tests/lists/op_lists.json but no such file")
    # Lists nobody registered: files naming three ops or more.
    patterns = [[form_pattern(f, n, a) for f in ("name", "abi", "snake", "accessor")]
                for n, a in ops]
    for scan in manifest["scan"]:
        base = root / scan
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for p in paths:
            rel = str(p.relative_to(root))
            if rel in known or "/corpus/" in rel or "/catalog/" in rel or own_file(p, ops):
                continue
            text = read(p)
            if text is None:
                continue
            hits = sum(any(pat.search(text) for pat in pats) for pats in patterns)
            if hits >= 3:
                failures.append(f"{rel}: names {hits} ops but is not in tests/lists/op_lists.json "
                                "(a list to check, derived, or not a list, with the reason)")
    failures += check_doc_count(root, manifest)
    return failures


def check_doc_count(root, manifest):
    """The "lists to extend" row of the how-to names every list and counts the files a new op
    edits: each explicit file once (a file in two entries is one edit), one per `together` glob
    (the op goes in one of its files)."""
    doc = manifest.get("doc")
    if not doc:
        return []
    text = read(root / doc["file"]) or ""
    row = next((line for line in text.splitlines()
                if line.startswith("| " + doc["row"] + " |")), None)
    if row is None:
        return [f"{doc['file']}: no row \"| {doc['row']} | N, ...\" (tests/lists/op_lists.json)"]
    m = re.match(r"\| " + re.escape(doc["row"]) + r" \| (\d+)\b", row)
    explicit, globs = [], []
    for entry in manifest["lists"]:
        for f in entry["files"]:
            if entry.get("together"):
                globs.append(f)
            elif f not in explicit:
                explicit.append(f)
    failures = []
    count = len(explicit) + len(globs)
    if not m or int(m.group(1)) != count:
        failures.append(f"{doc['file']}: the \"{doc['row']}\" row says "
                        f"{m.group(1) if m else 'no number'}; tests/lists/op_lists.json has {count}")
    for f in explicit + globs:
        if f"`{f}`" not in row:
            failures.append(f"{doc['file']}: the \"{doc['row']}\" row does not name `{f}`")
    return failures


def check_impl_names(root, ops):
    failures = []
    impl = root / "impl"
    own = set()
    forms = set()
    for name, abi in ops:
        own.add(impl / f"{snake(name)}.cpp")
        own.add(impl / "kernels" / f"{snake(name)}-inl.hpp")
        own.add(impl / "kernels" / f"{snake(name)}.hpp")
        stem = re.sub(r"(Backward|Grad)$", "", re.sub(r"V\d+$", "", name))
        forms.update({name, abi, snake(name), stem, snake(stem)})
    pattern = re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)),
                         re.IGNORECASE)
    # An op's kernel split into parts for the size cap: kernels/<op>_<part>-inl.hpp.
    snakes = "|".join(re.escape(snake(n)) for n, _ in ops)
    part = re.compile(rf"({snakes})_[a-z0-9_]+-inl\.hpp")
    for p in sorted(q for q in impl.rglob("*") if q.is_file()):
        if p in own or (p.parent == impl / "kernels" and part.fullmatch(p.name)):
            continue
        for k, line in enumerate((read(p) or "").splitlines(), 1):
            m = pattern.search(line)
            if m:
                failures.append(f"{p.relative_to(root)}:{k}: names an op ({m.group(0)!r}); only "
                                "impl/<op>.cpp and impl/kernels/<op>.hpp, <op>-inl.hpp, "
                                "<op>_<part>-inl.hpp may")
    return failures


# The size caps of the structure issue: an op's kernel file may reach about 600 lines, a unit of
# the campaign or the command line 500 (each with one concern).
SIZE_CAPS = {"impl": 600, "campaign": 500, "cli": 500}


def check_sizes(root, caps):
    failures = []
    for folder, max_lines in caps.items():
        for p in sorted((root / folder).rglob("*")):
            if p.suffix in (".cpp", ".hpp", ".h", ".cc") and p.is_file():
                n = len((read(p) or "").splitlines())
                if n > max_lines:
                    failures.append(f"{p.relative_to(root)}: {n} lines, more than {max_lines}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", required=True, help="the aclnn-conform executable")
    ap.add_argument("--root", required=True, help="the source tree")
    ap.add_argument("--manifest", help="default: <root>/tests/lists/op_lists.json")
    ap.add_argument("check", choices=["lists", "impl-names", "sizes"])
    args = ap.parse_args()
    root = Path(args.root).resolve()
    ops = registry(args.cli)
    if args.check == "lists":
        manifest = json.loads(Path(args.manifest or root / "tests/lists/op_lists.json").read_text())
        failures = check_lists(root, ops, manifest)
    elif args.check == "impl-names":
        failures = check_impl_names(root, ops)
    else:
        failures = check_sizes(root, SIZE_CAPS)
    for f in failures:
        print(f)
    print(f"{args.check}: {len(ops)} registry ops, "
          + ("all good" if not failures else f"{len(failures)} failure(s)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
