#include "edge_cases/edge_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "properties/gen.hpp"
#include "properties/op.hpp"
#include "reference/compare.hpp"

namespace aclnn_conform {

TensorArg values_tensor(DType dtype, std::vector<int64_t> shape,
                        const std::vector<double> &values) {
  TensorArg t = TensorArg::contiguous(dtype, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.numel())
    throw std::logic_error("edge case: value count does not match the shape");
  for (int64_t i = 0; i < t.numel(); ++i)
    t.set_bits_at(i, gen::bits_of(values[static_cast<size_t>(i)], dtype));
  return t;
}

TensorArg output_tensor(DType dtype, std::vector<int64_t> shape) {
  TensorArg t = TensorArg::contiguous(dtype, std::move(shape));
  std::fill(t.storage.begin(), t.storage.end(), kCanary);
  return t;
}

TensorArg overlapping_output(DType dtype, std::vector<int64_t> shape) {
  std::vector<int64_t> row(shape.begin() + 1, shape.end());
  TensorArg t = output_tensor(dtype, row);
  t.shape = std::move(shape);
  t.strides.insert(t.strides.begin(), 0);
  return t;
}

std::vector<ClauseResult> edge_row_literals(const EdgeCase &row, const Outcome &o) {
  std::vector<ClauseResult> r;
  const auto add = [&](bool pass, std::string detail) {
    r.push_back({row.clause, pass, pass ? "" : "edge row '" + row.title + "': " + detail});
  };
  if (o.harness_error) return r;          // the judge reports the set-up failure
  if (row.caller_precondition) return r;  // any status is the SUT's right (the judge checks memory)
  add(o.status == row.expected_status,
      fmt::format("expected status {}, got {}{}", row.expected_status, o.status,
                  o.message.empty() ? "" : " (" + o.message + ")"));
  if (o.status != 0 || row.expected_status != 0) return r;
  if (row.expected_workspace >= 0)
    add(o.workspace_size == static_cast<uint64_t>(row.expected_workspace),
        fmt::format("phase one asked for a workspace of {} bytes, the row states {}",
                    o.workspace_size, row.expected_workspace));
  for (const auto &e : row.expected) {
    size_t i = 0;
    while (i < row.call.tensors.size() && row.call.tensors[i].first != e.output) ++i;
    if (i == row.call.tensors.size() || i >= o.storage_after.size()) continue;
    const TensorArg &t = row.call.tensors[i].second;
    if (!t.present || e.index < 0 || e.index >= t.numel() ||
        o.storage_after[i].size() != t.storage.size())
      continue;
    const aclnn_ref::TensorView got{t.dtype, t.shape, t.strides, t.offset,
                                    o.storage_after[i].data()};
    const double v = got.at(e.index);
    // A finite literal is a value of record: a SUT may be as far from it as VAL-TOL-1 lets an
    // elementwise result be (integers: exactly it). The oracle's judgement of the same row
    // measures that at the exact value; CTest holds the oracle to the literal exactly.
    const double bound = aclnn_ref::Tolerance::ulp().ulp_bound(t.dtype);
    bool pass;
    if (std::isnan(e.value)) {
      pass = std::isnan(v);
    } else if (std::isinf(e.value)) {
      pass = v == e.value;
    } else {
      const auto d = aclnn_ref::ulp_distance(gen::bits_of(e.value, t.dtype),
                                             gen::bits_of(v, t.dtype), t.dtype);
      pass = !d.class_mismatch && d.ulps <= bound;
    }
    add(pass,
        fmt::format(
            "{}[{}] = {:.9g}, the row states {:.9g}{}", e.output, e.index, v, e.value,
            std::isfinite(e.value) && bound > 0 ? fmt::format(" (within {} ulp)", bound) : ""));
  }
  return r;
}

std::vector<EdgeCase> range_limit_rows(const OpDescriptor &op) {
  const OpDescriptor::RangeLimits &r = op.range_limits;
  std::vector<EdgeCase> rows;
  if (!r.factor || op.outputs.empty()) return rows;
  for (const DType t : {DType::kFloat16, DType::kBFloat16, DType::kFloat32}) {
    // One x in 4: a few milliseconds per dtype (every process builds the rows), and still a
    // dozen or more pairs at each limit.
    const gen::RangeLimitPairs all = gen::range_limit_pairs(t, r.factor, 4);
    gen::BitsPairs pairs;
    // Of each list, the front (its closest pairs, within half an ulp of float: a double
    // rounding or a truncation shows there) and the back (the others, within half a spacing of
    // the limit: the results just below the smallest normal, which a flush to zero loses), each
    // pair with both signs of dy.
    for (const auto *list : {&all.overflow, &all.min_normal, &all.underflow}) {
      const auto n = static_cast<std::ptrdiff_t>(list->size());
      const std::ptrdiff_t front = std::min<std::ptrdiff_t>(n, 64);
      const std::ptrdiff_t back = std::min<std::ptrdiff_t>(n - front, 32);
      pairs.insert(pairs.end(), list->begin(), list->begin() + front);
      pairs.insert(pairs.end(), list->end() - back, list->end());
    }
    // Results deep in the subnormal range, about 16 times below the smallest normal (a flush to
    // zero loses them by many ulps, where one subnormal ulp is within every bound): the smallest
    // normal's pairs with dy / 16 rounded to the dtype.
    const size_t deep = std::min<size_t>(all.min_normal.size(), 64);
    for (size_t i = 0; i < deep; ++i) {
      const auto [xb, db] = all.min_normal[i];
      const uint64_t scaled = gen::bits_of(aclnn_ref::decode(&db, t) / 16, t);
      if (aclnn_ref::decode(&scaled, t) != 0) pairs.push_back({xb, scaled});
    }
    if (pairs.empty()) continue;
    const int64_t n = static_cast<int64_t>(pairs.size());
    Case c;
    c.op = op.name;
    c.product = Product::kAtlasA2;
    for (const auto &name : r.tensors)
      c.tensors.emplace_back(name, name == op.outputs[0]
                                       ? output_tensor(t, {n})
                                       : values_tensor(t, {n}, std::vector<double>(n, 1.0)));
    for (const auto &[name, value] : r.attrs) c.attrs.emplace_back(name, value);
    TensorArg *x = c.tensor(r.x), *dy = c.tensor(r.dy);
    if (!x || !dy) throw std::logic_error(op.name + ": range_limits names a missing tensor");
    for (int64_t i = 0; i < n; ++i) {
      x->set_bits_at(i, pairs[static_cast<size_t>(i)].first);
      dy->set_bits_at(i, pairs[static_cast<size_t>(i)].second);
    }
    c.refresh_views();
    rows.push_back({"VAL-OVERFLOW-1",
                    fmt::format("{}: {} ({}, {}) pairs whose exact result lies next to the "
                                "overflow threshold, the smallest normal or half the smallest "
                                "subnormal (the closest found first), with both signs, and "
                                "16 times below the smallest normal",
                                aclnn_ref::dtype_name(t), n, r.x, r.dy),
                    std::move(c),
                    0,
                    {}});
  }
  return rows;
}

std::vector<EdgeCase> all_edge_cases() {
  std::vector<EdgeCase> all;
  for (const OpDescriptor *op : registry()) {
    if (op->edge_cases != nullptr) {
      auto rows = op->edge_cases();
      all.insert(all.end(), rows.begin(), rows.end());
    }
    auto rows = range_limit_rows(*op);
    all.insert(all.end(), rows.begin(), rows.end());
    rows = layout_rows(*op);
    all.insert(all.end(), rows.begin(), rows.end());
  }
  return all;
}

}  // namespace aclnn_conform
