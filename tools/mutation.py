#!/usr/bin/env python3
"""Mutation measure: runs a conformance campaign against every mutant of mutants/catalog.json
and reports, per mutant, killed or survived, the clause that caught it, and the time to kill: the
seconds and cases until the first deviation with a right clause (one of the mutant's
expected_clauses), at one or several worker counts (--jobs 1,2). Writes <out>/summary.json,
<out>/table.md and the tables of docs/mutation.md (between its table markers): one row per mutant,
and the median and maximum time to kill per op and worker count. See docs/mutation.md.

Exit status: 0 measured (or, with --strict, every mutant killed and the pass-through clean),
1 --strict and a mutant survived or the pass-through was flagged, 2 usage or setup error.
"""
import argparse
import datetime
import glob
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- mutation-table:begin -->", "<!-- mutation-table:end -->"
SBEGIN, SEND = "<!-- mutation-summary:begin -->", "<!-- mutation-summary:end -->"
# The op groups of the summary table, in the spec's order (catalog "op" -> group).
GROUPS = [("GeluBackward", ["GeluBackward"]), ("SeluBackward", ["SeluBackward"]),
          ("LayerNormBackward", ["LayerNormBackward"]), ("LogitGrad", ["LogitGrad"]),
          ("GroupedBiasAddGrad (V1, V2)", ["GroupedBiasAddGrad", "GroupedBiasAddGradV2"]),
          ("ABI and runtime (every op)", ["all", "runtime"])]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cli", help="the aclnn-conform executable (required unless --compare)")
    p.add_argument("--mutants-dir", help="folder of libaclnn_mutant_<name>.so (required unless "
                                         "--compare)")
    p.add_argument("--real", help="libaclnn_cpu.so (checked to exist; the mutants load it)")
    p.add_argument("--catalog", default=os.path.join(ROOT, "mutants", "catalog.json"))
    p.add_argument("--budget", default=None,
                   help="campaign budget per mutant and worker count, e.g. 60s or 15s: a mutant "
                        "not killed within it has a time to kill of '> 15 s'")
    p.add_argument("--cases", type=int, default=None, help="cases per mutant instead of a budget")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", default="2",
                   help="worker counts, comma-separated (e.g. 1,2): every mutant is measured at "
                        "each")
    p.add_argument("--case-timeout", type=float, default=10,
                   help="seconds before a case counts as hung (shorter than the campaign's "
                        "30 s, so a hanging mutant keeps most of its budget)")
    p.add_argument("--stop-at-kill", action="store_true",
                   help="end a campaign (SIGTERM) as soon as its corpus holds a counterexample of "
                        "an expected clause, or --grace seconds after its first counterexample; "
                        "if the ended run shows no right clause, the mutant is run again to the "
                        "end of its budget. The time to kill is the same; the measure is faster")
    p.add_argument("--grace", type=float, default=3,
                   help="with --stop-at-kill: seconds a run goes on after a counterexample of "
                        "another clause")
    p.add_argument("--only", default="", help="comma-separated mutant names")
    p.add_argument("--previous", default=None,
                   help="summary.json of an earlier run: its rows are kept for the mutants "
                        "not measured now (same settings assumed), so the table covers both")
    p.add_argument("--note", default="",
                   help="a sentence on the conditions (machine, other load) for the table's header")
    p.add_argument("--out", help="folder for the campaign reports and summary (required unless "
                                 "--compare)")
    p.add_argument("--compare", nargs="+", metavar="SUMMARY",
                   help="measure nothing: print the time to kill of two measurements side by side "
                        "(BEFORE[,BEFORE2...] AFTER: summary.json files; several before-files are "
                        "merged, the later winning), per op and worker count, then per mutant")
    p.add_argument("--docs", default=os.path.join(ROOT, "docs", "mutation.md"))
    p.add_argument("--no-docs", action="store_true", help="do not rewrite docs/mutation.md")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 if a mutant survives or the pass-through is flagged")
    a = p.parse_args()
    if a.compare:
        if len(a.compare) != 2:
            p.error("--compare takes BEFORE AFTER")
        return a
    for need in ("cli", "mutants_dir", "out"):
        if not getattr(a, need):
            p.error(f"--{need.replace('_', '-')} is required")
    if not a.budget and not a.cases:
        a.budget = "60s"
    try:
        a.jobs_list = [int(j) for j in str(a.jobs).split(",") if j.strip()]
    except ValueError:
        p.error("--jobs takes worker counts such as 2 or 1,2")
    if not a.jobs_list or min(a.jobs_list) < 1:
        p.error("--jobs takes worker counts such as 2 or 1,2")
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


