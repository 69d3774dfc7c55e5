"""The kit standards computed twice: aclnn_conform.compare() (the project's
C++, reference/kit_standards.cpp) against kit_standards_numpy.py (NumPy,
written from docs/standards.md's rules), on the same outputs.

Random and adversarial outputs per dtype (fp16, bf16 as uint16 bit
patterns, fp32): errors of a few ulps to far off, NaN/inf where they are due
and where they are not, values below the kits' small-value thresholds,
results exactly at a threshold, all-equal and single-element outputs, with
and without a reference device. For every standard the verdicts must be
equal, counts exactly, the score (full precision) to 1e-9 relative, and the
measures the report prints to the digits it prints them with.
"""

import math
import re

import numpy as np
import pytest

import aclnn_conform as ac
from aclnn_conform.golden import GoldenOutput

import kit_standards_numpy as ks

DTYPES = ["fp16", "bf16", "fp32"]
NUM = r"(nan|-?inf|-?[0-9.]+(?:e[-+]?\d+)?)"


def raw(values, dtype):
    values = np.asarray(values, np.float64)
    if dtype == "fp16":
        return values.astype(np.float16)
    if dtype == "fp32":
        return values.astype(np.float32)
    return ks.bf16_bits(values)


def golden(exact, record, dtype):
    return GoldenOutput({
        "name": "out", "dtype": dtype, "shape": list(exact.shape),
        "written": True, "bits": raw(record, dtype),
        "exact": np.asarray(exact, np.float64), "exact_error": None,
        "error_scale": None, "term_count": None})


# ------------------------------------------------------------ outputs

def ulp(v, dtype):
    p, emin, _ = ks.FORMATS[dtype]
    _, e = np.frexp(v)
    e = np.where(v == 0, emin + 1, e)
    return np.exp2(np.maximum(e - 1, emin) - p)


def perturb(rng, record, dtype, finite_only=False):
    """A device's result near the value of record: a few ulps, a relative
    or absolute error, some elements far off, NaN/inf placed or not."""
    n = record.size
    fin = np.isfinite(record)
    base = np.where(fin, record, 0.0)
    mode = rng.integers(0, 6)
    if mode == 0:
        out = record.copy()
    elif mode == 1:  # k ulps on a share of the elements
        k = rng.integers(-rng.choice([1, 2, 4, 40, 3000]), 3001, n)
        out = base + np.where(rng.random(n) < rng.random(), k, 0) * ulp(
            base, dtype)
    elif mode == 2:  # relative noise
        out = base * (1 + rng.standard_normal(n) * 10.0 ** -rng.uniform(1, 8))
    elif mode == 3:  # absolute noise
        out = base + rng.standard_normal(n) * 10.0 ** -rng.uniform(2, 12)
    elif mode == 4:  # one or a few far off
        out = record.copy()
        idx = rng.choice(n, size=min(n, rng.integers(1, 4)), replace=False)
        out[idx] = base[idx] + rng.standard_normal(idx.size) * 10.0 ** \
            rng.uniform(-4, 1)
    else:  # sign flips and zeros
        out = record.copy()
        m = rng.random(n) < 0.05
        out[m] = -out[m]
        out[rng.random(n) < 0.05] = 0.0
    out = np.where(fin, out, record)  # specials copied where due...
    out = ks.round_to(out, dtype)
    if not finite_only and rng.random() < 0.35:  # ...and misplaced
        m = rng.random(n) < rng.choice([0.001, 0.01, 0.2])
        if not m.any():
            m[rng.integers(0, n)] = True
        out[m] = rng.choice([np.nan, np.inf, -np.inf, 0.0, 1.0], m.sum())
    return out


