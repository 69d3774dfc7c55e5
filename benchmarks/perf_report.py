#!/usr/bin/env python3
"""Issue 14's performance report: the library against PyTorch and the memory floor, in one run.

Runs build/benchmarks/bench_impl (cases Case/*, Floor/*, Call/*: median of 7 single calls through
the public ABI, both phases, preallocated outputs; Clock/*: the core's clock), then the same
shapes with PyTorch's out= kernels where python3-torch is installed (benchmarks/install-torch.sh;
skipped otherwise), and rewrites the generated section of docs/performance.md. Run it with
Debian's python (/usr/bin/python3) so that python3-torch is found:

    cmake --build build --target bench_impl
    /usr/bin/python3 benchmarks/perf_report.py [--build build] [--doc docs/performance.md] [--rounds 3]
        [--target AVX2|AVX3|...]

--target caps the library's Highway dispatch at that target (ACLNN_CPU_TARGET) and PyTorch's at
the same ISA (ATEN_CPU_CAPABILITY), so that one AVX-512 machine also measures the AVX2 code on the
same memory system; each target's report on each CPU model has its own generated section in the
page (a CPU without one gets it appended; move it where it belongs).
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

BEGIN = "<!-- perf_report.py: begin (generated, do not edit by hand) -->"
END = "<!-- perf_report.py: end -->"
# --target's section: the markers name the target.
FORCED = None  # the --target name, or None


def markers():
    """The generated section's markers: one section per forced target and CPU model, so that the
    page keeps each machine's tables (a run on another CPU adds its own section)."""
    if FORCED is None:
        return BEGIN, END
    name = f"--target {FORCED} on {CPU_MODEL}"
    return (f"<!-- perf_report.py {name}: begin (generated, do not edit by hand) -->",
            f"<!-- perf_report.py {name}: end -->")


# PyTorch's ATEN_CPU_CAPABILITY for a Highway target (its dispatch levels: default, avx2, avx512).
ATEN_CAPABILITY = {"AVX3": "avx512", "AVX3_DL": "avx512", "AVX2": "avx2"}
M16 = 1 << 24


def median_of_rounds(rounds):
    """Per key, the median over rounds of each round's median (non-numbers: the first round's)."""
    if any(r is None for r in rounds):
        return None
    out = {}
    for k in rounds[0]:
        vals = [r[k] for r in rounds if k in r]
        out[k] = statistics.median(vals) if all(isinstance(v, (int, float)) for v in vals) else vals[0]
    return out


def best_of_rounds(rounds, floor_of=lambda case: None):
    """Per case, PyTorch's fastest round (with that round's CPU time), among the rounds not below
    0.9 x floor_of(case), the least time data from memory allow (a figure below it had part of its
    data cached, despite the buffer read before each call); where every round is below it, the
    fastest, with case + ":below_floor" set for the table to mark. The fastest, not the median: one
    PyTorch process can be twice as slow as the next on the same machine for its whole life
    (GeluBackward fp32, 1 thread, on the AMD EPYC Zen 4 VM: 16.5-17.4 ms in some processes, 29-38 ms
    in others, whatever the vCPU it is pinned to), and each round runs PyTorch in a fresh process;
    a median over rounds could then credit the library with PyTorch's slow mode, a verdict greener
    than the evidence."""
    if any(r is None for r in rounds):
        return None
    out = {}
    for k in rounds[0]:
        if k.endswith(":cpu"):
            continue
        picks = [(r[k], r.get(k + ":cpu")) for r in rounds if k in r]
        if k.endswith(":error") or not all(isinstance(p[0], (int, float)) for p in picks):
            out[k] = picks[0][0]
            continue
        floor = floor_of(k)
        credible = [p for p in picks if floor is None or p[0] >= 0.9 * floor]
        if not credible:
            out[k + ":below_floor"] = True
        out[k], cpu = min(credible or picks, key=lambda p: p[0])
        if cpu is not None:
            out[k + ":cpu"] = cpu
    return out


def physical_floor(med, threads):
    """For best_of_rounds: the least of a case's floors in this run (the streaming triad where
    there is one), by PyTorch's case key op/dtype/shape."""
    def floor_of(case):
        op, dname = case.split("/")[:2]
        floors = [f for f in (floor_for(med, op, dname, threads),
                              stream_floor_for(med, op, dname, threads)) if f]
        return min(floors) if floors else None
    return floor_of