CLAUSE_LINE = re.compile(r"^([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+):", re.M)


def deviation_clauses(d):
    """The clauses one counterexample fails: its own, and those its all_failures lines name (a
    valid call refused fails every clause the call reached)."""
    found = [d.get("clause")] + CLAUSE_LINE.findall(d.get("all_failures") or "")
    return [c for i, c in enumerate(found) if c and c not in found[:i]]


def loadavg():
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def worker_env(a):
    """The environment of a campaign: its workers are the aclnn-conform-worker beside --cli when
    there is one (aclnn-conform looks in the build tree it was built in first, so a copied CLI
    would otherwise run the build tree's current workers), unless ACLNN_CONFORM_WORKER says."""
    env = dict(os.environ)
    beside = os.path.join(os.path.dirname(os.path.abspath(a.cli)), "aclnn-conform-worker")
    if not env.get("ACLNN_CONFORM_WORKER") and os.access(beside, os.X_OK):
        env["ACLNN_CONFORM_WORKER"] = beside
    return env


def campaign(a, cmd, out, expected, stop):
    """Runs one campaign; with stop, ends it once a right counterexample is stored (or grace
    seconds after any). Returns (exit status or None on a timeout, stopped early)."""
    limit = budget_seconds(a.budget) + 300 if a.budget else None
    if not stop:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=limit,
                                  env=worker_env(a)).returncode, False
        except subprocess.TimeoutExpired:
            return None, False
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=worker_env(a))
    started, first_any, stopped = time.monotonic(), None, False
    while proc.poll() is None:
        time.sleep(0.2)
        if limit and time.monotonic() - started > limit:
            proc.kill()
            proc.wait()
            return None, False
        clauses = []
        for f in glob.glob(os.path.join(out, "corpus", "*.json")):
            try:
                with open(f) as h:
                    clauses.append(json.load(h).get("clause"))
            except (OSError, ValueError):
                continue  # being written
        if clauses and first_any is None:
            first_any = time.monotonic()
        if any(c in expected for c in clauses) or (
                first_any is not None and time.monotonic() - first_any > a.grace):
            proc.send_signal(signal.SIGTERM)
            stopped = True
            break
    try:
        return proc.wait(timeout=60), stopped
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait(), stopped


def read_report(run, out, expected, name):
    """Fills run (one campaign of one mutant) from its report.json; False if there is none."""
    try:
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        run.update(verdict="error", error=f"no report.json (exit {run.get('exit_status')}): {e}")
        return False
    run["cases"] = report.get("cases")
    run["campaign_seconds"] = report.get("seconds")
    deviating = [c["id"] for c in report.get("clauses", []) if c.get("status") == "deviates"]
    run["deviating_clauses"] = deviating
    devs = report.get("deviations", [])
    # The first kill: the earliest deviation when the report says when it was found.
    timed = [d for d in devs if d.get("found_at_seconds") is not None]
    first = min(timed, key=lambda d: d["found_at_seconds"]) if timed else (devs[0] if devs else None)
    # A clause can deviate without a kept counterexample (the protocol probes tally only): then
    # the first deviating clause of the expected ones, else the first in spec order.
    fallback = ([c for c in deviating if c in expected] + deviating + [None])[0]
    run["first_clause"] = first["clause"] if first else fallback
    run["first_kind"] = first.get("kind") if first else None
    run["found_at_seconds"] = first.get("found_at_seconds") if first else None
    run["found_at_case"] = first.get("found_at_case") if first else None
    # The time to kill: the first counterexample that fails a right clause.
    right_devs = [d for d in timed if any(c in expected for c in deviation_clauses(d))]
    kill = min(right_devs, key=lambda d: d["found_at_seconds"]) if right_devs else None
    run["kill_seconds"] = kill["found_at_seconds"] if kill else None
    run["kill_case"] = kill["found_at_case"] if kill else None
    run["kill_clause"] = ([c for c in deviation_clauses(kill) if c in expected] + [None])[0] \
        if kill else None
    right = [c for c in deviating if c in expected]
    run["right_clauses"] = right
    if name == "passthrough":
        run["verdict"] = "flagged" if deviating else "clean"
    elif not deviating:
        run["verdict"] = "survived"
    elif right:
        run["verdict"] = "killed"
    else:
        run["verdict"] = "killed (other clause)"
    return True


