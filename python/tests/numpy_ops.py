"""A NumPy implementation of every op (GeluBackward, SeluBackward,
LayerNormBackward, LogitGrad, GroupedBiasAddGrad V1 and V2) written to the
specification, tested as a python: SUT (test_python_sut.py).

Values are computed in float64 from the inputs' exact values and rounded once
to the output dtype; argument checks follow the spec's clauses (NULL first,
then ranks, dtypes with the product's bf16 gate, shapes). Modules like this
one are what docs/python.md's calling convention is for.
"""

import math

import numpy as np

from aclnn_conform import bf16, sut
from aclnn_conform.sut import Rejected

NULLPTR = sut.ACLNN_ERR_PARAM_NULLPTR
INVALID = sut.ACLNN_ERR_PARAM_INVALID
_BF16_PRODUCTS = ("ascend910b", "ascend910_93")
_INT_RANGE = {"int8": (-128, 127), "int32": (-2**31, 2**31 - 1)}
_erf = np.frompyfunc(math.erf, 1, 1)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def values(a):
    """The exact values of an input as float64."""
    with np.errstate(invalid="ignore"):  # signalling NaNs are quietened
        if sut.dtype_of(a) == "bf16":
            return bf16.to_float32(a).astype(np.float64)
        return np.asarray(a).astype(np.float64)


def store(out, v):
    """v (float64, the value to round) rounded once into out."""
    # One NaN for every NaN: NumPy's SIMD loops pick an operand's payload
    # by memory alignment, which VAL-DET-1 would see as nondeterminism.
    v = np.where(np.isnan(v), v.dtype.type(np.nan), v)
    d = sut.dtype_of(out)
    if d == "bf16":
        out[...] = bf16.from_float(v)
    elif d in _INT_RANGE:
        lo, hi = _INT_RANGE[d]
        out[...] = np.clip(np.rint(v), lo, hi).astype(out.dtype)
    else:
        with np.errstate(over="ignore"):
            if out.dtype == np.float16 and v.dtype == np.longdouble:
                v = bf16._f32_round_to_odd(v)  # float32 rounded to odd: then
            out[...] = v.astype(out.dtype)     # one correct rounding to fp16


def check_rank(name, a, low=0):
    if not low <= a.ndim <= 8:
        raise Rejected(INVALID, "%s has rank %d, not %d to 8" % (
            name, a.ndim, low))


def check_bf16(name, dtype):
    if dtype == "bf16" and sut.product() not in _BF16_PRODUCTS:
        raise Rejected(INVALID, "%s: bf16 is not supported on %s" % (
            name, sut.product()))


def gelu_g(x):
    """g(x) = Phi(x) + x phi(x) in float64, with its limits and the sign of
    its underflow below the root."""
    with np.errstate(all="ignore"):
        phi_big = 0.5 * np.asarray(_erfc(-x / math.sqrt(2.0)),
                                   dtype=np.float64)
        g = phi_big + x / math.sqrt(2.0 * math.pi) * np.exp(-x * x / 2.0)
    g = np.where(np.isposinf(x), 1.0, g)
    g = np.where(np.isneginf(x), 0.0, g)
    # Below the root g is negative; where float64 underflows, keep the sign.
    tiny = np.isfinite(x) & (x < -0.75) & (g == 0)
    return np.where(tiny, -5e-324, g)


def gelu_backward(grad_output, self, grad_input):
    if grad_output is None or self is None or grad_input is None:
        raise Rejected(NULLPTR, "gradOutput, self or gradInput is NULL")
    promoted = sut.promote(sut.dtype_of(grad_output), sut.dtype_of(self))
    if promoted not in ("fp32", "fp16", "bf16"):
        raise Rejected(INVALID, "promoted dtype of gradOutput %s and self %s "
                       "is %s, not FLOAT, FLOAT16 or BFLOAT16" % (
                           sut.dtype_of(grad_output), sut.dtype_of(self),
                           promoted))
    check_bf16("gradOutput/self", promoted)
    if sut.dtype_of(grad_input) != promoted:
        raise Rejected(INVALID, "gradInput dtype %s != promoted dtype %s" % (
            sut.dtype_of(grad_input), promoted))
    for name, a in (("gradOutput", grad_output), ("self", self),
                    ("gradInput", grad_input)):
        check_rank(name, a)
    try:
        shape = np.broadcast_shapes(grad_output.shape, self.shape)
    except ValueError:
        raise Rejected(INVALID, "gradOutput %s and self %s do not broadcast"
                       % (grad_output.shape, self.shape)) from None
    if tuple(grad_input.shape) != tuple(shape):
        raise Rejected(INVALID, "gradInput shape %s != broadcast shape %s" % (
            grad_input.shape, shape))
    if sut.has_internal_overlap(grad_input):
        raise Rejected(INVALID, "gradInput has overlapping elements")
    if grad_input.size == 0:
        return None
    dy = np.broadcast_to(values(grad_output), shape)
    x = np.broadcast_to(values(self), shape)
    with np.errstate(all="ignore"):
        store(grad_input, dy * gelu_g(x))
    return None


