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

std::vector<EdgeCase> all_edge_cases() {
  std::vector<EdgeCase> all;
  for (const OpDescriptor *op : registry()) {
    if (op->edge_cases == nullptr) continue;
    auto rows = op->edge_cases();
    all.insert(all.end(), rows.begin(), rows.end());
  }
  return all;
}

}  // namespace aclnn_conform
