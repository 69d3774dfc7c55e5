// Coverage guidance for libraries compiled with clang's SanitizerCoverage
// (-fsanitize-coverage=inline-8bit-counters,pc-table; docs/mutation.md, "Coverage-instrumented
// builds"). The worker executable defines the callbacks such a library's module constructors
// call when it is loaded (__sanitizer_cov_8bit_counters_init, __sanitizer_cov_pcs_init), so each
// instrumented module of the SUT hands the worker its counters. Around each task's call of the SUT
// the worker zeroes them and then reads which edges the call hit; the task's result carries them
// ("edges"). A library built without the instrumentation never calls the callbacks: the worker
// reports no modules and the campaign runs unguided ("no coverage (library not instrumented)").
//
// The campaign (CoverageTracker) decides which cases reached new edges in index order, never in
// the order results arrived: a case is a seed if no case before it (corpus and fixed tasks by
// their index, then generated indices ascending) reached one of its edges, so the same seed and
// --cases give the same edges and seeds whatever the number of workers or their timing.
#pragma once

#include <cstdint>
#include <deque>
#include <iosfwd>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/frontier.hpp"
#include "campaign/task.hpp"

namespace aclnn_conform {

// ---- The worker's side ----

// The modules registered so far are the SUT's: modules loaded later (an instrumented competitor)
// are not counted. Called once the SUT is loaded.
void coverage_sut_loaded();
// The SUT's instrumentation, for the worker's hello: {"modules", "edges", "pcs"}; modules 0 when
// the library is not instrumented.
nlohmann::json coverage_library();
// Zeroes the SUT's counters (before a task's call).
void coverage_reset();
// Records the edges hit since coverage_reset() as the task's (after its call, before a shrink).
// True when some of them are new to this process: the caller then makes the same call once more
// and calls coverage_confirm(), which keeps only the edges both calls reached. An edge a library
// reaches once per process (a lazily built table, a static's first use, a thread pool's start)
// would otherwise go to whichever case a worker happened to run first, and the seeds, and the
// mutations drawn from them, would depend on the workers' timing.
bool coverage_snapshot();
void coverage_confirm();
// Moves the recorded edges into a task's result as "edges" (delta-encoded: see encode_edges),
// if a snapshot was taken since the last call.
void coverage_attach(nlohmann::json &result);

// Sorted edge indices as their first value and then the differences (compact on the pipe), and
// back. decode_edges throws std::runtime_error on a malformed list.
nlohmann::json encode_edges(const std::vector<uint32_t> &edges);
std::vector<uint32_t> decode_edges(const nlohmann::json &j);

// ---- The campaign's side ----

class CoverageTracker {
 public:
  // cfg: the campaign's (it regenerates a seed's case to mutate it); outlives the tracker.
  explicit CoverageTracker(const CampaignConfig &cfg) : cfg_(&cfg) {}

  // A worker's hello: the SUT's instrumentation (coverage_library()).
  void library(const nlohmann::json &hello);
  // A task's result (its "edges", if any).
  void observe(const Task &t, const nlohmann::json &result);
  // report.json's "coverage": whether the library is instrumented, its modules and edges, the
  // edges reached in all and per op, the seeds (cases that reached new edges) in index order.
  nlohmann::json summary() const;

  // The most seeds report.json lists (seed_count counts them all).
  static constexpr size_t kListedSeeds = 100;

  // Writes the seeds of generated indices and seed mutations (at most kStoredSeeds, in index
  // order) to <out_dir>/corpus/seeds/ as corpus entries named by their content
  // ("<op>-seed-<hash>.json"; an existing file is kept), for later runs in the same output
  // directory to replay after the counterexamples (load_seeds). Returns how many it wrote.
  static constexpr size_t kStoredSeeds = 200;
  int64_t store_seeds(const std::string &out_dir);

  // ---- Seed mutation (campaign/coverage_mutation.cpp) ----
  // With an instrumented SUT, one generated valid or invalid index in kMutationShare (chosen by a
  // hash of the index) becomes a seed mutation: a value mutation (special values, a few ulps,
  // swapped elements) of a seed chosen among the generated indices below its horizon
  // (k - kMutationLag * shards) that reached new edges, run as a stored case at index k. It is
  // held until every index below its horizon has completed (campaign/frontier.hpp), so it mutates
  // the same seed whatever the workers' timing; with no seed below the horizon the index runs its
  // own generated case.
  static constexpr int kMutationShare = 8;
  static constexpr int64_t kMutationLag = 64;
  void issued(int64_t k) { frontier_.issued(k); }
  void completed(int64_t k) { frontier_.completed(k); }
  bool mutates(const Task &t) const;
  void hold(Task t);
  bool holding() const { return !held_.empty(); }
  // The next held mutation whose horizon has passed (force: the first held, whatever the
  // frontier: nothing is in flight, so nothing below it can complete any more).
  std::optional<Task> release(bool force = false);

 private:
  struct Observed {
    std::string op, origin, kind;
    std::vector<uint32_t> edges;
    std::shared_ptr<const Task> task;  // generated and mutation indices: to mutate it as a seed
  };
  // Advances the seeds of generated indices (index >= 0) to every index below horizon.
  void scan_seeds(int64_t horizon);
  const CampaignConfig *cfg_;
  bool instrumented_ = false;
  nlohmann::json library_;
  Frontier frontier_;
  Deferred<Task> held_;
  std::set<uint32_t> scanned_edges_;  // edges reached below scanned_to_
  int64_t scanned_to_ = 0;
  std::vector<std::shared_ptr<const Task>> mutation_seeds_;  // in index order
  int64_t mutations_ = 0, mutations_of_none_ = 0, stored_ = 0;
  // Keyed by (stored tasks before generated ones, index, origin): the order novelty is decided in.
  std::map<std::tuple<int, int64_t, std::string>, Observed> observed_;
};

// The seeds earlier runs stored in <out_dir>/corpus/seeds/ as stored tasks (kind corpus, origin
// "seed <file>") with indices from -1 - first_index down, after the corpus's own; none if there
// are none. An unreadable file is skipped with a warning on log.
std::deque<Task> load_seeds(const std::string &out_dir, int64_t first_index, std::ostream &log);

// The report's lines on coverage (Markdown and HTML), from report.json's "coverage" (null: none).
// A merge's coverage from its shards' (null when none has any): the union of their edges, in all
// and per op (the same library: the merge checks its SHA-256); seeds, mutations and cases added
// up, seeds being each shard's own (a case that reached an edge no earlier case of its shard
// reached: "seeds_within_shards"). Shards without edge lists give a note instead of figures.
nlohmann::json merge_coverage(const std::vector<nlohmann::json> &shards);
std::string coverage_markdown(const nlohmann::json &coverage);
std::string coverage_html(const nlohmann::json &coverage);

}  // namespace aclnn_conform
