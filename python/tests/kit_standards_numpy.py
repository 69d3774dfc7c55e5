"""An independent NumPy statement of the vendor kits' precision standards.

Written from docs/standards.md's rules (and, where its wording leaves a case
open, the kits' own code: msprobe's check_inf_nan_value counts a NaN
relative error as an error, since it tests ``rel <= rtol``), not from the
project's C++ (reference/kit_standards.cpp), so that
test_kit_standards_independent.py can check that aclnn_conform.compare()
computes the same measures and verdicts.

Every function takes float64 arrays of one output: ``got`` (the SUT's
values), ``exact`` (the exact value), ``record`` (the exact value rounded
once to the output dtype) and ``ref`` (another device's values, or None),
and the dtype as "fp16", "bf16" or "fp32". It returns a Result: verdict
("pass", "fail", "not judged"), score (the largest measure over its limit,
or a failing share, as docs/standards.md defines it; None where the page
does not define it), warning (msprobe-precheck's WARNING) and measures.
"""

import math

import numpy as np

P2 = math.ldexp

# Per dtype: mantissa bits, smallest normal exponent, largest finite value.
FORMATS = {
    "fp16": (10, -14, 65504.0),
    "bf16": (7, -126, float.fromhex("0x1.fep127")),
    "fp32": (23, -126, float(np.finfo(np.float32).max)),
}


def round_to(x, dtype):
    """x (float64) rounded to nearest-even in dtype, as float64; overflow
    gives inf. fp16 and fp32 by NumPy's own casts; bf16 by scaling."""
    x = np.asarray(x, np.float64)
    if dtype == "fp16":
        with np.errstate(over="ignore"):
            return x.astype(np.float16).astype(np.float64)
    if dtype == "fp32":
        with np.errstate(over="ignore"):
            return x.astype(np.float32).astype(np.float64)
    p, emin, fmax = FORMATS[dtype]
    out = x.copy()
    fin = np.isfinite(x) & (x != 0)
    _, e = np.frexp(x[fin])
    q = np.exp2(np.maximum(e - 1, emin) - p)
    r = np.round(x[fin] / q) * q  # np.round: half to even
    r[np.abs(r) > fmax] = np.copysign(np.inf, r[np.abs(r) > fmax])
    out[fin] = r
    return out


