// aclnnSeluBackward in the framework: generators, the ABI call, the oracle and clause attribution.
// Clauses: SELU-NULL-1, SELU-DTYPE-1, SELU-DTYPE-2, SELU-SHAPE-1, SELU-RANK-1, SELU-EMPTY-1,
// SELU-VALUE-1, SELU-ZERO-1, SELU-NAN-1, SELU-INT-1 (and the shared ABI-RANK-1, ABI-TENSOR-2,
// ABI-EMPTY-1, ABI-SOC-1).
#include "reference/selu_backward.hpp"

#include <algorithm>
#include <cmath>

#include "aclnnop/aclnn_selu_backward.h"
#include "properties/gen.hpp"
#include "properties/op.hpp"
#include "properties/shape_math.hpp"

namespace aclnn_conform {

// The op's edge-case table (edge_cases/selu_backward.cpp).
std::vector<EdgeCase> selu_backward_edge_cases();

namespace {

using aclnn_ref::DType;
constexpr long double kLambda = 1.0507009873554804934193349852946L;
constexpr long double kLambdaAlpha = 1.7580993408473768599402175208123L;

aclnn_ref::SeluBackwardCall oracle_call(const Case &c) {
  return {c.view("gradOutput"), c.view("result"), c.view("gradInput"), c.product};
}

// Values of y (the forward output) that matter: the branch point ±0, the lower end -λα of selu's
// range (y + λα cancels near it), ordinary negatives, and y < -λα (not an output of selu, but a
// legal input: the factor y + λα is then negative).
const std::vector<double> kHotY = {
    0.0, -0.0, static_cast<double>(-kLambdaAlpha), -1.0, -1.75, -2.0, 1.0, -10.0, -1000.0};

// Integers dy in [1, hi] whose dy * factor is nearest a tie k + 1/2 (SELU-INT-1's RNE is then
// decided by the last bits of the exact product), both signs.
std::vector<int64_t> near_ties(long double factor, int64_t hi, size_t keep) {
  // The fraction of dy * factor as a 64-bit fixed-point number (factor's fraction times 2^64,
  // wrapping): one integer multiply per dy, where long double arithmetic over 2^20 dy took tens
  // of milliseconds in every process that drew an INT32 case. Its distance from a tie, 2^63, is
  // off by at most dy units of 2^-64 (about 2^-44), far below the spacing of the ties kept.
  const long double frac = factor - std::floor(factor);
  const auto f = static_cast<uint64_t>(std::ldexp(frac, 64));
  std::vector<std::pair<uint64_t, int64_t>> best;
  for (int64_t dy = 1; dy <= hi; ++dy) {
    const uint64_t p = static_cast<uint64_t>(dy) * f;
    const uint64_t d = p >= (uint64_t{1} << 63) ? p - (uint64_t{1} << 63) : (uint64_t{1} << 63) - p;
    if (best.size() < keep || d < best.back().first) {
      best.emplace_back(d, dy);
      std::sort(best.begin(), best.end());
      if (best.size() > keep) best.pop_back();
    }
  }
  std::vector<int64_t> out;
  for (const auto &[d, dy] : best) {
    out.push_back(dy);
    out.push_back(-dy);
  }
  return out;
}

uint64_t int_bits(int64_t v, DType t) {
  return t == DType::kInt8 ? static_cast<uint64_t>(static_cast<uint8_t>(static_cast<int8_t>(v)))
                           : static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(v)));
}

// Hot integer dy of dtype t: near-ties for the λ branch and for y = -1 (factor λα - 1), the
// saturation thresholds (dy·λ around the type's limits) and the type's extremes.
const std::vector<uint64_t> &hot_int_dy(DType t) {
  auto make = [](DType t) {
    const bool i8 = t == DType::kInt8;
    const int64_t hi = i8 ? 127 : (int64_t{1} << 20);
    std::vector<int64_t> v = near_ties(kLambda, i8 ? 121 : hi, 6);
    for (int64_t d : near_ties(kLambdaAlpha - 1.0L, hi, 4)) v.push_back(d);
    const long double top = i8 ? 127.5L : 2147483647.5L, bottom = i8 ? -128.5L : -2147483648.5L;
    for (long double edge : {top / kLambda, bottom / kLambda}) {
      const auto e = static_cast<int64_t>(std::floor(edge));
      for (int64_t k = -1; k <= 2; ++k) v.push_back(e + k);
    }
    const int64_t max = i8 ? 127 : 2147483647, min = i8 ? -128 : -2147483648LL;
    for (int64_t d : {max, min, max - 1, min + 1, int64_t{0}, int64_t{1}, int64_t{-1}})
      v.push_back(d);
    std::vector<uint64_t> bits;
    for (int64_t d : v)
      if (d >= min && d <= max) bits.push_back(int_bits(d, t));
    return bits;
  };
  static const std::vector<uint64_t> i8 = make(DType::kInt8), i32 = make(DType::kInt32);
  return t == DType::kInt8 ? i8 : i32;
}

