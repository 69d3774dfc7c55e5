"""A NumPy implementation of GeluBackward and SeluBackward written to the
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
