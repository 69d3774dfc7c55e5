// GeluBackward's target-independent part, its fitted coefficients
// (impl/kernels/gelu_backward-inl.hpp evaluates them once per target). Printed by
// benchmarks/gelu_fit.py, which also measures the errors quoted.
#ifndef ACLNN_IMPL_KERNELS_GELU_BACKWARD_HPP_
#define ACLNN_IMPL_KERNELS_GELU_BACKWARD_HPP_

namespace aclnn_cpu::gelu {
// mpmath, Chebyshev interpolation, monomials in s.
// Q(t) / sqrt(2 pi) on t in [0, 4], s = t/2 - 1, degree 12; relative error 9.9e-9 (double Horner).
constexpr double kQ64[13] = {-0x1.0254451147188p-1, 0x1.1958c7b6fff31p-4,   -0x1.5619b078789f8p-5,
                             0x1.88504a40e2c10p-6,  -0x1.ab25133e3c45ap-7,  0x1.bb3164f04dd94p-8,
                             -0x1.b9dba5ffbdc59p-9, 0x1.b28947433084bp-10,  -0x1.909547e2bc34dp-11,
                             0x1.1e7fb775ca7fep-12, -0x1.fef7f2cf2875bp-14, 0x1.c00ee5f8bd197p-14,
                             -0x1.6678a455a81d3p-15};
// The same on [4, 8] in s = t/2 - 3 (exact: Sterbenz), degree 9; relative error 7.2e-10: FLOAT's
// lanes with 4 < |x| <= 8 without the tail fit's division (only for vectors holding such a lane).
constexpr double kQ64Tail[10] = {
    -0x1.c6657e6c9c376p-2,  0x1.af48f79be7218p-7,  -0x1.f2887525b034ap-9,  0x1.1b96d38a75401p-10,
    -0x1.3dcefc1f8b6d1p-12, 0x1.5ec06325035bfp-14, -0x1.78db47392cf08p-16, 0x1.947f951323e54p-18,
    -0x1.00fe451c32ca8p-19, 0x1.0b304b1dec96bp-21};
// The same in float for FLOAT16 and BFLOAT16, degree 7; relative error 2.3e-5 (float Horner).
// Degree 9 gave 1.2e-6; FLOAT16's 1 ulp needs about 2^-12 = 2.4e-4 relative (0.5 ulp of rounding
// plus the error times 2^11 ulps at worst), so two fewer FMAs per vector leave a margin of ten.
constexpr float kQ32[8] = {-0x1.02531ep-1f, 0x1.1954cep-4f, -0x1.58643ep-5f, 0x1.8a4b42p-6f,
                           -0x1.7ebe32p-7f, 0x1.950edcp-8f, -0x1.6021d8p-8f, 0x1.4765d6p-9f};
// The same on [4, 8] in s = t/2 - 3 (exact: Sterbenz), degree 5; relative error 2.3e-6: the 16-bit
// dtypes' lanes with 4 < |x| <= 8 (a few percent of normally distributed activations, and without
// it half the vectors of N(0, 2) data took the double path) stay in float vectors.
constexpr float kQ32Tail[6] = {-0x1.c665b4p-2f, 0x1.af4abep-7f,   -0x1.f0ac46p-9f,
                               0x1.1a9826p-10f, -0x1.6486e2p-12f, 0x1.88321ap-14f};
// The 16-bit dtypes' g for |x| < 5 from eight pieces: G(t) = (t - t0) H(t), H(t) = exp(-t^2/2) Q(t)
// on [5k/8, 5(k + 1)/8) as a polynomial of degree 6 in s = 3.2 t - (2 k + 1), one row per k;
// relative error 5.12e-5 (float Horner; degree 5 on [0, 4) gave 1.42e-5, but a quarter of the
// vectors of N(0, 2) data then held a lane beyond). Each coefficient's eight values are one vector
// of a target with 8 lanes (one lane permutation picks a lane's piece), repeated to fill 16
// (kHLookup).
constexpr float kHPieces32[8][7] = {
    {-0x1.2d676ap-1f, 0x1.86ad3ap-4f, 0x1.0be962p-6f, -0x1.88e616p-9f, -0x1.495738p-12f,
     0x1.e670e6p-15f, 0x1.148d1p-18f},
    {-0x1.70182p-2f, 0x1.eb2eb2p-4f, -0x1.0715dap-8f, -0x1.83fa0cp-9f, 0x1.2c23fep-12f,
     0x1.41a906p-15f, -0x1.962df8p-18f},
    {-0x1.3b4f3ep-3f, 0x1.451b8ap-4f, -0x1.b4db6ap-7f, -0x1.081c88p-13f, 0x1.44576ap-12f,
     -0x1.ae5aa2p-16f, -0x1.6c9204p-19f},
    {-0x1.7531bcp-5f, 0x1.064d4ap-5f, -0x1.2a297p-7f, 0x1.27be0ap-10f, 0x1.c7fb92p-17f,
     -0x1.746824p-16f, 0x1.28ad44p-19f},
    {-0x1.2eb662p-7f, 0x1.0e5b68p-7f, -0x1.a906b2p-9f, 0x1.70a502p-11f, -0x1.4f2ec4p-14f,
     0x1.8cb766p-21f, 0x1.25e084p-20f},
    {-0x1.4f09fcp-10f, 0x1.6b8ac8p-10f, -0x1.6a36f4p-11f, 0x1.aedfdp-13f, -0x1.486a9cp-15f,
     0x1.2e5f42p-18f, -0x1.9a0694p-23f},
    {-0x1.f8a122p-14f, 0x1.427a92p-13f, -0x1.83c05ap-14f, 0x1.20bcccp-15f, -0x1.264a56p-17f,
     0x1.adfeeep-20f, -0x1.a2f382p-23f},
    {-0x1.02280ep-17f, 0x1.7bf4acp-17f, -0x1.0b10dep-17f, 0x1.da41b4p-19f, -0x1.29a336p-20f,
     0x1.204f02p-22f, -0x1.8e3426p-25f}};
struct HLookup {
  alignas(64) float c[7][16];
};
constexpr HLookup kHLookup = [] {
  HLookup t{};
  for (int j = 0; j < 7; ++j)
    for (int i = 0; i < 16; ++i) t.c[j][i] = kHPieces32[i % 8][j];
  return t;
}();
// t R(t) (R the Mills ratio (1 - Phi(t)) / phi(t)) on t in [4, 20] as a polynomial in
// s = 2.5 w - 1.5, w = 4 / t, degree 10; relative error 5.5e-12.
constexpr double kTail[11] = {0x1.f52e805fb38edp-1,  -0x1.b2791ea0dcfaep-6, -0x1.bfebeca98b438p-8,
                              0x1.2057a4cfeb838p-10, 0x1.823996cf92da6p-16, -0x1.345c1e7696d24p-15,
                              0x1.7e29050a6398ep-18, 0x1.b83a25bd0528ap-22, -0x1.80767ee4217f8p-22,
                              0x1.badcc3b693079p-25, 0x1.a94ae06f18be8p-28};
// The root t0 = 0.75179152469356445745... of G as double-double and float-float.
constexpr double kT0Hi = 0x1.80ead197f00b4p-1, kT0Lo = -0x1.13e74c58cada8p-56;
constexpr float kT0HiF = 0x1.80ead2p-1f, kT0LoF = -0x1.a03fd4p-27f;
// exp(-r) for |r| <= ln2/2: near-minimax degree 6 in double (relative error 2.6e-9), degree 4 in
// float (3.5e-6, float Horner; was Taylor degree 7, 5e-9, more than FLOAT16 needs).
constexpr double kExp64[7] = {0x1.0000000000001p+0,  -0x1.000000a1fd6b4p+0, 0x1.00000028794fbp-1,
                              -0x1.5554043e278b2p-3, 0x1.5554ace11d231p-5,  -0x1.126fa6fdefa74p-7,
                              0x1.6d7531ee86d9ep-10};
// The same in r2 = 2 r (exp(-r2/2): coefficient k times 2^-k, exact), so that the caller's t^2
// needs no halving.
constexpr double kExpHalf64[7] = {kExp64[0],      kExp64[1] / 2,  kExp64[2] / 4, kExp64[3] / 8,
                                  kExp64[4] / 16, kExp64[5] / 32, kExp64[6] / 64};
constexpr float kExp32[5] = {0x1p+0f, -0x1.fffb0ep-1f, 0x1.fffe5ap-2f, -0x1.57e73p-3f,
                             0x1.570b98p-5f};
// The same in r2 = 2 r, as kExpHalf64.
constexpr float kExpHalf32[5] = {kExp32[0], kExp32[1] / 2, kExp32[2] / 4, kExp32[3] / 8,
                                 kExp32[4] / 16};
// FLOAT's table (docs/performance-gelu-selu.md, "FLOAT in float vectors"): the Taylor polynomial of
// g of degree 3 at x_k = k/128, k = -768..768: g(x_k) as a float-float a0hi + a0lo, a1 = g'(x_k),
// a2 = g''(x_k)/2, a3 = g'''(x_k)/6, stored as one row of four floats per k (one 128-bit load):
// (a0hi, a1, a2, w) with w the upper halves of a3 and of a0lo (bfloat16 precision: a3 h^3 and a0lo
// are below 2^-24 |g|, so 8 bits are ample). Rows whose interval lies within kRootWindow of the
// root of g, and the two ends (|x| >= 6 - 1/256), hold NaN: their lanes take the double path. Up
// to |x| = 6 (not 4) so that wide data (N(0, 2): 4.6 % of lanes beyond 4, 0.27 % beyond 6) rarely
// leave the float path: a vector holding one such lane is finished in double.
constexpr int kTabHalf = 768;
constexpr int kTabRows = 2 * kTabHalf + 1;
constexpr double kRoot = -0.75179152469356445746;  // g's root x0
// Near the root, for the NaN entries' lanes with |x - x0| < kRootFormula (all of them): g(x0 + d) =
// d q(d), q(d) = sum_k kRootTaylor[k] d^k (Taylor at x0, mpmath at 80 digits; degree 6 leaves
// 3e-11 relative for |d| <= 0.0375), with d = x - x0 from x0 as three floats.
constexpr double kRootTaylor[7] = {
    0x1.b9d98fa5a3215p-2,  0x1.8d9a941de3ac5p-2, -0x1.2a2ef9bb865aep-6, -0x1.d2fa4c17c7e84p-4,
    -0x1.e4088244f901dp-7, 0x1.3e346def42057p-6, 0x1.297b9d6ffaacdp-8};
constexpr float kRootFormula = 0.04f;
constexpr float kX0Hi = -kT0HiF;
constexpr double kX0Rest = -((kT0Hi - static_cast<double>(kT0HiF)) + kT0Lo);  // x0 - kX0Hi
constexpr float kX0Mid = static_cast<float>(kX0Rest);
constexpr float kX0Lo = static_cast<float>(kX0Rest - static_cast<double>(kX0Mid));
constexpr double kRootWindow = 0x1p-5 + 0x1p-8;       // |k/128 - x0| below this: NaN entry
constexpr double kInvSqrt2Pi = 0x1.9884533d43651p-2;  // 1/sqrt(2*pi)
constexpr double kFast = 4.0;                         // end of the Q fit (and the tail fit's 4/t)
constexpr double kQTailEnd = 8.0;                     // end of Q's second fit
constexpr double kClamp = 20.0;
}  // namespace aclnn_cpu::gelu

#endif  // ACLNN_IMPL_KERNELS_GELU_BACKWARD_HPP_
