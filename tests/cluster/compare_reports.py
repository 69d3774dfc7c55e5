#!/usr/bin/env python3
"""Checks that a merged report of shards equals one process's report over the same seed space:
same campaign, same number of cases, same clauses with the same verdicts and counts, same
counterexamples (each clause's kept minimal cases, by origin and content) and the same accuracy
figures. Not compared: timings, the shard fields, first_detail (the first deviation's text depends
on which shard reported first) and file names of repros/corpus entries.
Usage: compare_reports.py MERGED/report.json SINGLE/report.json"""
import json
import math
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def clauses(r):
    return [(c["id"], c["op"], c["status"], c["reached"], c["deviations"], sorted(c["variants"]))
            for c in r["clauses"]]


def counterexamples(r):
    return sorted((d["clause"], d["op"], d["kind"], d["origin"], d["shrink_steps"],
                   json.dumps(d["case"], sort_keys=True), sorted(d["variants"]),
                   d["expected_status"], d["got_status"]) for d in r["deviations"])


def close(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300)


def accuracy(r):
    return {(a["op"], a["dtype"]): a for a in r["accuracy"]}


def main():
    merged, single = load(sys.argv[1]), load(sys.argv[2])
    problems = []
    for key in ("schema", "sut", "product", "tier", "policy", "seed", "ops", "cases", "conformant"):
        if merged[key] != single[key]:
            problems.append(f"{key}: merged {merged[key]!r}, single {single[key]!r}")
    mc, sc = clauses(merged), clauses(single)
    for m, s in zip(mc, sc):
        if m != s:
            problems.append(f"clause differs: merged {m}, single {s}")
    if len(mc) != len(sc):
        problems.append(f"{len(mc)} clauses merged, {len(sc)} single")
    md, sd = counterexamples(merged), counterexamples(single)
    if md != sd:
        only_m = [d[:4] for d in md if d not in sd]
        only_s = [d[:4] for d in sd if d not in md]
        problems.append(f"counterexamples differ: only merged {only_m}, only single {only_s}")
    ma, sa = accuracy(merged), accuracy(single)
    if ma.keys() != sa.keys():
        problems.append(f"accuracy rows differ: {sorted(ma)} vs {sorted(sa)}")
    for k in ma.keys() & sa.keys():
        for field in ("elements", "histogram", "max_ulps", "mere", "mare"):
            # A non-finite number is null plus "<field>_nonfinite" (docs/report-format.md).
            a = ma[k][field] if ma[k][field] is not None else ma[k].get(field + "_nonfinite")
            b = sa[k][field] if sa[k][field] is not None else sa[k].get(field + "_nonfinite")
            same = a == b if field in ("elements", "histogram") else close(a, b)
            if not same:
                problems.append(f"accuracy {k} {field}: merged {a}, single {b}")
    for p in problems:
        print("DIFFERENT:", p)
    if problems:
        return 1
    print(f"merged report equals the single run: {single['cases']} cases, "
          f"{len(sc)} clauses, {len(sd)} counterexamples, {len(sa)} accuracy rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
