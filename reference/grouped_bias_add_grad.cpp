#include "reference/grouped_bias_add_grad.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "reference/exact_sum.hpp"

namespace aclnn_ref {
namespace {

constexpr int64_t kMaxGroups = 2048;  // GBAG-GMAX-1
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

bool is_grad_dtype(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16;
}

std::string shape_str(const std::vector<int64_t> &s) {
  return fmt::format("[{}]", fmt::join(s, ","));
}

Verdict fail(int32_t st, const char *clause, std::string reason) {
  return Verdict{st, clause, std::move(reason)};
}

// groupIdx[i], read exactly from its raw INT32/INT64 storage.
int64_t index_value(const TensorView &v, int64_t i) {
  const int64_t pos = v.offset + i * (v.strides.empty() ? 1 : v.strides[0]);
  if (v.dtype == DType::kInt32) {
    int32_t x;
    std::memcpy(&x, v.data + pos * 4, 4);
    return x;
  }
  int64_t x;
  std::memcpy(&x, v.data + pos * 8, 8);
  return x;
}

// End offsets of the groups (type 0: the values; type 1: their prefix sums), after GBAG-IDX-1.
std::vector<int64_t> group_ends(const TensorView &idx, int64_t type) {
  std::vector<int64_t> ends(static_cast<size_t>(idx.numel()));
  int64_t acc = 0;
  for (int64_t i = 0; i < idx.numel(); ++i) {
    const int64_t v = index_value(idx, i);
    acc = type == 0 ? v : acc + v;
    ends[static_cast<size_t>(i)] = acc;
  }
  return ends;
}

}  // namespace

std::vector<std::string_view> grouped_bias_add_grad_variants() {
  return {"empty-untouched"};
}

Verdict grouped_bias_add_grad_check(const GroupedBiasAddGradCall &c, const VariantSet &) {
  using namespace status;
  if (c.product != Product::kAtlasA2 && c.product != Product::kAtlasA3)
    return fail(kInvalid, "ABI-SOC-1", "GroupedBiasAddGrad exists on Atlas A2/A3 only");
  if (!c.grad_y) return fail(kNullptr, "GBAG-NULL-1", "gradY is NULL");
  if (!c.out) return fail(kNullptr, "GBAG-NULL-1", "out is NULL");
  const TensorView &y = *c.grad_y, &out = *c.out;
  if (!is_grad_dtype(y.dtype))
    return fail(kInvalid, "GBAG-DTYPE-1",
                fmt::format("gradY dtype {} not in fp32/fp16/bf16", dtype_name(y.dtype)));
  if (out.dtype != y.dtype)
    return fail(
        kInvalid, "GBAG-DTYPE-1",
        fmt::format("out dtype {} != gradY dtype {}", dtype_name(out.dtype), dtype_name(y.dtype)));
  if (c.group_idx && c.group_idx->dtype != DType::kInt32 && c.group_idx->dtype != DType::kInt64)
    return fail(kInvalid, "GBAG-DTYPE-1",
                fmt::format("groupIdx dtype {} not int32/int64", dtype_name(c.group_idx->dtype)));
  if (!c.group_idx && y.rank() != 3)
    return fail(kInvalid, "GBAG-RANK-1",
                fmt::format("gradY rank {} != 3 without groupIdx", y.rank()));
  if (c.group_idx && y.rank() != 2)
    return fail(kInvalid, "GBAG-RANK-1", fmt::format("gradY rank {} != 2 with groupIdx", y.rank()));
  if (c.group_idx && c.group_idx->rank() != 1)
    return fail(kInvalid, "GBAG-RANK-1", fmt::format("groupIdx rank {} != 1", c.group_idx->rank()));
  if (out.rank() != 2)
    return fail(kInvalid, "GBAG-RANK-1", fmt::format("out rank {} != 2", out.rank()));
  if (c.group_idx && c.group_idx->numel() > kMaxGroups)
    return fail(kInvalid, "GBAG-GMAX-1",
                fmt::format("groupIdx has {} > {} elements", c.group_idx->numel(), kMaxGroups));
  const int64_t g = c.group_idx ? c.group_idx->shape[0] : y.shape[0];
  const std::vector<int64_t> want{g, y.shape.back()};
  if (out.shape != want)
    return fail(kInvalid, "GBAG-SHAPE-1",
                fmt::format("out shape {} != {}", shape_str(out.shape), shape_str(want)));
  const int64_t type = c.v2 ? c.group_idx_type : 0;
  if (c.v2 && type != 0 && type != 1)
    return fail(kInvalid, "GBAG-TYPE-1", fmt::format("groupIdxType {} not 0 or 1", type));
  // GBAG-IDX-1: a caller precondition (see the header): the implementation answers 161002.
  if (c.group_idx && (c.group_idx->data || c.group_idx->numel() == 0)) {
    const TensorView &idx = *c.group_idx;
    const int64_t rows = y.shape[0];
    int64_t prev = 0, total = 0;
    for (int64_t i = 0; i < idx.numel(); ++i) {
      const int64_t v = index_value(idx, i);
      if (v < 0 || v > kInt32Max)
        return fail(kInvalid, "GBAG-IDX-1",
                    fmt::format("groupIdx[{}] = {} not in [0, INT32_MAX]", i, v));
      if (type == 0 && v < prev)
        return fail(kInvalid, "GBAG-IDX-1",
                    fmt::format("groupIdx[{}] = {} < groupIdx[{}] = {} (type 0 must be "
                                "non-decreasing)",
                                i, v, i - 1, prev));
      prev = v;
      total += v;
    }
    // With no groups the implied end offset is 0 for both types (groupIdx[-1] = 0).
    const int64_t end = type == 0 ? prev : total;
    if (end != rows)
      return fail(kInvalid, "GBAG-IDX-1",
                  fmt::format("groupIdx {} {} != gradY.dim0 {}", type == 0 ? "last value" : "sum",
                              end, rows));
  }
  // ABI-INPUT-1: the output view is one-to-one.
  if (const std::string why = self_overlap("out", *c.out); !why.empty())
    return fail(kInvalid, "ABI-INPUT-1", why);
  return Verdict{kSuccess, "GBAG-VALUE-1", ""};
}

DecidingClauses grouped_bias_add_grad_clauses(const GroupedBiasAddGradCall &c) {
  enum : uint8_t { kValue1, kValue2, kEmpty1, kSpecial1 };  // kGbagDecidingClauses
  const uint8_t plain = c.group_idx ? kValue1 : kValue2;
  DecidingClauses d{kGbagDecidingClauses, {}, plain};
  if (!c.grad_y || c.grad_y->shape.empty() || c.grad_y->shape.back() == 0) return d;
  const TensorView &y = *c.grad_y;
  const int64_t h = y.shape.back();
  // [begin, end) rows of each group: dim 0 with groupIdx, dim 1 of gradY[g] without.
  std::vector<std::pair<int64_t, int64_t>> rows;
  if (c.group_idx) {
    const bool sizes = c.v2 && c.group_idx_type == 1;
    int64_t prev = 0;
    for (int64_t i = 0; i < c.group_idx->numel(); ++i) {
      const int64_t v = index_value(*c.group_idx, i);
      const int64_t end = sizes ? prev + v : v;
      rows.emplace_back(prev, end);
      prev = end;
    }
  } else if (y.shape.size() == 3) {
    rows.assign(static_cast<size_t>(y.shape[0]), {0, y.shape[1]});
  }
  d.of_element.assign(rows.size() * static_cast<size_t>(h), plain);
  for (size_t g = 0; g < rows.size(); ++g) {
    const auto [begin, end] = rows[g];
    uint8_t *group = d.of_element.data() + g * static_cast<size_t>(h);
    if (begin >= end) {
      std::fill(group, group + h, static_cast<uint8_t>(kEmpty1));
      continue;
    }
    for (int64_t r = begin; r < end; ++r) {
      const int64_t row = c.group_idx ? r : static_cast<int64_t>(g) * y.shape[1] + r;
      for (int64_t col = 0; col < h; ++col)
        if (!std::isfinite(y.at(row * h + col))) group[col] = kSpecial1;
    }
  }
  return d;
}

std::vector<ExpectedOutput> grouped_bias_add_grad_values(const GroupedBiasAddGradCall &c,
                                                         const VariantSet &variants) {
  ExpectedOutput e;
  e.name = "out";
  if (c.out) e.values = HostTensor(c.out->dtype, c.out->shape);
  const Verdict v = grouped_bias_add_grad_check(c, variants);
  if (!v.ok()) {
    e.written = false;
    return {std::move(e)};
  }
  const TensorView &y = *c.grad_y;
  if (y.numel() == 0 && variants.has("empty-untouched")) {
    e.written = false;
    return {std::move(e)};
  }
  // The deciding clauses take a pass over gradY, far cheaper than the exact sums below.
  e.decided_by = grouped_bias_add_grad_clauses(c);
  const DType od = c.out->dtype;
  const int64_t groups = c.out->shape[0], h = c.out->shape[1];
  const size_t n = static_cast<size_t>(groups * h);
  e.error_scale.assign(n, 0.0);
  e.term_count.assign(n, 0);
  e.exact_nearest.assign(n, 0.0);

  // Rows of group g: [begin, end) of dim 0 (with groupIdx) or the C rows of gradY[g] (without).
  std::vector<int64_t> ends;
  if (c.group_idx) ends = group_ends(*c.group_idx, c.v2 ? c.group_idx_type : 0);
  const size_t esz = dtype_size(y.dtype);
  const auto element = [&](int64_t g, int64_t row, int64_t col) {
    int64_t pos = y.offset + col * y.strides.back();
    if (c.group_idx)
      pos += row * y.strides[0];
    else
      pos += g * y.strides[0] + row * y.strides[1];
    return decode(y.data + pos * static_cast<int64_t>(esz), y.dtype);
  };

  std::vector<exact::Accumulator> acc(static_cast<size_t>(h));
  for (int64_t g = 0; g < groups; ++g) {
    int64_t begin = 0, end = 0;
    if (c.group_idx) {
      begin = g == 0 ? 0 : ends[static_cast<size_t>(g - 1)];
      end = ends[static_cast<size_t>(g)];
    } else {
      end = y.shape[1];
    }
    for (auto &a : acc) a.reset();
    for (int64_t r = begin; r < end; ++r)
      for (int64_t col = 0; col < h; ++col) acc[static_cast<size_t>(col)].add(element(g, r, col));
    for (int64_t col = 0; col < h; ++col) {
      const exact::Accumulator &a = acc[static_cast<size_t>(col)];
      const size_t i = static_cast<size_t>(g * h + col);
      e.values.set_bits(static_cast<int64_t>(i), round_to_bits(a.value(), od));  // +0 if empty
      e.error_scale[i] = a.abs_sum_up();
      e.term_count[i] = a.count();
      e.exact_nearest[i] = mpfr_get_d(a.value(), MPFR_RNDN);
    }
  }
  return {std::move(e)};
}

}  // namespace aclnn_ref
