// Oracle of aclnnLogitGrad. See docs/oracle-elementwise.md.
//
// Inside the range the value dy / (x (1 - x)) is rational: x (1 - x) is computed exactly in MPFR
// and the quotient is rounded once with round_ratio_exact (round-to-odd, so ties are exact). A
// double fast pass with a 3-rounding relative bound decides almost every element first.
#include "reference/logit_grad.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "reference/exact.hpp"
#include "reference/rounding.hpp"

namespace aclnn_ref {

namespace {

using exact::Mp;

constexpr double kU = 0x1p-53;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

thread_local uint64_t g_fallbacks = 0;

struct Mode {
  bool range_rule, kernel_nan_x;
};
Mode mode_of(const VariantSet &v) {
  return {v.has("range-rule"), v.has("kernel-nan-x")};
}

// The clauses in the spec's order. Returns the element's value when a clause decides it (NaN,
// +0, +-inf), nullopt when the general rule's "inside the range" value dy / (x (1-x)) applies.
std::optional<double> clauses(double dy, double x, double eps, const Mode &m) {
  bool eps_negative;
  if (std::isnan(eps)) {
    if (!m.kernel_nan_x) return kNaN;  // LOGIT-EPS-NAN-1
    eps_negative = true;               // kernel-nan-x: NaN eps behaves as eps < 0
  } else {
    if (!m.range_rule) {
      if (eps == kInf) return 0.0;  // LOGIT-EPS-INF-1
      if (eps > 1) return kNaN;     // LOGIT-EPS-GT1-1
      if (eps == 1)                 // LOGIT-EPS-EQ1-1: dy / 0
        return (std::isnan(dy) || dy == 0) ? kNaN : std::copysign(kInf, dy);
    }
    eps_negative = eps < 0;
  }
  // LOGIT-X-NONFINITE-1
  if (std::isnan(x)) return (m.kernel_nan_x && !eps_negative) ? 0.0 : kNaN;
  if (std::isinf(x) && !m.range_rule) return kNaN;
  const bool inside = logit_grad_inside_range(x, eps_negative ? -1.0 : eps);
  const double outside_value = eps_negative ? kNaN : 0.0;
  // LOGIT-DY-NONFINITE-1
  if (std::isnan(dy)) {
    if (!m.range_rule) return kNaN;
    return inside ? kNaN : outside_value;  // range-rule: the general rule alone
  }
  if (std::isinf(dy) && !inside && !m.range_rule) return kNaN;
  if (!inside) return outside_value;  // LOGIT-VALUE-1
  if (x == 0 || x == 1)               // LOGIT-X01-1: dy / 0
    return dy == 0 ? kNaN : std::copysign(kInf, dy);
  if (std::isinf(dy) || dy == 0) return dy;  // x (1-x) > 0: inf or a signed zero, exactly
  return std::nullopt;
}

enum : uint8_t {  // indices into kLogitDecidingClauses
  kValue1,
  kEpsNan1,
  kEpsInf1,
  kEpsGt1,
  kEpsEq1,
  kXNonfinite1,
  kDyNonfinite1,
  kX01
};

// The eps clause that decides every element, or kValue1 when none does.
uint8_t eps_clause(double eps) {
  if (std::isnan(eps)) return kEpsNan1;
  if (eps == kInf) return kEpsInf1;
  if (eps > 1) return kEpsGt1;
  if (eps == 1) return kEpsEq1;
  return kValue1;
}

// The deciding clause of an element with operands, once no eps clause decides.
uint8_t element_clause(double dy, double x, double eps) {
  if (!std::isfinite(x)) return kXNonfinite1;
  if (!std::isfinite(dy)) return kDyNonfinite1;
  if (logit_grad_inside_range(x, eps) && (x == 0 || x == 1)) return kX01;
  return kValue1;
}

uint64_t exact_value(double dy, double x, DType out) {
  ++g_fallbacks;
  // 1 - x needs at most 1 + 1074 bits for a double x in (0, 1); x (1 - x) at most 53 more.
  Mp X(64, x), om(1100), den(1200), num(64, dy);
  if (mpfr_ui_sub(om.raw(), 1, X.raw(), MPFR_RNDN) != 0 ||
      mpfr_mul(den.raw(), X.raw(), om.raw(), MPFR_RNDN) != 0)
    throw exact::ZivFailure("logit_grad: x (1 - x) not exact");
  return exact::round_ratio_exact(num.raw(), den.raw(), out);
}

uint64_t element_impl(double dy, double x, double eps, DType out, const Mode &m, bool allow_fast) {
  if (const auto v = clauses(dy, x, eps, m)) return exact::fast_round_double(*v, out);
  const double ady = std::fabs(dy);
  if (allow_fast && ady >= 0x1p-900 && ady <= 0x1p900 && x >= 0x1p-900) {
    // Three roundings (1 - x, the product, the quotient), each <= u relative: the quotient is
    // within (1+u)^3 / (1-u)^... <= 3.01 u |q| of the exact one; padded by 1/16.
    const double q = dy / (x * (1.0 - x));
    const double err = 3.01 * kU * std::fabs(q) * 1.0625;
    if (auto b = exact::fast_decide(exact::lower_end(q, err), exact::upper_end(q, err), out))
      return *b;
  }
  return exact_value(dy, x, out);
}

bool float_dtype(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat16 || d == DType::kBFloat16;
}

}  // namespace

std::vector<std::string_view> logit_grad_variants() {
  return {"range-rule", "kernel-nan-x", "no-shape-check"};
}

Verdict logit_grad_check(const LogitGradCall &c, const VariantSet &vs) {
  if (c.product != Product::kAtlasA2 && c.product != Product::kAtlasA3)
    return {status::kInvalid, "ABI-SOC-1", "aclnnLogitGrad is available on Atlas A2/A3 only"};
  const char *names[3] = {"x", "dy", "out"};
  const TensorView *t[3] = {c.x, c.dy, c.out};
  for (int i = 0; i < 3; ++i)
    if (!t[i]) return {status::kNullptr, "LOGIT-NULL-1", std::string(names[i]) + " is NULL"};
  for (int i = 0; i < 3; ++i)
    if (!float_dtype(t[i]->dtype))
      return {status::kInvalid, "LOGIT-DTYPE-1",
              std::string(names[i]) + " dtype " + std::string(dtype_name(t[i]->dtype)) +
                  " is not FLOAT, FLOAT16 or BFLOAT16"};
  for (int i = 1; i < 3; ++i)
    if (t[i]->dtype != t[0]->dtype)
      return {status::kInvalid, "LOGIT-DTYPE-1",
              std::string(names[i]) + " dtype " + std::string(dtype_name(t[i]->dtype)) +
                  " != x dtype " + std::string(dtype_name(t[0]->dtype))};
  if (!vs.has("no-shape-check"))
    for (int i = 1; i < 3; ++i)
      if (t[i]->shape != t[0]->shape)
        return {status::kInvalid, "LOGIT-SHAPE-1",
                std::string(names[i]) + " shape " + exact::shape_str(t[i]->shape) + " != x shape " +
                    exact::shape_str(t[0]->shape)};
  for (int i = 0; i < 3; ++i)
    if (t[i]->rank() > 8)
      return {status::kInvalid, "LOGIT-RANK-1",
              std::string(names[i]) + " rank " + std::to_string(t[i]->rank()) + " > 8"};
  // ABI-INPUT-1: the output view is one-to-one.
  if (const std::string why = self_overlap("out", *c.out); !why.empty())
    return {status::kInvalid, "ABI-INPUT-1", why};
  return {};
}

uint64_t logit_grad_element(double dy, double x, double eps, DType out,
                            const VariantSet &variants) {
  return element_impl(dy, x, eps, out, mode_of(variants), true);
}

std::vector<ExpectedOutput> logit_grad_values(const LogitGradCall &call,
                                              const VariantSet &variants) {
  const Verdict v = logit_grad_check(call, variants);
  if (!v.ok()) throw std::invalid_argument("logit_grad_values: invalid call: " + v.reason);
  const Mode m = mode_of(variants);
  const DType out = call.out->dtype;
  ExpectedOutput eo;
  eo.name = "out";
  const int64_t n = call.x->numel();
  const uint8_t by_eps = eps_clause(call.eps);
  const bool same = call.dy->shape == call.x->shape && call.out->shape == call.x->shape;
  if (same) {
    eo.values = HostTensor(out, call.out->shape);
    eo.decided_by = {kLogitDecidingClauses, {}, by_eps};
    if (n == 0) return {eo};  // LOGIT-EMPTY-1
    exact::init_exact(eo);
    eo.decided_by.of_element.assign(static_cast<size_t>(n), by_eps);
    exact::Broadcaster it(call.x->shape, {call.x, call.dy});
    for (int64_t i = 0; i < n; ++i, it.next()) {
      const double x = exact::read_as(*call.x, it.offset(0), call.x->dtype);
      const double dy = exact::read_as(*call.dy, it.offset(1), call.dy->dtype);
      if (by_eps == kValue1)
        eo.decided_by.of_element[static_cast<size_t>(i)] = element_clause(dy, x, call.eps);
      const uint64_t bits = element_impl(dy, x, call.eps, out, m, true);
      eo.values.set_bits(i, bits);
      exact::keep_exact(eo, i, bits);
    }
    return {eo};
  }
  // no-shape-check: x's element count for all three.
  eo.values = HostTensor(out, call.out->numel() == n ? call.out->shape : std::vector<int64_t>{n});
  const int64_t ndy = call.dy->numel();
  exact::init_exact(eo);
  eo.decided_by = {kLogitDecidingClauses, std::vector<uint8_t>(static_cast<size_t>(n), by_eps),
                   by_eps};
  for (int64_t i = 0; i < n; ++i) {
    const double x = call.x->at(i);
    const double dy = i < ndy ? call.dy->at(i) : kNaN;
    if (by_eps == kValue1 && i < ndy)
      eo.decided_by.of_element[static_cast<size_t>(i)] = element_clause(dy, x, call.eps);
    const uint64_t bits =
        i < ndy ? element_impl(dy, x, call.eps, out, m, true) : exact::fast_round_double(kNaN, out);
    eo.values.set_bits(i, bits);
    exact::keep_exact(eo, i, bits);
  }
  return {eo};
}

DecidingClauses logit_grad_clauses(const LogitGradCall &call) {
  const uint8_t by_eps = eps_clause(call.eps);
  DecidingClauses d{kLogitDecidingClauses, {}, by_eps};
  if (!call.out) return d;
  d.of_element.assign(static_cast<size_t>(call.out->numel()), by_eps);
  if (by_eps != kValue1 || !call.x || !call.dy) return d;
  const int64_t n = std::min({call.out->numel(), call.x->numel(), call.dy->numel()});
  for (int64_t i = 0; i < n; ++i)
    d.of_element[static_cast<size_t>(i)] = element_clause(call.dy->at(i), call.x->at(i), call.eps);
  return d;
}

namespace logit_detail {
uint64_t mpfr_fallbacks() {
  return g_fallbacks;
}
uint64_t element_exact_only(double dy, double x, double eps, DType out,
                            const VariantSet &variants) {
  return element_impl(dy, x, eps, out, mode_of(variants), false);
}
}  // namespace logit_detail

}  // namespace aclnn_ref
