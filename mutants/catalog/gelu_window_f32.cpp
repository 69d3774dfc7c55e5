// gelu_window_f32: fp32 GeluBackward carries an extra error that grows towards x0 = 1.2345678, from
// 0.6 ulp at 2^21 ulps of it to 3 ulp at x0, added to the exact value before its one rounding, so
// that the result is more than 2 ulp off (VAL-TOL-1's fp32 bound) only within a few thousand ulps
// of x0 (a fault in a narrow input window, with a slope that a search for larger errors can
// follow). Until 2026-11-28 the extra error was added to the library's rounded result (0.6-0.9 ulp
// over most of the band): rounded to whole ulps, the band had no slope, and climbing found the
// window at one seed in six (docs/decisions.md, "Value sweeps").
#include "mutants/shim.hpp"

namespace mutant {
namespace {

// Representable fp32 values between a and b.
double ulps_between(float a, float b) {
  return std::fabs(static_cast<double>(float_place(a) - float_place(b)));
}

long double extra_ulps(long double x) {
  const double d = ulps_between(static_cast<float>(x), 1.2345678f);
  // 3 at x0, 0.6 at 2^21 ulps: 0.11 ulp more per halving of the distance.
  return d <= 0x1p21 ? 3.0L - 2.4L * std::log2(1 + d) / 21 : 0;
}

}  // namespace

void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kGelu || c->out[0].dtype != ACL_FLOAT) return;
  // In the window, the exact value moved by the extra error and rounded once, so that the error
  // seen is the extra one +-0.5 ulp: moving the library's rounded result instead rounds the extra
  // error to whole ulps, and the band's slope vanishes (elsewhere the result stays as it was).
  const View &dy = c->in[0], &x = c->in[1], &o = c->out[0];
  for (int64_t i = 0; i < o.numel(); ++i) {
    const long double xv = load(x, x.element(o.dims, i));
    const long double e = extra_ulps(xv);
    const long double v = load(dy, dy.element(o.dims, i)) * gelu_grad_erf(xv);
    if (e > 0 && std::isfinite(v) && v != 0) store(o, o.element(i), v + e * ulp_of(ACL_FLOAT, v));
  }
}
}  // namespace mutant