def run_one(a, m, jobs):
    name = m["name"]
    lib = os.path.join(a.mutants_dir, f"libaclnn_mutant_{name}.so")
    out = os.path.join(a.out, name if len(a.jobs_list) == 1 else f"{name}.j{jobs}")
    expected = set(m["expected_clauses"])
    stop = a.stop_at_kill and name != "passthrough" and bool(expected)
    cmd = [a.cli, "run", "--sut", lib, "--seed", str(a.seed), "--jobs", str(jobs),
           "--case-timeout", str(a.case_timeout), "--quiet", "--out", out,
           # Every mutant wraps the built-in library, which takes the product from ACLNN_CPU_SOC:
           # said outright, so that a product-gate fault is not taken for a device-bound library.
           "--product-emulation", "on"]
    # --stop-at-kill watches the counterexamples as they are stored (in a fresh folder: a corpus
    # left there would be replayed first).
    if not stop:
        cmd.append("--no-corpus")
    cmd += ["--budget", a.budget] if a.budget else ["--cases", str(a.cases)]
    run = {"jobs": jobs, "command": " ".join(cmd), "load_at_start": loadavg()}
    if not os.path.exists(lib):
        run.update(verdict="error", error=f"{lib} not built")
        return run
    shutil.rmtree(out, ignore_errors=True)
    started = time.monotonic()
    status, stopped = campaign(a, cmd, out, expected, stop)
    run["exit_status"] = status
    run["stopped_early"] = stopped
    if status is None:
        run.update(verdict="error", error="the campaign did not finish", wall_seconds=None)
        return run
    if not read_report(run, out, expected, name):
        return run
    if stopped and run["verdict"] != "killed":
        # Ended before a right clause showed: the whole budget decides.
        shutil.rmtree(out, ignore_errors=True)
        cmd = [c for c in cmd]
        cmd.insert(cmd.index("--quiet"), "--no-corpus")
        run["command"] = " ".join(cmd)
        status, stopped = campaign(a, cmd, out, expected, False)
        run.update(exit_status=status, stopped_early=False, rerun=True)
        if status is None:
            run.update(verdict="error", error="the campaign did not finish", wall_seconds=None)
            return run
        if not read_report(run, out, expected, name):
            return run
    run["wall_seconds"] = round(time.monotonic() - started, 1)
    return run


