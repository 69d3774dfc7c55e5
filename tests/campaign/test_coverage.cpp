// Coverage guidance (campaign/coverage.hpp): a library compiled with SanitizerCoverage has its
// edges read in every worker, and the report gives the edges reached and the seeds (cases that
// reached new edges, decided in index order); a library without it runs unguided.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <set>
#include <sstream>

#include "campaign/campaign.hpp"
#include "campaign/coverage.hpp"
#include "campaign/report.hpp"
#include "campaign/result.hpp"
#include "campaign/task.hpp"
#include "properties/op.hpp"

extern "C" void __sanitizer_cov_8bit_counters_init(uint8_t *begin, uint8_t *end);

namespace {
using namespace aclnn_conform;
namespace fs = std::filesystem;

CampaignConfig coverage_config(const std::string &name, const std::string &sut) {
  CampaignConfig cfg;
  cfg.sut = sut;
  cfg.cases = 400;  // past kMutationLag: seed mutations run
  cfg.jobs = 2;
  cfg.tier = Tier::kSmoke;
  cfg.seed = 11;
  const fs::path out = fs::temp_directory_path() /
                       ("aclnn-conform-test-coverage-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(out);
  cfg.out_dir = out.string();
  return cfg;
}

#ifdef ACLNN_TEST_SANCOV_LIBRARY
constexpr const char *kSancovLibrary = ACLNN_TEST_SANCOV_LIBRARY;
constexpr const char *kSancovFaultLibrary = ACLNN_TEST_SANCOV_FAULT_LIBRARY;
constexpr const char *kPlainFaultLibrary = ACLNN_TEST_PLAIN_FAULT_LIBRARY;
#else
constexpr const char *kSancovLibrary = nullptr;
constexpr const char *kSancovFaultLibrary = nullptr;
constexpr const char *kPlainFaultLibrary = nullptr;
#endif
#define REQUIRE_SANCOV_LIBRARY()                                                             \
  if (!kSancovLibrary)                                                                       \
  GTEST_SKIP() << "the instrumented test library libaclnn_sancov_test.so was not built: no " \
                  "clang++ when the build was configured, or a sanitizer build"

TEST(Coverage, InstrumentedLibraryReportsEdgesReachedAndSeeds) {
  REQUIRE_SANCOV_LIBRARY();
  std::ostringstream log;
  const CampaignResult r = run_campaign(coverage_config("instrumented", kSancovLibrary), log);
  EXPECT_TRUE(r.conformant());  // the test library forwards unchanged: guidance judges nothing
  const auto &c = r.coverage;
  ASSERT_TRUE(c.is_object()) << log.str();
  ASSERT_TRUE(c.value("instrumented", false)) << c.dump();
  EXPECT_EQ(c.value("modules", 0), 1);  // coverage_sut.cpp, the one instrumented object
  const int64_t edges = c.value("edges", int64_t{0});
  const int64_t reached = c.value("edges_reached", int64_t{0});
  EXPECT_GT(reached, 0);
  EXPECT_LE(reached, edges);
  // Not every branch of the test library's classification is reachable by valid and invalid
  // calls alike, but more than one case brings news: the first case alone is not every seed.
  EXPECT_GT(c.value("seed_count", int64_t{0}), 1);
  EXPECT_LE(c.value("seed_count", int64_t{0}), r.cases);
  ASSERT_FALSE(c.at("seeds").empty());
  int64_t fresh = 0;
  for (const auto &s : c.at("seeds")) {
    EXPECT_GT(s.value("new_edges", int64_t{0}), 0);
    fresh += s.value("new_edges", int64_t{0});
  }
  // Each reached edge is new for exactly one seed (all are listed: fewer than the cap here).
  ASSERT_LT(c.value("seed_count", int64_t{0}), static_cast<int64_t>(CoverageTracker::kListedSeeds));
  EXPECT_EQ(fresh, reached);
  // Every op was called, so every op reached edges of its own.
  for (const auto *op : registry()) EXPECT_GT(c.at("ops").value(op->name, 0), 0) << op->name;
  EXPECT_NE(render_markdown(r).find("**Edge coverage:** " + std::to_string(reached) + " of " +
                                    std::to_string(edges) + " edges reached"),
            std::string::npos);
  EXPECT_NE(render_html(r).find("<strong>Edge coverage:</strong>"), std::string::npos);
  // Seed mutations ran in the generated indices' stead.
  EXPECT_GT(c.value("seed_mutations", int64_t{0}), 0);
  // report.json keeps it.
  EXPECT_EQ(result_from_json(to_json(r)).coverage, c);
}

// The seeds of generated indices are stored, and the next run in the directory replays them.
TEST(Coverage, SeedsAreStoredAndReplayedByTheNextRun) {
  REQUIRE_SANCOV_LIBRARY();
  std::ostringstream log;
  CampaignConfig cfg = coverage_config("stored", kSancovLibrary);
  // Without the edge tables, which reach every edge of the small test library before any
  // generated case could.
  for (const auto *op : registry()) cfg.skips.push_back(op->name + "/edge");
  const CampaignResult r = run_campaign(cfg, log);
  const auto &c = r.coverage;
  const auto stored = c.value("seeds_stored", int64_t{0});
  EXPECT_GT(stored, 0);
  int64_t files = 0;
  for (const auto &e : fs::directory_iterator(fs::path(cfg.out_dir) / "corpus" / "seeds"))
    files += e.path().extension() == ".json";
  EXPECT_GT(files, 0);
  EXPECT_LE(files, stored);  // named by content: equal cases share a file
  const CampaignResult again = run_campaign(cfg, log);
  EXPECT_TRUE(again.conformant());
  EXPECT_EQ(again.cases, r.cases + files);
}

// A fault behind an input pattern that generation seldom makes (tests/broken/coverage_sut.cpp:
// exactly one infinity or NaN in an fp32 input of 64 or more elements): in a fixed run, the seed
// mutations of the instrumented build find it, and the same fault built without the
// instrumentation (no guidance) survives the same run. (With this seed the generated cases alone
// first meet the pattern at index 901.)
TEST(Coverage, GuidanceFindsAFaultTheSameRunMissesWithoutIt) {
  REQUIRE_SANCOV_LIBRARY();
  std::ostringstream log;
  CampaignConfig guided = coverage_config("fault-guided", kSancovFaultLibrary);
  guided.cases = 700;
  const CampaignResult g = run_campaign(guided, log);
  EXPECT_FALSE(g.conformant());
  ASSERT_FALSE(g.deviations.empty());
  EXPECT_EQ(g.deviations.front().origin.rfind("seed mutation at index ", 0), 0u)
      << g.deviations.front().origin;
  CampaignConfig plain = coverage_config("fault-plain", kPlainFaultLibrary);
  plain.cases = 700;
  const CampaignResult p = run_campaign(plain, log);
  EXPECT_FALSE(p.coverage.value("instrumented", true));
  EXPECT_TRUE(p.conformant()) << p.deviations.front().origin;
}

TEST(Coverage, UninstrumentedLibraryRunsWithoutGuidance) {
  std::ostringstream log;
  const CampaignResult r = run_campaign(coverage_config("builtin", "builtin"), log);
  EXPECT_TRUE(r.conformant());
  ASSERT_TRUE(r.coverage.is_object());
  EXPECT_FALSE(r.coverage.value("instrumented", true));
  EXPECT_EQ(r.coverage.value("note", std::string()), "no coverage (library not instrumented)");
  EXPECT_NE(render_markdown(r).find("no coverage (library not instrumented)"), std::string::npos);
}

// Same seed and --cases, two workers: the same edges and the same seeds, however the cases were
// spread over the workers and whenever their results arrived.
TEST(Coverage, SameSeedSameEdgesAndSeedsWithTwoWorkers) {
  REQUIRE_SANCOV_LIBRARY();
  std::ostringstream log;
  const CampaignResult a = run_campaign(coverage_config("det-a", kSancovLibrary), log);
  const CampaignResult b = run_campaign(coverage_config("det-b", kSancovLibrary), log);
  ASSERT_TRUE(a.coverage.value("instrumented", false));
  EXPECT_EQ(a.cases, b.cases);
  EXPECT_EQ(a.coverage, b.coverage);
}

// A merge of shards reports the union of their edges, in all and per op, and adds up their
// cases, seeds and mutations (it used to keep the first shard's coverage as the merge's).
TEST(Coverage, AMergeReportsTheUnionOfItsShardsEdges) {
  REQUIRE_SANCOV_LIBRARY();
  std::ostringstream log;
  std::vector<CampaignResult> shards;
  for (int i = 0; i < 2; ++i) {
    CampaignConfig cfg = coverage_config("shard-" + std::to_string(i), kSancovLibrary);
    cfg.cases = 150;
    cfg.shard_index = i;
    cfg.shard_count = 2;
    cfg.use_corpus = false;
    shards.push_back(run_campaign(cfg, log));
    ASSERT_TRUE(shards.back().coverage.value("instrumented", false)) << log.str();
  }
  const auto edges_of = [](const nlohmann::json &list) {
    const auto v = decode_edges(list);
    return std::set<uint32_t>(v.begin(), v.end());
  };
  std::set<uint32_t> all;
  int64_t cases = 0, seeds = 0;
  for (const auto &s : shards) {
    const auto mine = edges_of(s.coverage.at("reached_edges"));
    EXPECT_EQ(static_cast<int64_t>(mine.size()), s.coverage.value("edges_reached", int64_t{0}));
    all.insert(mine.begin(), mine.end());
    cases += s.coverage.value("cases_with_edges", int64_t{0});
    seeds += s.coverage.value("seed_count", int64_t{0});
  }
  const nlohmann::json m = merge_results(shards).coverage;
  ASSERT_TRUE(m.value("instrumented", false)) << m.dump();
  EXPECT_EQ(m.value("edges_reached", int64_t{0}), static_cast<int64_t>(all.size()));
  EXPECT_EQ(edges_of(m.at("reached_edges")), all);
  EXPECT_EQ(m.value("cases_with_edges", int64_t{0}), cases);
  EXPECT_EQ(m.value("seed_count", int64_t{0}), seeds);
  EXPECT_TRUE(m.value("seeds_within_shards", false));
  for (const auto *op : registry()) {
    std::set<uint32_t> op_all;
    for (const auto &s : shards) {
      const auto mine = edges_of(s.coverage.at("op_edges").at(op->name));
      op_all.insert(mine.begin(), mine.end());
    }
    EXPECT_EQ(m.at("ops").value(op->name, int64_t{0}), static_cast<int64_t>(op_all.size()))
        << op->name;
  }
  // A merge with a shard of an uninstrumented run says it cannot combine them.
  CampaignResult plain = shards[1];
  plain.shard = "9/9";
  plain.coverage = {{"instrumented", false}, {"note", "no coverage (library not instrumented)"}};
  const nlohmann::json mixed = merge_results({shards[0], plain}).coverage;
  EXPECT_FALSE(mixed.value("instrumented", true));
  EXPECT_NE(mixed.value("note", std::string()).find("coverage not merged"), std::string::npos);
}

// The tracker's novelty depends on the indices, never on the order results arrive in.
TEST(Coverage, NoveltyIsDecidedInIndexOrder) {
  const OpDescriptor *op = registry().front();
  const auto task = [&](int64_t k) {
    Task t;
    t.index = k;
    t.op = op;
    t.origin = "seed 1 case " + std::to_string(k);
    return t;
  };
  const auto result = [](std::vector<uint32_t> edges) {
    return nlohmann::json{{"edges", encode_edges(edges)}};
  };
  const CampaignConfig cfg;
  CoverageTracker in_order(cfg), reversed(cfg);
  for (auto *tr : {&in_order, &reversed}) tr->library({{"modules", 1}, {"edges", 10}});
  in_order.observe(task(0), result({1, 2}));
  in_order.observe(task(1), result({2, 3}));
  in_order.observe(task(2), result({1, 3}));
  reversed.observe(task(2), result({1, 3}));
  reversed.observe(task(1), result({2, 3}));
  reversed.observe(task(0), result({1, 2}));
  const auto s = in_order.summary();
  EXPECT_EQ(s, reversed.summary());
  EXPECT_EQ(s.value("edges_reached", 0), 3);
  ASSERT_EQ(s.value("seed_count", 0), 2);  // case 2 reached nothing new
  EXPECT_EQ(s["seeds"][0].value("index", -1), 0);
  EXPECT_EQ(s["seeds"][0].value("new_edges", 0), 2);
  EXPECT_EQ(s["seeds"][1].value("index", -1), 1);
  EXPECT_EQ(s["seeds"][1].value("new_edges", 0), 1);
}

// A seed mutation mutates a seed of the completed prefix below its horizon, the same one whatever
// order the results arrived in; it runs as a stored case at its own index.
TEST(Coverage, SeedMutationIsDecidedByThePrefix) {
  CampaignConfig cfg;
  cfg.tier = Tier::kSmoke;
  cfg.seed = 5;
  std::vector<const OpDescriptor *> ops(registry().begin(), registry().end());
  const int64_t n = CoverageTracker::kMutationLag + 40;
  std::vector<Task> tasks;
  for (int64_t k = 0; k < n; ++k) tasks.push_back(generated_task(ops, cfg, k));
  int64_t at = -1;  // the first index past the lag that becomes a mutation
  std::vector<std::unique_ptr<CoverageTracker>> trackers;
  for (int order = 0; order < 2; ++order) {
    auto tr = std::make_unique<CoverageTracker>(cfg);
    tr->library({{"modules", 1}, {"edges", 1000}});
    for (int64_t k = 0; k < n; ++k) tr->issued(k);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = order == 0 ? i : n - 1 - i;
      // Each index reaches edge k % 7 and edge 100 + k / 10: new edges every few indices.
      const std::vector<uint32_t> edges{static_cast<uint32_t>(k % 7),
                                        static_cast<uint32_t>(100 + k / 10)};
      if (at < 0 && tr->mutates(tasks[static_cast<size_t>(k)]) &&
          k >= CoverageTracker::kMutationLag)
        at = k;
      tr->observe(tasks[static_cast<size_t>(k)], {{"edges", encode_edges(edges)}});
    }
    trackers.push_back(std::move(tr));
  }
  ASSERT_GE(at, 0) << "no index of " << n << " mutates";
  std::vector<Task> released;
  for (auto &tr : trackers) {
    Task t = generated_task(ops, cfg, at);
    ASSERT_TRUE(tr->mutates(t));
    tr->hold(std::move(t));
    auto m = tr->release();
    ASSERT_TRUE(m.has_value());
    released.push_back(std::move(*m));
  }
  for (const auto &m : released) {
    EXPECT_EQ(m.index, at);
    ASSERT_TRUE(m.stored);
    EXPECT_FALSE(m.generated());
    EXPECT_EQ(m.origin.rfind("seed mutation at index " + std::to_string(at), 0), 0u) << m.origin;
  }
  EXPECT_EQ(released[0].origin, released[1].origin);
  EXPECT_EQ(to_json(*released[0].stored).dump(), to_json(*released[1].stored).dump());
}

// The worker's side on counters registered as a library's would be: an edge new to the process
// counts only if a second call of the case reaches it too (a lazy initialisation's edges, reached
// by whichever case ran first, do not).
TEST(Coverage, EdgesNewToTheProcessAreConfirmedByASecondCall) {
  // On the heap: not in the program's own image, which the callback leaves out.
  static std::vector<uint8_t> *counters = new std::vector<uint8_t>(8, 0);
  __sanitizer_cov_8bit_counters_init(counters->data(), counters->data() + counters->size());
  coverage_sut_loaded();
  EXPECT_EQ(coverage_library().value("edges", 0), 8);
  auto &k = *counters;
  const auto edges_of = [] {
    nlohmann::json r;
    coverage_attach(r);
    return r.contains("edges") ? decode_edges(r["edges"]) : std::vector<uint32_t>{99};
  };
  coverage_reset();
  k[1] = 3, k[5] = 1;                // the first call: edge 5 is a one-time initialisation
  ASSERT_TRUE(coverage_snapshot());  // new to the process
  EXPECT_EQ(k[1] + k[5], 0);         // zeroed for the second call
  k[1] = 1;                          // the second call
  coverage_confirm();
  EXPECT_EQ(edges_of(), (std::vector<uint32_t>{1}));
  coverage_reset();
  k[1] = 1, k[3] = 2;  // edge 3 is new and reached again
  ASSERT_TRUE(coverage_snapshot());
  k[1] = 1, k[3] = 1;
  coverage_confirm();
  EXPECT_EQ(edges_of(), (std::vector<uint32_t>{1, 3}));
  coverage_reset();
  k[3] = 1;  // nothing new: one call is enough
  EXPECT_FALSE(coverage_snapshot());
  EXPECT_EQ(edges_of(), (std::vector<uint32_t>{3}));
}

TEST(Coverage, EdgeListsRoundTrip) {
  const std::vector<uint32_t> edges{0, 3, 4, 900, 70000};
  EXPECT_EQ(encode_edges(edges), nlohmann::json({0, 3, 1, 896, 69100}));
  EXPECT_EQ(decode_edges(encode_edges(edges)), edges);
  EXPECT_THROW(decode_edges(nlohmann::json({1, 0})), std::runtime_error);  // not ascending
  EXPECT_THROW(decode_edges(nlohmann::json({-1})), std::runtime_error);
}

}  // namespace