rc::Gen<uint64_t> dy_values(DType t) {
  if (!aclnn_ref::is_floating(t))
    return rc::gen::weightedOneOf<uint64_t>(
        {{3, gen::value_bits(t)}, {2, rc::gen::elementOf(hot_int_dy(t))}});
  return gen::value_bits(t, {1.0, -1.0, 0x1p-10, 1000.0});
}

rc::Gen<uint64_t> y_values(DType t) {
  if (!aclnn_ref::is_floating(t)) {
    const bool i8 = t == DType::kInt8;
    std::vector<uint64_t> hot;
    const int64_t max = i8 ? 127 : 2147483647, min = i8 ? -128 : -2147483648LL;
    for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{-2}, int64_t{1}, max, min})
      hot.push_back(int_bits(v, t));
    return rc::gen::weightedOneOf<uint64_t>(
        {{3, gen::value_bits(t)}, {2, rc::gen::elementOf(hot)}});
  }
  return gen::value_bits(t, kHotY);
}

std::vector<DType> legal_dtypes(Product p) {
  std::vector<DType> d = {DType::kFloat32, DType::kFloat16, DType::kInt32, DType::kInt8};
  if (aclnn_ref::product_has_bf16(p)) d.push_back(DType::kBFloat16);
  return d;
}

Case make_case(Product p, const gen::Shape &s, DType t) {
  const gen::LayoutOptions in{.allow_zero_strides = true};
  Case c;
  c.op = "SeluBackward";
  c.product = p;
  c.tensors.emplace_back("gradOutput", *gen::tensor(s, t, dy_values(t), in));
  c.tensors.emplace_back("result", *gen::tensor(s, t, y_values(t), in));
  c.tensors.emplace_back("gradInput", *gen::output(s, t));
  return c;
}

rc::Gen<Case> gen_valid(Product p) {
  return rc::gen::exec([p] {
    const DType t = *rc::gen::elementOf(legal_dtypes(p));
    // SELU-RANK-1: rank 1..8 (rank 0 is invalid for this op). rc::gen::inRange scales with the
    // size, so rank 8 (ABI-RANK-1's upper end) gets its own share.
    const auto s = *rc::gen::weightedOneOf<gen::Shape>(
        {{7, gen::shape({1, 8, 512, true})}, {1, gen::shape({8, 8, 512, true})}});
    return make_case(p, s, t);
  });
}

// Replaces tensor `name` by one of shape s and dtype t (an input gets values, an output the
// canary).
void replace(Case &c, const std::string &name, const gen::Shape &s, DType t) {
  TensorArg &a = *c.tensor(name);
  if (!a.present) return;
  if (name == "gradInput")
    a = *gen::output(s, t);
  else if (aclnn_ref::is_floating(t) || t == DType::kInt8 || t == DType::kInt32)
    a = *gen::tensor(s, t, gen::value_bits(t));
  else
    a = *gen::tensor(s, t, rc::gen::inRange<uint64_t>(0, 2));  // 0/1: valid in every dtype
}

// A valid call broken in one way (sometimes two, so the check order is exercised).
rc::Gen<Case> gen_invalid(Product p) {
  return rc::gen::exec([p] {
    Case c = *gen_valid(p);
    const std::vector<std::string> names = {"gradOutput", "result", "gradInput"};
    const int breaks = *rc::gen::weightedElement<int>({{4, 1}, {1, 2}});
    for (int k = 0; k < breaks; ++k) {
      const int what =
          *rc::gen::element(0, 1, 2, 3, 4, 5, 6);  // uniform (inRange scales with size)
      const std::string name = *rc::gen::elementOf(names);
      const TensorArg &t = *c.tensor(name);
      switch (what) {
        case 0:  // SELU-NULL-1
          *c.tensor(name) = TensorArg::null();
          break;
        case 1:  // SELU-DTYPE-1: a dtype the op does not have
          replace(c, name, t.shape,
                  *rc::gen::element(DType::kUInt8, DType::kInt16, DType::kInt64, DType::kFloat64,
                                    DType::kBool));
          break;
        case 2: {  // SELU-DTYPE-1: BFLOAT16 on a product without it
          c.product = *rc::gen::element(Product::kAtlasTraining, Product::kAtlasInference);
          for (const auto &n : names)
            if (c.tensor(n)->present) replace(c, n, c.tensor(n)->shape, DType::kBFloat16);
          break;
        }
        case 3: {  // SELU-DTYPE-2: one tensor of another legal dtype
          if (!t.present) break;
          auto others = legal_dtypes(c.product);
          others.erase(std::remove(others.begin(), others.end(), t.dtype), others.end());
          replace(c, name, t.shape, *rc::gen::elementOf(others));
          break;
        }
        case 4: {  // SELU-SHAPE-1: no broadcasting, shapes must be equal
          if (!t.present) break;
          // Half of the time the same element count (a broadcastable or reshaped view is still
          // wrong): gen::misshaped.
          const gen::Shape s = *gen::misshaped(t.shape);
          replace(c, name, s, t.dtype);
          break;
        }
        default: {  // SELU-RANK-1: rank 0 or rank 9, on all three (so the shapes agree)
          const gen::Shape s =
              *rc::gen::element(gen::Shape{}, gen::Shape{1, 2, 1, 1, 1, 1, 1, 1, 2});
          for (const auto &n : names) replace(c, n, s, c.tensor(n)->dtype);
          break;
        }
      }
    }
    c.refresh_views();
    return c;
  });
}

