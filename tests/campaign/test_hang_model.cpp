// The adaptive hang threshold (campaign/hang_model.hpp): when it starts to adapt, what it allows
// for a case's size, that its rate is a high quantile and not the maximum, and that a worker's
// counters are counted once however often they are read.
#include <gtest/gtest.h>

#include <cmath>

#include "campaign/hang_model.hpp"

namespace {
using aclnn_conform::CallTrace;
using aclnn_conform::HangModel;
using aclnn_conform::kTimedMinBytes;

// A trace whose calls all took 2^bucket ns per KiB of case.
CallTrace calls_at(int bucket, long long n) {
  CallTrace t{};
  t.calls_by_rate[bucket] = n;
  return t;
}

TEST(HangModel, TheCaseTimeoutUntilEnoughCallsAreTimed) {
  HangModel m;
  m.observe(1, calls_at(4, HangModel::kMinCalls - 1));
  EXPECT_FALSE(m.ready());
  EXPECT_EQ(m.allowance(1 << 20, 30, false), 30);
  m.observe(2, calls_at(4, 1));
  EXPECT_TRUE(m.ready());
  EXPECT_LT(m.allowance(1 << 20, 30, false), 30);
}

TEST(HangModel, AllowsFiftyTimesThePredictionAboveTheFloorBelowTheCeiling) {
  HangModel m;
  m.observe(1, calls_at(10, 1000));  // below 2^11 ns per KiB: 2 ns per byte at most
  EXPECT_DOUBLE_EQ(m.usual_ns_per_byte(), 2.0);
  // Small cases are timed as kTimedMinBytes: 2 ns/B * 64 KiB * 50 = 6.6 ms, under the floor.
  EXPECT_DOUBLE_EQ(m.allowance(100, 30, false), HangModel::kFloorSeconds);
  EXPECT_DOUBLE_EQ(m.predicted_seconds(100), 2.0 * kTimedMinBytes * 1e-9);
  // 64 MiB: 2 ns/B predicts 0.134 s; 50 times that is 6.7 s, and 3 times more when confirming.
  const long long big = 64LL << 20;
  EXPECT_NEAR(m.allowance(big, 30, false), 50 * 2.0 * big * 1e-9, 1e-9);
  EXPECT_NEAR(m.allowance(big, 30, true), 3 * 50 * 2.0 * big * 1e-9, 1e-9);
  EXPECT_EQ(m.allowance(big, 5, true), 5);  // the case timeout is the ceiling
}

TEST(HangModel, OneStallInAThousandDoesNotSetTheRateTwoDo) {
  HangModel m;
  CallTrace t = calls_at(10, 999);
  t.calls_by_rate[30] = 1;  // one call a million times slower
  m.observe(1, t);
  EXPECT_DOUBLE_EQ(m.usual_ns_per_byte(), 2.0);
  t.calls_by_rate[30] = 2;
  m.observe(1, t);
  EXPECT_DOUBLE_EQ(m.usual_ns_per_byte(), std::ldexp(1.0, 31) / 1024);
}

TEST(HangModel, AWorkersCountersAreCountedOnce) {
  HangModel m;
  const CallTrace t = calls_at(3, 150);
  m.observe(1, t);
  m.observe(1, t);
  EXPECT_EQ(m.calls(), 150);
  m.observe(1, calls_at(3, 160));  // ten more calls on the same worker
  EXPECT_EQ(m.calls(), 160);
  m.observe(2, t);  // another worker's own calls
  EXPECT_EQ(m.calls(), 310);
}

// A trace whose worker completed n calls of kernels new to it, the slowest taking max_ms.
CallTrace new_kernel_calls(long long n, double max_ms) {
  CallTrace t{};
  t.new_kernel_calls = n;
  t.new_kernel_max_ns = static_cast<long long>(max_ms * 1e6);
  return t;
}

TEST(HangModel, ANewKernelGetsTheCaseTimeoutUntilEnoughNewKernelCallsCompleted) {
  HangModel m;
  m.observe(1, new_kernel_calls(HangModel::kMinNewKernelCalls - 1, 10));
  EXPECT_EQ(m.new_kernel_allowance(100, 30), 30);
  m.observe(2, new_kernel_calls(1, 10));
  EXPECT_EQ(m.new_kernel_calls(), HangModel::kMinNewKernelCalls);
  EXPECT_LT(m.new_kernel_allowance(100, 30), 30);
}

TEST(HangModel, ANewKernelIsAllowedTwentyTimesTheSlowestLoadAboveTheFloorBelowTheCeiling) {
  HangModel m;
  m.observe(1, new_kernel_calls(HangModel::kMinNewKernelCalls, 10));
  EXPECT_DOUBLE_EQ(m.new_kernel_allowance(100, 30), HangModel::kFloorSeconds);  // 0.2 s < 0.5 s
  m.observe(2, new_kernel_calls(4, 200));  // another worker's slower loads
  EXPECT_NEAR(m.slowest_new_kernel_seconds(), 0.2, 1e-12);
  EXPECT_NEAR(m.new_kernel_allowance(100, 30), 20 * 0.2, 1e-9);
  EXPECT_EQ(m.new_kernel_allowance(100, 3), 3);  // the case timeout is the ceiling
  // Once the rate model is ready, the case's own work is allowed on top (50 times its prediction).
  m.observe(3, calls_at(10, 1000));  // 2 ns per byte
  const long long big = 64LL << 20;
  EXPECT_NEAR(m.new_kernel_allowance(big, 30), 50 * 2.0 * big * 1e-9 + 20 * 0.2, 1e-9);
}

TEST(HangModel, NewKernelCallsAreCountedOnceAndTimedApart) {
  HangModel m;
  const CallTrace t = new_kernel_calls(10, 5);
  m.observe(1, t);
  m.observe(1, t);
  EXPECT_EQ(m.new_kernel_calls(), 10);
  m.observe(2, t);
  EXPECT_EQ(m.new_kernel_calls(), 20);
  // A slow load does not slow the rate of the other calls.
  EXPECT_EQ(m.calls(), 0);
  EXPECT_FALSE(m.ready());
}

}  // namespace
