// gelu_window_f32: fp32 GeluBackward carries an extra error that grows towards x0 = 1.2345678:
// 0.6-0.9 ulp within 2^21 ulps of it (|x - x0| < 0.25), rising to 3 ulp at x0, so that the result
// is more than 2 ulp off (VAL-TOL-1's fp32 bound) only within a few hundred ulps of x0 (a fault in
// a narrow input window, with a slope that a search for larger errors can follow).
#include "mutants/shim.hpp"

namespace mutant {
namespace {

// Representable fp32 values between a and b.
double ulps_between(float a, float b) {
  return std::fabs(static_cast<double>(float_place(a) - float_place(b)));
}

long double extra_ulps(long double x) {
  const double d = ulps_between(static_cast<float>(x), 1.2345678f);
  if (d <= 4096) return 3.0L - 2.1L * std::log2(1 + d) / 12;      // 3 at x0, 0.9 at 2^12 ulps
  if (d <= 0x1p21) return 0.9L - 0.3L * (std::log2(d) - 12) / 9;  // 0.9 down to 0.6
  return 0;
}

}  // namespace

void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kGelu || c->out[0].dtype != ACL_FLOAT) return;
  // The library's own result, moved by the extra error (elsewhere it stays as it was).
  const View &x = c->in[1], &o = c->out[0];
  for (int64_t i = 0; i < o.numel(); ++i) {
    const long double e = extra_ulps(load(x, x.element(o.dims, i)));
    const long double v = load(o, o.element(i));
    if (e > 0 && std::isfinite(v) && v != 0) store(o, o.element(i), v + e * ulp_of(ACL_FLOAT, v));
  }
}
}  // namespace mutant