def torch_child(threads):
    """torch_medians(threads) in a fresh Python process (the round's own sample of PyTorch's
    process state, see best_of_rounds); None where PyTorch is missing."""
    cmd = [sys.executable, os.path.abspath(__file__), "--torch-child", str(threads),
           "--scrub-bytes", str(SCRUB_BYTES), "--rotate-bytes", str(ROTATE_BYTES)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def run_library(build):
    exe = os.path.join(build, "benchmarks", "bench_impl")
    env = dict(os.environ)
    if FORCED:
        env["ACLNN_CPU_TARGET"] = FORCED
    if SCRUB_BYTES:
        env["ACLNN_BENCH_SCRUB_BYTES"] = str(SCRUB_BYTES)
    if ROTATE_BYTES:
        env["ACLNN_BENCH_ROTATE_BYTES"] = str(ROTATE_BYTES)
    out = subprocess.run(
        [exe, "--benchmark_filter=^(Case|Cache|Floor|Call|Clock)/", "--benchmark_format=json"],
        check=True, capture_output=True, text=True, env=env).stdout
    data = json.loads(out)
    med, cpu = {}, {}
    for b in data["benchmarks"]:
        name = b["run_name"] if "run_name" in b else b["name"]
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") != "median":
                continue
        unit = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9}[b["time_unit"]]
        key = name.split("/iterations")[0].split("/min_time")[0]
        med[key] = b["real_time"] * unit
        cpu[key] = b["cpu_time"] * unit
    return med, cpu, data.get("context", {})


# Median CPU time (of the calling process) per case, next to the wall-clock medians: on a shared,
# loaded machine the wall clock mostly measures the other jobs, the CPU time much less so.
MED_CPU = {}


