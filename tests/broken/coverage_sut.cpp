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

void classify(const View &v, bool input) {
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
  // Sizes and values: what generated cases vary and the fixed tables mostly do not.
  switch (v.dims.size()) {
    case 1:
      sink = sink + 31;
      break;
    case 2:
      sink = sink + 32;
      break;
    case 3:
      sink = sink + 33;
      break;
    case 4:
      sink = sink + 34;
      break;
    default:
      break;
  }
  const int64_t n = v.numel();
  if (n > 64) sink = sink + 40;
  if (n > 1024) sink = sink + 41;
  if (n > 16384) sink = sink + 42;
  if (n % 8 == 3) sink = sink + 43;
  // Rare sizes: the fixed tables' few sizes seldom meet them, generated sizes now and then.
  if (n % 97 == 13) sink = sink + 44;
  if (n % 89 == 5) sink = sink + 45;
  if (n % 83 == 7) sink = sink + 46;
  if (n % 79 == 11) sink = sink + 47;
  if (n % 73 == 17) sink = sink + 48;
  if (n % 71 == 19) sink = sink + 49;
  if (input && v.dtype == ACL_FLOAT && n > 0 && v.data) {  // an output holds no value yet
    const float x = static_cast<const float *>(v.data)[v.element(0)];
    if (x != x)
      sink = sink + 50;
    else if (x < -100)
      sink = sink + 51;
    else if (x > 100)
      sink = sink + 52;
    else if (x == 0)
      sink = sink + 53;
    // Narrow value windows: random inputs land in them now and then, the tables' constants not.
    if (x > 0.25f && x < 0.3f) sink = sink + 54;
    if (x > -3.1f && x < -3.0f) sink = sink + 55;
    if (x > 7.0f && x < 7.5f) sink = sink + 56;
    if (x > -0.01f && x < 0.01f && x != 0) sink = sink + 57;
  }
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
  for (const auto &v : c.in) classify(v, true);
  for (const auto &v : c.out) classify(v, false);
  return std::nullopt;
}
}  // namespace mutant

#ifdef ACLNN_COVERAGE_SUT_FAULT
// libaclnn_sancov_fault.so and libaclnn_plain_fault.so: the same library with a fault behind an
// input pattern that generation, rich in special values, seldom makes and a seed mutation of a
// finite seed does: an fp32 input of 64 or more elements holding exactly one infinity or NaN,
// beyond its first element. The first output element is then 12345.
namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->out.empty() || !c->out[0].present) return;
  bool pattern = false;
  for (const auto &v : c->in) {
    if (!v.present || v.dtype != ACL_FLOAT || !v.data || v.numel() < 64) continue;
    int64_t specials = 0, at = -1;
    for (int64_t i = 0; i < v.numel(); ++i)
      if (!std::isfinite(static_cast<const float *>(v.data)[v.element(i)])) ++specials, at = i;
    pattern = pattern || (specials == 1 && at >= 1);
  }
  const View &out = c->out[0];
  if (pattern && out.dtype == ACL_FLOAT && out.numel() > 0 && out.data)
    static_cast<float *>(out.data)[out.element(0)] = 12345.0f;
}
}  // namespace mutant
#endif
