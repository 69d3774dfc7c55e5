#!/usr/bin/env python3
"""Mutation measure: runs a conformance campaign against every mutant of mutants/catalog.json
and reports, per mutant, killed or survived, the clause that caught it, and the cases and
seconds to the first kill. Writes <out>/summary.json and the table of docs/mutation.md (between
its table markers). See docs/mutation.md.

Exit status: 0 measured (or, with --strict, every mutant killed and the pass-through clean),
1 --strict and a mutant survived or the pass-through was flagged, 2 usage or setup error.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- mutation-table:begin -->", "<!-- mutation-table:end -->"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cli", required=True, help="the aclnn-conform executable")
    p.add_argument("--mutants-dir", required=True, help="folder of libaclnn_mutant_<name>.so")
    p.add_argument("--real", help="libaclnn_cpu.so (checked to exist; the mutants load it)")
    p.add_argument("--catalog", default=os.path.join(ROOT, "mutants", "catalog.json"))
    p.add_argument("--budget", default=None, help="campaign budget per mutant, e.g. 60s")
    p.add_argument("--cases", type=int, default=None, help="cases per mutant instead of a budget")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--case-timeout", type=float, default=10,
                   help="seconds before a case counts as hung (shorter than the campaign's "
                        "30 s, so a hanging mutant keeps most of its budget)")
    p.add_argument("--only", default="", help="comma-separated mutant names")
    p.add_argument("--previous", default=None,
                   help="summary.json of an earlier run: its rows are kept for the mutants "
                        "not measured now (same settings assumed), so the table covers both")
    p.add_argument("--out", required=True, help="folder for the campaign reports and summary")
    p.add_argument("--docs", default=os.path.join(ROOT, "docs", "mutation.md"))
    p.add_argument("--no-docs", action="store_true", help="do not rewrite docs/mutation.md")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 if a mutant survives or the pass-through is flagged")
    a = p.parse_args()
    if not a.budget and not a.cases:
        a.budget = "60s"
    return a


def budget_seconds(text):
    if not text:
        return 0
    unit = {"s": 1, "m": 60, "h": 3600}.get(text[-1], 1)
    return float(text.rstrip("smh")) * unit


def exports(lib):
    """The acl* symbols a shared library defines (nm -D)."""
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()[-1].startswith("acl")}


def run_one(a, m):
    name = m["name"]
    lib = os.path.join(a.mutants_dir, f"libaclnn_mutant_{name}.so")
    out = os.path.join(a.out, name)
    cmd = [a.cli, "run", "--sut", lib, "--seed", str(a.seed), "--jobs", str(a.jobs),
           "--case-timeout", str(a.case_timeout), "--no-corpus", "--quiet", "--out", out,
           # Every mutant wraps the built-in library, which takes the product from ACLNN_CPU_SOC:
           # said outright, so that a product-gate fault is not taken for a device-bound library.
           "--product-emulation", "on"]
    cmd += ["--budget", a.budget] if a.budget else ["--cases", str(a.cases)]
    row = {"name": name, "op": m["op"], "dtypes": m["dtypes"], "fault": m["fault"],
           "expected_clauses": m["expected_clauses"], "command": " ".join(cmd)}
    if not os.path.exists(lib):
        row.update(verdict="error", error=f"{lib} not built")
        return row
    if a.real:
        missing = exports(a.real) - exports(lib)
        if missing:
            row.update(verdict="error", error="does not export " + ", ".join(sorted(missing)))
            return row
    started = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=budget_seconds(a.budget) + 300)
        row["exit_status"] = proc.returncode
    except subprocess.TimeoutExpired:
        row.update(verdict="error", error="the campaign did not finish", wall_seconds=None)
        return row
    row["wall_seconds"] = round(time.monotonic() - started, 1)
    try:
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        row.update(verdict="error", error=f"no report.json (exit {proc.returncode}): {e}; "
                   + proc.stderr.strip()[-300:])
        return row
    row["cases"] = report.get("cases")
    row["campaign_seconds"] = report.get("seconds")
    deviating = [c["id"] for c in report.get("clauses", []) if c.get("status") == "deviates"]
    row["deviating_clauses"] = deviating
    devs = report.get("deviations", [])
    # The first kill: the earliest deviation when the report says when it was found.
    timed = [d for d in devs if d.get("found_at_seconds") is not None]
    first = min(timed, key=lambda d: d["found_at_seconds"]) if timed else (devs[0] if devs else None)
    # A clause can deviate without a kept counterexample (the protocol probes tally only): then
    # the first deviating clause of the expected ones, else the first in spec order.
    expected = set(m["expected_clauses"])
    fallback = ([c for c in deviating if c in expected] + deviating + [None])[0]
    row["first_clause"] = first["clause"] if first else fallback
    row["first_kind"] = first.get("kind") if first else None
    row["found_at_seconds"] = first.get("found_at_seconds") if first else None
    row["found_at_case"] = first.get("found_at_case") if first else None
    right = [c for c in deviating if c in expected]
    row["right_clauses"] = right
    if name == "passthrough":
        row["verdict"] = "flagged" if deviating else "clean"
    elif not deviating:
        row["verdict"] = "survived"
    elif right:
        row["verdict"] = "killed"
    else:
        row["verdict"] = "killed (other clause)"
    return row


def cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def table(a, rows, started, finished):
    mutants = [r for r in rows if r["name"] != "passthrough"]
    killed = [r for r in mutants if r["verdict"].startswith("killed")]
    right = [r for r in mutants if r["verdict"] == "killed"]
    survived = [r for r in mutants if r["verdict"] == "survived"]
    errors = [r for r in rows if r["verdict"] == "error"]
    pt = [r for r in rows if r["name"] == "passthrough"]
    how = f"--budget {a.budget}" if a.budget else f"--cases {a.cases}"
    s = [f"Measured {started} to {finished} UTC: `aclnn-conform run --sut <mutant> {how} "
         f"--seed {a.seed} --jobs {a.jobs} --case-timeout {a.case_timeout:g} --no-corpus` "
         f"per mutant "
         f"(`python3 tools/mutation.py ...`, see above)."
         + (f" Rows of mutants not measured then come from an earlier run with the same "
            f"settings, {a.previous_when} UTC (`--previous`)." if a.previous_when else ""), ""]
    s.append(f"**Killed: {len(killed)} of {len(mutants)} mutants "
             f"({100.0 * len(killed) / max(1, len(mutants)):.0f} %); "
             f"with a right clause: {len(right)}; survived: {len(survived)}"
             + (f"; errors: {len(errors)}" if errors else "") + ". Pass-through: "
             + (pt[0]["verdict"] if pt else "not run") + ".**")
    s.append("")
    s.append("| mutant | fault | op / dtypes | expected clauses | verdict | clause that caught it "
             "| cases / s to first kill |")
    s.append("|---|---|---|---|---|---|---|")
    for r in rows:
        caught = r.get("first_clause") or "-"
        if r.get("first_kind") and r.get("first_kind") != "deviation":
            caught += f" ({r['first_kind']})"
        # The other deviating clauses: the expected ones first, at most four listed.
        others = [c for c in r.get("deviating_clauses", []) if c != r.get("first_clause")]
        exp = set(r["expected_clauses"])
        others = [c for c in others if c in exp] + [c for c in others if c not in exp]
        if others:
            caught += "; also " + ", ".join(others[:4]) + (
                f" (+{len(others) - 4})" if len(others) > 4 else "")
        fc = r.get("found_at_case")
        fs = r.get("found_at_seconds")
        first = f"{fc if fc is not None else '-'} / " + (f"{fs:.1f}" if fs is not None else "-")
        verdict = r["verdict"] + (f": {r['error']}" if r.get("error") else "")
        s.append(f"| `{r['name']}` | {cell(r['fault'])} | {cell(r['op'])} / {cell(r['dtypes'])} "
                 f"| {cell(', '.join(r['expected_clauses']) or '-')} | {cell(verdict)} "
                 f"| {cell(caught)} | {first} |")
    return "\n".join(s) + "\n"


def write_outputs(a, rows, started, total, previous=()):
    measured = {r["name"] for r in rows}
    order = {n: i for i, n in enumerate(catalog_order(a))}
    rows = sorted(list(rows) + [r for r in previous if r["name"] not in measured],
                  key=lambda r: order.get(r["name"], len(order)))
    total += len([r for r in previous if r["name"] not in measured])
    finished = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M")
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump({"budget": a.budget, "cases": a.cases, "seed": a.seed, "jobs": a.jobs,
                   "case_timeout": a.case_timeout, "started": started, "finished": finished,
                   "complete": len(rows) == total, "mutants": rows}, f, indent=1)
    text = table(a, rows, started, finished)
    if len(rows) < total:
        text = f"(partial: {len(rows)} of {total} catalog entries measured)\n\n" + text
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(text)
    if not a.no_docs:
        with open(a.docs) as f:
            doc = f.read()
        if BEGIN not in doc or END not in doc:
            print(f"{a.docs} lacks the table markers", file=sys.stderr)
            return None
        head, rest = doc.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        with open(a.docs, "w") as f:
            f.write(head + BEGIN + "\n" + text + END + tail)
    return text


def catalog_order(a):
    with open(a.catalog) as f:
        return [m["name"] for m in json.load(f)["mutants"]]


def main():
    a = parse_args()
    previous = []
    a.previous_when = ""
    if a.previous:
        with open(a.previous) as f:
            earlier = json.load(f)
        previous = earlier["mutants"]
        a.previous_when = f"{earlier.get('started', '?')} to {earlier.get('finished', '?')}"
    with open(a.catalog) as f:
        catalog = json.load(f)["mutants"]
    if a.only:
        wanted = set(a.only.split(","))
        unknown = wanted - {m["name"] for m in catalog}
        if unknown:
            print(f"unknown mutants: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        catalog = [m for m in catalog if m["name"] in wanted]
    if a.real and not os.path.exists(a.real):
        print(f"{a.real} does not exist", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
    rows = []
    for m in catalog:
        row = run_one(a, m)
        rows.append(row)
        print(f"{row['name']:32s} {row['verdict']:22s} {row.get('first_clause') or '-':24s} "
              f"{row.get('wall_seconds', '-')} s", flush=True)
        # Written after every mutant, so a measurement cut short still leaves its table.
        text = write_outputs(a, rows, started, len(catalog), previous)
        if text is None:
            return 2
    print([l for l in text.splitlines() if l.startswith('**Killed')][0])
    bad = [r for r in rows if r["verdict"] in ("survived", "flagged", "error")]
    if bad:
        print("not killed / flagged / error: " + ", ".join(r["name"] for r in bad))
    return 1 if a.strict and bad else 0


if __name__ == "__main__":
    sys.exit(main())
