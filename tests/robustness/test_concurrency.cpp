// Concurrency: eight caller threads run all five ops at once, on shared read-only inputs and on
// private copies, and every result must equal the single-threaded run's bytes; error messages stay
// per thread. Run it under TSan with `cmake --preset tsan` (docs/robustness.md).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "tests/robustness/op_cases.hpp"

namespace aclnn_robust {
namespace {

constexpr int kThreads = 8;

TEST(Concurrency, EightThreadsRunAllOpsAndMatchSingleThreadedResults) {
  const std::vector<OpCase> cases = all_op_cases();
  std::vector<std::vector<Bytes>> expected;
  for (const auto &c : cases) {
    auto out = c.fresh_outputs();
    std::string error;
    ASSERT_EQ(c.run(c.inputs, out, error), 0) << c.name << ": " << error;
    expected.push_back(std::move(out));
  }
  std::vector<std::vector<Bytes>> inputs_before;
  for (const auto &c : cases) inputs_before.push_back(c.inputs);

  constexpr int kRounds = 2;
  std::vector<std::vector<std::string>> failures(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Even threads read the shared inputs; odd threads their own copies.
      std::vector<std::vector<Bytes>> own;
      if (t % 2 == 1)
        for (const auto &c : cases) own.push_back(c.inputs);
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();  // start together
      for (int round = 0; round < kRounds; ++round) {
        for (size_t i = 0; i < cases.size(); ++i) {
          const size_t k = (i + t) % cases.size();  // every thread in a different op order
          auto out = cases[k].fresh_outputs();
          std::string error;
          const int st = cases[k].run(t % 2 ? own[k] : cases[k].inputs, out, error);
          if (st != 0)
            failures[t].push_back(cases[k].name + ": status " + std::to_string(st) + " " + error);
          else if (out != expected[k])
            failures[t].push_back(cases[k].name + ": result differs from the single-threaded run");
        }
      }
    });
  }
  for (auto &th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    for (const auto &f : failures[t]) ADD_FAILURE() << "thread " << t << ": " << f;
  for (size_t k = 0; k < cases.size(); ++k)
    EXPECT_EQ(cases[k].inputs, inputs_before[k]) << cases[k].name << " wrote to a shared input";
}

// aclGetRecentErrMsg() belongs to the calling thread: concurrent failures of different ops never
// see each other's text.
TEST(Concurrency, ErrorMessagesArePerThread) {
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const char *op = t % 2 ? "aclnnSeluBackward" : "aclnnGeluBackward";
      for (int i = 0; i < 2000; ++i) {
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        const int st = t % 2
                           ? aclnnSeluBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, &ws, &ex)
                           : aclnnGeluBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, &ws, &ex);
        const std::string msg = aclGetRecentErrMsg();
        if (st != ACLNN_ERR_PARAM_NULLPTR || msg.rfind(op, 0) != 0) {
          failures[t] = "status " + std::to_string(st) + ", message \"" + msg + "\"";
          return;
        }
      }
    });
  }
  for (auto &th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

// Executors are handed between threads: phase one on one thread, phase two on another, while
// other threads create and destroy executors (the executor registry is shared).
TEST(Concurrency, ExecutorsRunOnAnotherThreadWhileOthersComeAndGo) {
  const std::vector<OpCase> cases = all_op_cases();
  const OpCase &gelu = cases[0];
  auto expected = gelu.fresh_outputs();
  std::string error;
  ASSERT_EQ(gelu.run(gelu.inputs, expected, error), 0) << error;
  std::atomic<bool> stop{false};
  std::vector<std::thread> churn;
  std::atomic<int> churn_failures{0};
  for (int t = 0; t < kThreads - 2; ++t)
    churn.emplace_back([&] {
      while (!stop.load()) {
        auto out = gelu.fresh_outputs();
        std::string e;
        if (gelu.run(gelu.inputs, out, e) != 0 || out != expected) churn_failures.fetch_add(1);
      }
    });
  for (int i = 0; i < 20; ++i) {
    auto out = gelu.fresh_outputs();
    std::string e;
    int st = -1;
    std::thread([&] { st = gelu.run(gelu.inputs, out, e); }).join();
    EXPECT_EQ(st, 0) << e;
    EXPECT_EQ(out, expected);
  }
  stop.store(true);
  for (auto &th : churn) th.join();
  EXPECT_EQ(churn_failures.load(), 0);
}

}  // namespace
}  // namespace aclnn_robust
