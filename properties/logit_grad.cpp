// aclnnLogitGrad in the framework: generators, the ABI call, the oracle and clause attribution.
// Clauses: LOGIT-NULL-1, LOGIT-DTYPE-1, LOGIT-SHAPE-1, LOGIT-RANK-1, LOGIT-EMPTY-1,
// LOGIT-EPS-NAN-1, LOGIT-EPS-INF-1, LOGIT-EPS-GT1-1, LOGIT-EPS-EQ1-1, LOGIT-X-NONFINITE-1,
// LOGIT-DY-NONFINITE-1, LOGIT-VALUE-1, LOGIT-X01-1 (and the shared ABI-SOC-1, ABI-RANK-1,
// ABI-TENSOR-2, ABI-EMPTY-1).
#include "reference/logit_grad.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "aclnnop/aclnn_logit_grad.h"
#include "properties/gen.hpp"
#include "properties/op.hpp"

namespace aclnn_conform {

// The op's edge-case table (edge_cases/logit_grad.cpp).
std::vector<EdgeCase> logit_grad_edge_cases();

namespace {

using aclnn_ref::DType;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The double attribute "eps" of a case (every LogitGrad case carries it).
double eps_of(const Case &c) {
  const AttrValue *a = c.attr("eps");
  return a && std::holds_alternative<double>(*a) ? std::get<double>(*a) : kNaN;
}

// eps as a C++ expression that needs no header: a hex-float literal (exact), or a builtin.
std::string double_literal(double v) {
  if (std::isnan(v)) return "__builtin_nan(\"\")";
  if (std::isinf(v)) return v > 0 ? "__builtin_inf()" : "-__builtin_inf()";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

aclnn_ref::LogitGradCall oracle_call(const Case &c) {
  return {c.view("x"), c.view("dy"), eps_of(c), c.view("out"), c.product};
}

// A value of dtype t (or of a narrower float type) in (0, 1/2), nudged off it by less than half
// a float ulp: eps itself, or 1 - eps. eps is a double and x is compared with it exactly, so x
// at that value lies on one side of eps; a library that carries eps (or 1 - eps) in float, fp16
// or bf16 (or compares in them) rounds the nudge away and puts x on the other side.
rc::Gen<double> nudged_eps(DType t) {
  return rc::gen::exec([t] {
    const DType f = *rc::gen::element(t, t, DType::kFloat32, DType::kFloat16, DType::kBFloat16);
    const uint64_t u = *rc::gen::arbitrary<uint32_t>();
    const double raw = *rc::gen::weightedOneOf<double>({
        {2, rc::gen::element(0.1, 0.125, 0x1p-10, 0.3, 1e-3, 0.25 + 0x1p-9, 0.4)},
        {1, rc::gen::just(std::ldexp((u & 0xffffff) + 1.0, -25))},  // (0, 1/2)
    });
    const uint64_t vb = gen::bits_of(raw, f);
    const double v = aclnn_ref::decode(&vb, f);  // a value of f in (0, 1/2]
    const double tiny = *rc::gen::element(0x1p-40, 0x1p-30, 0x1p-52);
    const double nudge = (*rc::gen::arbitrary<bool>() ? 1 : -1) * v * tiny;
    if (*rc::gen::arbitrary<bool>()) return v + nudge;  // x = v lies just off eps
    // 1 - eps just off a value w of f in (1/2, 1): eps = 1 - w -+ tiny.
    const uint64_t wb = gen::bits_of(1.0 - v, f);
    return 1.0 - (aclnn_ref::decode(&wb, f) + nudge);
  });
}

// eps from every class the spec distinguishes: negative, 0, (0, 0.5), 0.5, (0.5, 1), 1, > 1,
// +inf, NaN. Some values are representable in fp16/bf16 (so x can equal eps and 1 - eps), some
// are not (the comparison is exact in double), some are a value of x's dtype (or of another float
// type) nudged by less than half a float ulp (nudged_eps).
rc::Gen<double> eps_gen(DType t) {
  return rc::gen::weightedOneOf<double>({
      {2, rc::gen::element(-1.0, -0.5, -0x1p-10, -1e-3, -kInf)},
      {2, rc::gen::element(0.0, -0.0)},
      {3, rc::gen::element(0.125, 0.25, 0.375, 0x1p-10, 0.1, 1e-6, 0.5 - 0x1p-11)},
      {1, rc::gen::map(rc::gen::inRange(1, 1 << 20), [](int k) { return k * 0x1p-21; })},
      {2, nudged_eps(t)},
      {1, rc::gen::just(0.5)},
      {1, rc::gen::element(0.75, 0.6, 1.0 - 0x1p-20)},
      {1, rc::gen::just(1.0)},
      {1, rc::gen::element(1.5, 2.0, 1e30, 0x1.0000000000001p0)},
      {1, rc::gen::just(kInf)},
      {1, rc::gen::just(kNaN)},
  });
}

// x: the range ends 0, 1, eps, 1 - eps and their neighbours (value_bits adds +-1, 2 ulps in x's
// dtype), values outside [0, 1], +-inf and NaN (value_bits' specials), and interior values.
rc::Gen<uint64_t> x_values(DType t, double eps) {
  std::vector<double> hot = {0.0, 1.0, 0.5};
  if (std::isfinite(eps)) {
    hot.push_back(eps);
    hot.push_back(1.0 - eps);
  }
  return rc::gen::weightedOneOf<uint64_t>({
      {4, gen::value_bits(t, hot)},
      {2, rc::gen::map(rc::gen::arbitrary<uint32_t>(),
                       [t](uint32_t u) { return gen::bits_of((u + 0.5) / 4294967296.0, t); })},
  });
}

// dy: ordinary values, +-0, +-inf, NaN (value_bits' specials).
rc::Gen<uint64_t> dy_values(DType t) {
  return gen::value_bits(t, {1.0, -1.0, 0x1p-10});
}

std::vector<DType> float_dtypes() {
  return {DType::kFloat32, DType::kFloat16, DType::kBFloat16};
}

// A valid call on p. The op exists on A2 and A3 only: on another product the case is built all
// the same, and the oracle rejects it (ABI-SOC-1) - there is no valid call there.
rc::Gen<Case> gen_valid(Product p) {
  return rc::gen::exec([p] {
    const DType t = *rc::gen::elementOf(float_dtypes());
    // LOGIT-RANK-1: rank 0..8. rc::gen::inRange scales with the size, so rank 8 (ABI-RANK-1's
    // upper end) gets its own share.
    const auto s = *rc::gen::weightedOneOf<gen::Shape>(
        {{7, gen::shape({0, 8, 512, true})}, {1, gen::shape({8, 8, 512, true})}});
    const double eps = *eps_gen(t);
    const gen::LayoutOptions in{.allow_zero_strides = true};
    Case c;
    c.op = "LogitGrad";
    c.product = p;
    c.tensors.emplace_back("x", *gen::tensor(s, t, x_values(t, eps), in));
    c.tensors.emplace_back("dy", *gen::tensor(s, t, dy_values(t), in));
    c.tensors.emplace_back("out", *gen::output(s, t));
    c.attrs.emplace_back("eps", eps);
    return c;
  });
}

void replace(Case &c, const std::string &name, const gen::Shape &s, DType t) {
  TensorArg &a = *c.tensor(name);
  if (!a.present) return;
  if (name == "out")
    a = *gen::output(s, t);
  else if (aclnn_ref::is_floating(t) || t == DType::kInt8 || t == DType::kInt32)
    a = *gen::tensor(s, t, gen::value_bits(t));
  else
    a = *gen::tensor(s, t, rc::gen::inRange<uint64_t>(0, 2));  // 0/1: valid in every dtype
}

// A valid call broken in one way (sometimes two, so the check order is exercised). On a product
// without the op every case is rejected by the product gate first (ABI-SOC-1).
rc::Gen<Case> gen_invalid(Product p) {
  return rc::gen::exec([p] {
    Case c = *gen_valid(p);
    const std::vector<std::string> names = {"x", "dy", "out"};
    const int breaks = *rc::gen::weightedElement<int>({{4, 1}, {1, 2}});
    for (int k = 0; k < breaks; ++k) {
      const int what = *rc::gen::element(0, 1, 2, 3, 4, 5);  // uniform (inRange scales with size)
      const std::string name = *rc::gen::elementOf(names);
      const TensorArg &t = *c.tensor(name);
      switch (what) {
        case 0:  // LOGIT-NULL-1
          *c.tensor(name) = TensorArg::null();
          break;
        case 1:  // LOGIT-DTYPE-1: not a float dtype
          replace(c, name, t.shape,
                  *rc::gen::element(DType::kInt32, DType::kInt8, DType::kUInt8, DType::kInt16,
                                    DType::kInt64, DType::kFloat64, DType::kBool));
          break;
        case 2: {  // LOGIT-DTYPE-1: another float dtype than x's
          if (!t.present) break;
          auto others = float_dtypes();
          others.erase(std::remove(others.begin(), others.end(), t.dtype), others.end());
          replace(c, name, t.shape, *rc::gen::elementOf(others));
          break;
        }
        case 3: {  // LOGIT-SHAPE-1: no broadcasting, shapes must be equal
          if (!t.present) break;
          // Half of the time the same element count (a broadcastable or reshaped view is still
          // wrong): gen::misshaped.
          const gen::Shape s = *gen::misshaped(t.shape);
          replace(c, name, s, t.dtype);
          break;
        }
        case 4: {  // LOGIT-RANK-1: rank 9 on all three (so the shapes agree)
          const gen::Shape s = {1, 2, 1, 1, 1, 1, 1, 1, 2};
          for (const auto &n : names) replace(c, n, s, c.tensor(n)->dtype);
          break;
        }
        default:  // ABI-SOC-1: a product without the op
          c.product = *rc::gen::element(Product::kAtlasTraining, Product::kAtlasInference);
          break;
      }
    }
    c.refresh_views();
    return c;
  });
}

// The clause that decided output element i, as the oracle tells it.
std::string value_clause(const Case &c, const std::string &, int64_t i) {
  return std::string(aclnn_ref::logit_grad_clauses(oracle_call(c)).at(i));
}

std::vector<std::string> reached(const Case &c) {
  std::vector<std::string> r = {"ABI-SOC-1",    "LOGIT-DTYPE-1", "LOGIT-SHAPE-1",
                                "LOGIT-RANK-1", "ABI-TENSOR-2",  "VAL-EXACT-1"};
  const TensorArg *x = c.tensor("x"), *dy = c.tensor("dy"), *out = c.tensor("out");
  if (!x || !dy || !out || !x->present || !dy->present || !out->present) return r;
  if (out->shape.empty() || out->shape.size() == 8) r.push_back("ABI-RANK-1");
  if (out->numel() == 0) {
    r.push_back("LOGIT-EMPTY-1");
    r.push_back("ABI-EMPTY-1");
    return r;
  }
  for (const std::string_view clause : aclnn_ref::logit_grad_clauses(oracle_call(c)).distinct())
    r.emplace_back(clause);
  return r;
}

// The op's exact factor of dy for one element (see threshold_pairs).
long double factor(long double x) {
  return x >= 0.01L && x <= 0.99L ? 1 / (x * (1 - x)) : NAN;  // inside every small eps's range
}

// VAL-OVERFLOW-1 at the range's limits: (x, dy) pairs whose exact result is at a limit of the
// output's range (gen::range_limit_pairs), computed once per dtype.
const gen::RangeLimitPairs &threshold_pairs(DType t) {
  static const gen::RangeLimitTable table(factor);
  return table(t);
}

OpDescriptor make() {
  OpDescriptor d;
  d.name = "LogitGrad";
  d.abi_name = "aclnnLogitGrad";
  d.outputs = {"out"};
  for (auto v : aclnn_ref::logit_grad_variants()) d.variants.emplace_back(v);
  d.available = two_phase_available(d.abi_name);
  d.phase_one = [](const AbiTable &a, const Case &c, const std::vector<aclTensor *> &t,
                   uint64_t *ws, aclOpExecutor **ex) {
    return ACLNN_ABI_ENTRY(a, aclnnLogitGradGetWorkspaceSize)(t[0], t[1], eps_of(c), t[2], ws, ex);
  };
  d.phase_two = [](const AbiTable &a, void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s) {
    return ACLNN_ABI_ENTRY(a, aclnnLogitGrad)(w, n, ex, s);
  };
  d.check = [](const Case &c, const aclnn_ref::VariantSet &v) {
    return aclnn_ref::logit_grad_check(oracle_call(c), v);
  };
  d.values = [](const Case &c, const aclnn_ref::VariantSet &v) {
    return aclnn_ref::logit_grad_values(oracle_call(c), v);
  };
  d.header = "aclnnop/aclnn_logit_grad.h";
  d.phase_two_name = "aclnnLogitGrad";
  d.repro_phase_one = [](const Case &c, const std::vector<std::string> &t) {
    return "ret = aclnnLogitGradGetWorkspaceSize(" + t[0] + ", " + t[1] + ", " +
           double_literal(eps_of(c)) + ", " + t[2] + ", &workspaceSize, &executor);\n";
  };
  d.reached = reached;
  d.value_clause = value_clause;
  // ABI-INPUT-1: elementwise, so in-place use is legal and generated.
  d.gen_valid = [](Product p) {
    return gen::sometimes_in_place(
        gen::sometimes_at_range_limits(gen_valid(p), "out", "x", "dy", threshold_pairs), "out",
        {"x", "dy"});
  };
  d.gen_invalid = gen_invalid;
  d.gen_large = [](Product p) {
    return gen::sometimes_in_place(gen::enlarged(gen_valid(p), "out", 32768, 262144), "out",
                                   {"x", "dy"});
  };
  d.catalogue_op = d.name;
  d.shared_clause_enforcers = {{"ABI-SOC-1", "InvalidCallsAreRejectedInOrder"}};
  d.edge_cases = logit_grad_edge_cases;
  d.clauses = clauses_from_catalogue(d);
  d.error_axis_input = "x";
  // eps 0.001: factor() places x in [0.01, 0.99], inside the range.
  // Sweeps: eps 0.001 in about a third of them, else across the regimes of LOGIT-VALUE-1 and
  // LOGIT-EPS-*: no clamp (< 0), 0, tiny, thresholds a 16-bit x cannot equal (0.1, 0.3, 0.4999)
  // and ones it can (0.25, 0.5), an empty range (0.75), 1 and > 1.
  d.range_limits = {factor, {"x", "dy", "out"}, "x", "dy", {{"eps", 0.001}}, {}};
  for (const double eps : {0.001, 0.001, 0.001, 0.001, 0.001, 0.001, -1.0, 0.0, 1e-6, 0.1, 0.25,
                           0.3, 0.4999, 0.5, 0.75, 1.0, 2.0})
    d.range_limits.sweep_attrs.push_back({{"eps", eps}});
  return d;
}

}  // namespace

const OpDescriptor &logit_grad_op() {
  static const OpDescriptor d = make();
  return d;
}

}  // namespace aclnn_conform