LAMBDA = 1.0507009873554804934193349852946
ALPHA = 1.6732632423543772848170429916717
LAMBDA_LD = np.longdouble("1.0507009873554804934193349852946")
LAMBDA_ALPHA = LAMBDA_LD * np.longdouble("1.6732632423543772848170429916717")


def sum_rounded_to_odd(a, b):
    """a + b in long double, rounded to odd: the nearest value in the
    direction of the rounding error, when the error is not zero and the
    rounded sum's last bit is even (Boldo and Melquiond's round-to-odd)."""
    a, b = np.broadcast_arrays(np.asarray(a, np.longdouble),
                               np.asarray(b, np.longdouble))
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    m, _ = np.frexp(s)
    bits = np.finfo(np.longdouble).nmant + 1
    even = np.fmod(np.abs(m) * np.longdouble(2) ** bits, 2) == 0
    nudge = np.isfinite(s) & (e != 0) & even
    toward = np.where(e > 0, np.longdouble(np.inf), np.longdouble(-np.inf))
    return np.where(nudge, np.nextafter(s, toward), s)


def selu_backward(grad_output, result, grad_input, positive=np.greater_equal):
    if grad_output is None or result is None or grad_input is None:
        raise Rejected(NULLPTR, "gradOutput, result or gradInput is NULL")
    names = ("gradOutput", "result", "gradInput")
    arrays = (grad_output, result, grad_input)
    for name, a in zip(names, arrays):
        d = sut.dtype_of(a)
        if d not in ("fp32", "fp16", "int32", "int8", "bf16"):
            raise Rejected(INVALID, "%s dtype %s is not FLOAT, FLOAT16, "
                           "INT32, INT8 or BFLOAT16" % (name, d))
        check_bf16(name, d)
    if len({sut.dtype_of(a) for a in arrays}) != 1:
        raise Rejected(INVALID, "gradOutput, result and gradInput dtypes "
                       "differ")
    if len({tuple(a.shape) for a in arrays}) != 1:
        raise Rejected(INVALID, "gradOutput, result and gradInput shapes "
                       "differ")
    for name, a in zip(names, arrays):
        check_rank(name, a, low=1)
    if sut.has_internal_overlap(grad_input):
        raise Rejected(INVALID, "gradInput has overlapping elements")
    if grad_input.size == 0:
        return None
    # In long double: y + lambda*alpha keeps 64 bits, so the one rounding
    # to the output (also at the overflow threshold) is right.
    with np.errstate(invalid="ignore"):
        dy = values(grad_output).astype(np.longdouble)
        y = values(result).astype(np.longdouble)
    with np.errstate(all="ignore"):
        # dy*y + dy*lambda*alpha: dy*y is exact in long double (two 24-bit
        # significands), the sum is rounded to odd, so that rounding it again
        # to the output keeps the side of a midpoint (dy*y alone can be one:
        # bf16 1.75*2^62 times -1.140625*2^65, where y + lambda*alpha would
        # round back to y).
        # (Infinite dy: the sum's sign is y + lambda*alpha's, inf - inf
        # would be NaN.)
        negative = np.where(np.isfinite(dy), sum_rounded_to_odd(dy * y, dy * LAMBDA_ALPHA),
                            dy * (y + LAMBDA_ALPHA))
        v = np.where(positive(y, 0), dy * LAMBDA_LD, negative)
        v = np.where(np.isnan(y), np.nan, v)
    store(grad_input, v)
    return None


