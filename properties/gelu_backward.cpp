// aclnnGeluBackward in the framework: generators, the ABI call, the oracle and clause attribution.
// Clauses: GELU-NULL-1, GELU-DTYPE-1, GELU-DTYPE-2, GELU-RANK-1, GELU-BCAST-1, GELU-BCAST-2,
// GELU-EMPTY-1, GELU-VALUE-1, GELU-SPECIAL-1, GELU-SPECIAL-2 (and the shared ABI-PROMOTE-1,
// ABI-BCAST-1, ABI-RANK-1, ABI-TENSOR-2, ABI-EMPTY-1, ABI-SOC-1).
#include "reference/gelu_backward.hpp"

#include <algorithm>
#include <cmath>

#include "aclnnop/aclnn_gelu_backward.h"
#include "properties/gen.hpp"
#include "properties/op.hpp"
#include "properties/shape_math.hpp"
#include "reference/promotion.hpp"

namespace aclnn_conform {

// The op's edge-case table (edge_cases/gelu_backward.cpp).
std::vector<EdgeCase> gelu_backward_edge_cases();

namespace {

using aclnn_ref::DType;
constexpr double kGeluRoot = -0.75179152410535422;  // root of g, GELU-SPECIAL-2

aclnn_ref::GeluBackwardCall oracle_call(const Case &c) {
  return {c.view("gradOutput"), c.view("self"), c.view("gradInput"), c.product};
}

// Values of x that matter for g: the root, where g crosses zero; where g underflows or saturates.
const std::vector<double> kHotX = {kGeluRoot, 0.0, -1.0,  1.0,   -3.0,  3.0, -5.5,
                                   -8.0,      8.0, -10.0, -27.0, -38.0, 6.0};

// (gradOutput dtype, self dtype) pairs and the float type they promote to (ABI-PROMOTE-1).
rc::Gen<std::pair<DType, DType>> dtype_pair(Product p) {
  const bool bf16 = aclnn_ref::product_has_bf16(p);
  std::vector<DType> floats = {DType::kFloat32, DType::kFloat16};
  if (bf16) floats.push_back(DType::kBFloat16);
  return rc::gen::exec([floats, bf16] {
    const DType f = *rc::gen::elementOf(floats);
    switch (*rc::gen::weightedElement<int>({{6, 0}, {2, 1}, {1, 2}})) {
      case 0:
        return std::make_pair(f, f);
      case 1: {  // an integer or bool operand promotes to the float one
        const DType i = *rc::gen::element(DType::kInt32, DType::kInt8, DType::kUInt8, DType::kInt16,
                                          DType::kInt64, DType::kBool);
        return *rc::gen::arbitrary<bool>() ? std::make_pair(i, f) : std::make_pair(f, i);
      }
      default:  // fp16 with bf16 (or fp32) promotes to fp32
        if (!bf16) return std::make_pair(DType::kFloat16, DType::kFloat32);
        return *rc::gen::arbitrary<bool>() ? std::make_pair(DType::kFloat16, DType::kBFloat16)
                                           : std::make_pair(DType::kBFloat16, DType::kFloat16);
    }
  });
}

rc::Gen<uint64_t> values_for(DType t, bool is_x) {
  if (!aclnn_ref::is_floating(t))
    return rc::gen::map(gen::value_bits(DType::kInt32), [t](uint64_t b) {
      // Small integers of the operand's own type.
      const int32_t v = static_cast<int32_t>(b) % 100;
      switch (t) {
        case DType::kInt8:
          return static_cast<uint64_t>(static_cast<uint8_t>(static_cast<int8_t>(v)));
        case DType::kUInt8:
          return static_cast<uint64_t>(static_cast<uint8_t>(std::abs(v)));
        case DType::kBool:
          return static_cast<uint64_t>(v & 1);
        case DType::kInt16:
          return static_cast<uint64_t>(static_cast<uint16_t>(static_cast<int16_t>(v)));
        case DType::kInt64:
          return static_cast<uint64_t>(static_cast<int64_t>(v));
        default:
          return static_cast<uint64_t>(static_cast<uint32_t>(v));
      }
    });
  return gen::value_bits(t, is_x ? kHotX : std::vector<double>{1.0, -1.0, 0x1p-10});
}

rc::Gen<Case> gen_valid(Product p) {
  return rc::gen::exec([p] {
    const auto [dy_t, x_t] = *dtype_pair(p);
    const auto out_shape = *gen::shape({0, 8, 512, true});
    gen::Shape dy_shape = out_shape, x_shape = out_shape;
    if (*rc::gen::weightedElement<bool>({{2, false}, {1, true}}))
      std::tie(dy_shape, x_shape) = *gen::broadcast_pair(out_shape);
    const gen::LayoutOptions in{.allow_zero_strides = true};
    Case c;
    c.op = "GeluBackward";
    c.product = p;
    c.tensors.emplace_back("gradOutput", *gen::tensor(dy_shape, dy_t, values_for(dy_t, false), in));
    c.tensors.emplace_back("self", *gen::tensor(x_shape, x_t, values_for(x_t, true), in));
    c.tensors.emplace_back("gradInput",
                           *gen::output(out_shape, *aclnn_ref::promote_types(dy_t, x_t)));
    return c;
  });
}

// A valid call broken in one way (sometimes two, so the check order is exercised).
rc::Gen<Case> gen_invalid(Product p) {
  return rc::gen::exec([p] {
    Case c = *gen_valid(p);
    const int breaks = *rc::gen::weightedElement<int>({{4, 1}, {1, 2}});
    for (int k = 0; k < breaks; ++k) {
      // element, not inRange: inRange scales with rapidcheck's size and would favour break 0.
      const int what = *rc::gen::element(0, 1, 2, 3, 4, 5, 6);
      const std::string name = *rc::gen::element<std::string>("gradOutput", "self", "gradInput");
      TensorArg &t = *c.tensor(name);
      switch (what) {
        case 0:
          t = TensorArg::null();
          break;  // GELU-NULL-1
        case 1:   // GELU-DTYPE-1: no float promotion (ints only, double, uint16, bf16 off A2/A3)
          if (name != "gradInput" && t.present) {
            const DType bad =
                *rc::gen::element(DType::kFloat64, DType::kUInt16, DType::kInt32, DType::kBFloat16);
            t = *gen::tensor(t.shape, bad, gen::value_bits(DType::kInt8));
            if (bad == DType::kInt32) {  // make both operands integers
              TensorArg &other = *c.tensor(name == "self" ? "gradOutput" : "self");
              if (other.present)
                other = *gen::tensor(other.shape, DType::kInt32, gen::value_bits(DType::kInt8));
            }
          }
          break;
        case 2:  // GELU-DTYPE-2: gradInput of another dtype
          if (name == "gradInput" && t.present)
            t = *gen::output(t.shape, *rc::gen::element(DType::kFloat32, DType::kFloat16,
                                                        DType::kBFloat16, DType::kInt32));
          break;
        case 3:  // GELU-RANK-1: rank 9
          if (t.present) {
            gen::Shape s(9, 1);
            t = name == "gradInput" ? *gen::output(s, t.dtype)
                                    : *gen::tensor(s, t.dtype, gen::value_bits(t.dtype));
          }
          break;
        case 4:  // GELU-BCAST-1: an operand that does not broadcast
        case 5:  // GELU-BCAST-2: gradInput of another shape
          if (t.present) {
            // Half of the time a shape with the same element count (gen::misshaped): a check by
            // element count alone is not enough.
            const gen::Shape s = *gen::misshaped(t.shape);
            t = name == "gradInput" ? *gen::output(s, t.dtype)
                                    : *gen::tensor(s, t.dtype, gen::value_bits(t.dtype));
          }
          break;
        default:  // BF16 on a product without it (ABI-SOC-1 / GELU-DTYPE-1)
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
  return std::string(aclnn_ref::gelu_backward_clauses(oracle_call(c)).at(i));
}

std::vector<std::string> reached(const Case &c) {
  std::vector<std::string> r = {"GELU-DTYPE-1", "GELU-DTYPE-2", "GELU-RANK-1",  "GELU-BCAST-1",
                                "GELU-BCAST-2", "GELU-VALUE-1", "ABI-TENSOR-2", "VAL-EXACT-1"};
  const TensorArg *x = c.tensor("self"), *dy = c.tensor("gradOutput"), *out = c.tensor("gradInput");
  if (!x || !dy || !out || !x->present || !dy->present || !out->present) return r;
  if (x->dtype != dy->dtype) r.push_back("ABI-PROMOTE-1");
  if (x->shape != dy->shape) r.push_back("ABI-BCAST-1");
  if (out->shape.empty() || out->shape.size() == 8) r.push_back("ABI-RANK-1");
  if (out->numel() == 0) {
    r.push_back("GELU-EMPTY-1");
    r.push_back("ABI-EMPTY-1");
    return r;
  }
  const auto decided = aclnn_ref::gelu_backward_clauses(oracle_call(c)).distinct();
  for (const std::string_view special : {"GELU-SPECIAL-1", "GELU-SPECIAL-2"})
    if (std::find(decided.begin(), decided.end(), special) != decided.end())
      r.emplace_back(special);
  return r;
}

// The op's exact factor of dy for one element (see threshold_pairs).
long double factor(long double x) {
  const long double g =
      0.5L + 0.5L * std::erf(x / std::sqrt(2.0L)) +
      x / std::sqrt(2.0L * 3.14159265358979323846264338327950288L) * std::exp(-x * x / 2);
  return std::fabs(g) > 1e-3L ? g : NAN;  // not near the root (the factor is tiny there)
}

// VAL-OVERFLOW-1 at the range's limits: (self, gradOutput) pairs whose exact result is at a limit
// of the output's range (gen::range_limit_pairs), computed once per dtype.
const gen::RangeLimitPairs &threshold_pairs(DType t) {
  static const gen::RangeLimitTable table(factor);
  return table(t);
}

OpDescriptor make() {
  OpDescriptor d;
  d.name = "GeluBackward";
  d.abi_name = "aclnnGeluBackward";
  d.outputs = {"gradInput"};
  for (auto v : aclnn_ref::gelu_backward_variants()) d.variants.emplace_back(v);
  d.available = two_phase_available(d.abi_name);
  d.phase_one = [](const AbiTable &a, const Case &, const std::vector<aclTensor *> &t, uint64_t *ws,
                   aclOpExecutor **ex) {
    return ACLNN_ABI_ENTRY(a, aclnnGeluBackwardGetWorkspaceSize)(t[0], t[1], t[2], ws, ex);
  };
  d.phase_two = [](const AbiTable &a, void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s) {
    return ACLNN_ABI_ENTRY(a, aclnnGeluBackward)(w, n, ex, s);
  };
  d.check = [](const Case &c, const aclnn_ref::VariantSet &v) {
    return aclnn_ref::gelu_backward_check(oracle_call(c), v);
  };
  d.values = [](const Case &c, const aclnn_ref::VariantSet &v) {
    return aclnn_ref::gelu_backward_values(oracle_call(c), v);
  };
  d.header = "aclnnop/aclnn_gelu_backward.h";
  d.phase_two_name = "aclnnGeluBackward";
  d.repro_phase_one = [](const Case &, const std::vector<std::string> &t) {
    return "ret = aclnnGeluBackwardGetWorkspaceSize(" + t[0] + ", " + t[1] + ", " + t[2] +
           ", &workspaceSize, &executor);\n";
  };
  d.reached = reached;
  d.value_clause = value_clause;
  // ABI-INPUT-1: elementwise, so in-place use is legal and generated.
  d.gen_valid = [](Product p) {
    return gen::sometimes_in_place(gen::sometimes_at_range_limits(gen_valid(p), "gradInput", "self",
                                                                  "gradOutput", threshold_pairs),
                                   "gradInput", {"gradOutput", "self"});
  };
  d.gen_invalid = gen_invalid;
  d.gen_large = [](Product p) {
    return gen::sometimes_in_place(gen::enlarged(gen_valid(p), "gradInput", 32768, 262144),
                                   "gradInput", {"gradOutput", "self"});
  };
  d.catalogue_op = d.name;
  // Shared clauses that GELU's properties stand for in the registry-wide enforcement.
  d.shared_clause_enforcers = {{"ABI-EMPTY-1", "ValidCallsMatchTheOracle"},
                               {"ABI-RANK-1", "InvalidCallsAreRejectedInOrder"},
                               {"ABI-PROMOTE-1", "ValidCallsMatchTheOracle"},
                               {"ABI-BCAST-1", "BroadcastingEqualsMaterialising"},
                               {"ABI-SOC-1", "ValidCallsMatchTheOracle"}};
  d.edge_cases = gelu_backward_edge_cases;
  d.clauses = clauses_from_catalogue(d);
  d.error_axis_input = "self";
  d.range_limits = {factor, {"gradOutput", "self", "gradInput"}, "self", "gradOutput", {}};
  return d;
}

}  // namespace

const OpDescriptor &gelu_backward_op() {
  static const OpDescriptor d = make();
  return d;
}

}  // namespace aclnn_conform