def measure(a, m):
    name = m["name"]
    row = {"name": name, "op": m["op"], "dtypes": m["dtypes"], "fault": m["fault"],
           "expected_clauses": m["expected_clauses"]}
    if a.real:
        lib = os.path.join(a.mutants_dir, f"libaclnn_mutant_{name}.so")
        if os.path.exists(lib):
            missing = exports(a.real) - exports(lib)
            if missing:
                row.update(verdict="error", error="does not export " + ", ".join(sorted(missing)),
                           runs={})
                return row
    row["runs"] = {str(j): run_one(a, m, j) for j in a.jobs_list}
    # The row's verdict and first clause: the first worker count's, unless another count did
    # worse (a mutant is killed only if every count kills it with a right clause).
    runs = list(row["runs"].values())
    rank = ["error", "flagged", "survived", "killed (other clause)", "killed", "clean"]
    worst = min(runs, key=lambda r: rank.index(r["verdict"]) if r["verdict"] in rank else 0)
    primary = runs[0] if runs[0]["verdict"] == worst["verdict"] else worst
    for k in ("verdict", "error", "first_clause", "first_kind", "found_at_seconds",
              "found_at_case", "deviating_clauses", "right_clauses", "cases", "command"):
        if k in primary:
            row[k] = primary[k]
    return row


def upgrade(row, jobs):
    """A row of an earlier summary.json without per-worker-count runs: one run at its --jobs (its
    time to kill is its first kill when that was a right clause)."""
    if "runs" in row:
        return row
    run = {k: row.get(k) for k in ("verdict", "first_clause", "found_at_seconds", "found_at_case",
                                   "deviating_clauses", "cases", "campaign_seconds")}
    right = row.get("verdict") == "killed" and row.get("first_clause") in row["expected_clauses"]
    run["kill_seconds"] = row.get("found_at_seconds") if right else None
    run["kill_case"] = row.get("found_at_case") if right else None
    row = dict(row)
    row["runs"] = {str(jobs): run}
    return row


def cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def budget_text(a):
    return f"{budget_seconds(a.budget):g} s" if a.budget else f"{a.cases} cases"


def kill_text(a, run):
    if run is None:
        return "not run"
    if run.get("verdict") == "error":
        return "error"
    if run.get("kill_seconds") is None:
        return f"> {budget_text(a)}"
    return f"{run['kill_seconds']:.1f} s ({run['kill_case']})"


def fmt_seconds(v, a):
    return f"> {budget_text(a)}" if v == float("inf") else f"{v:.1f} s"


def median_censored(values):
    """The median of times where a mutant not killed counts as infinitely slow."""
    v = sorted(values)
    n = len(v)
    if n == 0:
        return None
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def summary_table(a, rows, jobs_list):
    """Median and maximum time to kill per op group and worker count."""
    s = ["| op | mutants | " + " | ".join(
        f"killed (j={j}) | median (j={j}) | max (j={j})" for j in jobs_list) + " |"]
    s.append("|---|---|" + "---|---|---|" * len(jobs_list))
    mutants = [r for r in rows if r["name"] != "passthrough" and r.get("verdict") != "error"]
    groups = GROUPS + [("**all**", None)]
    for label, ops in groups:
        members = [r for r in mutants if ops is None or r["op"] in ops]
        if not members:
            continue
        cells = []
        for j in jobs_list:
            runs = [r.get("runs", {}).get(str(j)) for r in members]
            runs = [x for x in runs if x and x.get("verdict") != "error"]
            if not runs:
                cells += ["-", "-", "-"]
                continue
            times = [x["kill_seconds"] if x.get("kill_seconds") is not None else float("inf")
                     for x in runs]
            killed = sum(t != float("inf") for t in times)
            med = median_censored(times)
            cases = median_censored([x["kill_case"] if x.get("kill_seconds") is not None
                                     else float("inf") for x in runs])
            slowest = max(times)
            who = [r["name"] for r, x in zip(members, runs)
                   if (x["kill_seconds"] if x.get("kill_seconds") is not None else float("inf"))
                   == slowest]
            cells += [f"{killed}/{len(runs)}",
                      fmt_seconds(med, a) + ("" if cases == float("inf") else f" ({cases:g})"),
                      fmt_seconds(slowest, a) + f" (`{who[0]}`)"]
        s.append(f"| {label} | {len(members)} | " + " | ".join(cells) + " |")
    return "\n".join(s) + "\n"