# ---- LayerNormBackward, LogitGrad, GroupedBiasAddGrad (V1 and V2) -------
# The same approach: the checks in the spec's order (the clause named in
# every message, ABI-ERRMSG-1), values from the inputs' exact float64 values
# (long double for LogitGrad's quotient), each output rounded once by
# store(). Sums are plain float64 sums in a fixed order: the spec's bound
# for sums is condition-aware (VAL-TOL-1), which float64 meets by far.

_FLOATS = ("fp32", "fp16", "bf16")


def check_op_on_product(op):
    """LogitGrad and GroupedBiasAddGrad exist on Atlas A2/A3 only
    (ABI-SOC-1), checked before anything else."""
    if sut.product() not in _BF16_PRODUCTS:
        raise Rejected(INVALID, "%s is not supported on %s; only Atlas A2 "
                       "and A3 have it (ABI-SOC-1)" % (op, sut.product()))


def check_output_view(name, a):
    if sut.has_internal_overlap(a):
        raise Rejected(INVALID, "%s has overlapping elements (ABI-INPUT-1)"
                       % name)


def layer_norm_backward(grad_out, input, normalized_shape, mean, rstd,
                        weight, bias, output_mask, grad_input, grad_weight,
                        grad_bias):
    for name, a in (("gradOut", grad_out), ("input", input),
                    ("normalizedShape", normalized_shape), ("mean", mean),
                    ("rstd", rstd), ("outputMask", output_mask)):
        if a is None:
            raise Rejected(NULLPTR, "%s is NULL; it is required (LN-NULL-1)"
                           % name)
    if len(output_mask) != 3:
        raise Rejected(INVALID, "outputMask has length %d; it must be 3 "
                       "(LN-MASK-1)" % len(output_mask))
    want = tuple(bool(b) for b in output_mask)
    outs = (("gradInputOut", grad_input), ("gradWeightOut", grad_weight),
            ("gradBiasOut", grad_bias))
    for bit, ((name, a), wanted) in enumerate(zip(outs, want)):
        if wanted and a is None:
            raise Rejected(NULLPTR, "%s is NULL but outputMask[%d] is true "
                           "(LN-NULL-2)" % (name, bit))
    # LN-DTYPE-1: each input's dtype in signature order, then the relations.
    inputs = (("gradOut", grad_out), ("input", input), ("mean", mean),
              ("rstd", rstd), ("weightOptional", weight),
              ("biasOptional", bias))
    for name, a in inputs:
        if a is None:
            continue
        d = sut.dtype_of(a)
        if d not in _FLOATS:
            raise Rejected(INVALID, "%s dtype %s is not FLOAT, FLOAT16 or "
                           "BFLOAT16 (LN-DTYPE-1)" % (name, d))
        if d == "bf16" and sut.product() not in _BF16_PRODUCTS:
            raise Rejected(INVALID, "%s dtype BFLOAT16 is not supported on "
                           "%s (LN-DTYPE-1)" % (name, sut.product()))
    d_in = sut.dtype_of(input)
    if sut.dtype_of(grad_out) != d_in:
        raise Rejected(INVALID, "gradOut dtype %s != input dtype %s "
                       "(LN-DTYPE-1)" % (sut.dtype_of(grad_out), d_in))
    if sut.dtype_of(mean) != sut.dtype_of(rstd):
        raise Rejected(INVALID, "mean dtype %s != rstd dtype %s (LN-DTYPE-1)"
                       % (sut.dtype_of(mean), sut.dtype_of(rstd)))
    if weight is not None and sut.dtype_of(weight) not in (d_in, "fp32"):
        raise Rejected(INVALID, "weightOptional dtype %s is neither input's "
                       "dtype %s nor FLOAT (LN-DTYPE-1)" % (
                           sut.dtype_of(weight), d_in))
    if weight is not None and bias is not None and \
            sut.dtype_of(bias) != sut.dtype_of(weight):
        raise Rejected(INVALID, "biasOptional dtype %s != weightOptional "
                       "dtype %s (LN-DTYPE-1)" % (sut.dtype_of(bias),
                                                  sut.dtype_of(weight)))
    # LN-DTYPE-2: requested outputs only.
    if want[0] and sut.dtype_of(grad_input) != d_in:
        raise Rejected(INVALID, "gradInputOut dtype %s != input dtype %s "
                       "(LN-DTYPE-2)" % (sut.dtype_of(grad_input), d_in))
    for wanted, (name, a) in zip(want[1:], outs[1:]):
        if wanted and sut.dtype_of(a) != "fp32":
            raise Rejected(INVALID, "%s dtype %s is not FLOAT (LN-DTYPE-2)"
                           % (name, sut.dtype_of(a)))
    # LN-SHAPE-1
    ns = tuple(int(v) for v in normalized_shape)
    if len(ns) < 1:
        raise Rejected(INVALID, "normalizedShape is empty (LN-SHAPE-1)")
    if input.ndim > 8:
        raise Rejected(INVALID, "input has rank %d; at most 8 (LN-SHAPE-1)"
                       % input.ndim)
    if len(ns) > input.ndim:
        raise Rejected(INVALID, "normalizedShape %s is longer than input's "
                       "rank %d (LN-SHAPE-1)" % (ns, input.ndim))
    lead = input.ndim - len(ns)
    if tuple(input.shape[lead:]) != ns:
        raise Rejected(INVALID, "input shape %s does not end with "
                       "normalizedShape %s (LN-SHAPE-1)" % (input.shape, ns))
    m = int(np.prod(input.shape[:lead], dtype=np.int64))
    n = int(np.prod(ns, dtype=np.int64))
    # LN-SHAPE-2, -3, -4
    if grad_out.shape != input.shape:
        raise Rejected(INVALID, "gradOut shape %s != input shape %s "
                       "(LN-SHAPE-2)" % (grad_out.shape, input.shape))
    for name, a in (("weightOptional", weight), ("biasOptional", bias)):
        if a is not None and tuple(a.shape) != ns:
            raise Rejected(INVALID, "%s shape %s != normalizedShape %s "
                           "(LN-SHAPE-2)" % (name, a.shape, ns))
    if mean.shape != rstd.shape:
        raise Rejected(INVALID, "mean shape %s != rstd shape %s (LN-SHAPE-3)"
                       % (mean.shape, rstd.shape))
    if mean.size != m:
        raise Rejected(INVALID, "mean has %d elements, not M = %d "
                       "(LN-SHAPE-3)" % (mean.size, m))
    if want[0] and grad_input.shape != input.shape:
        raise Rejected(INVALID, "gradInputOut shape %s != input shape %s "
                       "(LN-SHAPE-4)" % (grad_input.shape, input.shape))
    for wanted, (name, a) in zip(want[1:], outs[1:]):
        if wanted and tuple(a.shape) != ns:
            raise Rejected(INVALID, "%s shape %s != normalizedShape %s "
                           "(LN-SHAPE-4)" % (name, a.shape, ns))
    # LN-RANK-1: every tensor present, requested or not.
    for name, a in inputs + outs:
        if a is not None and not 1 <= a.ndim <= 8:
            raise Rejected(INVALID, "%s has rank %d; it must be 1 to 8 "
                           "(LN-RANK-1)" % (name, a.ndim))
    for (name, a), wanted in zip(outs, want):
        if wanted:
            check_output_view(name, a)
    # LN-EMPTY-1: M = 0 zero-fills the requested column sums; N = 0 has
    # nothing to write.
    if m == 0 or n == 0:
        for (name, a), wanted in zip(outs[1:], want[1:]):
            if wanted:
                store(a, np.zeros(a.shape))
        return None
    # LN-VALUE-1/2 in float64 (bias takes no part, LN-BIAS-1), in the
    # reference's order: xhat per element, rstd last (LN-SPECIAL-1).
    x = values(input).reshape(m, n)
    dy = values(grad_out).reshape(m, n)
    mu = values(mean).reshape(m, 1)
    rs = values(rstd).reshape(m, 1)
    with np.errstate(all="ignore"):
        xhat = (x - mu) * rs
        g = dy * values(weight).reshape(1, n) if weight is not None else dy
        if want[0]:
            c1 = g.sum(axis=1, keepdims=True) / n
            c2 = (g * xhat).sum(axis=1, keepdims=True) / n
            store(grad_input, (rs * ((g - c1) - xhat * c2)).reshape(
                grad_input.shape))
        if want[1]:
            store(grad_weight, (dy * xhat).sum(axis=0).reshape(ns))
        if want[2]:
            store(grad_bias, dy.sum(axis=0).reshape(ns))
    return None


