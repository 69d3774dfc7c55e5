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

}  // namespace