def bf16_bits(v):
    """bf16 bit patterns (uint16) of float64 values representable in bf16."""
    v = np.asarray(v, np.float64)
    bits = (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    bits[np.isnan(v)] = 0x7FC0
    return bits


def from_bf16_bits(b):
    b = np.asarray(b, np.uint16).astype(np.uint32) << 16
    return b.view(np.float32).astype(np.float64)


class Result:
    def __init__(self, verdict, score=None, warning=False, **measures):
        self.verdict = verdict
        self.score = score
        self.warning = warning
        self.measures = measures

    def __repr__(self):
        return "Result(%s, score=%r, warning=%r, %r)" % (
            self.verdict, self.score, self.warning, self.measures)


def _not_judged(why, **measures):
    return Result("not judged", note=why, **measures)


def _cls(v):
    """0 finite, 1 NaN, 2 +inf, 3 -inf."""
    c = np.zeros(v.shape, np.int8)
    c[np.isnan(v)] = 1
    c[v == np.inf] = 2
    c[v == -np.inf] = 3
    return c


def _specials_match(a, g):
    """TTK's NaN/inf rule: both NaN, or both inf of one sign."""
    return (np.isnan(a) & np.isnan(g)) | (np.isinf(a) & np.isinf(g) & (a == g))


# ------------------------------------------------------------------ TTK

MIXED = {  # rtol, atol, max |a - g| limit
    "fp16": (2.0 ** -9, 2.0 ** -9, 0.1),
    "bf16": (2.0 ** -6, 2.0 ** -6, 1.0),
    "fp32": (2.0 ** -10, 2.0 ** -16, 0.01),
}
STAT_T = {"fp16": 2.0 ** -10, "bf16": 2.0 ** -7, "fp32": 2.0 ** -13}
CROSS_SMALL = {  # small value, small-value atol
    "fp16": (2.0 ** -11, 2.0 ** -16),
    "bf16": (2.0 ** -8, 2.0 ** -16),
    "fp32": (2.0 ** -14, 2.0 ** -30),
}
LEVELS = {0: (10.0, 2.0, 2.0), 1: (5.0, 1.5, 1.5), 2: (2.0, 1.2, 1.2)}


def ttk_mixed(got, exact, record, ref, dtype):
    rtol, atol, limit = MIXED[dtype]
    a, g = got, record
    n = a.size
    fin = np.isfinite(a) & np.isfinite(g)
    err = np.abs(a - g)
    ok = _specials_match(a, g) | (fin & (err <= atol + rtol * np.abs(g)))
    special = ~np.isfinite(a) | ~np.isfinite(g)
    mismatch = bool(np.any(special & ~_specials_match(a, g)))
    max_err = float(err[fin].max()) if fin.any() else 0.0
    max_abs = math.inf if mismatch else max_err
    matched = int(ok.sum()) / n
    passed = matched >= 0.99 and max_abs <= limit
    return Result("pass" if passed else "fail",
                  max((1 - matched) / 0.01, max_abs / limit),
                  matched=matched, ok=int(ok.sum()), n=n, max_abs=max_abs,
                  mismatch=mismatch)


def ttk_stat_rel_err(got, exact, record, ref, dtype):
    t = STAT_T[dtype]
    a, g = got, record
    special = ~np.isfinite(a) | ~np.isfinite(g)
    bad = special & ~_specials_match(a, g)
    if bad.any():
        return Result("fail", math.inf, mismatches=int(bad.sum()), n=a.size)
    fin = ~special
    if not fin.any():
        return Result("pass", 0.0, all_special=True)
    rel = np.abs(a[fin] - g[fin]) / (np.abs(g[fin]) + 1e-7)
    mere, mare = float(np.mean(rel)), float(np.max(rel))
    passed = mere < t and mare < 10 * t
    return Result("pass" if passed else "fail",
                  max(mere / t, mare / (10 * t)),
                  mere=mere, mare=mare, finite=int(fin.sum()))


def ttk_close(got, exact, record, ref, dtype):
    tol = 1e-3 if dtype in ("fp16", "bf16") else 1e-4
    close = np.isclose(got, record, rtol=tol, atol=1e-8, equal_nan=True)
    n = got.size
    bad = int((~close).sum())
    precision = (n - bad) / n
    passed = (1 - precision) <= tol
    return Result("pass" if passed else "fail", (1 - precision) / tol,
                  bad=bad, n=n, precision=precision)


def ttk_cosine(got, exact, record, ref, dtype):
    a, g = got, record
    with np.errstate(all="ignore"):
        cos = float(np.dot(a, g) / (np.linalg.norm(a) * np.linalg.norm(g)))
    passed = (1 - cos) <= 0.01  # NaN compares false: a fail
    return Result("pass" if passed else "fail",
                  math.inf if math.isnan(cos) else (1 - cos) / 0.01, cos=cos)


def ttk_binary(got_bits, record_bits, got, record):
    """On the raw bit patterns (same dtype); positions where both are NaN
    are excused."""
    same = (got_bits == record_bits) | (np.isnan(got) & np.isnan(record))
    diff = int((~same).sum())
    return Result("pass" if diff == 0 else "fail", diff / got.size, diff=diff,
                  n=got.size)


def _safe_div(num, den, floor):
    if (num == 0 and den == 0) or (math.isinf(num) and math.isinf(den)):
        return 1.0
    return num / max(den, floor)


def ttk_cross_check(got, exact, record, ref, dtype, level):
    if dtype not in CROSS_SMALL:
        return _not_judged("dtype")
    if ref is None:
        return _not_judged("no reference")
    lmare, lmere, lrmse = LEVELS[level]
    sv, atol = CROSS_SMALL[dtype]
    a, g, b = got, exact, ref
    special = ~(np.isfinite(a) & np.isfinite(g) & np.isfinite(b))
    ca, cg, cb = _cls(a), _cls(g), _cls(b)
    with np.errstate(invalid="ignore"):
        ab = (ca == cb) & ((ca != 0) | (a == b))
        ag = (ca == cg) & ((ca != 0) | (a == g))
    special_ok = bool(np.all((ab | (~np.isfinite(g) & ag))[special]))
    large = ~special & (np.abs(g) >= sv)
    small = ~special & (np.abs(g) < sv)
    mare = mere = rmse = 0.0
    if large.any():
        ga, aa, bb = g[large], a[large], b[large]
        ra = np.abs(aa - ga) / (np.abs(ga) + 1e-7)
        rb = np.abs(bb - ga) / (np.abs(ga) + 1e-7)
        mare = _safe_div(float(ra.max()), float(rb.max()), sv)
        mere = _safe_div(float(ra.mean()), float(rb.mean()), sv)
        rmse = _safe_div(math.sqrt(float(np.mean((aa - ga) ** 2))),
                         math.sqrt(float(np.mean((bb - ga) ** 2))), sv)
    small_a = int((np.abs(a - g)[small] > atol).sum())
    small_b = int((np.abs(b - g)[small] > atol).sum())
    small_ratio = small_a / max(small_b, 1)
    passed = (special_ok and mare <= lmare and mere <= lmere and
              rmse <= lrmse and small_ratio <= 2)
    score = (max(mare / lmare, mere / lmere, rmse / lrmse, small_ratio / 2)
             if special_ok else math.inf)
    return Result("pass" if passed else "fail", score, special_ok=special_ok,
                  mare=mare, mere=mere, rmse=rmse, large=int(large.sum()),
                  small_a=small_a, small_b=small_b, small_ratio=small_ratio)


# ------------------------------------------------------------------ msprobe

BENCH_EPS = {"fp16": 2.0 ** -23, "bf16": 2.0 ** -8, "fp32": 2.0 ** -52}
MS_SMALL = {"fp16": 2.0 ** -10, "bf16": 2.0 ** -10, "fp32": 2.0 ** -20}
MS_BENCH_ATOL = {"fp16": 1e-16, "bf16": 1e-16, "fp32": 2.0 ** -30}
MS_THRESH_ATOL = {"fp16": 2.0 ** -16, "bf16": 1e-16, "fp32": 2.0 ** -30}
MS_RTOL = {"fp16": 2.0 ** -10, "bf16": 2.0 ** -8, "fp32": 2.0 ** -20}
MS_FLOOR = {"fp16": 2.0 ** -11, "bf16": 2.0 ** -8, "fp32": 2.0 ** -14}


def bench_cast(exact, dtype):
    """The bench cast where msprobe casts it: to the output dtype, but to
    float32 for bf16 (both sides are compared as float32 there)."""
    with np.errstate(over="ignore"):
        return round_to(exact, "fp32" if dtype == "bf16" else dtype)


def _bench_metrics(dev, exact, dtype):
    n = dev.size
    bc = bench_cast(exact, dtype)
    with np.errstate(all="ignore"):
        err = np.abs(dev - exact)
        both = np.isfinite(dev) & np.isfinite(bc)
        small = both & (np.abs(exact) <= MS_SMALL[dtype])
        n_small = int(small.sum())
        small_share = (int((small & (err > MS_BENCH_ATOL[dtype])).sum()) /
                       n_small if n_small else 0.0)
        masked = ~both | small
        mse = float(np.mean(np.where(masked, 0.0, err) ** 2))
        mse *= n / (n - int(masked.sum()) + 1e-4) + 1e-4
        normal = ~masked
        rel = err[normal] / (np.abs(exact[normal]) + BENCH_EPS[dtype])
        eb = abs(int((dev > bc).sum()) - int((dev < bc).sum())) / n
    return {"small_value_err_ratio": small_share, "rmse_ratio": math.sqrt(mse),
            "max_rel_err_ratio": float(rel.max()) if rel.size else 0.0,
            "mean_rel_err_ratio": float(rel.mean()) if rel.size else 0.0,
            "eb_ratio": eb}


def _inf_nan_consistent(x, y):
    return (math.isnan(x) and math.isnan(y)) or (
        math.isinf(x) and math.isinf(y) and x == y)


def ms_benchmark(got, exact, record, ref, dtype):
    if ref is None:
        return _not_judged("no reference")
    npu, gpu = _bench_metrics(got, exact, dtype), _bench_metrics(ref, exact,
                                                                 dtype)
    limits = {"small_value_err_ratio": 2, "rmse_ratio": 2,
              "max_rel_err_ratio": 10, "mean_rel_err_ratio": 2,
              "eb_ratio": None}
    passed, score, measures = True, 0.0, {}
    for name, limit in limits.items():
        x, y = npu[name], gpu[name]
        if not (math.isfinite(x) and math.isfinite(y)):
            ok = _inf_nan_consistent(x, y)
            measures[name] = ("consistent" if ok else "inconsistent", x, y)
            if limit is not None and not ok:
                passed, score = False, math.inf
            continue
        with np.errstate(over="ignore"):
            ratio = float(np.float64(abs(x)) / max(abs(y), MS_FLOOR[dtype]))
        measures[name] = ratio
        if limit is None or not math.isfinite(ratio):
            continue  # an inf/NaN ratio passes
        if ratio > limit:
            passed = False
        score = max(score, ratio / limit)
    return Result("pass" if passed else "fail", score, **measures)


def ms_absolute_threshold(got, exact, record, ref, dtype):
    _, _, fmax = FORMATS[dtype]
    d, b = got, exact
    bc = bench_cast(exact, dtype)
    eps, rtol = BENCH_EPS[dtype], MS_RTOL[dtype]
    with np.errstate(all="ignore"):
        err = np.abs(d - b)
        both = np.isfinite(d) & np.isfinite(bc)
        small = both & (np.abs(b) <= MS_SMALL[dtype])
        normal = both & ~small
        inf_nan = ~both
        rel = err / (np.abs(b) + eps)
        clipped = np.abs(np.clip(d, -fmax, fmax) - np.clip(bc, -fmax, fmax)) \
            / (np.abs(b) + eps)
        inf_nan_bad = inf_nan & ~((clipped <= rtol) | (np.isnan(d) &
                                                       np.isnan(bc)))
        normal_bad = normal & (rel > rtol)
        small_bad = small & (err > MS_THRESH_ATOL[dtype])

    def ratio(bad, mask):
        m = int(mask.sum())
        return int(bad.sum()) / m if m else 0.0
    r = (ratio(inf_nan_bad, inf_nan), ratio(normal_bad, normal),
         ratio(small_bad, small))
    return Result("pass" if max(r) == 0 else "fail", max(r),
                  inf_nan_ratio=r[0], inf_nan_bad=int(inf_nan_bad.sum()),
                  inf_nan=int(inf_nan.sum()), rel_ratio=r[1],
                  rel_bad=int(normal_bad.sum()), normal=int(normal.sum()),
                  abs_ratio=r[2], abs_bad=int(small_bad.sum()),
                  small=int(small.sum()))


def _ulp_stats(dev, exact, dtype):
    p, emin, _ = FORMATS[dtype]
    with np.errstate(all="ignore"):
        # floor(log2 |b|), exactly: frexp's exponent less one.
        _, e = np.frexp(exact)
        eb = np.where(exact == 0, 0, e - 1).astype(np.float64)
        eb[~np.isfinite(exact)] = np.inf  # log2 of inf; NaN gives NaN below
        eb[np.isnan(exact)] = np.nan
        eb = np.maximum(eb, emin)
        ulp = np.abs((dev - exact) * np.exp2(-eb + p))
        thr = 32 if dtype == "fp32" else 1
        return float(np.mean(ulp)), float(np.mean(ulp > thr))


def ms_ulp_compare(got, exact, record, ref, dtype):
    mean, share = _ulp_stats(got, exact, dtype)
    m = {"mean": mean, "share": share}
    if not math.isfinite(mean):
        if ref is None:
            return _not_judged("mean is not finite", **m)
        rmean, _ = _ulp_stats(ref, exact, dtype)
        if not _inf_nan_consistent(mean, rmean):
            return Result("fail", None, **m)
    own = (dtype == "fp32" and mean < 64) or share < (
        0.05 if dtype == "fp32" else 0.001)
    if own:
        return Result("pass", None, **m)
    if ref is None:
        return _not_judged("beyond its own limits", **m)
    _, rshare = _ulp_stats(ref, exact, dtype)
    ratio = share / max(rshare, MS_FLOOR[dtype])
    return Result("pass" if ratio < 1 else "fail", None, ratio=ratio, **m)


def ms_binary_consistency(got, exact, record, ref, dtype):
    diff = int((got != record).sum())  # NaN != NaN; +0 == -0
    return Result("pass" if diff == 0 else "fail", diff / got.size,
                  rate=diff / got.size, diff=diff, n=got.size)


def _rel_share_below(got, exact, dtype, thr):
    with np.errstate(all="ignore"):
        rel = np.abs(got - exact) / (np.abs(exact) + BENCH_EPS[dtype])
        return float(np.mean(rel < thr))


def ms_thousandth(got, exact, record, ref, dtype):
    share = _rel_share_below(got, exact, dtype, 1e-3)
    return Result("pass" if share >= 0.999 else "fail", (1 - share) / 0.001,
                  share=share)


def ms_precheck(got, exact, record, ref, dtype):
    d, b = got, exact
    m = {}
    if d.size > 1:
        with np.errstate(all="ignore"):
            dmax, bmax = float(np.max(np.abs(d))), float(np.max(np.abs(b)))
            eps = 2.0 ** -52
            if dmax <= eps and bmax <= eps:
                pass  # both all zero: no cosine
            elif dmax <= eps or bmax <= eps:
                return Result("fail", None, zero_side=True)
            else:
                x, y = d / dmax, b / bmax
                cos = float(np.dot(x, y) / (np.linalg.norm(x) *
                                            np.linalg.norm(y)))
                m["cos"] = cos
                if not cos > 0.99:
                    return Result("fail", None, **m)
    with np.errstate(invalid="ignore"):
        max_abs = float(np.max(np.abs(d - b)))
    m["max_abs"] = max_abs
    if max_abs < 0.001:
        return Result("pass", None, **m)
    if dtype in ("fp16", "bf16"):
        lo, hi = (1e-2, 0.99), (1e-3, 0.999)
    else:
        lo, hi = (1e-3, 0.999), (1e-4, 0.9999)
    s_lo = _rel_share_below(d, b, dtype, lo[0])
    s_hi = _rel_share_below(d, b, dtype, hi[0])
    m.update(share_lo=s_lo, share_hi=s_hi)
    if not s_lo > lo[1]:
        return Result("fail", None, **m)  # ERROR
    if s_hi > hi[1]:
        return Result("pass", None, **m)
    return Result("fail", None, warning=True, **m)  # WARNING


def evaluate(standard, dtype, got, exact, record, ref=None, got_bits=None,
             record_bits=None):
    """One standard on one output (arrays as the module docstring says;
    got_bits and record_bits, the raw patterns, for ttk-binary)."""
    got, exact, record = (np.asarray(v, np.float64) for v in
                          (got, exact, record))
    if ref is not None:
        ref = np.asarray(ref, np.float64)
    if got.size == 0:
        return _not_judged("no elements")
    with np.errstate(all="ignore"):
        return _evaluate(standard, dtype, got, exact, record, ref, got_bits,
                         record_bits)


def _evaluate(standard, dtype, got, exact, record, ref, got_bits,
              record_bits):
    if standard == "ttk-binary":
        return ttk_binary(got_bits, record_bits, got, record)
    if standard.startswith("ttk-cross_check-L"):
        return ttk_cross_check(got, exact, record, ref, dtype,
                               int(standard[-1]))
    fn = {
        "ttk-mixed": ttk_mixed, "ttk-stat_rel_err": ttk_stat_rel_err,
        "ttk-close": ttk_close, "ttk-cosine": ttk_cosine,
        "msprobe-benchmark": ms_benchmark,
        "msprobe-absolute_threshold": ms_absolute_threshold,
        "msprobe-ulp_compare": ms_ulp_compare,
        "msprobe-binary_consistency": ms_binary_consistency,
        "msprobe-thousandth_threshold": ms_thousandth,
        "msprobe-precheck": ms_precheck,
    }[standard]
    return fn(got, exact, record, ref, dtype)


STANDARDS = [
    "ttk-mixed", "ttk-stat_rel_err", "ttk-close", "ttk-cosine", "ttk-binary",
    "ttk-cross_check-L0", "ttk-cross_check-L1", "ttk-cross_check-L2",
    "msprobe-benchmark", "msprobe-absolute_threshold", "msprobe-ulp_compare",
    "msprobe-binary_consistency", "msprobe-thousandth_threshold",
    "msprobe-precheck",
]