def random_output(rng, dtype):
    n = int(rng.choice([1, 2, 3, 7, 64, 257, 1000, 2000]))
    kind = rng.integers(0, 6)
    if kind == 0:
        exact = rng.standard_normal(n) * 10.0 ** rng.uniform(-6, 3)
    elif kind == 1:  # magnitudes across the range, tiny ones included
        exact = np.sign(rng.standard_normal(n)) * 10.0 ** rng.uniform(
            -12, 4, n)
    elif kind == 2:  # below the small-value thresholds (2^-8 ... 2^-20)
        exact = rng.uniform(-1, 1, n) * 2.0 ** -rng.integers(8, 24)
    elif kind == 3:  # near the dtype's largest value (fp16: beyond it)
        fmax = ks.FORMATS[dtype][2]
        exact = rng.uniform(0.9, 1.02, n) * fmax * np.sign(
            rng.standard_normal(n))
    elif kind == 4:  # all equal
        exact = np.full(n, rng.standard_normal() * 4)
    else:  # zeros and ones
        exact = rng.choice([0.0, -0.0, 1.0, -1.0, 0.5], n)
    exact = exact.astype(np.float64)
    if rng.random() < 0.3:  # NaN/inf due
        m = rng.random(n) < rng.choice([0.01, 0.3])
        exact[m] = rng.choice([np.nan, np.inf, -np.inf], m.sum())
    if kind != 5 and rng.random() < 0.3:  # exact values in the dtype
        exact = ks.round_to(exact, dtype)
    record = ks.round_to(exact, dtype)
    got = perturb(rng, record, dtype)
    ref = None
    if rng.random() < 0.8:
        ref = got.copy() if rng.random() < 0.15 else perturb(rng, record,
                                                             dtype)
    return exact, record, got, ref


def edge_outputs(dtype):
    """Hand-placed outputs: thresholds met exactly, a NaN in the wrong
    place, small values, one element, all equal."""
    out = []

    def add(got, exact, ref=None, record=None):
        exact = np.asarray(exact, np.float64)
        record = ks.round_to(exact, dtype) if record is None else \
            np.asarray(record, np.float64)
        got = ks.round_to(np.asarray(got, np.float64), dtype)
        if ref is not None:
            ref = ks.round_to(np.asarray(ref, np.float64), dtype)
        out.append((exact, record, got, ref))

    one = np.ones(1000)
    u = float(ulp(np.float64(1.0), dtype))
    for bad in (1, 2, 10, 11):  # 99.9 %, 99.8 %, 99 %, 98.9 %
        for err in (u, 2 * u, 0.005, 0.02, 0.1, 1.0):
            g = one.copy()
            g[:bad] += err
            add(g, one, one)
            add(g, one, np.roll(g, 3))
    add(one, one, one)  # all equal
    add([1.5], [1.5], [1.5])  # one element
    add([1.5 + 4 * u], [1.5], [1.5 + u])
    add([0.0], [0.0], [0.0])
    add(np.zeros(8), np.zeros(8), np.zeros(8))  # all zero
    add(np.zeros(8), np.ones(8), np.ones(8))
    add(np.ones(8), np.zeros(8), np.zeros(8))
    # cosine: a = (1, 0), g = (1, t) on both sides of 0.99.
    for t in (0.14, 0.1417, 0.1418, 0.15):
        add([1, 0], [1, t], [1, t])
    # mixed's limit and element bound at g = 1 and g = 0.
    rtol, atol, limit = ks.MIXED[dtype]
    for e in (atol + rtol, limit, 2 * limit):
        g = np.ones(100)
        g[0] += e
        add(g, np.ones(100), np.ones(100))
        g = np.zeros(100)
        g[0] = e
        add(g, np.zeros(100), np.zeros(100))
    # Small values: below every threshold, off by tiny amounts.
    tiny = np.linspace(-2.0 ** -21, 2.0 ** -21, 64)
    add(tiny * 1.5, tiny, tiny * 1.25)
    add(tiny + 2.0 ** -40, tiny, tiny)
    add(tiny, tiny, tiny + 2.0 ** -40)
    # The small-value boundaries themselves (|g| at the threshold).
    for sv in (2.0 ** -8, 2.0 ** -10, 2.0 ** -11, 2.0 ** -14, 2.0 ** -20):
        g = np.full(16, sv)
        add(g + sv * 2.0 ** -6, g, g + sv * 2.0 ** -7)
    # cross_check ratios at a level's limit: target k ulps, reference j.
    g = np.full(4, 1024.0 if dtype != "fp32" else 2.0 ** 20)
    ug = float(ulp(g[0], dtype))
    for k, j in ((2, 1), (4, 2), (5, 1), (10, 1), (12, 1), (3, 2), (0, 0)):
        add(g + k * ug, g, g + j * ug)
    # NaN/inf: matching, misplaced, the sign of an inf, the reference's.
    base = np.array([1.0, 2.0, np.nan, np.inf, -np.inf, 3.0])
    add(base, base, base)
    add([1.0, 2.0, 1.0, np.inf, -np.inf, 3.0], base, base)
    add([1.0, 2.0, np.nan, -np.inf, -np.inf, 3.0], base, base)
    add([np.nan, 2.0, np.nan, np.inf, -np.inf, 3.0], base,
        [np.nan, 2.0, np.nan, np.inf, -np.inf, 3.0])
    add([np.nan, 2.0, np.nan, np.inf, -np.inf, 3.0], base, base)
    add([np.inf, 2.0], [1e6, 2.0], [np.inf, 2.0])
    add([np.nan, np.nan], [np.nan, np.nan], [np.nan, np.nan])
    return out