def logit_range(eps):
    """LogitGrad's mode for eps and the inclusive range of x that takes the
    formula: ("nan" | "zero" | "div0" | "general", lo, hi, eps < 0). hi is
    the largest double <= 1 - eps, so x <= hi decides x <= 1 - eps exactly
    (1 - eps rounded, its error by Fast2Sum)."""
    if math.isnan(eps) or (math.isfinite(eps) and eps > 1.0):
        return "nan", 0.0, 1.0, True        # LOGIT-EPS-NAN-1, -GT1-1
    if eps == math.inf:
        return "zero", 0.0, 1.0, False      # LOGIT-EPS-INF-1
    if eps == 1.0:
        return "div0", 0.0, 1.0, False      # LOGIT-EPS-EQ1-1
    if eps < 0.0:
        return "general", 0.0, 1.0, True    # -inf too
    s = 1.0 - eps
    err = (-eps) - (s - 1.0)
    return "general", eps, (math.nextafter(s, -math.inf) if err < 0 else s), \
        False


def logit_grad(x, dy, eps, out):
    check_op_on_product("aclnnLogitGrad")
    for name, a in (("x", x), ("dy", dy), ("out", out)):
        if a is None:
            raise Rejected(NULLPTR, "%s is NULL (LOGIT-NULL-1)" % name)
    dx = sut.dtype_of(x)
    for name, a in (("x", x), ("dy", dy), ("out", out)):
        d = sut.dtype_of(a)
        if d not in _FLOATS:
            raise Rejected(INVALID, "%s has dtype %s, not FLOAT, FLOAT16 or "
                           "BFLOAT16 (LOGIT-DTYPE-1)" % (name, d))
        if d != dx:
            raise Rejected(INVALID, "%s has dtype %s but x has %s; one dtype "
                           "for all three (LOGIT-DTYPE-1)" % (name, d, dx))
    for name, a in (("dy", dy), ("out", out)):
        if a.shape != x.shape:
            raise Rejected(INVALID, "%s shape %s != x shape %s "
                           "(LOGIT-SHAPE-1)" % (name, a.shape, x.shape))
    for name, a in (("x", x), ("dy", dy), ("out", out)):
        if a.ndim > 8:
            raise Rejected(INVALID, "%s has rank %d; 0 to 8 (LOGIT-RANK-1)"
                           % (name, a.ndim))
    check_output_view("out", out)
    if x.size == 0:  # LOGIT-EMPTY-1
        return None
    mode, lo, hi, neg = logit_range(float(eps))
    xd, dyd = values(x), values(dy)
    with np.errstate(all="ignore"):
        if mode == "nan":
            v = np.full(x.shape, np.nan)
        elif mode == "zero":
            v = np.zeros(x.shape)
        elif mode == "div0":
            v = dyd / 0.0
        else:
            # x (1 - x) and the quotient in long double (64-bit significand:
            # x (1 - x) exact for float x above 2^-40), rounded once by
            # store(); + 0 makes x = -0 give dy / +0 (LOGIT-X01-1).
            xl = xd.astype(np.longdouble)
            q = dyd.astype(np.longdouble) / (xl * (1 - xl) + 0)
            inside = (xd >= lo) & (xd <= hi)   # False for NaN x
            if neg:
                v = np.where(inside, q, np.longdouble(np.nan))
            else:
                finite = np.isfinite(xd) & np.isfinite(dyd)
                v = np.where(inside, q, np.where(finite, np.longdouble(0),
                                                 np.longdouble(np.nan)))
    store(out, v)
    return None


