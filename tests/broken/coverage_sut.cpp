// libaclnn_sancov_test.so: a conformant SUT compiled with SanitizerCoverage for the coverage
// guidance tests (campaign/coverage.hpp, tests/campaign/test_coverage.cpp). The shim forwards every
// call to the built-in library unchanged; only this file is instrumented
// (-fsanitize-coverage=inline-8bit-counters,pc-table, tests/CMakeLists.txt): its branches on what
// a call is (op, dtypes, ranks, NULL operands, attributes) give different cases different edges.
// The shim itself is not instrumented: its once-per-process paths (each entry point's lookup on
// first use) would be reached by whichever case a worker ran first.
#include "mutants/shim.hpp"

namespace mutant {
namespace {
volatile int sink = 0;  // the branches must stay in the object code

void classify(const View &v) {
  if (!v.present) {
    sink = sink + 1;
    return;
  }
  switch (v.dtype) {
    case ACL_FLOAT:
      sink = sink + 2;
      break;
    case ACL_FLOAT16:
      sink = sink + 3;
      break;
    case ACL_BF16:
      sink = sink + 4;
      break;
    case ACL_DOUBLE:
      sink = sink + 5;
      break;
    default:
      sink = sink + 6;
      break;
  }
  if (v.dims.empty())
    sink = sink + 7;
  else if (v.dims.size() >= 5)
    sink = sink + 8;
  if (v.numel() == 0) sink = sink + 9;
  if (!v.contiguous()) sink = sink + 10;
  if (v.offset != 0) sink = sink + 11;
}
}  // namespace

std::optional<aclnnStatus> before_phase_one(Call &c) {
  switch (c.op) {
    case Op::kGelu:
      sink = sink + 20;
      break;
    case Op::kSelu:
      sink = sink + 21;
      break;
    case Op::kLayerNorm:
      sink = sink + 22;
      if (c.mask.size() == 3 && !c.mask[0]) sink = sink + 23;
      break;
    case Op::kLogit:
      sink = sink + 24;
      if (c.eps < 0) sink = sink + 25;
      break;
    case Op::kGbag:
      sink = sink + 26;
      break;
    case Op::kGbagV2:
      sink = sink + 27;
      if (c.group_idx_type == 1) sink = sink + 28;
      break;
  }
  for (const auto &v : c.in) classify(v);
  for (const auto &v : c.out) classify(v);
  return std::nullopt;
}
}  // namespace mutant