// The clause that decided output element i, as the oracle tells it.
std::string value_clause(const Case &c, const std::string &, int64_t i) {
  return std::string(aclnn_ref::selu_backward_clauses(oracle_call(c)).at(i));
}

std::vector<std::string> reached(const Case &c) {
  std::vector<std::string> r = {"SELU-DTYPE-1", "SELU-DTYPE-2", "SELU-SHAPE-1",
                                "SELU-RANK-1",  "ABI-TENSOR-2", "VAL-EXACT-1"};
  const TensorArg *dy = c.tensor("gradOutput"), *y = c.tensor("result"),
                  *out = c.tensor("gradInput");
  if (!dy || !y || !out || !dy->present || !y->present || !out->present) return r;
  if (out->dtype == DType::kBFloat16)
    r.push_back("ABI-SOC-1");  // accepted where the product has it
  if (out->shape.size() == 8) r.push_back("ABI-RANK-1");
  if (out->numel() == 0) {
    r.push_back("SELU-EMPTY-1");
    r.push_back("ABI-EMPTY-1");
    return r;
  }
  for (const std::string_view clause : aclnn_ref::selu_backward_clauses(oracle_call(c)).distinct())
    r.emplace_back(clause);
  return r;
}

// The op's exact factor of dy for one element (see threshold_pairs).
long double factor(long double y) {
  return y >= 0 ? kLambda : y + kLambdaAlpha;
}

// VAL-OVERFLOW-1 at the range's limits: (result, gradOutput) pairs whose exact result is at a limit
// of the output's range (gen::range_limit_pairs), computed once per dtype.
const gen::RangeLimitPairs &threshold_pairs(DType t) {
  static const gen::RangeLimitTable table(factor);
  return table(t);
}

OpDescriptor make() {
  OpDescriptor d;
  d.name = "SeluBackward";
  d.abi_name = "aclnnSeluBackward";
  d.outputs = {"gradInput"};
  for (auto v : aclnn_ref::selu_backward_variants()) d.variants.emplace_back(v);
  d.available = two_phase_available(d.abi_name);
  d.phase_one = [](const AbiTable &a, const Case &, const std::vector<aclTensor *> &t, uint64_t *ws,
                   aclOpExecutor **ex) {
    return ACLNN_ABI_ENTRY(a, aclnnSeluBackwardGetWorkspaceSize)(t[0], t[1], t[2], ws, ex);
  };
  d.phase_two = [](const AbiTable &a, void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s) {
    return ACLNN_ABI_ENTRY(a, aclnnSeluBackward)(w, n, ex, s);
  };
  d.check = [](const Case &c, const aclnn_ref::VariantSet &v) {
    return aclnn_ref::selu_backward_check(oracle_call(c), v);
  };
  d.values = [](const Case &c, const aclnn_ref::VariantSet &v) {
    return aclnn_ref::selu_backward_values(oracle_call(c), v);
  };
  d.header = "aclnnop/aclnn_selu_backward.h";
  d.phase_two_name = "aclnnSeluBackward";
  d.repro_phase_one = [](const Case &, const std::vector<std::string> &t) {
    return "ret = aclnnSeluBackwardGetWorkspaceSize(" + t[0] + ", " + t[1] + ", " + t[2] +
           ", &workspaceSize, &executor);\n";
  };
  d.reached = reached;
  d.value_clause = value_clause;
  // ABI-INPUT-1: elementwise, so in-place use is legal and generated.
  d.gen_valid = [](Product p) {
    return gen::sometimes_in_place(
        gen::sometimes_at_range_limits(gen_valid(p), "gradInput", "result", "gradOutput",
                                       threshold_pairs),
        "gradInput", {"gradOutput", "result"});
  };
  d.gen_invalid = gen_invalid;
  d.gen_large = [](Product p) {
    return gen::sometimes_in_place(gen::enlarged(gen_valid(p), "gradInput", 32768, 262144),
                                   "gradInput", {"gradOutput", "result"});
  };
  d.catalogue_op = d.name;
  d.edge_cases = selu_backward_edge_cases;
  d.clauses = clauses_from_catalogue(d);
  d.error_axis_input = "result";
  d.range_limits = {factor, {"gradOutput", "result", "gradInput"}, "result", "gradOutput", {}};
  return d;
}

}  // namespace

const OpDescriptor &selu_backward_op() {
  static const OpDescriptor d = make();
  return d;
}

}  // namespace aclnn_conform
