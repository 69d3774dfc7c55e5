// Campaigns against a device stack, without hardware: the device emulation (tests/device/,
// docs/device-emulation.md) places the built-in library (or the broken one) behind a runtime split
// into the vendor's three libraries, with device memory the host cannot read, an asynchronous
// stream, a device bound to its thread, a refusal of every call from a forked child, two devices
// and slow first calls; and it injects device faults. The campaign must judge what the library
// does, not what the runtime makes of a careless caller (docs/device.md).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <list>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "campaign/campaign.hpp"
#include "campaign/result.hpp"
#include "properties/op.hpp"
#include "tests/support/scoped_env.hpp"

namespace {
using namespace aclnn_conform;
namespace fs = std::filesystem;

fs::path fresh_dir(const std::string &name) {
  // Per process: other test runs on the machine must not share a device's state directory.
  const fs::path p = fs::temp_directory_path() /
                     ("aclnn-conform-device-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

// Environment entries set for one campaign (workers inherit them), restored after it: one
// aclnn_test::ScopedEnv per entry (a list: they are neither copied nor moved).
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const std::map<std::string, std::string> &values) {
    for (const auto &[k, v] : values) vars_.emplace_back(k.c_str(), v.c_str());
  }

 private:
  std::list<aclnn_test::ScopedEnv> vars_;
};

// Every runtime behaviour of the emulation, the split libraries found as the toolkit's.
std::map<std::string, std::string> device_stack(std::map<std::string, std::string> more = {}) {
  std::map<std::string, std::string> env{{"ACLNN_DEVEMU", "all"},
                                         {"ACLNN_DEVEMU_FIRST_CALL_MS", "100"},
                                         {"ASCEND_HOME_PATH", ACLNN_TEST_DEVEMU_CANN}};
  for (auto &[k, v] : more) env[k] = v;
  return env;
}

CampaignConfig config(const std::string &name, const std::string &sut) {
  CampaignConfig cfg;
  cfg.sut = sut;
  cfg.cases = 150;
  cfg.jobs = 2;
  cfg.tier = Tier::kSmoke;
  cfg.seed = 11;
  cfg.out_dir = fresh_dir(name).string();
  cfg.use_corpus = false;
  return cfg;
}

std::set<std::string> reached(const CampaignResult &r) {
  std::set<std::string> s;
  for (const auto &c : r.clauses)
    if (c.reached > 0) s.insert(c.id);
  return s;
}

std::set<std::string> deviating(const CampaignResult &r) {
  std::set<std::string> s;
  for (const auto &c : r.clauses)
    if (c.status == ClauseStatus::kDeviates) s.insert(c.id);
  return s;
}

std::string first_failures(const CampaignResult &r) {
  return r.deviations.empty() ? "" : r.deviations.front().all_failures;
}

// The built-in library behind every behaviour of the emulation, split in three files and spread
// over two devices by four workers: the verdict, the statuses and the clauses reached are those of
// the built-in library loaded directly; every device did work; the report names the three files
// and how long the first calls took.
TEST(DeviceCampaign, EveryBehaviourOnJudgesAsTheBuiltinLibrary) {
  std::ostringstream log;
  const CampaignResult direct = run_campaign(config("direct", "builtin"), log);
  CampaignResult emulated;
  {
    ScopedEnvironment env(device_stack());
    CampaignConfig cfg = config("emulated", "cann");
    cfg.devices = {0, 1};
    cfg.jobs = 4;
    emulated = run_campaign(cfg, log);
  }
  EXPECT_TRUE(direct.deviations.empty()) << first_failures(direct);
  EXPECT_TRUE(emulated.deviations.empty()) << first_failures(emulated);
  EXPECT_EQ(verdict_name(emulated.verdict()), verdict_name(direct.verdict()));
  EXPECT_EQ(reached(emulated), reached(direct));
  for (const auto &c : direct.clauses) {
    const ClauseVerdict *e = emulated.clause(c.id);
    ASSERT_NE(e, nullptr) << c.id;
    EXPECT_EQ(clause_status_name(e->status), clause_status_name(c.status)) << c.id;
  }
  EXPECT_EQ(emulated.cases, direct.cases);
  ASSERT_EQ(emulated.devices.size(), 2u);
  for (const auto &d : emulated.devices) {
    EXPECT_GT(d.cases, 0) << "device " << d.id << " ran no case";
    EXPECT_FALSE(d.retired) << d.note;
  }
  ASSERT_EQ(emulated.sut_files.size(), 3u);
  EXPECT_EQ(emulated.sut_files[0].soname, "libascendcl.so");
  EXPECT_EQ(emulated.sut_files[1].soname, "libnnopbase.so");
  EXPECT_EQ(emulated.sut_files[2].soname, "libopapi.so");
  EXPECT_EQ(emulated.sut_identity.sha256, emulated.sut_files[2].sha256);
  // Each op's warm-up paid the emulated kernel load (100 ms) at least once.
  int warmed = 0;
  for (const auto &t : emulated.first_calls)
    if (t.what != "start") warmed += t.max_seconds >= 0.08;
  EXPECT_EQ(warmed, static_cast<int>(registry().size()));
}

// The broken test library behind the same emulation: its faults are found, clause by clause, as
// when it is loaded directly (crashes and hangs included: they are shrunk on fresh workers).
TEST(DeviceCampaign, TheBrokenLibrarysFaultsAreFoundThroughTheEmulation) {
  std::ostringstream log;
  CampaignConfig cfg = config("broken-direct", ACLNN_TEST_BROKEN_LIBRARY);
  cfg.cases = 80;
  cfg.case_timeout_seconds = 3;
  // Every counterexample kept: with more of a clause than its slots, which ones are kept depends
  // on the order in which two workers return them, and so would the variants that explain them.
  cfg.deviations_per_clause = 100000;
  const CampaignResult direct = run_campaign(cfg, log);
  CampaignResult emulated;
  {
    ScopedEnvironment env(device_stack({{"ACLNN_DEVEMU_INNER", ACLNN_TEST_BROKEN_LIBRARY}}));
    CampaignConfig e = cfg;
    e.sut = "cann";
    e.out_dir = fresh_dir("broken-emulated").string();
    emulated = run_campaign(e, log);
  }
  EXPECT_FALSE(deviating(direct).empty());
  EXPECT_EQ(deviating(emulated), deviating(direct));
  for (const auto &c : direct.clauses) {
    if (c.status != ClauseStatus::kDeviates) continue;
    const ClauseVerdict *e = emulated.clause(c.id);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->variants, c.variants) << c.id;
  }
  const auto kinds = [](const CampaignResult &r) {
    std::set<std::string> k;
    for (const auto &d : r.deviations) k.insert(d.kind);
    return k;
  };
  EXPECT_EQ(kinds(emulated), kinds(direct));
}

