// Adaptive scheduling (campaign/schedule.hpp): a unit that shows nothing new falls to the floor
// and one that keeps producing news keeps its share; the tier's minimum keeps an op whole; the
// indices run do not depend on the order outcomes arrive in, nor on the number of workers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <random>
#include <sstream>

#include "campaign/campaign.hpp"
#include "campaign/result.hpp"
#include "campaign/schedule.hpp"
#include "campaign/task.hpp"
#include "properties/op.hpp"
#include "properties/splitmix.hpp"

namespace {
using namespace aclnn_conform;
namespace fs = std::filesystem;

std::vector<const OpDescriptor *> two_ops() {
  return {find_op("GeluBackward"), find_op("SeluBackward")};
}

std::map<std::string, std::vector<std::string>> clauses_of_two_ops() {
  return {{"GeluBackward", {"GELU-VALUE-1"}}, {"SeluBackward", {"SELU-VALUE-1"}}};
}

// GeluBackward's outcomes are always the same; SeluBackward's each bring a new signature.
TaskOutcome outcome_for(const Task &t) {
  TaskOutcome o;
  if (t.op->name == "GeluBackward") {
    o.reached = {"GELU-VALUE-1"};
    o.signatures = {"GELU-VALUE-1 pass"};
  } else {
    o.reached = {"SELU-VALUE-1"};
    o.signatures = {"SELU-VALUE-1 pass", "news " + std::to_string(t.index)};
  }
  return o;
}

struct Simulated {
  std::vector<int64_t> run;  // indices run, in index order
  int64_t holds = 0;
  ScheduleUsage usage;
};

// Drives a schedule as the campaign does, with `in_flight` tasks running at a time, completed in
// an order shuffled by `order_seed` (0: each at once).
Simulated simulate(int64_t indices, int in_flight, uint64_t order_seed, int64_t min_reach,
                   int64_t lag = 32) {
  CampaignConfig cfg;
  cfg.seed = 3;
  cfg.climb = false;
  Schedule s(true, "", 1, lag, clauses_of_two_ops(), min_reach);
  Simulated out;
  std::vector<Task> flying;
  std::mt19937_64 rng(order_seed);
  const auto complete_one = [&] {
    const size_t i = order_seed == 0 ? 0 : rng() % flying.size();
    s.on_outcome(flying[i], outcome_for(flying[i]));
    flying.erase(flying.begin() + static_cast<ptrdiff_t>(i));
  };
  const auto start = [&](const Task &t) {
    out.run.push_back(t.index);
    flying.push_back(t);
  };
  const auto skip = [](const Task &) {};
  for (int64_t k = 0; k < indices; ++k) {
    while (static_cast<int>(flying.size()) >= in_flight) complete_one();
    while (auto t = s.release(false, skip)) start(*t);
    const Task t = generated_task(two_ops(), cfg, k);
    s.issued(k);
    const Schedule::Offer offer = s.offer(t);
    out.holds += offer == Schedule::Offer::kHold;
    if (offer == Schedule::Offer::kRun) start(t);
  }
  while (!flying.empty() || s.holding()) {
    if (!flying.empty()) complete_one();
    while (auto t = s.release(false, skip)) start(*t);
  }
  std::sort(out.run.begin(), out.run.end());
  out.usage = s.usage();
  return out;
}

const ScheduleUnit &unit(const ScheduleUsage &u, const std::string &name) {
  for (const auto &x : u.units)
    if (x.unit == name) return x;
  throw std::runtime_error("no unit " + name);
}

TEST(Schedule, AUnitWithoutNewsFallsToTheFloorAndOneWithNewsKeepsItsShare) {
  const Simulated sim = simulate(6000, 1, 0, 0);
  const ScheduleUnit &stale = unit(sim.usage, "GeluBackward/valid");
  const ScheduleUnit &fresh = unit(sim.usage, "SeluBackward/valid");
  EXPECT_EQ(fresh.skipped, 0);
  EXPECT_EQ(fresh.run, fresh.seen);
  EXPECT_DOUBLE_EQ(fresh.share, 1.0);
  EXPECT_DOUBLE_EQ(stale.share, Schedule::kFloor);
  EXPECT_EQ(stale.news, 1);  // its first outcome only
  // Never below the floor's share of its indices, and well below all of them.
  const double ran = static_cast<double>(stale.run) / static_cast<double>(stale.seen);
  EXPECT_GT(ran, Schedule::kFloor * 0.9);
  EXPECT_LT(ran, 0.5);
}

TEST(Schedule, TheTiersMinimumKeepsAnOpWhole) {
  // Every GeluBackward outcome reaches GELU-VALUE-1: below the minimum, nothing is skipped.
  const Simulated whole = simulate(3000, 1, 0, 1000000);
  EXPECT_EQ(unit(whole.usage, "GeluBackward/valid").skipped, 0);
  EXPECT_DOUBLE_EQ(unit(whole.usage, "GeluBackward/valid").share, 1.0);
  // With a minimum the stream passes, the op's units fall once it has.
  const Simulated passed = simulate(3000, 1, 0, 100);
  EXPECT_GT(unit(passed.usage, "GeluBackward/valid").skipped, 0);
}

TEST(Schedule, TheSameIndicesRunWhateverOrderOutcomesArriveIn) {
  const Simulated serial = simulate(5000, 1, 0, 0);
  ASSERT_GT(serial.run.size(), 0u);
  for (uint64_t order : {1u, 2u, 3u}) {
    const Simulated shuffled = simulate(5000, 48, order, 0);
    EXPECT_GT(shuffled.holds, 0) << "48 in flight should outrun a lag of 32";
    EXPECT_EQ(serial.run, shuffled.run) << "order seed " << order;
  }
}

TEST(Schedule, ReportAndMergeKeepTheCounts) {
  const Simulated sim = simulate(2000, 1, 0, 0);
  CampaignResult a, b, merged;
  a.schedule = to_json(sim.usage);
  b.schedule = to_json(sim.usage);
  const ScheduleUsage back = schedule_usage_from_json(a.schedule);
  ASSERT_EQ(back.units.size(), sim.usage.units.size());
  EXPECT_EQ(back.units[0].run, sim.usage.units[0].run);
  merge_schedule(merged, {a, b});
  const ScheduleUsage m = schedule_usage_from_json(merged.schedule);
  ASSERT_EQ(m.units.size(), sim.usage.units.size());
  for (size_t i = 0; i < m.units.size(); ++i) {
    EXPECT_EQ(m.units[i].seen, 2 * sim.usage.units[i].seen);
    EXPECT_EQ(m.units[i].skipped, 2 * sim.usage.units[i].skipped);
    EXPECT_LT(m.units[i].share, 0);  // a shard's own figure: not the merge's
  }
  const std::string md = schedule_markdown(a);
  EXPECT_NE(md.find("How the budget was spent"), std::string::npos);
  EXPECT_NE(md.find("| GeluBackward/valid |"), std::string::npos);
  EXPECT_NE(schedule_html(a).find("id=\"schedule\""), std::string::npos);
}

fs::path fresh_dir(const std::string &name) {
  const fs::path p = fs::temp_directory_path() /
                     ("aclnn-conform-test-schedule-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

// End to end: one worker and two run the same indices for a seed (the schedule reads only a
// completed prefix), and the built-in library stays conformant on what ran.
TEST(ScheduleCampaign, OneWorkerAndTwoRunTheSameIndices) {
  const auto run = [](int jobs) {
    std::ostringstream log;
    CampaignConfig cfg;
    cfg.ops = {"SeluBackward"};
    cfg.cases = 700;
    cfg.jobs = jobs;
    cfg.tier = Tier::kCi;
    cfg.seed = 5;
    cfg.schedule_lag = 16;
    cfg.use_corpus = false;
    cfg.out_dir = fresh_dir("j" + std::to_string(jobs));
    return run_campaign(cfg, log);
  };
  const CampaignResult one = run(1), two = run(2);
  ASSERT_TRUE(one.schedule.is_object());
  EXPECT_TRUE(one.schedule.at("enabled").get<bool>());
  const ScheduleUsage u = schedule_usage_from_json(one.schedule);
  int64_t skipped = 0;
  for (const auto &x : u.units) skipped += x.skipped;
  EXPECT_GT(skipped, 0) << one.schedule.dump();
  EXPECT_EQ(one.schedule, two.schedule);
  EXPECT_EQ(one.cases, two.cases);
  for (size_t i = 0; i < one.clauses.size(); ++i)
    EXPECT_EQ(one.clauses[i].reached, two.clauses[i].reached) << one.clauses[i].id;
  EXPECT_TRUE(one.conformant());
  EXPECT_TRUE(two.conformant());
}

TEST(ScheduleCampaign, OffAtTheSmokeTierAndWithNoAdaptive) {
  std::ostringstream log;
  CampaignConfig cfg;
  cfg.ops = {"SeluBackward"};
  cfg.cases = 40;
  cfg.jobs = 1;
  cfg.tier = Tier::kSmoke;
  cfg.use_corpus = false;
  cfg.out_dir = fresh_dir("smoke");
  const CampaignResult smoke = run_campaign(cfg, log);
  EXPECT_FALSE(smoke.schedule.at("enabled").get<bool>());
  cfg.tier = Tier::kCi;
  cfg.adaptive = false;
  cfg.out_dir = fresh_dir("off");
  const CampaignResult off = run_campaign(cfg, log);
  EXPECT_EQ(off.schedule.at("why_off"), "--no-adaptive");
  EXPECT_NE(schedule_markdown(off).find("was off (--no-adaptive)"), std::string::npos);
}

}  // namespace