def _gbag(op, grad_y, group_idx, group_idx_type, out, v2,
          rows_short=0):
    check_op_on_product(op)
    if grad_y is None or out is None:
        raise Rejected(NULLPTR, "gradY or out is NULL (GBAG-NULL-1)")
    d = sut.dtype_of(grad_y)
    if d not in _FLOATS:
        raise Rejected(INVALID, "gradY has dtype %s, not FLOAT, FLOAT16 or "
                       "BFLOAT16 (GBAG-DTYPE-1)" % d)
    if group_idx is not None and \
            sut.dtype_of(group_idx) not in ("int32", "int64"):
        raise Rejected(INVALID, "groupIdxOptional has dtype %s, not INT32 or "
                       "INT64 (GBAG-DTYPE-1)" % sut.dtype_of(group_idx))
    if sut.dtype_of(out) != d:
        raise Rejected(INVALID, "out has dtype %s but gradY has %s "
                       "(GBAG-DTYPE-1)" % (sut.dtype_of(out), d))
    want_rank = 3 if group_idx is None else 2
    if grad_y.ndim != want_rank:
        raise Rejected(INVALID, "gradY has rank %d; %d %s groupIdxOptional "
                       "(GBAG-RANK-1)" % (grad_y.ndim, want_rank,
                                          "without" if want_rank == 3
                                          else "with"))
    if group_idx is not None and group_idx.ndim != 1:
        raise Rejected(INVALID, "groupIdxOptional has rank %d, not 1 "
                       "(GBAG-RANK-1)" % group_idx.ndim)
    if out.ndim != 2:
        raise Rejected(INVALID, "out has rank %d, not 2 (GBAG-RANK-1)"
                       % out.ndim)
    if group_idx is not None and group_idx.shape[0] > 2048:
        raise Rejected(INVALID, "groupIdxOptional has %d elements; at most "
                       "2048 (GBAG-GMAX-1)" % group_idx.shape[0])
    groups = grad_y.shape[0] if group_idx is None else group_idx.shape[0]
    h = grad_y.shape[-1]
    if tuple(out.shape) != (groups, h):
        raise Rejected(INVALID, "out shape %s != [%d, %d] (GBAG-SHAPE-1)"
                       % (out.shape, groups, h))
    if v2 and group_idx_type not in (0, 1):
        raise Rejected(INVALID, "groupIdxType is %d, not 0 or 1 "
                       "(GBAG-TYPE-1)" % group_idx_type)
    rows = grad_y.shape[0]
    bounds = []
    if group_idx is not None:  # GBAG-IDX-1, checked as the implementation
        kind = 1 if v2 and group_idx_type == 1 else 0
        prev = 0
        for j, v in enumerate(int(i) for i in np.asarray(group_idx)):
            if not 0 <= v <= 2**31 - 1:
                raise Rejected(INVALID, "groupIdxOptional[%d] = %d is "
                               "outside [0, INT32_MAX] (GBAG-IDX-1)" % (j, v))
            if kind == 0 and v < prev:
                raise Rejected(INVALID, "groupIdxOptional[%d] = %d < the "
                               "previous end %d (GBAG-IDX-1)" % (j, v, prev))
            end = v if kind == 0 else prev + v
            if end > rows:
                raise Rejected(INVALID, "groupIdxOptional[%d] = %d ends past "
                               "gradY.dim0 = %d (GBAG-IDX-1)" % (j, v, rows))
            bounds.append((prev, end))
            prev = end
        if prev != rows:
            raise Rejected(INVALID, "the groups end at row %d, not gradY.dim0"
                           " = %d (GBAG-IDX-1)" % (prev, rows))
    check_output_view("out", out)
    if out.size == 0:
        return None
    gy = values(grad_y)
    with np.errstate(all="ignore"):
        if group_idx is None:  # GBAG-VALUE-2; C = 0 sums to zeros
            v = gy.sum(axis=1)
        else:                  # GBAG-VALUE-1; an empty group is zeros
            v = np.zeros((groups, h))
            for j, (start, end) in enumerate(bounds):
                v[j] = gy[start:max(start, end - rows_short)].sum(axis=0)
    store(out, v)  # out is always fully written (GBAG-EMPTY-1)
    return None


def grouped_bias_add_grad(grad_y, group_idx, out):
    return _gbag("aclnnGroupedBiasAddGrad", grad_y, group_idx, 0, out, False)


def grouped_bias_add_grad_v2(grad_y, group_idx, group_idx_type, out):
    return _gbag("aclnnGroupedBiasAddGradV2", grad_y, group_idx,
                 group_idx_type, out, True)