def loads_text(rows):
    loads = [x["load_at_start"] for r in rows for x in r.get("runs", {}).values()
             if x.get("load_at_start") is not None]
    if not loads:
        return ""
    return (f" Load average (1 min) at the start of each campaign: median "
            f"{statistics.median(loads):.1f}, from {min(loads):.1f} to {max(loads):.1f}, on "
            f"{os.cpu_count()} cores.")


def table(a, rows, started, finished):
    mutants = [r for r in rows if r["name"] != "passthrough"]
    killed = [r for r in mutants if r["verdict"].startswith("killed")]
    right = [r for r in mutants if r["verdict"] == "killed"]
    survived = [r for r in mutants if r["verdict"] == "survived"]
    errors = [r for r in rows if r["verdict"] == "error"]
    pt = [r for r in rows if r["name"] == "passthrough"]
    jobs_list = sorted({int(j) for r in rows for j in r.get("runs", {})}) or a.jobs_list
    how = f"--budget {a.budget}" if a.budget else f"--cases {a.cases}"
    s = [f"Measured {started} to {finished} UTC: `aclnn-conform run --sut <mutant> {how} "
         f"--seed {a.seed} --jobs J --case-timeout {a.case_timeout:g}` per mutant and worker "
         f"count J in {{{', '.join(str(j) for j in a.jobs_list)}}} "
         f"(`python3 tools/mutation.py ...`, see above"
         + (", `--stop-at-kill`" if a.stop_at_kill else "") + ")."
         + (f" Rows of mutants not measured then come from an earlier run, {a.previous_when} UTC "
            f"(`--previous`)." if a.previous_when else "")
         + loads_text(rows) + (f" {a.note}" if a.note else ""), ""]
    s.append(f"**Killed: {len(killed)} of {len(mutants)} mutants "
             f"({100.0 * len(killed) / max(1, len(mutants)):.0f} %); "
             f"with a right clause: {len(right)}; survived: {len(survived)}"
             + (f"; errors: {len(errors)}" if errors else "") + ". Pass-through: "
             + (pt[0]["verdict"] if pt else "not run") + ".**")
    s.append("")
    s.append("Time to kill (seconds into the campaign, and in brackets cases run, until the "
             "first counterexample of an expected clause; `> budget` when none came), per op and "
             "worker count J:")
    s.append("")
    s.append(SBEGIN)
    s.append(summary_table(a, rows, jobs_list).rstrip("\n"))
    s.append(SEND)
    s.append("")
    s.append("| mutant | fault | op / dtypes | expected clauses | verdict | clause that caught it "
             "| " + " | ".join(f"time to kill, J={j} (cases)" for j in jobs_list) + " |")
    s.append("|---|---|---|---|---|---|" + "---|" * len(jobs_list))
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
        verdict = r["verdict"] + (f": {r['error']}" if r.get("error") else "")
        kills = []
        for j in jobs_list:
            run = r.get("runs", {}).get(str(j))
            kills.append("-" if r["name"] == "passthrough" else kill_text(a, run))
        s.append(f"| `{r['name']}` | {cell(r['fault'])} | {cell(r['op'])} / {cell(r['dtypes'])} "
                 f"| {cell(', '.join(r['expected_clauses']) or '-')} | {cell(verdict)} "
                 f"| {cell(caught)} | " + " | ".join(kills) + " |")
    return "\n".join(s) + "\n"


def write_outputs(a, rows, started, total, previous=()):
    measured = {r["name"] for r in rows}
    order = {n: i for i, n in enumerate(catalog_order(a))}
    rows = sorted(list(rows) + [r for r in previous if r["name"] not in measured],
                  key=lambda r: order.get(r["name"], len(order)))
    total += len([r for r in previous if r["name"] not in measured])
    finished = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M")
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump({"budget": a.budget, "cases": a.cases, "seed": a.seed, "jobs": a.jobs_list,
                   "cli": a.cli, "worker": worker_env(a).get("ACLNN_CONFORM_WORKER", "(the CLI's)"),
                   "case_timeout": a.case_timeout, "stop_at_kill": a.stop_at_kill,
                   "note": a.note, "cpu_count": os.cpu_count(), "started": started,
                   "finished": finished, "complete": len(rows) == total, "mutants": rows},
                  f, indent=1)
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


