// Oracle of aclnnSeluBackward. See docs/oracle-elementwise.md.
//
// The constants are the spec's decimals, taken as exact rationals (they are not dyadic, so
// dy*lambda and dy*(y + lambda*alpha) are never rounding ties unless they are 0; Ziv's loop
// terminates). Each MPFR parse at precision p is off by <= 2^-p relative, which the bounds carry.
#include "reference/selu_backward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "reference/exact.hpp"
#include "reference/rounding.hpp"

namespace aclnn_ref {

namespace {

using exact::Mp;

constexpr const char *kLambda = "1.0507009873554804934193349852946";
constexpr const char *kAlpha = "1.6732632423543772848170429916717";
constexpr const char *kLambdaAlpha = "1.7580993408473768599402175208123";
constexpr double kU = 0x1p-53;

enum : uint8_t { kValue1, kNan1, kZero1, kInt1 };  // indices into kSeluDecidingClauses

uint8_t deciding_clause(double y, DType out) {
  if (std::isnan(y)) return kNan1;
  if (y == 0) return kZero1;
  if (!is_floating(out)) return kInt1;
  return kValue1;
}

DecidingClauses no_clauses() {
  return {kSeluDecidingClauses, {}, kValue1};
}

// RN(decimal) as doubles; each is in [1, 2), so |RN(c) - c| <= 2^-53 (half an ulp). Parsed once,
// lazily (no static-initialisation-order dependence on Boost/MPFR), thread-safe.
struct Consts {
  double lambda, alpha, lambda_alpha;
};
double parse_double(const char *s) {
  Mp m(53);
  mpfr_set_str(m.raw(), s, 10, MPFR_RNDN);
  return mpfr_get_d(m.raw(), MPFR_RNDN);
}
const Consts &consts() {
  static const Consts c{parse_double(kLambda), parse_double(kAlpha), parse_double(kLambdaAlpha)};
  return c;
}

thread_local uint64_t g_fallbacks = 0;

struct Mode {
  bool doc_literal, le_zero, select_lt, via_fp16;
};
Mode mode_of(const VariantSet &v) {
  return {v.has("doc-literal"), v.has("le-zero"), v.has("select-lt"), v.has("via-fp16")};
}

// Fast pass: double arithmetic, bounds in the comments; the 1/16 pad covers second-order terms.
std::optional<uint64_t> fast(double dy, double y, bool neg, const Mode &m, DType out) {
  double r, err;
  const double ady = std::fabs(dy);
  const Consts &c = consts();
  const double kLambdaD = c.lambda, kAlphaD = c.alpha, kLambdaAlphaD = c.lambda_alpha;
  if (!neg) {
    r = dy * kLambdaD;  // |lambda_d - lambda| <= 2^-53, product rounding u |r|
    err = ady * 0x1p-53 + kU * std::fabs(r);
  } else if (!m.doc_literal) {
    const double s = y + kLambdaAlphaD;  // constant 2^-53, sum u |s|
    const double es = 0x1p-53 + kU * std::fabs(s);
    r = dy * s;
    err = ady * es + kU * std::fabs(r);
  } else {
    const double t = y / kLambdaD;  // lambda_d rel <= u, division u: <= 2.01 u |t|
    const double s = t + kAlphaD;   // constant 2^-53, sum u |s|
    const double es = 2.02 * kU * std::fabs(t) + 0x1p-53 + kU * std::fabs(s);
    r = dy * s;
    err = ady * es + kU * std::fabs(r);
  }
  err *= 1.0625;
  return exact::fast_decide(exact::lower_end(r, err), exact::upper_end(r, err), out);
}

// MPFR pass at precision p; eps = 2^-p per RNDN operation or decimal parse.
std::optional<uint64_t> mpfr_step(double dy, double y, bool neg, const Mode &m, DType out,
                                  mpfr_prec_t p) {
  Mp D(64, dy), Y(64, y), r(p), err(64), tmp(64);
  if (!neg) {
    Mp L(p);
    mpfr_set_str(L.raw(), kLambda, 10, MPFR_RNDN);
    mpfr_mul(r.raw(), D.raw(), L.raw(), MPFR_RNDN);
    // |r - dy lambda| <= |dy| lambda eps + |r| eps <= 2.01 |r| eps
    mpfr_abs(err.raw(), r.raw(), MPFR_RNDU);
    mpfr_mul_d(err.raw(), err.raw(), 2.01, MPFR_RNDU);
  } else {
    Mp S(p);
    if (!m.doc_literal) {
      Mp LA(p);
      mpfr_set_str(LA.raw(), kLambdaAlpha, 10, MPFR_RNDN);
      mpfr_add(S.raw(), Y.raw(), LA.raw(), MPFR_RNDN);
      // err_S = 1.76 eps + |S| eps  (lambda*alpha < 1.76)
      mpfr_abs(err.raw(), S.raw(), MPFR_RNDU);
      mpfr_add_d(err.raw(), err.raw(), 1.76, MPFR_RNDU);
    } else {
      Mp L(p), A(p), T(p);
      mpfr_set_str(L.raw(), kLambda, 10, MPFR_RNDN);
      mpfr_set_str(A.raw(), kAlpha, 10, MPFR_RNDN);
      mpfr_div(T.raw(), Y.raw(), L.raw(), MPFR_RNDN);  // 2.01 eps |T|
      mpfr_add(S.raw(), T.raw(), A.raw(), MPFR_RNDN);
      // err_S = 2.02 |T| eps + 1.68 eps + |S| eps  (alpha < 1.68)
      mpfr_abs(err.raw(), T.raw(), MPFR_RNDU);
      mpfr_mul_d(err.raw(), err.raw(), 2.02, MPFR_RNDU);
      mpfr_add_d(err.raw(), err.raw(), 1.68, MPFR_RNDU);
      mpfr_abs(tmp.raw(), S.raw(), MPFR_RNDU);
      mpfr_add(err.raw(), err.raw(), tmp.raw(), MPFR_RNDU);
    }
    mpfr_mul(r.raw(), D.raw(), S.raw(), MPFR_RNDN);
    // err = |dy| err_S + |r| eps
    mpfr_abs(tmp.raw(), D.raw(), MPFR_RNDU);
    mpfr_mul(err.raw(), err.raw(), tmp.raw(), MPFR_RNDU);
    mpfr_abs(tmp.raw(), r.raw(), MPFR_RNDU);
    mpfr_add(err.raw(), err.raw(), tmp.raw(), MPFR_RNDU);
  }
  mpfr_mul_d(err.raw(), err.raw(), 1.0625, MPFR_RNDU);
  mpfr_mul_2si(err.raw(), err.raw(), -p, MPFR_RNDU);
  return round_if_decided(r.raw(), err.raw(), out);
}

uint64_t element_impl(double dy, double y, DType out, const Mode &m, bool allow_fast) {
  if (m.via_fp16) {  // via-fp16: both inputs rounded (RNE) to fp16 first
    dy = exact::round_double_to(dy, DType::kFloat16);
    y = exact::round_double_to(y, DType::kFloat16);
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(dy)) return exact::fast_round_double(nan, out);
  if (std::isnan(y) && !m.select_lt) return exact::fast_round_double(nan, out);  // SELU-NAN-1
  // Branch: y < 0 (record, select-lt: NaN is not < 0), y <= 0 with le-zero (SELU-ZERO-1).
  const bool neg = y < 0 || (m.le_zero && y == 0);
  if (!neg) {
    if (m.doc_literal || std::isinf(dy) || dy == 0) return exact::fast_round_double(dy, out);
  } else {
    if (std::isinf(y)) {  // y = -inf: factor -inf
      if (dy == 0) return exact::fast_round_double(nan, out);
      return exact::fast_round_double(-std::copysign(std::numeric_limits<double>::infinity(), dy),
                                      out);
    }
    if (dy == 0 || std::isinf(dy)) {
      // Sign of the (never zero) factor, from a correctly rounded evaluation with dy = 1.
      Mode m2 = m;
      m2.via_fp16 = false;
      const bool factor_neg = element_impl(1.0, y, DType::kFloat32, m2, true) >> 31;
      return exact::fast_round_double(factor_neg ? -dy : dy, out);
    }
  }
  const double ady = std::fabs(dy);
  if (allow_fast && ady >= 0x1p-900 && ady <= 0x1p900 && std::fabs(y) <= 0x1p900) {
    if (auto b = fast(dy, y, neg, m, out)) return *b;
  }
  ++g_fallbacks;
  return exact::ziv_loop(
      128, [&](mpfr_prec_t p) { return mpfr_step(dy, y, neg, m, out, p); }, "selu_backward");
}

bool dtype_ok(DType d, Product p) {
  return d == DType::kFloat32 || d == DType::kFloat16 || d == DType::kInt32 || d == DType::kInt8 ||
         (d == DType::kBFloat16 && product_has_bf16(p));
}

}  // namespace

std::vector<std::string_view> selu_backward_variants() {
  return {"doc-literal", "le-zero", "select-lt", "via-fp16", "mixed-dtype", "any-rank"};
}

Verdict selu_backward_check(const SeluBackwardCall &c, const VariantSet &vs) {
  const char *names[3] = {"gradOutput", "result", "gradInput"};
  const TensorView *t[3] = {c.grad_output, c.result, c.grad_input};
  for (int i = 0; i < 3; ++i)
    if (!t[i]) return {status::kNullptr, "SELU-NULL-1", std::string(names[i]) + " is NULL"};
  for (int i = 0; i < 3; ++i)
    if (!dtype_ok(t[i]->dtype, c.product))
      return {status::kInvalid, "SELU-DTYPE-1",
              std::string(names[i]) + " dtype " + std::string(dtype_name(t[i]->dtype)) +
                  " is not supported"};
  if (!vs.has("mixed-dtype"))
    for (int i = 1; i < 3; ++i)
      if (t[i]->dtype != t[0]->dtype)
        return {status::kInvalid, "SELU-DTYPE-2",
                std::string(names[i]) + " dtype " + std::string(dtype_name(t[i]->dtype)) +
                    " != gradOutput dtype " + std::string(dtype_name(t[0]->dtype))};
  for (int i = 1; i < 3; ++i)
    if (t[i]->shape != t[0]->shape)
      return {status::kInvalid, "SELU-SHAPE-1",
              std::string(names[i]) + " shape " + exact::shape_str(t[i]->shape) +
                  " != gradOutput shape " + exact::shape_str(t[0]->shape)};
  if (!vs.has("any-rank"))
    for (int i = 0; i < 3; ++i)
      if (t[i]->rank() < 1 || t[i]->rank() > 8)
        return {
            status::kInvalid, "SELU-RANK-1",
            std::string(names[i]) + " rank " + std::to_string(t[i]->rank()) + " is outside 1..8"};
  // ABI-INPUT-1: the output view is one-to-one.
  if (const std::string why = self_overlap("gradInput", *c.grad_input); !why.empty())
    return {status::kInvalid, "ABI-INPUT-1", why};
  return {};
}

uint64_t selu_backward_element(double dy, double y, DType out, const VariantSet &variants) {
  return element_impl(dy, y, out, mode_of(variants), true);
}

std::vector<ExpectedOutput> selu_backward_values(const SeluBackwardCall &call,
                                                 const VariantSet &variants) {
  const Verdict v = selu_backward_check(call, variants);
  if (!v.ok()) throw std::invalid_argument("selu_backward_values: invalid call: " + v.reason);
  const Mode m = mode_of(variants);
  const DType out = call.grad_input->dtype;
  ExpectedOutput eo;
  eo.name = "gradInput";
  eo.values = HostTensor(out, call.grad_input->shape);
  const int64_t n = eo.values.numel();
  eo.decided_by = no_clauses();
  if (n == 0) return {eo};  // SELU-EMPTY-1
  exact::init_exact(eo);
  eo.decided_by.of_element.resize(static_cast<size_t>(n));
  exact::Broadcaster it(call.grad_input->shape, {call.grad_output, call.result});
  for (int64_t i = 0; i < n; ++i, it.next()) {
    const double dy = exact::read_as(*call.grad_output, it.offset(0), call.grad_output->dtype);
    const double y = exact::read_as(*call.result, it.offset(1), call.result->dtype);
    eo.decided_by.of_element[static_cast<size_t>(i)] = deciding_clause(y, out);
    const uint64_t bits = element_impl(dy, y, out, m, true);
    eo.values.set_bits(i, bits);
    exact::keep_exact(eo, i, bits);
  }
  return {eo};
}

DecidingClauses selu_backward_clauses(const SeluBackwardCall &call) {
  DecidingClauses d = no_clauses();
  if (!call.result || !call.grad_input) return d;
  // Row-major over result itself: the spec has no broadcasting (SELU-SHAPE-1).
  d.of_element.resize(static_cast<size_t>(call.grad_input->numel()), kValue1);
  const int64_t n = std::min(call.grad_input->numel(), call.result->numel());
  for (int64_t i = 0; i < n; ++i)
    d.of_element[static_cast<size_t>(i)] =
        deciding_clause(call.result->at(i), call.grad_input->dtype);
  return d;
}

namespace selu_detail {
uint64_t mpfr_fallbacks() {
  return g_fallbacks;
}
uint64_t element_mpfr_only(double dy, double y, DType out, const VariantSet &variants) {
  return element_impl(dy, y, out, mode_of(variants), false);
}
}  // namespace selu_detail

}  // namespace aclnn_ref
