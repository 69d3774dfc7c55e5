#!/usr/bin/env python3
"""The polynomial coefficients of impl/kernels/gelu_backward.hpp (run with Debian's python3:
needs numpy and mpmath). g(-t) = G(t) = exp(-t^2/2) (t - t0) Q(t); Q is fitted on [0, 4] by
Chebyshev interpolation (near-minimax) and written as a monomial in s = t/2 - 1 (in float also on
[4, 8], in s = t/2 - 3); the tail t R(t), R the Mills ratio, on [4, 20] in s = 2.5 w - 1.5,
w = 4/t; exp(-r) on |r| <= ln2/2 (the reduced argument of the exp), written as a monomial in r;
exp(-t^2/2) Q(t) in float on eight pieces of [0, 5). Prints each set with its maximum relative
error, measured by evaluating the printed coefficients with Horner's rule in the target precision
against mpmath at 801 points (the error bounds quoted in the source).

    /usr/bin/python3 benchmarks/gelu_fit.py
"""
import re

import mpmath as mp
import numpy as np

mp.mp.dps = 50
T0 = -mp.findroot(lambda x: mp.ncdf(x) + x * mp.npdf(x), -0.75)  # the root of G
S2P = mp.sqrt(2 * mp.pi)


def mills(t):
    return mp.sqrt(mp.pi / 2) * mp.exp(t * t / 2) * mp.erfc(t / mp.sqrt(2))


def q(t):
    """Q(t) / sqrt(2 pi), with its limit at the root."""
    if abs(t - T0) < mp.mpf("1e-30"):
        return mp.diff(lambda s: mills(s) - s, T0) / S2P
    return (mills(t) - t) / (t - T0) / S2P


def tail(w):
    t = 4 / w
    return t * mills(t)


def fit(f, a, b, deg):
    k = np.arange(deg + 1)
    nodes = np.cos(np.pi * (k + 0.5) / (deg + 1))
    vals = np.array([float(f(mp.mpf(a) + (mp.mpf(b) - a) / 2 * (1 + mp.mpf(float(s)))))
                     for s in nodes])
    return np.polynomial.chebyshev.cheb2poly(np.polynomial.chebyshev.chebfit(nodes, vals, deg))


def max_rel_error(f, a, b, p, dtype):
    err = 0
    for s in np.linspace(-1, 1, 801):
        s = dtype(s)
        v = dtype(0)
        for c in p[::-1]:
            v = dtype(v * s + c)
        exact = f(mp.mpf(a) + (mp.mpf(b) - a) / 2 * (1 + mp.mpf(float(s))))
        err = max(err, abs(float((mp.mpf(float(v)) - exact) / exact)))
    return err


def emit(name, f, a, b, deg, dtype):
    p = fit(f, a, b, deg).astype(dtype)
    err = max_rel_error(f, a, b, p, dtype)
    suffix = "f" if dtype == np.float32 else ""
    print(f"// {name}, degree {deg}: relative error {err:.2e}")
    print(", ".join(float(c).hex() + suffix for c in p))


def emit_exp(name, deg, dtype):
    """exp(-r) on |r| <= ln2/2, Chebyshev interpolation in s = r / (ln2/2), printed in r, with
    Horner's rule evaluated in dtype."""
    half = mp.log(2) / 2
    ps = fit(lambda r: mp.exp(-r), -half, half, deg)
    p = np.array([dtype(float(mp.mpf(float(c)) / half**k)) for k, c in enumerate(ps)])
    err = 0
    for s in np.linspace(-1, 1, 801):
        r = dtype(float(half * mp.mpf(float(s))))
        v = dtype(0)
        for c in p[::-1]:
            v = dtype(v * r + c)
        exact = mp.exp(-mp.mpf(float(r)))
        err = max(err, abs(float((mp.mpf(float(v)) - exact) / exact)))
    suffix = "f" if dtype == np.float32 else ""
    print(f"// {name}: exp(-r) on |r| <= ln2/2, degree {deg}: relative error {err:.2e}")
    print(", ".join(float(c).hex() + suffix for c in p))


def emit_pieces(name, end, deg, dtype):
    """H(t) = G(t) / (t - t0) = exp(-t^2/2) Q(t) on the eight pieces [k w, (k + 1) w) of [0, end),
    w = end / 8, each in s = 2 t / w - (2 k + 1) in [-1, 1); one row per piece, its error measured
    as above."""
    def h(t):
        return mp.exp(-t * t / 2) * q(t)
    rows, worst = [], 0
    for k in range(8):
        a, b = mp.mpf(k) * end / 8, mp.mpf(k + 1) * end / 8
        p = fit(h, a, b, deg).astype(dtype)
        worst = max(worst, max_rel_error(h, a, b, p, dtype))
        rows.append("{" + ", ".join(re.sub("0+p", "p", float(c).hex()) + "f" for c in p) + "}")
    print(f"// {name}, degree {deg} on each: relative error {worst:.2e}")
    print(",\n".join(rows))


emit("kQ64: Q(t)/sqrt(2pi) on [0, 4]", q, 0, 4, 12, np.float64)
emit("kQ64Tail: the same on [4, 8], s = t/2 - 3", q, 4, 8, 9, np.float64)
emit_exp("kExp64", 6, np.float64)
emit("kQ32: the same in float", q, 0, 4, 7, np.float32)
emit("kQ32Tail: the same on [4, 8], s = t/2 - 3", q, 4, 8, 5, np.float32)
emit_exp("kExp32", 4, np.float32)
emit_pieces("kHPieces32: exp(-t^2/2) Q(t) on [5k/8, 5(k + 1)/8)", 5, 6, np.float32)
emit("kTail: t R(t) on [4, 20]", tail, mp.mpf("0.2"), 1, 10, np.float64)
hi = float(T0)
print(f"// t0 = {mp.nstr(T0, 30)}: {hi.hex()} + {float(T0 - hi).hex()};",
      f"float {float(np.float32(hi)).hex()} + {float(np.float32(float(T0 - float(np.float32(hi))))).hex()}")