# ------------------------------------------------------------ the report's measures

def _f(s):
    return float(s)


def parse(standard, text):
    """The measures in compare()'s text (reference/kit_standards.cpp's
    formats): {name: (value, significant digits or None for counts)}."""
    m = {}

    def grab(pattern, names, digits):
        hit = re.search(pattern, text)
        if hit:
            for name, d, v in zip(names, digits, hit.groups()):
                if v is not None and name:
                    m[name] = (int(v) if d is None else _f(v), d)
        return hit

    if standard == "ttk-mixed":
        grab(r"matched_ratio %s \((\d+) of (\d+)\), max_abs_error %s" % (
            NUM, NUM), ["matched", "ok", "n", "max_abs"], [4, None, None, 4])
    elif standard == "ttk-stat_rel_err":
        grab(r"NaN/Inf mismatch at (\d+) of (\d+)", ["mismatches", "n"],
             [None, None])
        grab(r"mere %s, mare %s over (\d+) finite" % (NUM, NUM),
             ["mere", "mare", "finite"], [4, 4, None])
        if "every element non-finite" in text:
            m["all_special"] = (True, "bool")
    elif standard == "ttk-close":
        grab(r"(\d+) of (\d+) elements not close.*precision %s" % NUM,
             ["bad", "n", "precision"], [None, None, 6])
    elif standard == "ttk-cosine":
        grab(r"cosine %s" % NUM, ["cos"], [8])
    elif standard == "ttk-binary":
        grab(r"(\d+) of (\d+) elements differ", ["diff", "n"], [None, None])
    elif standard.startswith("ttk-cross_check"):
        grab(r"mare_ratio %s, mere_ratio %s, rmse_ratio %s over (\d+) large "
             r"elements; small-value errors (\d+) vs (\d+) \(ratio %s\)" % (
                 NUM, NUM, NUM, NUM),
             ["mare", "mere", "rmse", "large", "small_a", "small_b",
              "small_ratio"], [4, 4, 4, None, None, None, 4])
        m["special_ok"] = ("NaN/Inf mismatch" not in text, "bool")
    elif standard == "msprobe-benchmark":
        for name in ("small_value_err_ratio", "rmse_ratio",
                     "max_rel_err_ratio", "mean_rel_err_ratio", "eb_ratio"):
            hit = re.search(r"%s %s / %s: inf/nan (\w+)" % (name, NUM, NUM),
                            text)
            if hit:
                m[name] = ((hit.group(3), _f(hit.group(1)),
                            _f(hit.group(2))), "tuple")
            else:
                grab(r"%s %s" % (name, NUM), [name], [4])
    elif standard == "msprobe-absolute_threshold":
        grab(r"inf_nan_error_ratio %s \((\d+) of (\d+)\), rel_err_ratio %s "
             r"\((\d+) of (\d+)\), abs_err_ratio %s \((\d+) of (\d+)\)" % (
                 NUM, NUM, NUM),
             ["inf_nan_ratio", "inf_nan_bad", "inf_nan", "rel_ratio",
              "rel_bad", "normal", "abs_ratio", "abs_bad", "small"],
             [4, None, None, 4, None, None, 4, None, None])
    elif standard == "msprobe-ulp_compare":
        grab(r"mean ulp error %s" % NUM, ["mean"], [4])
        grab(r"share above \d+ ulp %s" % NUM, ["share"], [4])
        grab(r"share ratio to the reference %s" % NUM, ["ratio"], [4])
    elif standard == "msprobe-binary_consistency":
        grab(r"error_rate %s \((\d+) of (\d+)" % NUM, ["rate", "diff", "n"],
             [4, None, None])
    elif standard == "msprobe-thousandth_threshold":
        grab(r"rel_err_thousandth %s" % NUM, ["share"], [6])
    elif standard == "msprobe-precheck":
        grab(r"cosine %s" % NUM, ["cos"], [8])
        grab(r"max abs error %s" % NUM, ["max_abs"], [4])
        grab(r"rel err < 1e-\d share %s, < 1e-\d share %s" % (NUM, NUM),
             ["share_lo", "share_hi"], [4, 4])
        if "all zero" in text and "both all zero" not in text:
            m["zero_side"] = (True, "bool")
    return m


