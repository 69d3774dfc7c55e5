// aclnnGroupedBiasAddGrad and aclnnGroupedBiasAddGradV2 in the framework: generators, the ABI
// calls, the oracle and clause attribution. Clauses: GBAG-NULL-1, GBAG-DTYPE-1, GBAG-RANK-1,
// GBAG-GMAX-1, GBAG-SHAPE-1, GBAG-TYPE-1 (V2), GBAG-IDX-1, GBAG-VALUE-1..3, GBAG-EMPTY-1,
// GBAG-SPECIAL-1 (and the shared ABI-SOC-1, ABI-TENSOR-2, ABI-EMPTY-1, VAL-EXACT-1).
//
// Two descriptors, "GroupedBiasAddGrad" (V1) and "GroupedBiasAddGradV2", sharing everything but
// the entry points: a descriptor's phase_two does not see the case, so a single descriptor could
// not pair V1's executor with V1's second call and V2's with V2's; two descriptors also give each
// entry point its own verdicts (a SUT may get V1 right and V2 wrong). A case carries the tensors
// "gradY", "groupIdxOptional" (NULL = absent), "out" and, for V2, the int attribute
// "groupIdxType".
#include "reference/grouped_bias_add_grad.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "properties/gen.hpp"
#include "properties/op.hpp"
#include "properties/shape_math.hpp"