def load_summary(paths):
    rows, meta = {}, {}
    for path in paths.split(","):
        with open(path) as f:
            m = json.load(f)
        jobs = m.get("jobs", 2)
        jobs = jobs[0] if isinstance(jobs, list) else jobs
        for r in m["mutants"]:
            rows[r["name"]] = upgrade(r, jobs)
        meta = m
    return rows, meta


def compare(a):
    """Markdown: the time to kill of two measurements, per op and worker count, then per mutant."""
    before, mb = load_summary(a.compare[0])
    after, ma = load_summary(a.compare[1])
    a.budget = ma.get("budget") or mb.get("budget")
    a.cases = ma.get("cases")
    names = [n for n in after if n in before and n != "passthrough"]
    jobs = sorted({int(j) for n in names for j in after[n].get("runs", {})
                   if j in before[n].get("runs", {})})

    def t(run):
        if not run or run.get("verdict") == "error":
            return None
        return run["kill_seconds"] if run.get("kill_seconds") is not None else float("inf")

    def cs(run):
        if not run or run.get("verdict") == "error":
            return None
        return run["kill_case"] if run.get("kill_case") is not None else float("inf")

    out = ["| op | mutants | " + " | ".join(
        f"median J={j}: before -> after | max J={j}: before -> after" for j in jobs) + " |",
        "|---|---|" + "---|---|" * len(jobs)]
    for label, ops in GROUPS + [("**all**", None)]:
        members = [n for n in names if ops is None or after[n]["op"] in ops]
        if not members:
            continue
        cells = []
        for j in jobs:
            tb = [t(before[n]["runs"].get(str(j))) for n in members]
            ta = [t(after[n]["runs"].get(str(j))) for n in members]
            tb, ta = [x for x in tb if x is not None], [x for x in ta if x is not None]
            cb = [x for x in (cs(before[n]["runs"].get(str(j))) for n in members) if x is not None]
            ca = [x for x in (cs(after[n]["runs"].get(str(j))) for n in members) if x is not None]
            mcb, mca = median_censored(cb), median_censored(ca)
            cells.append(f"{fmt_seconds(median_censored(tb), a)}"
                         + ("" if mcb == float("inf") else f" ({mcb:g})") + " -> "
                         + f"{fmt_seconds(median_censored(ta), a)}"
                         + ("" if mca == float("inf") else f" ({mca:g})"))
            cells.append(f"{fmt_seconds(max(tb), a)} -> {fmt_seconds(max(ta), a)}")
        out.append(f"| {label} | {len(members)} | " + " | ".join(cells) + " |")
    out += ["", "| mutant | " + " | ".join(
        f"J={j}: before | J={j}: after" for j in jobs) + " |", "|---|" + "---|---|" * len(jobs)]
    for n in names:
        cells = []
        for j in jobs:
            for rows in (before, after):
                run = rows[n]["runs"].get(str(j))
                cells.append(kill_text(a, run))
        out.append(f"| `{n}` | " + " | ".join(cells) + " |")
    print("\n".join(out))
    return 0


def main():
    a = parse_args()
    if a.compare:
        return compare(a)
    previous = []
    a.previous_when = ""
    if a.previous:
        with open(a.previous) as f:
            earlier = json.load(f)
        jobs = earlier.get("jobs", 2)
        jobs = jobs[0] if isinstance(jobs, list) else jobs
        previous = [upgrade(r, jobs) for r in earlier["mutants"]]
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
    text = ""
    for m in catalog:
        row = measure(a, m)
        rows.append(row)
        kills = "  ".join(f"j{j}: {kill_text(a, x)}" for j, x in row.get("runs", {}).items())
        print(f"{row['name']:32s} {row['verdict']:22s} {row.get('first_clause') or '-':24s} "
              f"{kills}", flush=True)
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
