// Curated edge cases: one row per documented special case or error condition. Each row names its
// clause and states its expected result literally (status, and output values where the spec gives
// them), so a row checks the implementation and the oracle at once.
#pragma once

#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "properties/case.hpp"
#include "properties/judge.hpp"
#include "properties/runner.hpp"

namespace aclnn_conform {

struct ExpectedElement {
  std::string output;  // e.g. "gradInput"
  int64_t index;       // row-major flat index in the output
  double value;        // NaN matches any NaN; the sign of zero is not checked (VAL-ZERO-1)
};

struct EdgeCase {
  std::string clause;  // e.g. "GELU-SPECIAL-1"
  std::string title;   // what the row shows
  Case call;
  int32_t expected_status = 0;
  std::vector<ExpectedElement> expected = {};  // literal values of record (optional)
  // The workspace size phase one must return, where the clause states it (e.g. "empty tensors
  // succeed, workspace 0"); -1: the clause says nothing.
  int64_t expected_workspace = -1;
  // The row breaks a precondition the caller must guarantee (GBAG-IDX-1): expected_status is the
  // built-in library's answer, checked by CTest; on any other SUT only memory safety is (the
  // judge's part), never the status.
  bool caller_precondition = false;
};

// How a row prints (GoogleTest, rapidcheck): "GELU-SPECIAL-1: g(+inf) = 1, ...".
inline void PrintTo(const EdgeCase &row, std::ostream *os) {
  *os << row.clause << ": " << row.title;
}

// VAL-OVERFLOW-1 at the limits of each float output dtype, for an op with
// OpDescriptor::range_limits: per dtype one row whose (x, dy) pairs put the exact result within
// half an ulp of float of the overflow threshold, the smallest normal and half the smallest
// subnormal (gen::range_limit_pairs), where a result computed in float and rounded again, or
// truncated, or flushed to zero, lands on the wrong side. Judged by the oracle; no literals.
std::vector<EdgeCase> range_limit_rows(const OpDescriptor &op);

// ABI-TENSOR-2 for every tensor of the op, inputs and outputs alike: a small valid call of a fixed
// seed with one tensor in another legal view (an offset, doubled strides, a transposed order, a
// zero or a 2^31 + 5 stride on a dim of size 1, two interleaved dims), one row per tensor and view
// its shapes allow. Judged by the oracle (edge_cases/layout_rows.cpp); built once per process.
std::vector<EdgeCase> layout_rows(const OpDescriptor &op);

// All rows of all ops: each registry op's table (OpDescriptor::edge_cases), its
// range_limit_rows and its layout_rows, in registry order.
std::vector<EdgeCase> all_edge_cases();

// The row's own literal statements checked on an outcome of its call: the status (not for a
// caller_precondition row), the workspace size where stated, and each value of record it states
// (NaN matches any NaN; the sign of zero is not checked). One result per statement, under the
// row's clause. Used by CTest and by every campaign, on any SUT.
std::vector<ClauseResult> edge_row_literals(const EdgeCase &row, const Outcome &o);

// Builders for hand-written rows: contiguous tensors from values (rounded once to the dtype), an
// output filled with the canary, and a NULL argument.
TensorArg values_tensor(DType dtype, std::vector<int64_t> shape, const std::vector<double> &values);
TensorArg output_tensor(DType dtype, std::vector<int64_t> shape);
// An output of rank >= 2 whose first dim has stride 0: its rows are one row of storage, so two
// indices reach one element (ABI-INPUT-1: rejected with 161002).
TensorArg overlapping_output(DType dtype, std::vector<int64_t> shape);
inline constexpr double kInf = INFINITY;
inline const double kNaN = std::nan("");

}  // namespace aclnn_conform