def same_float(got, want, rel):
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want) or math.isinf(got):
        return got == want
    return abs(got - want) <= rel * abs(want) + 1e-300


def disagreements(standard, dtype, exact, record, got, ref):
    """The differences between compare() and the NumPy standard, as text."""
    r = ac.compare(raw(got, dtype), golden(exact, record, dtype),
                   standard=standard,
                   reference=None if ref is None else raw(ref, dtype))
    mine = ks.evaluate(standard, dtype, got, exact, record, ref,
                       got_bits=raw(got, dtype).view(np.uint16 if dtype in (
                           "fp16", "bf16") else np.uint32),
                       record_bits=raw(record, dtype).view(
                           np.uint16 if dtype in ("fp16", "bf16")
                           else np.uint32))
    out = []
    if r.verdict != mine.verdict:
        out.append("verdict %s, numpy %s" % (r.verdict, mine.verdict))
    if r.measures["warning"] != mine.warning:
        out.append("warning %s, numpy %s" % (r.measures["warning"],
                                             mine.warning))
    if r.verdict == mine.verdict == "not judged":
        return out, r, mine
    if mine.score is not None and not same_float(r.measures["score"],
                                                 mine.score, 1e-9):
        out.append("score %r, numpy %r" % (r.measures["score"], mine.score))
    parsed = parse(standard, r.measures["measured"])
    for name, (value, digits) in parsed.items():
        if name not in mine.measures:
            if digits == "bool" and not value:
                continue
            if name == "all_special" or (name in ("special_ok",) and value):
                continue
            out.append("measure %s=%r not in numpy's %r" % (
                name, value, mine.measures))
            continue
        want = mine.measures[name]
        if digits is None or digits == "bool":
            ok = value == want
        elif digits == "tuple":
            ok = (isinstance(want, tuple) and value[0] == want[0] and
                  same_float(value[1], want[1], 6e-4) and
                  same_float(value[2], want[2], 6e-4))
        else:
            ok = same_float(value, want, 0.6 * 10.0 ** (1 - digits))
        if not ok:
            out.append("%s %r, numpy %r" % (name, value, want))
    # Every measure NumPy computed must be in the text (no silent drops).
    expected = {
        "ttk-mixed": {"matched", "ok", "n", "max_abs"},
        "ttk-close": {"bad", "n", "precision"},
        "ttk-binary": {"diff", "n"},
        "msprobe-binary_consistency": {"rate", "diff", "n"},
        "msprobe-thousandth_threshold": {"share"},
    }.get(standard, set())
    missing = expected - set(parsed)
    if missing:
        out.append("measures %s not printed: %s" % (
            sorted(missing), r.measures["measured"]))
    return out, r, mine


