// The one harness for tests that run on every Highway target compiled into the library that this
// CPU can run (impl/simd.hpp's runnable_targets): a parameterised fixture that restricts dispatch
// to one target per test and restores it in TearDown, which GoogleTest runs even when an assertion
// failed; and scoped switches for a test that compares targets within one body.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "impl/simd.hpp"

namespace aclnn_test {

// The runnable targets, best first.
inline std::vector<int64_t> simd_targets() {
  return aclnn_cpu::simd::runnable_targets();
}

// "AVX3", "AVX2", "EMU128", ... as a test name.
inline std::string simd_target_name(const testing::TestParamInfo<int64_t> &info) {
  std::string s = aclnn_cpu::simd::target_name(info.param);
  for (char &c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// Restricts dispatch to `target` (one of simd_targets(); 0: the default) until the end of the
// scope, then restores the default.
class ScopedSimdTarget {
 public:
  explicit ScopedSimdTarget(int64_t target) { aclnn_cpu::simd::force_target(target); }
  ~ScopedSimdTarget() { aclnn_cpu::simd::force_target(0); }
  ScopedSimdTarget(const ScopedSimdTarget &) = delete;
  ScopedSimdTarget &operator=(const ScopedSimdTarget &) = delete;
};

// Whether the AVX-512 target may use AVX512_BF16's narrowing, for a scope; the previous setting
// is restored at its end.
class ScopedBf16Insn {
 public:
  explicit ScopedBf16Insn(bool allowed) : before_(aclnn_cpu::simd::bf16_insn_allowed()) {
    aclnn_cpu::simd::allow_bf16_insn(allowed);
  }
  ~ScopedBf16Insn() { aclnn_cpu::simd::allow_bf16_insn(before_); }
  ScopedBf16Insn(const ScopedBf16Insn &) = delete;
  ScopedBf16Insn &operator=(const ScopedBf16Insn &) = delete;

 private:
  bool before_;
};

// A test body run once per runnable target (TEST_P; instantiate the suite with
// ACLNN_INSTANTIATE_SIMD_TARGETS): dispatch uses GetParam()'s target during the test, the default
// again after it, whatever the test's outcome.
class SimdTargetTest : public testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { aclnn_cpu::simd::force_target(GetParam()); }
  void TearDown() override { aclnn_cpu::simd::force_target(0); }
};

}  // namespace aclnn_test

#define ACLNN_INSTANTIATE_SIMD_TARGETS(suite)                                             \
  INSTANTIATE_TEST_SUITE_P(Targets, suite, testing::ValuesIn(aclnn_test::simd_targets()), \
                           aclnn_test::simd_target_name)
