"""bfloat16 as uint16 bit patterns: exact widening and correct rounding."""

import numpy as np


def to_float32(bits):
    """bfloat16 bits (uint16) to float32, exactly."""
    b = np.asarray(bits)
    b = b.view(np.uint16) if b.dtype == np.uint16 else b.astype(np.uint16)
    wide = np.array(b, dtype=np.uint32, copy=True).reshape(-1) << 16
    return wide.view(np.float32).reshape(b.shape)


def _f32_round_to_odd(x):
    """float64 to float32 rounded to odd (truncate, then set the last bit if
    inexact): rounding that to bfloat16 to nearest-even is the correctly
    rounded bfloat16 of x (float32 has 16 bits more)."""
    x = np.asarray(x)
    if x.dtype not in (np.float64, np.longdouble):
        x = x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        t = x.astype(np.float32)
    t = np.where(np.isfinite(x) & np.isinf(t),
                 np.copysign(np.finfo(np.float32).max, x).astype(np.float32), t)
    too_far = np.abs(t.astype(x.dtype)) > np.abs(x)
    t = np.where(too_far, np.nextafter(t, np.float32(0)), t)
    bits = t.view(np.uint32).copy()
    inexact = np.isfinite(x) & (t.astype(x.dtype) != x)
    bits[inexact] |= 1
    return bits.view(np.float32)


def from_float(values):
    """float16/float32/float64 values to bfloat16 bits, rounded once to
    nearest-even (NaN stays NaN, quiet)."""
    v = np.asarray(values)
    if v.dtype in (np.float64, np.longdouble):
        f = _f32_round_to_odd(v)
    else:
        f = v.astype(np.float32)
    f = np.array(f, dtype=np.float32, copy=True).reshape(-1)
    u = f.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    if np.any(nan):
        rounded = np.where(nan, ((u >> 16) | 0x0040).astype(np.uint16), rounded)
    return rounded.reshape(v.shape)