def check(cases, dtype, seen):
    failures = []
    for k, (exact, record, got, ref) in enumerate(cases):
        for standard in ks.STANDARDS:
            diff, r, mine = disagreements(standard, dtype, exact, record, got,
                                          ref)
            seen.setdefault(standard, set()).add(mine.verdict)
            if diff:
                failures.append("case %d %s %s n=%d: %s\n  C++: %s\n  got=%r\n"
                                "  exact=%r\n  ref=%r" % (
                                    k, standard, dtype, got.size,
                                    "; ".join(diff), r.measures["measured"],
                                    got[:8], exact[:8],
                                    None if ref is None else ref[:8]))
    return failures


SEEN = {}


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_outputs_agree(dtype):
    rng = np.random.default_rng({"fp16": 16, "bf16": 7, "fp32": 32}[dtype])
    cases = [random_output(rng, dtype) for _ in range(150)]
    failures = check(cases, dtype, SEEN.setdefault(dtype, {}))
    assert not failures, "%d disagreements:\n%s" % (
        len(failures), "\n".join(failures[:12]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_edge_outputs_agree(dtype):
    failures = check(edge_outputs(dtype), dtype,
                     SEEN.setdefault(dtype + "-edge", {}))
    assert not failures, "%d disagreements:\n%s" % (
        len(failures), "\n".join(failures[:12]))


def test_the_outputs_reach_every_verdict():
    """The comparisons above are not vacuous: across the outputs each
    standard passed some and failed some (and the reference-device ones were
    also not judged, where no reference was given)."""
    if len(SEEN) < 6:
        pytest.skip("runs after the agreement tests")
    for standard in ks.STANDARDS:
        verdicts = set().union(*(s.get(standard, set())
                                 for s in SEEN.values()))
        assert {"pass", "fail"} <= verdicts, (standard, verdicts)
        if standard.startswith(("ttk-cross_check", "msprobe-benchmark",
                                "msprobe-ulp")):
            assert "not judged" in verdicts, (standard, verdicts)


def test_empty_output_is_not_judged_by_both():
    e = np.zeros(0)
    for dtype in DTYPES:
        for standard in ks.STANDARDS:
            r = ac.compare(raw(e, dtype), golden(e, e, dtype),
                           standard=standard, reference=raw(e, dtype))
            assert r.verdict == "not judged", (standard, dtype)
            assert ks.evaluate(standard, dtype, e, e, e, e).verdict == \
                "not judged"


def test_the_numpy_side_is_not_the_project():
    """A wrong NumPy rule is caught: moving ttk-mixed's pass share from 0.99
    to 0.999 makes the comparison disagree on an edge output."""
    exact = np.ones(1000)
    got = exact.copy()
    got[:10] += 0.005  # 99 % within the element bound, max |err| 0.005
    dtype = "fp32"
    got = ks.round_to(got, dtype)
    saved = ks.ttk_mixed

    def stricter(got, exact, record, ref, dtype):
        r = saved(got, exact, record, ref, dtype)
        if r.measures["matched"] < 0.999:
            r.verdict = "fail"
        return r
    ks.ttk_mixed = stricter
    try:
        diff, _, _ = disagreements("ttk-mixed", dtype, exact, exact, got,
                                   None)
    finally:
        ks.ttk_mixed = saved
    assert diff and "verdict" in diff[0], diff


# ------------------------------------------------------------ the report's tallies

# A python: SUT whose outputs the test recomputes in-process: GELU's tanh
# form (the vendor's formula) in float64, rounded once. It is its own
# competitor (the reference device): two different python: modules cannot be
# SUT and competitor of one run, as the adapter serves one module per process
# (a second python: library is the same library), so the reference's outputs
# are the SUT's and the cross-device ratios are 1.
TANH_SUT = '''
import math
import numpy as np
from aclnn_conform import bf16, sut


def _vals(a):
    if sut.dtype_of(a) == "bf16":
        return bf16.to_float32(a).astype(np.float64)
    return np.asarray(a).astype(np.float64)


def gelu_backward(grad_output, self, grad_input):
    x, dy = _vals(self), _vals(grad_output)
    k = math.sqrt(2.0 / math.pi)
    with np.errstate(all="ignore"):
        t = np.tanh(k * (x + 0.044715 * x ** 3))
        d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (
            1 + 3 * 0.044715 * x * x)
        v = np.broadcast_to(dy * d, grad_input.shape)
        if sut.dtype_of(grad_input) == "bf16":
            grad_input[...] = bf16.from_float(v)
        else:
            grad_input[...] = v.astype(grad_input.dtype)
'''

HEADER = ("testcase_name,network_name,api_name,tensor_view_shapes,"
          "tensor_formats,tensor_dtypes,tensor_storage_shapes,"
          "tensor_view_offsets,tensor_view_strides,output_tensor_indexes,"
          "output_inplace_indexes,attributes,scalar_dtypes,input_data_ranges,"
          "precision_tolerances,absolute_precision,scalar_data_ranges,"
          "is_enabled,remark,soc_series,priority,dump_file_prefix,"
          "manual_tensor_binaries,manual_golden_binaries")
RANGES = ["((-2, 2), (-1, 1), (0, 0))",     # the vendor's gelu_grad range
          "((-2, 2), (-6, 6), (0, 0))",
          "((-1e-3, 1e-3), (-1e-3, 1e-3), (0, 0))",  # small values
          "((-2, 2), (-4, 4, 0.0, inf, -inf, nan), (0, 0))"]  # specials
NP_RAW = {"fp32": np.float32, "fp16": np.float16, "bf16": np.uint16}


def _corpus_inputs(entry):
    from aclnn_conform.sut import bfloat16_bits
    out = {}
    for t in entry["tensors"]:
        a = np.frombuffer(bytes.fromhex(t["storage_hex"]),
                          NP_RAW[t["dtype"]]).reshape(t["shape"]).copy()
        out[t["name"]] = a.view(bfloat16_bits) if t["dtype"] == "bf16" \
            else a
    return out


def _values(a, dtype):
    a = np.asarray(a)
    return ks.from_bf16_bits(a.view(np.uint16)) if dtype == "bf16" else \
        a.astype(np.float64)


def test_report_tallies_agree_with_numpy(tmp_path, cli):
    """A short run (import-ttk's cases, replayed on a python: SUT, with it
    as its competitor): report.json's kit tallies per dtype are the NumPy
    standards tallied over the same outputs, recomputed in-process."""
    import importlib.util
    import json
    import os
    import subprocess
    from aclnn_conform import _paths, golden as gold
    (tmp_path / "kit_tanh_sut.py").write_text(TANH_SUT)
    rows = [HEADER]
    for dt in ("float32", "float16", "bfloat16"):
        for k, rng in enumerate(RANGES):
            rows.append('r_%s_%d,,aclnnGeluBackward,"((8, 64), (8, 64), '
                        '(8, 64))","(\'ND\',)","(\'%s\',)",(),(),(),,(),{},'
                        '(),"%s",,,,True,kit tally check,,0,,(),()' % (
                            dt, k, dt, rng))
    (tmp_path / "ttk_aclnn_gelu_kits.csv").write_text("\n".join(rows) + "\n")
    env = dict(os.environ)
    env["ACLNN_PYTHON_SUT_ADAPTER"] = _paths.adapter()
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tmp_path), os.path.dirname(os.path.dirname(ac.__file__))])
    if _paths.worker():
        env.setdefault("ACLNN_CONFORM_WORKER", _paths.worker())
    subprocess.run([cli, "import-ttk", str(tmp_path / "ttk_aclnn_gelu_kits.csv"),
                    "--out", str(tmp_path / "cases")], check=True, env=env,
                   capture_output=True)
    run = subprocess.run([cli, "replay", str(tmp_path / "cases" / "corpus"),
                          "--sut", "python:kit_tanh_sut", "--competitor",
                          "python:kit_tanh_sut", "--out",
                          str(tmp_path / "rep"), "--quiet"], env=env,
                         capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr  # DEVIATIONS: the tanh form
    report = json.loads((tmp_path / "rep" / "report.json").read_text())

    def load(name):
        spec = importlib.util.spec_from_file_location(name, tmp_path /
                                                      (name + ".py"))
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        return m
    tanh = load("kit_tanh_sut")
    # NumPy's tallies: per dtype and standard, over every case.
    tallies = {}
    corpus = tmp_path / "cases" / "corpus"
    for path in sorted(corpus.iterdir()):
        entry = json.loads(path.read_text())
        t = _corpus_inputs(entry)
        dtype = entry["tensors"][2]["dtype"]
        got = np.zeros_like(t["gradInput"])
        tanh.gelu_backward(t["gradOutput"], t["self"], got)
        ref = got
        g = gold.gelu_backward(t["gradOutput"], t["self"],
                               full=True)["gradInput"]
        record = _values(g.bits, dtype).ravel()
        for standard in ks.STANDARDS:
            r = ks.evaluate(standard, dtype, _values(got, dtype).ravel(),
                            np.asarray(g.exact).ravel(), record,
                            _values(ref, dtype).ravel(),
                            got_bits=np.asarray(got).view(
                                np.uint32 if dtype == "fp32"
                                else np.uint16).ravel(),
                            record_bits=np.asarray(g.bits).view(
                                np.uint32 if dtype == "fp32"
                                else np.uint16).ravel())
            tallies.setdefault((dtype, standard), []).append(
                (r, "corpus " + path.name))
    rows = {(a["op"], a["dtype"]): a for a in report["accuracy"]}
    checked = 0
    for (dtype, standard), cases in tallies.items():
        kit = {k["id"]: k for k in rows[("GeluBackward", dtype)]["precision"]
               ["kits"]}[standard]
        verdicts = [r.verdict for r, _ in cases]
        where = "%s %s: report %r" % (dtype, standard, kit)
        assert kit["judged"] == len(cases) - verdicts.count("not judged"), \
            where
        assert kit["not_judged"] == verdicts.count("not judged"), where
        assert kit["passed"] == verdicts.count("pass"), where
        assert kit["warnings"] == sum(r.warning for r, _ in cases), where
        failing = [(r, o) for r, o in cases if r.verdict == "fail"]
        assert kit["worst_failed"] == bool(failing), where
        pool = failing or [(r, o) for r, o in cases if r.verdict == "pass"]
        if pool and all(r.score is not None for r, _ in pool):
            top = max(r.score for r, _ in pool)
            # JSON has no inf: report.json writes an unbounded score as null.
            score = kit["worst_score"]
            assert same_float(math.inf if score is None else score, top,
                              1e-9), where
            assert kit["worst_case"] == min(o for r, o in pool
                                            if r.score == top), where
        checked += 1
    assert checked == 3 * len(ks.STANDARDS)