namespace aclnn_conform {

// The op's edge-case table (edge_cases/grouped_bias_add_grad.cpp).
std::vector<EdgeCase> grouped_bias_add_grad_edge_cases();

// Shared with the tests and edge cases through these two helpers (declared where used).
std::vector<int64_t> gbag_index_values(const TensorArg &t);
void gbag_set_index_values(TensorArg &t, const std::vector<int64_t> &values);

namespace {

using aclnn_ref::DType;
constexpr auto F32 = DType::kFloat32, F16 = DType::kFloat16, BF16 = DType::kBFloat16;
constexpr auto I32 = DType::kInt32, I64 = DType::kInt64;
constexpr const char *kV1 = "GroupedBiasAddGrad";
constexpr const char *kV2 = "GroupedBiasAddGradV2";
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

bool is_v2(const Case &c) {
  return c.op == kV2;
}
int64_t idx_type(const Case &c) {
  const AttrValue *a = c.attr("groupIdxType");
  const int64_t *v = a ? std::get_if<int64_t>(a) : nullptr;
  return v ? *v : 0;
}

aclnn_ref::GroupedBiasAddGradCall oracle_call(const Case &c) {
  return {c.view("gradY"), c.view("groupIdxOptional"), c.view("out"), idx_type(c), is_v2(c),
          c.product};
}

double value_of(uint64_t bits, DType t) {
  return aclnn_ref::decode(&bits, t);
}

const gen::LayoutOptions kIn{.allow_zero_strides = true};

// A rank-1 index tensor holding values (strided/offset view, never expanded).
TensorArg idx_tensor(const std::vector<int64_t> &values, DType t) {
  TensorArg a = *gen::layout({static_cast<int64_t>(values.size())}, t);
  gbag_set_index_values(a, values);
  return a;
}

// gradY's values: ordinary, cancelling (row pairs v, -v within ulps), or with specials.
rc::Gen<uint64_t> ordinary(DType t) {
  return rc::gen::weightedOneOf<uint64_t>(
      {{8, gen::finite_bits(t, 0x1p-6, 64.0)}, {1, rc::gen::just(gen::bits_of(0.0, t))}});
}
void fill_grad(TensorArg &y, int64_t h) {
  const int64_t n = y.numel();
  if (n == 0) return;
  const int mode = *rc::gen::weightedElement<int>({{5, 0}, {2, 1}, {2, 2}});
  const auto v = *rc::gen::container<std::vector<uint64_t>>(
      static_cast<size_t>(n), mode == 2 ? gen::value_bits(y.dtype) : ordinary(y.dtype));
  for (int64_t i = 0; i < n; ++i) y.set_bits_at(i, v[static_cast<size_t>(i)]);
  if (mode == 1 && h > 0) {
    // Odd rows cancel the row above within a few ulps: the sums lose most of their bits.
    const auto u =
        *rc::gen::container<std::vector<int>>(static_cast<size_t>(n), rc::gen::inRange(-2, 3));
    for (int64_t i = h; i < n; ++i)
      if ((i / h) % 2 == 1) {
        const double above = value_of(y.bits_at(i - h), y.dtype);
        y.set_bits_at(
            i, gen::step_ulps(gen::bits_of(-above, y.dtype), y.dtype, u[static_cast<size_t>(i)]));
      }
  }
}

// A float dtype the product has (BFLOAT16 on A2 and A3 only).
rc::Gen<DType> gen_float_dtype(Product p) {
  std::vector<DType> floats = {F32, F16};
  if (aclnn_ref::product_has_bf16(p)) floats.push_back(BF16);
  return rc::gen::elementOf(floats);
}

rc::Gen<Case> gen_valid_for(bool v2, Product p) {
  return rc::gen::exec([v2, p] {
    const DType t = *gen_float_dtype(p);
    const int64_t type = v2 ? *gen::pick(2) : 0;
    Case c;
    c.op = v2 ? kV2 : kV1;
    c.product = p;
    const bool with_idx = *rc::gen::weightedElement<bool>({{3, true}, {1, false}});
    // One case in four has sizes of the classes a kernel's loops tell apart: H of a
    // kernel_size() class (vectors of 8..64 columns), and with groupIdx, group sizes of one
    // (fp16/bf16 rows are summed in trees of eight: remainders modulo 8..64, odd, prime).
    const bool kernel_sizes = *gen::sometimes(4);
    if (with_idx) {
      const int64_t g = *rc::gen::weightedOneOf<int64_t>({{10, rc::gen::inRange<int64_t>(1, 65)},
                                                          {1, rc::gen::just<int64_t>(0)},
                                                          {1, rc::gen::just<int64_t>(2048)}});
      int64_t h = g == 2048
                      ? *rc::gen::inRange<int64_t>(0, 3)
                      : *rc::gen::weightedOneOf<int64_t>({{6, rc::gen::inRange<int64_t>(1, 17)},
                                                          {2, rc::gen::inRange<int64_t>(17, 65)},
                                                          {1, rc::gen::just<int64_t>(0)}});
      if (kernel_sizes && g > 0 && g < 2048) h = *gen::kernel_size(1, 256);
      const int64_t cap = 4096 / std::max<int64_t>(h, 1);
      int64_t rows =
          g == 0 ? 0
                 : *rc::gen::weightedOneOf<int64_t>({{6, rc::gen::inRange<int64_t>(0, 65)},
                                                     {2, rc::gen::inRange<int64_t>(0, cap + 1)}});
      rows = std::min(rows, cap);
      // Group ends: G-1 sorted cut points in [0, rows] (duplicates are empty groups), then rows;
      // or group sizes of kernel_size() classes while they fit in the cap.
      std::vector<int64_t> cuts;
      if (kernel_sizes && g > 0 && g < 2048) {
        int64_t end = 0;
        for (int64_t j = 0; j < g; ++j) {
          const int64_t room = cap - end;
          const int64_t n = room > 0 && *rc::gen::weightedElement<bool>({{4, true}, {1, false}})
                                ? *gen::kernel_size(0, std::min<int64_t>(room, 200))
                                : 0;
          end += n;
          cuts.push_back(end);
        }
        rows = cuts.back();
      } else {
        cuts = *rc::gen::container<std::vector<int64_t>>(
            static_cast<size_t>(std::max<int64_t>(g - 1, 0)),
            rc::gen::inRange<int64_t>(0, rows + 1));
        std::sort(cuts.begin(), cuts.end());
        if (g > 0) cuts.push_back(rows);
      }
      std::vector<int64_t> values = cuts;
      if (type == 1)
        for (size_t i = values.size(); i-- > 1;) values[i] -= values[i - 1];
      c.tensors.emplace_back("gradY", *gen::layout({rows, h}, t, kIn));
      fill_grad(c.tensors.back().second, h);
      c.tensors.emplace_back("groupIdxOptional", idx_tensor(values, *rc::gen::element(I32, I64)));
      c.tensors.emplace_back("out", *gen::output({g, h}, t));
    } else {
      const int64_t g = *rc::gen::weightedOneOf<int64_t>(
          {{8, rc::gen::inRange<int64_t>(1, 17)}, {1, rc::gen::just<int64_t>(0)}});
      const int64_t ch = *rc::gen::weightedOneOf<int64_t>(
          {{8, rc::gen::inRange<int64_t>(1, 65)}, {1, rc::gen::just<int64_t>(0)}});
      int64_t h = *rc::gen::weightedOneOf<int64_t>(
          {{8, rc::gen::inRange<int64_t>(1, 33)}, {1, rc::gen::just<int64_t>(0)}});
      int64_t chs = ch;
      if (kernel_sizes) {  // C (the rows summed) and H of kernel_size() classes
        chs = *gen::kernel_size(1, std::max<int64_t>(1, 4096 / std::max<int64_t>(g, 1)));
        h = *gen::kernel_size(1, std::max<int64_t>(1, 4096 / (std::max<int64_t>(g, 1) * chs)));
      }
      while (g * chs * h > 4096) h = std::max<int64_t>(1, h / 2);
      c.tensors.emplace_back("gradY", *gen::layout({g, chs, h}, t, kIn));
      fill_grad(c.tensors.back().second, h);
      c.tensors.emplace_back("groupIdxOptional", TensorArg::null());
      c.tensors.emplace_back("out", *gen::output({g, h}, t));
    }
    if (v2) c.attrs.emplace_back("groupIdxType", type);
    return c;
  });
}

// Large valid calls: about 2^16..2^20 gradY elements in one to four groups (with groupIdx) or one
// to three (3-D gradY), for the threaded paths and for the partial sums a kernel may keep in a
// workspace when a group has many rows. H of the usual widths or a kernel_size() class; the total
// anywhere, or either side of the thread split (kThreadSplit elements); with groupIdx, group ends
// at random rows, or groups of whole blocks of the built-in library's block rows
// (max(64, 2^18 / min(H, 2048))) give or take a row.
rc::Gen<Case> gen_large_for(bool v2, Product p) {
  return rc::gen::exec([v2, p] {
    const DType t = *gen_float_dtype(p);
    const int64_t type = v2 ? *gen::pick(2) : 0;
    Case c;
    c.op = v2 ? kV2 : kV1;
    c.product = p;
    const int64_t h = *rc::gen::weightedOneOf<int64_t>(
        {{3, rc::gen::element<int64_t>(1, 3, 16, 100, 512, 513, 1000, 2048)},
         {1, gen::kernel_size(1, 2048, {512})}});
    const int64_t total = *rc::gen::weightedElement<bool>({{3, true}, {1, false}})
                              ? *rc::gen::inRange<int64_t>(int64_t{1} << 16, (int64_t{1} << 20) + 1)
                              : (gen::kThreadSplit / h + (*rc::gen::arbitrary<bool>() ? 1 : 0)) * h;
    const auto bits =
        *rc::gen::weightedElement<int>({{3, 0}, {1, 1}}) == 0 ? ordinary(t) : gen::value_bits(t);
    if (*rc::gen::weightedElement<bool>({{3, true}, {1, false}})) {
      const int64_t g = *rc::gen::inRange<int64_t>(1, 5);
      int64_t rows = std::max<int64_t>(total / h, 1);
      std::vector<int64_t> cuts;
      if (*rc::gen::weightedElement<bool>({{2, true}, {1, false}})) {
        cuts = *rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(g - 1),
                                                         rc::gen::inRange<int64_t>(0, rows + 1));
        std::sort(cuts.begin(), cuts.end());
        cuts.push_back(rows);
      } else {
        const int64_t block =
            std::max<int64_t>(64, (int64_t{1} << 18) / std::min<int64_t>(h, 2048));
        int64_t end = 0;
        for (int64_t j = 0; j < g; ++j) {
          end += std::max<int64_t>(
              0, *rc::gen::inRange<int64_t>(0, 3) * block + *rc::gen::element<int64_t>(-1, 0, 1));
          cuts.push_back(end);
        }
        rows = end;
      }
      std::vector<int64_t> values = cuts;
      if (type == 1)
        for (size_t i = values.size(); i-- > 1;) values[i] -= values[i - 1];
      c.tensors.emplace_back("gradY", *gen::fill_view_large(*gen::layout({rows, h}, t, kIn), bits));
      c.tensors.emplace_back("groupIdxOptional", idx_tensor(values, *rc::gen::element(I32, I64)));
      c.tensors.emplace_back("out", *gen::output({g, h}, t));
    } else {
      const int64_t g = *rc::gen::inRange<int64_t>(1, 4);
      const int64_t ch = std::max<int64_t>(total / (g * h), 1);
      c.tensors.emplace_back("gradY",
                             *gen::fill_view_large(*gen::layout({g, ch, h}, t, kIn), bits));
      c.tensors.emplace_back("groupIdxOptional", TensorArg::null());
      c.tensors.emplace_back("out", *gen::output({g, h}, t));
    }
    if (v2) c.attrs.emplace_back("groupIdxType", type);
    return c;
  });
}

// A valid call broken in one way (sometimes two, so the check order is exercised).
rc::Gen<Case> gen_invalid_for(bool v2, Product p) {
  return rc::gen::exec([v2, p] {
    Case c = *gen_valid_for(v2, p);
    const int breaks = *rc::gen::weightedElement<int>({{4, 1}, {1, 2}});
    for (int b = 0; b < breaks; ++b) {
      TensorArg &y = *c.tensor("gradY");
      TensorArg &idx = *c.tensor("groupIdxOptional");
      TensorArg &out = *c.tensor("out");
      const int64_t type = is_v2(c) ? idx_type(c) : 0;
      switch (*rc::gen::weightedElement<int>(
          {{2, 0}, {3, 1}, {3, 2}, {1, 3}, {2, 4}, {v2 ? 2u : 0u, 5}, {5, 6}, {1, 7}})) {
        case 0:  // GBAG-NULL-1
          (*rc::gen::arbitrary<bool>() ? y : out) = TensorArg::null();
          break;
        case 1: {  // GBAG-DTYPE-1
          const int what = *gen::pick(3);
          if (what == 0 && y.present)
            y = *gen::tensor(y.shape, *rc::gen::element(DType::kFloat64, I32, DType::kInt8),
                             gen::value_bits(DType::kInt8));
          else if (what == 1 && out.present && y.present)
            out = *gen::output(out.shape,
                               *rc::gen::element(y.dtype == F32 ? F16 : F32, DType::kFloat64, I32));
          else if (what == 2 && idx.present)
            idx = *gen::tensor(idx.shape,
                               *rc::gen::element(F32, DType::kInt16, DType::kInt8, DType::kUInt32),
                               gen::value_bits(DType::kInt8));
          break;
        }
        case 2: {  // GBAG-RANK-1
          const int what = *gen::pick(3);
          if (what == 0 && y.present) {  // rank 3 with groupIdx, 2 (or 4) without
            gen::Shape s = y.shape;
            if (idx.present || *rc::gen::arbitrary<bool>())
              s.insert(s.begin(), 1);
            else
              s.erase(s.begin());
            y = *gen::tensor(s, y.dtype, gen::value_bits(y.dtype));
          } else if (what == 1 && idx.present) {  // groupIdx [G, 1]
            const auto v = gbag_index_values(idx);
            TensorArg t = TensorArg::contiguous(idx.dtype, {idx.numel(), 1});
            gbag_set_index_values(t, v);
            idx = t;
          } else if (out.present) {  // out rank 1 or 3
            gen::Shape s = out.shape;
            if (*rc::gen::arbitrary<bool>())
              s.push_back(1);
            else
              s = {shape_numel(s)};
            out = *gen::output(s, out.dtype);
          }
          break;
        }
        case 3:  // GBAG-GMAX-1: 2049 groups (otherwise valid: one row, the rest empty)
          if (y.present && y.shape.size() == 2) {
            y = *gen::tensor({1, y.shape[1]}, y.dtype, gen::value_bits(y.dtype));
            std::vector<int64_t> v(2049, 1);
            if (type == 1) std::fill(v.begin(), v.end() - 1, 0);
            idx = idx_tensor(v, idx.present ? idx.dtype : I64);
            if (out.present) out = *gen::output({2049, y.shape[1]}, out.dtype);
          }
          break;
        case 4:  // GBAG-SHAPE-1 (half of the time [H, G] for [G, H], a same-count shape)
          if (out.present && out.shape.size() == 2) {
            gen::Shape s = out.shape;
            if (s[0] != s[1] && *rc::gen::arbitrary<bool>())
              std::swap(s[0], s[1]);
            else
              s[static_cast<size_t>(*gen::pick(2))] += 1 + *gen::pick(2);
            out = *gen::output(s, out.dtype);
          }
          break;
        case 5:  // GBAG-TYPE-1 (V2)
          if (is_v2(c))
            c.attrs[0].second =
                *rc::gen::element<int64_t>(-1, 2, 3, 100, std::numeric_limits<int64_t>::min(),
                                           std::numeric_limits<int64_t>::max());
          break;
        case 6: {  // GBAG-IDX-1 violations (a caller precondition: the judge only checks memory)
          if (!idx.present || idx.numel() == 0 || !y.present || y.shape.empty()) break;
          auto v = gbag_index_values(idx);
          const size_t g = v.size();
          const size_t j = static_cast<size_t>(*gen::pick(static_cast<int>(g)));
          DType dt = idx.dtype;
          switch (*gen::pick(4)) {
            case 0:  // decreasing (type 0), or a sum past dim0 (type 1)
              if (g >= 2 && j + 1 < g)
                v[j] = v[j + 1] + *rc::gen::inRange<int64_t>(1, 4);
              else
                v[j] += 1;
              break;
            case 1:  // negative
              v[j] = -*rc::gen::inRange<int64_t>(1, 1 << 20);
              break;
            case 2:  // beyond INT32_MAX (needs INT64)
              dt = I64;
              v[j] = kInt32Max + *rc::gen::inRange<int64_t>(1, 1 << 20);
              break;
            default:  // the last offset (type 0) or the sum (type 1) != dim0
              v.back() += *rc::gen::element<int64_t>(-1, 1, 2);
              break;
          }
          idx = idx_tensor(v, dt);
          break;
        }
        default:  // ABI-SOC-1: the op does not exist on training/inference products
          c.product = *rc::gen::element(Product::kAtlasTraining, Product::kAtlasInference);
          break;
      }
    }
    c.refresh_views();
    return c;
  });
}

// The clause that decided element i of out, as the oracle tells it; an out that must not be
// written (i < 0) is GBAG-EMPTY-1's.
std::string value_clause(const Case &c, const std::string &, int64_t i) {
  if (i < 0) return "GBAG-EMPTY-1";
  return std::string(aclnn_ref::grouped_bias_add_grad_clauses(oracle_call(c)).at(i));
}

std::vector<std::string> reached(const Case &c) {
  std::vector<std::string> r = {"GBAG-NULL-1",  "GBAG-DTYPE-1", "GBAG-RANK-1",  "GBAG-SHAPE-1",
                                "GBAG-VALUE-3", "ABI-SOC-1",    "ABI-TENSOR-2", "VAL-EXACT-1"};
  const TensorArg *y = c.tensor("gradY"), *idx = c.tensor("groupIdxOptional"),
                  *out = c.tensor("out");
  if (is_v2(c)) r.push_back("GBAG-TYPE-1");
  if (!y || !y->present || !out || !out->present) return r;
  const bool grouped = idx && idx->present;
  if (grouped) {
    r.push_back("GBAG-GMAX-1");
    r.push_back("GBAG-IDX-1");
  }
  if (y->numel() == 0) r.push_back("ABI-EMPTY-1");
  if (out->numel() == 0) {
    if (y->numel() != 0) r.push_back("ABI-EMPTY-1");
    return r;
  }
  const auto decided = aclnn_ref::grouped_bias_add_grad_clauses(oracle_call(c)).distinct();
  const auto has = [&](std::string_view id) {
    return std::find(decided.begin(), decided.end(), id) != decided.end();
  };
  const std::string_view value = grouped ? "GBAG-VALUE-1" : "GBAG-VALUE-2";
  // A group with a non-finite term still sums its rows: its value clause is reached too.
  if (has(value) || has("GBAG-SPECIAL-1")) r.emplace_back(value);
  if (has("GBAG-EMPTY-1")) r.emplace_back("GBAG-EMPTY-1");
  if (has("GBAG-SPECIAL-1")) r.emplace_back("GBAG-SPECIAL-1");
  return r;
}

OpDescriptor make(bool v2) {
  OpDescriptor d;
  d.name = v2 ? kV2 : kV1;
  d.abi_name = v2 ? "aclnnGroupedBiasAddGradV2" : "aclnnGroupedBiasAddGrad";
  d.outputs = {"out"};
  d.available = two_phase_available(d.abi_name);
  for (auto v : aclnn_ref::grouped_bias_add_grad_variants()) d.variants.emplace_back(v);
  if (v2) {
    d.phase_one = [](const AbiTable &a, const Case &c, const std::vector<aclTensor *> &t,
                     uint64_t *ws, aclOpExecutor **ex) {
      return ACLNN_ABI_ENTRY(a, aclnnGroupedBiasAddGradV2GetWorkspaceSize)(t[0], t[1], idx_type(c),
                                                                           t[2], ws, ex);
    };
    d.phase_two = [](const AbiTable &a, void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s) {
      return ACLNN_ABI_ENTRY(a, aclnnGroupedBiasAddGradV2)(w, n, ex, s);
    };
  } else {
    d.phase_one = [](const AbiTable &a, const Case &, const std::vector<aclTensor *> &t,
                     uint64_t *ws, aclOpExecutor **ex) {
      return ACLNN_ABI_ENTRY(a, aclnnGroupedBiasAddGradGetWorkspaceSize)(t[0], t[1], t[2], ws, ex);
    };
    d.phase_two = [](const AbiTable &a, void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s) {
      return ACLNN_ABI_ENTRY(a, aclnnGroupedBiasAddGrad)(w, n, ex, s);
    };
  }
  d.check = [](const Case &c, const aclnn_ref::VariantSet &v) {
    return aclnn_ref::grouped_bias_add_grad_check(oracle_call(c), v);
  };
  d.values = [](const Case &c, const aclnn_ref::VariantSet &v) {
    return aclnn_ref::grouped_bias_add_grad_values(oracle_call(c), v);
  };
  d.header = "aclnnop/aclnn_grouped_bias_add_grad.h";
  d.phase_two_name = d.abi_name;
  d.repro_phase_one = [v2](const Case &c, const std::vector<std::string> &t) {
    if (v2) {
      const int64_t type = idx_type(c);
      const std::string lit =
          type == std::numeric_limits<int64_t>::min() ? "INT64_MIN" : std::to_string(type) + "LL";
      return "ret = aclnnGroupedBiasAddGradV2GetWorkspaceSize(" + t[0] + ", " + t[1] + ", " + lit +
             ", " + t[2] + ", &workspaceSize, &executor);\n";
    }
    return "ret = aclnnGroupedBiasAddGradGetWorkspaceSize(" + t[0] + ", " + t[1] + ", " + t[2] +
           ", &workspaceSize, &executor);\n";
  };
  d.reached = reached;
  d.value_clause = value_clause;
  d.gen_valid = [v2](Product p) { return gen_valid_for(v2, p); };
  d.gen_large = [v2](Product p) { return gen_large_for(v2, p); };
  d.gen_invalid = [v2](Product p) { return gen_invalid_for(v2, p); };
  d.catalogue_op = kV1;  // V1 and V2 share the catalogue's GBAG-* clauses
  if (!v2) d.clauses_of_other_variants = {"GBAG-TYPE-1"};  // groupIdxType exists in V2 only
  d.shared_clauses = {"ABI-SOC-1"};  // the product gate is part of the op's own error order
  d.caller_precondition_clauses = {"GBAG-IDX-1"};
  if (!v2) d.edge_cases = grouped_bias_add_grad_edge_cases;  // V1 and V2 rows
  d.clauses = clauses_from_catalogue(d);
  if (v2) d.docs_page_op = kV1;
  return d;
}

}  // namespace

std::vector<int64_t> gbag_index_values(const TensorArg &t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    const uint64_t b = t.bits_at(i);
    v[static_cast<size_t>(i)] = t.dtype == DType::kInt32
                                    ? static_cast<int64_t>(static_cast<int32_t>(b))
                                    : static_cast<int64_t>(b);
  }
  return v;
}

void gbag_set_index_values(TensorArg &t, const std::vector<int64_t> &values) {
  for (size_t i = 0; i < values.size(); ++i)
    t.set_bits_at(static_cast<int64_t>(i),
                  t.dtype == DType::kInt32 ? static_cast<uint64_t>(static_cast<uint32_t>(values[i]))
                                           : static_cast<uint64_t>(values[i]));
}

const OpDescriptor &grouped_bias_add_grad_op() {
  static const OpDescriptor d = make(false);
  return d;
}

const OpDescriptor &grouped_bias_add_grad_v2_op() {
  static const OpDescriptor d = make(true);
  return d;
}

}  // namespace aclnn_conform