// A device that dies in the middle of the run (every call on it fails from some point on, in
// this process and every later one): the call after which it failed is charged once, like a
// crash (kind device-fault); nothing after it is charged; the worker is replaced on the other
// device, and the run goes on to its end.
TEST(DeviceCampaign, ADeviceThatDiesIsChargedOnceAndTheRunGoesOnElsewhere) {
  std::ostringstream log;
  const fs::path state = fresh_dir("dead-state");
  fs::create_directories(state);
  // 150 calls: past the first worker's set-up (the product-emulation probe), within its tasks.
  ScopedEnvironment env(device_stack({{"ACLNN_DEVEMU_FAIL_AFTER", "150"},
                                      {"ACLNN_DEVEMU_FAIL_DEVICE", "0"},
                                      {"ACLNN_DEVEMU_STATE_DIR", state.string()}}));
  CampaignConfig cfg = config("dead", "cann");
  cfg.devices = {0, 1};
  cfg.cases = 200;
  const CampaignResult r = run_campaign(cfg, log);
  ASSERT_FALSE(r.deviations.empty()) << "the device's death went unnoticed";
  for (const auto &d : r.deviations) {
    EXPECT_EQ(d.kind, "device-fault") << d.clause << ": " << d.detail;
    EXPECT_EQ(d.device, 0);
    EXPECT_NE(d.detail.find("device 0 stopped answering after "), std::string::npos) << d.detail;
  }
  EXPECT_EQ(r.deviations.size(), 1u) << "charged more than the call after which it failed";
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_GE(r.devices[0].device_faults, 1);
  EXPECT_GT(r.devices[1].cases, 0);
  EXPECT_TRUE(r.aborted.empty()) << r.aborted;
  // The run went on to every generated case and fixed task on the device left.
  EXPECT_GE(r.cases, 200);
}

// Device memory runs out (a small device): allocations refused for want of memory are the
// device's condition, not the op's. Nothing is charged; the report counts them.
TEST(DeviceCampaign, OutOfDeviceMemoryIsNotChargedToAnOp) {
  std::ostringstream log;
  // 2 KiB: the warm-up call fits, the larger of the smoke tier's cases do not. Each refusal costs
  // a fresh worker, so no first-call delay here.
  ScopedEnvironment env(
      device_stack({{"ACLNN_DEVEMU_MEMORY_BYTES", "2048"}, {"ACLNN_DEVEMU_FIRST_CALL_MS", "0"}}));
  CampaignConfig cfg = config("small-device", "cann");
  cfg.ops = {"SeluBackward"};
  cfg.cases = 60;
  const CampaignResult r = run_campaign(cfg, log);
  EXPECT_TRUE(r.deviations.empty()) << first_failures(r);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_GT(r.devices[0].out_of_memory, 0) << log.str();
  bool warned = false;
  for (const auto &w : r.warnings) warned |= w.find("ran out of memory") != std::string::npos;
  EXPECT_TRUE(warned);
}

