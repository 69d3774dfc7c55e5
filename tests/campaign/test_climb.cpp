// Targeted search for accuracy (campaign/climb.hpp): the book of starts keeps the same records
// whatever order results arrive in, a climb waits for every index below its horizon, and a
// campaign with climbing is the same run for the same seed with 2 workers, its shards disjoint.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <sstream>

#include "campaign/campaign.hpp"
#include "campaign/climb.hpp"
#include "campaign/frontier.hpp"
#include "campaign/result.hpp"
#include "campaign/task.hpp"
#include "properties/op.hpp"
#include "properties/sweep.hpp"

namespace {
using namespace aclnn_conform;
namespace fs = std::filesystem;

fs::path fresh_dir(const std::string &name) {
  const fs::path p = fs::temp_directory_path() /
                     ("aclnn-conform-climb-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

// A result whose worst element in fp32 has this error.
nlohmann::json result_with(const Task &t, double ulps) {
  WorstInput w;
  w.op = t.op->name;
  w.dtype = "fp32";
  w.ulps = ulps;
  w.rel = ulps * 1e-7;
  return {{"worst", nlohmann::json::array({to_json(w)})}};
}

std::vector<Task> valid_tasks(const CampaignConfig &cfg, const OpDescriptor *op, int n) {
  std::vector<Task> out;
  for (int64_t k = 0; static_cast<int>(out.size()) < n; ++k) {
    Task t = generated_task({op}, cfg, k);
    if (t.kind == Task::Kind::kValid && !t.large && !t.climb && !t.sweep) out.push_back(t);
  }
  return out;
}

TEST(Frontier, CompleteBelowFollowsTheLowestOpenIndex) {
  Frontier f;
  for (int64_t k : {0, 2, 4, 6}) f.issued(k);
  EXPECT_FALSE(f.complete_below(1));
  f.completed(2);
  f.completed(4);
  EXPECT_FALSE(f.complete_below(1));  // 0 is still open
  f.completed(0);
  EXPECT_TRUE(f.complete_below(6));
  EXPECT_FALSE(f.complete_below(7));
  f.completed(6);
  EXPECT_TRUE(f.all_complete());
  EXPECT_TRUE(f.complete_below(7));
}

// The starts a climb can take do not depend on the order results arrived in, and a climb is held
// until every index below its horizon has completed.
TEST(ClimbBook, StartsAreTheSameWhateverOrderResultsArrive) {
  CampaignConfig cfg;
  const OpDescriptor *op = find_op("GeluBackward");
  ASSERT_NE(op, nullptr);
  const auto tasks = valid_tasks(cfg, op, 60);
  std::vector<double> errors;
  std::mt19937 rng(5);
  for (size_t i = 0; i < tasks.size(); ++i)
    errors.push_back(std::uniform_real_distribution(0.0, 3.0)(rng));
  Task climber = tasks.back();
  climber.index = tasks.back().index + kClimbLag + 10;
  climber.climb = true;
  // A seed whose hash takes a recorded start (one in four climbs from its own case).
  for (climber.seed = 1; climber.seed < 64; ++climber.seed) {
    ClimbBook book(true, 1);
    for (size_t i = 0; i < tasks.size(); ++i) {
      book.issued(tasks[i].index);
      book.on_result(tasks[i], result_with(tasks[i], errors[i]));
    }
    book.issued(climber.index);
    book.hold(climber);
    const auto released = book.release();
    ASSERT_TRUE(released);
    if (released->origin.find("climb in fp32") != std::string::npos) break;
  }
  std::vector<std::string> origins;
  std::vector<int64_t> records;
  for (int order = 0; order < 3; ++order) {
    ClimbBook book(true, 1);
    std::vector<size_t> idx(tasks.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    if (order == 1) std::reverse(idx.begin(), idx.end());
    if (order == 2) std::shuffle(idx.begin(), idx.end(), std::mt19937(order));
    for (const auto &t : tasks) book.issued(t.index);
    book.issued(climber.index);
    book.hold(climber);
    // Held while an index below the horizon is open.
    for (size_t n = 0; n + 1 < idx.size(); ++n)
      book.on_result(tasks[idx[n]], result_with(tasks[idx[n]], errors[idx[n]]));
    EXPECT_FALSE(book.release()) << "released before every index below its horizon completed";
    book.on_result(tasks[idx.back()], result_with(tasks[idx.back()], errors[idx.back()]));
    const auto released = book.release();
    ASSERT_TRUE(released);
    origins.push_back(released->origin);
    records.push_back(book.usage().records);
  }
  EXPECT_EQ(origins[0], origins[1]);
  EXPECT_EQ(origins[0], origins[2]);
  EXPECT_EQ(records[0], records[1]);
  EXPECT_EQ(records[0], records[2]);
  // The start is the largest error recorded (the last prefix maximum below the horizon).
  const auto worst = std::max_element(errors.begin(), errors.end()) - errors.begin();
  EXPECT_NE(origins[0].find(tasks[static_cast<size_t>(worst)].origin), std::string::npos)
      << origins[0];
}

CampaignConfig climb_config(const std::string &out) {
  CampaignConfig cfg;
  cfg.cases = 1500;
  cfg.jobs = 2;
  cfg.tier = Tier::kCi;
  cfg.seed = 11;
  cfg.use_corpus = false;
  cfg.out_dir = out;
  return cfg;
}

TEST(ClimbCampaign, SameSeedSameClimbsWithTwoWorkers) {
  std::ostringstream log;
  const CampaignResult a = run_campaign(climb_config(fresh_dir("a")), log);
  const CampaignResult b = run_campaign(climb_config(fresh_dir("b")), log);
  ASSERT_TRUE(a.climb.is_object());
  EXPECT_GT(a.climb.at("tasks").get<int64_t>(), 10);
  EXPECT_GT(a.climb.at("calls").get<int64_t>(), a.climb.at("tasks").get<int64_t>());
  EXPECT_EQ(a.climb, b.climb);
  EXPECT_EQ(a.worst_inputs, b.worst_inputs);
  EXPECT_EQ(a.cases, b.cases);
  for (size_t i = 0; i < a.clauses.size(); ++i)
    EXPECT_EQ(a.clauses[i].reached, b.clauses[i].reached) << a.clauses[i].id;
  EXPECT_TRUE(a.conformant());
  // Some worst element of the table was found by a climb.
  EXPECT_TRUE(std::any_of(a.worst_inputs.begin(), a.worst_inputs.end(),
                          [](const nlohmann::json &w) { return w.at("climbed").get<bool>(); }));
}

TEST(ClimbCampaign, ShardsClimbOnTheirOwnIndices) {
  std::ostringstream log;
  std::vector<CampaignResult> shards;
  for (int shard = 0; shard < 2; ++shard) {
    CampaignConfig cfg = climb_config(fresh_dir("shard" + std::to_string(shard)));
    cfg.cases = 700;
    cfg.shard_index = shard;
    cfg.shard_count = 2;
    const CampaignResult r = run_campaign(cfg, log);
    EXPECT_GT(r.climb.at("tasks").get<int64_t>(), 0);
    for (const auto &w : r.worst_inputs)
      if (w.at("index").get<int64_t>() >= 0) EXPECT_EQ(w.at("index").get<int64_t>() % 2, shard);
    shards.push_back(r);
  }
  // The merge keeps the larger worst input per op and dtype, and adds up the climbing.
  const CampaignResult m = merge_results(shards);
  EXPECT_EQ(m.climb.at("tasks").get<int64_t>(), shards[0].climb.at("tasks").get<int64_t>() +
                                                    shards[1].climb.at("tasks").get<int64_t>());
  for (const auto &w : m.worst_inputs)
    for (const auto &s : shards)
      for (const auto &x : s.worst_inputs)
        if (x.at("op") == w.at("op") && x.at("dtype") == w.at("dtype"))
          EXPECT_GE(get_number(w, "ulps"), get_number(x, "ulps")) << w.dump();
  EXPECT_GE(m.worst_inputs.size(), shards[0].worst_inputs.size());
  // And the split itself: a climb index belongs to one shard.
  CampaignConfig cfg;
  int climbs = 0;
  for (int64_t k = 0; k < 4000; ++k) climbs += generated_task(registry(), cfg, k).climb;
  EXPECT_GT(climbs, 30);
}

// Value sweeps (properties/sweep.hpp): one valid non-large case in 24 of an elementwise op with
// range limits and one in 48 of the others, above the smoke tier, never a climb; the flag travels
// to the worker.
TEST(ValueSweepTasks, OneValidCaseIn24OfTheElementwiseOpsIn48OfTheOthersAboveTheSmokeTier) {
  CampaignConfig cfg;
  cfg.tier = Tier::kCi;
  int64_t sweeps = 0, rows = 0, candidates = 0, row_candidates = 0;
  for (int64_t k = 0; k < 96000; ++k) {
    const Task t = generated_task(registry(), cfg, k);
    const bool elementwise = has_elementwise_sweeps(*t.op);
    if (t.kind == Task::Kind::kValid && !t.large) ++(elementwise ? candidates : row_candidates);
    if (!t.sweep) continue;
    ++(elementwise ? sweeps : rows);
    EXPECT_EQ(t.kind, Task::Kind::kValid);
    EXPECT_FALSE(t.large || t.climb);
    EXPECT_NE(t.origin.find("sweep"), std::string::npos);
    EXPECT_TRUE(task_from_json(to_json(t)).sweep);
  }
  EXPECT_NEAR(static_cast<double>(sweeps), candidates / double{kElementwiseSweepOneIn},
              candidates / double{kElementwiseSweepOneIn} * 0.2);
  EXPECT_NEAR(static_cast<double>(rows), row_candidates / double{kRowSweepOneIn},
              row_candidates / double{kRowSweepOneIn} * 0.2);
  for (const bool smoke : {true, false}) {
    CampaignConfig off = cfg;
    if (smoke)
      off.tier = Tier::kSmoke;
    else
      off.sweep = false;
    for (int64_t k = 0; k < 4800; ++k) EXPECT_FALSE(generated_task(registry(), off, k).sweep);
  }
}

// A sweep's worst element is a start: the climb gets the element's copies (the call the worker
// sent), not the sweep, while the worst-input row keeps naming the sweep's element.
TEST(ClimbBook, ASweepsWorstElementIsAStartOfItsCopies) {
  CampaignConfig cfg;
  const OpDescriptor *op = find_op("GeluBackward");
  ASSERT_NE(op, nullptr);
  Task sweep;
  for (int64_t k = 0; !sweep.sweep; ++k) sweep = generated_task({op}, cfg, k);
  const Case copies =
      element_copies(*op, value_sweep_case(*op, cfg.product, sweep.seed), 77, kSweepStartElements);
  WorstInput w;
  w.op = op->name;
  w.dtype = "fp32";
  w.element = 77;
  w.ulps = 1.5;
  w.call = to_json(copies);
  const nlohmann::json result{{"worst", nlohmann::json::array({to_json(w)})},
                              {"sweep_elements", kSweepElements}};
  Task climber = sweep;
  climber.sweep = false;
  climber.climb = true;
  climber.index = sweep.index + kClimbLag + 1;
  bool took_it = false;
  for (climber.seed = 1; climber.seed < 64 && !took_it; ++climber.seed) {
    ClimbBook book(true, 1);
    book.issued(sweep.index);
    book.on_result(sweep, result);
    book.issued(climber.index);
    book.hold(climber);
    const auto released = book.release();
    ASSERT_TRUE(released);
    if (released->origin.find("climb in fp32") == std::string::npos) continue;
    took_it = true;
    ASSERT_TRUE(released->stored);
    EXPECT_EQ(to_json(*released->stored), to_json(copies));
    EXPECT_FALSE(released->sweep);
    EXPECT_NE(released->origin.find("from element 77 of " + sweep.origin), std::string::npos)
        << released->origin;
    EXPECT_EQ(book.usage().sweeps, 1);
    EXPECT_EQ(book.usage().sweep_elements, kSweepElements);
    ASSERT_EQ(book.worst().size(), 1u);
    EXPECT_TRUE(book.worst()[0].call.is_null());
    EXPECT_EQ(book.worst()[0].origin, sweep.origin);
  }
  EXPECT_TRUE(took_it);
}

TEST(ClimbCampaign, NoClimbRunsNoClimbTask) {
  std::ostringstream log;
  CampaignConfig cfg = climb_config(fresh_dir("off"));
  cfg.cases = 400;
  cfg.climb = false;
  const CampaignResult r = run_campaign(cfg, log);
  EXPECT_EQ(r.climb.at("tasks").get<int64_t>(), 0);
  EXPECT_FALSE(r.climb.at("enabled").get<bool>());
  EXPECT_FALSE(r.worst_inputs.empty());  // the worst element seen is still reported
}

}  // namespace