def rotation_copies(nbytes, rotate_bytes):
    """The sustained mode's copies of a case's nbytes of data: enough that the others hold
    rotate_bytes (bench_impl's copies_for); 1 without rotation."""
    return 1 + -(-rotate_bytes // nbytes) if rotate_bytes and nbytes else 1


def torch_medians(threads):
    """Median of 7 calls of PyTorch's kernels on the same shapes; {} if torch is missing."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    res = {}
    # Every PyTorch case is a 16 M-element one: each call starts cold, as the library's do. Scrub
    # mode: the sum runs on torch's `threads` threads, as bench_impl reads with the case's thread
    # count. Sustained mode: rotation_copies() copies of the case's tensors, called in turn.
    scrub = torch.ones(SCRUB_BYTES // 8, dtype=torch.int64) if SCRUB_BYTES else None

    def timed(key, make, nbytes):
        """make(): a call on a fresh set of tensors of nbytes in all; rotation_copies() of them,
        called in turn."""
        try:
            calls = [make() for _ in range(rotation_copies(nbytes, ROTATE_BYTES))]
            for f in calls:
                f()
            ts, cs = [], []
            for i in range(7):
                f = calls[i % len(calls)]
                if scrub is not None:
                    scrub.sum()
                t, c = time.perf_counter(), time.process_time()
                f()
                ts.append(time.perf_counter() - t)
                cs.append(time.process_time() - c)
            res[key] = statistics.median(ts)
            res[key + ":cpu"] = statistics.median(cs)
        except Exception as e:  # no kernel for the dtype
            res[key] = None
            res[key + ":error"] = str(e).split("\n")[0][:80]

    g = torch.Generator().manual_seed(1)
    for dname, dt in (("fp32", torch.float32), ("bf16", torch.bfloat16), ("fp16", torch.float16)):
        es = torch.tensor([], dtype=dt).element_size()
        dy0 = (torch.rand(M16, generator=g) * 8 - 4).to(dt)
        x0 = (torch.rand(M16, generator=g) * 8 - 4).to(dt)
        xu0 = (torch.rand(M16, generator=g) * 0.998 + 0.001).to(dt)

        def gelu():
            dy, x, o = dy0.clone(), x0.clone(), torch.empty(M16, dtype=dt)
            return lambda: torch.ops.aten.gelu_backward.grad_input(dy, x, approximate="none",
                                                                   grad_input=o)

        def selu():  # SELU's backward in PyTorch is elu_backward on the result.
            dy, x, o = dy0.clone(), x0.clone(), torch.empty(M16, dtype=dt)
            return lambda: torch.ops.aten.elu_backward.grad_input(
                dy, 1.6732632423543772, 1.0507009873554805, 1.0, True, x, grad_input=o)

        def logit():
            dy, xu, o = dy0.clone(), xu0.clone(), torch.empty(M16, dtype=dt)
            return lambda: torch.ops.aten.logit_backward.grad_input(dy, xu, None, grad_input=o)

        timed(f"GeluBackward/{dname}/16M", gelu, 3 * M16 * es)
        timed(f"SeluBackward/{dname}/16M", selu, 3 * M16 * es)
        timed(f"LogitGrad/{dname}/16M", logit, 3 * M16 * es)
        dy0 = x0 = xu0 = None
        m, n = 16384, 1024
        dy0 = torch.randn(m, n, generator=g).to(dt)
        x0 = torch.randn(m, n, generator=g).to(dt)
        mean = torch.randn(m, 1, generator=g) * 0.1
        rstd = torch.rand(m, 1, generator=g) + 0.5
        w = torch.randn(n, generator=g)
        mean, rstd, w = mean.to(dt), rstd.to(dt), w.to(dt)  # PyTorch wants one dtype for all
        b = torch.zeros_like(w)

        def layer_norm():
            dy, x, gi = dy0.clone(), x0.clone(), torch.empty(m, n, dtype=dt)
            gw, gb = torch.empty(n, dtype=dt), torch.empty(n, dtype=dt)
            return lambda: torch.ops.aten.native_layer_norm_backward.out(
                dy, x, [n], mean, rstd, w, b, [True, True, True], out0=gi, out1=gw, out2=gb)

        timed(f"LayerNormBackward/{dname}/16384x1024", layer_norm, 3 * m * n * es)
        dy0 = x0 = None
        rows, h, groups = 65536, 1024, 64
        gy0 = torch.randn(rows, h, generator=g).to(dt)
        idx = torch.arange(rows) * groups // rows

        def gbag():
            gy, out = gy0.clone(), torch.empty(groups, h, dtype=dt)
            return lambda: out.zero_().index_add_(0, idx, gy)

        timed(f"GroupedBiasAddGrad/{dname}/65536x1024_g64", gbag, rows * h * es)
        gy0 = None
    return res


def fmt_ms(s):
    if s is None:
        return "-"
    return f"{s * 1e3:.1f}" if s * 1e3 >= 10 else f"{s * 1e3:.2f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "-"
    return f"{a / b:.2f}"


def floor_for(med, op, dname, threads):
    es = 4 if dname == "fp32" else 2
    t = f"/{threads}"
    if op == "GroupedBiasAddGrad":  # reads (65536, 1024) once
        return med.get(f"Floor/read/{M16 * 4 * es}{t}")
    return med.get(f"Floor/triad/{M16 * es}{t}")  # two reads and one write of 16 M elements


CLOCK_PROBES = (("Clock/scalar", "no vector work"), ("Clock/fma256", "beside 256-bit FMAs"),
                ("Clock/fma512", "beside 512-bit FMAs"))


def clock_line(med, adds):
    """The core's clock under each width of FMA, from bench_impl's Clock/* times of `adds`
    dependent adds, one cycle each (its context's clock_probe_adds): a core that slows its clock
    for 512-bit FMAs (some Intel servers) runs a loop bound by its arithmetic slower than its lanes
    predict. None without the probes (an older bench_impl, or a CPU off x86)."""
    if not adds:
        return None
    adds = int(adds)
    base = med.get(CLOCK_PROBES[0][0])
    parts = []
    for key, what in CLOCK_PROBES:
        t = med.get(key)
        if not t:
            continue
        ghz = adds / t / 1e9
        rel = f" ({base / t:.2f}x)" if base and key != CLOCK_PROBES[0][0] else ""
        parts.append(f"{what} {ghz:.2f} GHz{rel}")
    if not parts:
        return None
    return ("Core clock under load (`Clock/*`: a chain of dependent adds, one cycle each, beside "
            "no vector work or independent FMAs; in brackets against the first): "
            + ", ".join(parts) + ".")


def stream_floor_for(med, op, dname, threads):
    """The triad with non-temporal stores: the floor for outputs the library streams (not GBAG)."""
    if op == "GroupedBiasAddGrad":
        return None
    es = 4 if dname == "fp32" else 2
    return med.get(f"Floor/triad_stream/{M16 * es}/{threads}")


# The benchmarked shape of each op (bench_impl's Case/<op>/...). The ops and their order come from
# the registry at run time (registry_ops; tests/lists/op_lists.json checks this table against it).
SHAPES = {"GeluBackward": "16M", "SeluBackward": "16M", "LogitGrad": "16M",
          "LayerNormBackward": "16384x1024", "GroupedBiasAddGrad": "65536x1024_g64"}
CASES = []  # (op, shape) in the registry's order, set by main()


def registry_ops(cli):
    """The registry's op names in its order (`aclnn-conform list ops`)."""
    out = subprocess.run([cli, "list", "ops"], check=True, capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines()
            if len(line.split()) > 1 and line.split()[1].startswith("aclnn")]


CPU_MODEL = "unknown CPU"
LLC_MIB = None
# Bytes read between timed calls of the 16 M-element cases and floors (twice the LLC), so that each
# starts with its data in memory (bench_impl's ACLNN_BENCH_SCRUB_BYTES); 0 when the LLC is unknown.
SCRUB_BYTES = 0
# The sustained mode's (the default): each 16 M-element case and floor rotates through copies of its
# data such that the others hold this many bytes (twice the LLC), timed back to back, no scrub
# (bench_impl's ACLNN_BENCH_ROTATE_BYTES).
ROTATE_BYTES = 0


def cpu_model_name(cpuinfo):
    """The CPU's model name with its core generation: cloud VMs of different generations report
    the same model name ("AMD EPYC" for Zen 3, 4 and 5), and each generation keeps its own section
    of the page. AMD: the Zen generation from family and model (AMD's processor programming
    references) and the model number; others: family and model numbers."""
    fields = {}
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
        if not line.strip():
            break  # the first CPU's block
    name = fields.get("model name")
    if not name:
        return None
    try:
        family, model = int(fields["cpu family"]), int(fields["model"])
    except (KeyError, ValueError):
        return name
    if fields.get("vendor_id") == "AuthenticAMD" and family in (23, 25, 26):
        zen4 = family == 25 and (0x10 <= model <= 0x1F or 0x60 <= model <= 0x7F or
                                 0xA0 <= model <= 0xAF)
        gen = {23: "Zen 1/2", 25: "Zen 4" if zen4 else "Zen 3", 26: "Zen 5"}[family]
        # The model too: VMs of one generation differ (two Zen 5 VMs here ran GeluBackward's
        # arithmetic 1.2-1.6x apart), and each keeps its own tables.
        return f"{name} ({gen}, model {model:02X}h)"
    return f"{name} (family {family}, model {model})"


def llc_mib():
    """The last-level cache in MiB as the library reads it (simd::last_level_cache_bytes): sysfs's
    highest level of cpu0, else glibc's figure (getconf) capped at 32 MiB, since a VM's CPUID may
    give the whole host's L3 (508 MiB on a Zen 5 VM with no cache entries in sysfs)."""
    best = (0, None)
    for i in range(8):
        d = f"/sys/devices/system/cpu/cpu0/cache/index{i}/"
        try:
            level = int(open(d + "level").read())
            size = open(d + "size").read().strip()
        except (OSError, ValueError):
            continue
        mult = {"K": 1 / 1024, "M": 1}.get(size[-1:], 1 / 2**20)
        value = float(size.rstrip("KM")) * mult
        if level > best[0]:
            best = (level, value)
    if best[1]:
        return best[1]
    for name in ("LEVEL3_CACHE_SIZE", "LEVEL2_CACHE_SIZE"):
        try:
            v = int(subprocess.run(["getconf", name], capture_output=True, text=True,
                                   check=True).stdout.strip() or 0)
        except (OSError, ValueError, subprocess.CalledProcessError):
            continue
        if v > 0:
            return min(v / 2**20, 32.0)
    return None


def render(med, ctx, torch1, torch2):
    lines = [markers()[0], ""]
    load = os.getloadavg()
    cpu = ctx.get("num_cpus", os.cpu_count())
    lines.append(
        f"Generated by `benchmarks/perf_report.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
        f"{platform.processor() or platform.machine()}, {CPU_MODEL}, {cpu} CPUs"
        f"{f', last-level cache {LLC_MIB:g} MiB' if LLC_MIB else ''}, load average before/after "
        f"{LOAD_BEFORE[0]:.1f} / {load[0]:.1f}, SIMD target `{TARGET}`. Times are medians of 7 single "
        f"calls (both phases, preallocated outputs), over {ROUNDS} round"
        f"{'s' if ROUNDS > 1 else ''} that alternate library and PyTorch: the library's figure is "
        "the median of the rounds' medians; PyTorch runs in a fresh process each round and its "
        "figure is the least of the rounds' medians not below 0.9 x the case's least floor (a "
        "faster round had data in cache), since one PyTorch process can run a kernel at half the "
        "speed of the next for its whole life and a median could credit the library with "
        "PyTorch's slow mode; the library and PyTorch "
        f"({'python3-torch ' + TORCH_VERSION + ', CPU capability ' + TORCH_CAPABILITY if torch1 is not None else 'not installed: skipped'}) "
        "and the memory floor (triad: two reads and a write of the op's bytes; read: one read, for "
        f"GroupedBiasAddGrad; in {ctx.get('floor_isa', 'the compiler baseline')} vectors on "
        "64-byte aligned arrays, as the cases' buffers are) are measured in this one run. The library writes the outputs of calls whose "
        "bytes exceed a quarter of the last-level cache with non-temporal stores (no read-for-ownership "
        "of the output lines; never GeluBackward's outputs, whose loop is bound by its arithmetic: "
        "docs/kernels.md#non-temporal-stores), which "
        "the plain triad does not use; the streaming floor is the triad with such stores, the lowest "
        "time that store path can reach. "
        + (f"Sustained mode: each 16 M-element case or floor (library, PyTorch and triad alike) "
           f"is built in as many copies as make the others hold {ROTATE_BYTES / 2**20:g} MiB "
           "(twice the last-level cache), and the timed calls take them in turn, back to back: "
           "each finds its data in memory and pays, as a caller's next op would, for writing back "
           "what the previous call left dirty in the cache (`--scrub` reads another buffer "
           "between calls instead, untimed, which writes those lines back for free: in principle a "
           "gift to plain stores over streaming ones, on the Zen 5 VM where this mode came in "
           "within the spread of the runs). "
           if ROTATE_BYTES else
           f"Before each timed call of a 16 M-element case or floor (library, PyTorch and triad "
           f"alike), {SCRUB_BYTES / 2**20:g} MiB of another buffer (twice the last-level cache) "
           "are read, untimed, with the call's thread count, so that the call's data come mostly "
           "from memory rather than from a cache that kept them since the previous call (an "
           "adaptive replacement policy may keep some); that read also writes back, untimed, the "
           "lines the previous call left dirty (`--scrub`). "
           if SCRUB_BYTES else "Calls are repeated on cached data (`--warm`, or the last-level "
           "cache is unknown). ")
        + "On a loaded machine every figure is "
        "inflated; compare ratios, not milliseconds. The last two columns of the 1-thread table are "
        "the same ratios on process CPU time (library and PyTorch: the whole call; floor: the "
        "loop), which time-sharing with other jobs disturbs much less than the wall clock. "
        "\"In cache x 64\" (1 thread) is the same call at 1/64 of the size (256 K elements, (256, "
        "1024), (1024, 1024) in one group) with its data kept in cache between calls, times 64: the time "
        "of the computation with memory out of the way. Where the library's time is close to it "
        "(library / in cache near 1), the case is bound by its arithmetic on this core, and no "
        "memory floor can be reached without less arithmetic per element or more cores.")
    lines.append("")
    marked = False  # a peer figure marked (a): below the floor in every round
    for threads, peer in ((1, torch1), (2, torch2)):
        lines.append(f"### {threads} thread{'s' if threads > 1 else ''}, 16 M elements")
        lines.append("")
        cpu_cols = threads == 1
        lines.append("| op | dtype | library ms | PyTorch ms | library / PyTorch | floor ms | library / floor |"
                     " library / streaming floor |"
                     + (" in cache x 64 ms | library / in cache | CPU: library / PyTorch |"
                        " CPU: library / floor |" if cpu_cols else ""))
        lines.append("|---|---|---|---|---|---|---|---|" + ("---|---|---|---|" if cpu_cols else ""))
        for op, shape in CASES:
            for dname in ("fp32", "bf16", "fp16"):
                key = f"Case/{op}/{dname}/{shape}/t{threads}"
                lib = med.get(key)
                pt = peer.get(f"{op}/{dname}/{shape}") if peer is not None else None
                fl = floor_for(med, op, dname, threads)
                sfl = stream_floor_for(med, op, dname, threads)
                below = peer is not None and peer.get(f"{op}/{dname}/{shape}:below_floor")
                marked = marked or below
                mark = " (a)" if below else ""
                row = (f"| {op} | {dname} | {fmt_ms(lib)} | {fmt_ms(pt)}{mark} | {ratio(lib, pt)} | "
                       f"{fmt_ms(fl)} | {ratio(lib, fl)} | {ratio(lib, sfl)} |")
                if cpu_cols:
                    cached = med.get(f"Cache/{op}/{dname}/t1")
                    cached = cached * 64 if cached is not None else None
                    row += f" {fmt_ms(cached)} | {ratio(lib, cached)} |"
                    pt_cpu = peer.get(f"{op}/{dname}/{shape}:cpu") if peer is not None else None
                    fl_cpu = floor_for(MED_CPU, op, dname, threads)
                    row += f" {ratio(MED_CPU.get(key), pt_cpu)} | {ratio(MED_CPU.get(key), fl_cpu)} |"
                lines.append(row)
        lines.append("")
    if marked:
        lines.append("(a) PyTorch's time lies below this run's memory floor in every round: part "
                     "of its data came from cache, and the ratio favours PyTorch.")
        lines.append("")
    lines.append("### Scaling, smaller and other layouts (fp32)")
    lines.append("")
    lines.append("| case | 1 thread ms | 2 threads ms | 1 / 2 threads |")
    lines.append("|---|---|---|---|")
    extra = sorted({k.rsplit("/t", 1)[0] for k in med if k.startswith("Case/")})
    for k in extra:
        a, b = med.get(k + "/t1"), med.get(k + "/t2")
        lines.append(f"| {k[5:]} | {fmt_ms(a)} | {fmt_ms(b)} | {ratio(a, b)} |")
    lines.append("")
    lines.append("| one-element call, both phases | time |")
    lines.append("|---|---|")
    for k in sorted(k for k in med if k.startswith("Call/")):
        lines.append(f"| {k[5:]} | {med[k] * 1e6:.2f} us |")
    lines.append("")
    lines.append("Memory floor: " + ", ".join(
        f"{k[6:]} {fmt_ms(v)} ms" for k, v in sorted(med.items()) if k.startswith("Floor/")) +
        " (bytes per array / threads).")
    clock = clock_line(med, ctx.get("clock_probe_adds"))
    if clock:
        lines.append("")
        lines.append(clock)
    if torch1 is not None:
        errs = sorted({v for k, v in torch1.items() if k.endswith(":error")})
        if errs:
            lines.append("")
            lines.append("PyTorch has no CPU kernel for: " + "; ".join(errs) + ".")
    lines.append("")
    lines.append(markers()[1])
    return "\n".join(lines)


LOAD_BEFORE = os.getloadavg()
ROUNDS = 1
TARGET = "?"
TORCH_VERSION = ""
TORCH_CAPABILITY = "?"


def main():
    global TARGET, TORCH_VERSION, SCRUB_BYTES, ROTATE_BYTES
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--cli", default=None,
                    help="aclnn-conform, for the registry's ops (default <build>/cli/aclnn-conform)")
    ap.add_argument("--doc", default="docs/performance.md")
    ap.add_argument("--json", default=None, help="also write the raw medians here")
    ap.add_argument("--rounds", type=int, default=3,
                    help="library, PyTorch 1 thread, PyTorch 2 threads, in turn, this many times; "
                         "the library's figure is the median of the rounds' medians, PyTorch's "
                         "(a fresh process each round) the least (default 3)")
    ap.add_argument("--target", default=None,
                    help="cap the library at this Highway target (ACLNN_CPU_TARGET: AVX3, AVX2, "
                         "...) and PyTorch at the same ISA (ATEN_CPU_CAPABILITY); the report goes "
                         "to the page's section for that target")
    ap.add_argument("--warm", action="store_true",
                    help="repeat the 16 M-element calls on cached data (as reports before the "
                         "ninth round did) instead of starting each cold")
    ap.add_argument("--scrub", action="store_true",
                    help="start each 16 M-element call cold by reading twice the LLC of another "
                         "buffer, untimed (as reports before 2026-12-02 did), instead of the "
                         "sustained mode's rotation through copies of the data: the untimed read "
                         "also writes back, for free, the dirty lines the previous call left")
    ap.add_argument("--torch-child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--scrub-bytes", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--rotate-bytes", type=int, default=0, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.torch_child is not None:  # one round's PyTorch figures, as JSON on stdout (torch_child)
        SCRUB_BYTES, ROTATE_BYTES = a.scrub_bytes, a.rotate_bytes
        json.dump(torch_medians(a.torch_child), sys.stdout)
        return
    global FORCED
    FORCED = a.target
    if FORCED and FORCED.upper() in ATEN_CAPABILITY:
        # Read by PyTorch at its import (torch_medians imports it later in this process).
        os.environ["ATEN_CPU_CAPABILITY"] = ATEN_CAPABILITY[FORCED.upper()]
    ops = registry_ops(a.cli or os.path.join(a.build, "cli", "aclnn-conform"))
    CASES.extend((op, SHAPES[op]) for op in ops if op in SHAPES)
    for op in ops:
        if op not in SHAPES:
            print(f"perf_report: {op} has no benchmarked shape (SHAPES): not in the report",
                  file=sys.stderr)
    global ROUNDS
    ROUNDS = max(1, a.rounds)
    global CPU_MODEL, LLC_MIB
    try:
        flags = next((l for l in open("/proc/cpuinfo") if l.startswith("flags")), "").split()
        TARGET = "AVX3 (AVX-512)" if "avx512bw" in flags else "AVX2" if "avx2" in flags else "portable"
        if FORCED:
            TARGET = f"{FORCED} (forced: --target, ACLNN_CPU_TARGET; the CPU runs {TARGET})"
        CPU_MODEL = cpu_model_name(open("/proc/cpuinfo").read()) or CPU_MODEL
    except OSError:
        pass
    LLC_MIB = llc_mib()
    cold_bytes = 0 if a.warm or not LLC_MIB else int(2 * LLC_MIB * 2**20)
    SCRUB_BYTES, ROTATE_BYTES = (cold_bytes, 0) if a.scrub else (0, cold_bytes)
    # The rounds alternate library and PyTorch, so that a change in the machine's speed during the
    # run (a shared VM's memory bandwidth moves by a third within minutes) reaches both sides.
    lib_rounds, cpu_rounds, t1_rounds, t2_rounds = [], [], [], []
    ctx = {}
    for _ in range(ROUNDS):
        med_r, cpu_r, ctx = run_library(a.build)
        lib_rounds.append(med_r)
        cpu_rounds.append(cpu_r)
        t1 = torch_child(1)
        t1_rounds.append(t1)
        t2_rounds.append(torch_child(2) if t1 is not None else None)
    med = median_of_rounds(lib_rounds)
    MED_CPU.update(median_of_rounds(cpu_rounds))
    torch1 = best_of_rounds(t1_rounds, physical_floor(med, 1))
    torch2 = best_of_rounds(t2_rounds, physical_floor(med, 2)) if torch1 is not None else None
    if torch1 is not None:
        import torch
        TORCH_VERSION = torch.__version__
        global TORCH_CAPABILITY
        TORCH_CAPABILITY = next((l.split(":", 1)[1].strip() for l in
                                 torch.__config__.show().splitlines()
                                 if "CPU capability usage" in l), "?")
    text = render(med, ctx, torch1, torch2)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"library": med, "library_cpu": MED_CPU, "torch1": torch1, "torch2": torch2},
                      f, indent=1)
    doc = open(a.doc).read() if os.path.exists(a.doc) else ""
    begin, end = markers()
    if begin in doc and end in doc:
        doc = doc[:doc.index(begin)] + text + doc[doc.index(end) + len(end):]
    else:
        title = ("Issue 14: library vs PyTorch vs memory floor" if FORCED is None else
                 f"Library vs PyTorch vs memory floor, target {FORCED}, {CPU_MODEL}")
        doc = doc.rstrip("\n") + f"\n\n## {title}\n\n" + text + "\n"
    with open(a.doc, "w") as f:
        f.write(doc)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