// A stream that never completes: the synchronise that waits for it belongs to the op's second
// call, so the op is charged with a hang of that call, and the run goes on.
TEST(DeviceCampaign, AStreamThatNeverCompletesIsAHangOfTheOpsCall) {
  std::ostringstream log;
  // The tenth kernel of every worker process: past the set-up's and the warm-up's, whatever
  // share of the tasks a worker gets.
  ScopedEnvironment env(device_stack({{"ACLNN_DEVEMU_HANG_AFTER", "10"}}));
  CampaignConfig cfg = config("hang", "cann");
  cfg.ops = {"SeluBackward"};
  cfg.cases = 60;
  cfg.case_timeout_seconds = 1;
  const CampaignResult r = run_campaign(cfg, log);
  ASSERT_FALSE(r.deviations.empty());
  bool hang = false;
  for (const auto &d : r.deviations)
    hang |= d.kind == "timeout" && d.call.rfind("aclnnSeluBackward", 0) == 0 &&
            d.call.find(" (aclrtSynchronizeStream)") != std::string::npos;
  EXPECT_TRUE(hang) << r.deviations.front().kind << " in " << r.deviations.front().call;
  EXPECT_GE(r.cases, 60);
}

// A run stopped while a call hangs (below its allowance: not yet a hang) says so, with the call
// and how long it had run: a hang not confirmed is not passed over in silence.
TEST(DeviceCampaign, AStopDuringALongCallNamesTheCall) {
  std::ostringstream log;
  ScopedEnvironment env(device_stack({{"ACLNN_DEVEMU_HANG_AFTER", "10"}}));
  CampaignConfig cfg = config("stop-in-call", "cann");
  cfg.ops = {"SeluBackward"};
  cfg.cases = 100000;
  cfg.jobs = 1;
  cfg.case_timeout_seconds = 120;
  static volatile std::sig_atomic_t stop = 0;
  stop = 0;
  cfg.stop_requested = &stop;
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::seconds(6));
    stop = 1;
  });
  const CampaignResult r = run_campaign(cfg, log);
  stopper.join();
  EXPECT_TRUE(r.interrupted);
  bool named = false;
  for (const auto &w : r.warnings)
    named |= w.find("interrupted: a worker on device 0 was stopped") != std::string::npos &&
             w.find("aclnnSeluBackward") != std::string::npos &&
             w.find("neither judged nor confirmed as a hang") != std::string::npos;
  EXPECT_TRUE(named) << log.str();
}

// The budget's wall cuts off a call below its allowance (a kernel load of 30 s within a first-call
// allowance of 60 s): nothing says the library is wrong, nothing says it is right, so the verdict
// is INCOMPLETE with the call named, never CONFORMANT on what finished before it (here: nothing).
TEST(DeviceCampaign, ABudgetThatEndsDuringALongCallIsIncompleteAtBest) {
  std::ostringstream log;
  ScopedEnvironment env(device_stack({{"ACLNN_DEVEMU_FIRST_CALL_MS", "30000"}}));
  CampaignConfig cfg = config("wall-in-call", "cann");
  cfg.ops = {"SeluBackward"};
  cfg.budget_seconds = 4;
  cfg.jobs = 1;
  cfg.first_call_timeout_seconds = 60;
  cfg.allow_incomplete = true;  // unreached clauses alone would not make it INCOMPLETE
  // No product-emulation probe: its own call, cut off by the probe's limit on a loaded machine,
  // would take the slow load before the budget's wall does.
  cfg.product_emulation = ProductEmulation::kOff;
  const CampaignResult r = run_campaign(cfg, log);
  EXPECT_FALSE(r.interrupted);
  ASSERT_EQ(r.unresolved_calls.size(), 1u)
      << log.str() << fmt::format("{}", fmt::join(r.warnings, "\n"));
  EXPECT_NE(r.unresolved_calls.front().find("below its allowance of 60 s"), std::string::npos)
      << r.unresolved_calls.front();
  EXPECT_TRUE(r.deviations.empty()) << r.deviations.front().detail;
  EXPECT_EQ(r.verdict(), Verdict::kIncomplete);
  // The named call survives a round trip through report.json (merges and `report` read it).
  EXPECT_EQ(result_from_json(to_json(r)).unresolved_calls, r.unresolved_calls);
}

}  // namespace
