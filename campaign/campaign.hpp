// A conformance campaign: generated cases for every selected op, run on a SUT in child processes
// (a crash or a hang is a recorded deviation, never the end of the campaign), judged clause by
// clause, with failing cases shrunk, fingerprinted against the spec's variants and stored in a
// corpus that the next run replays first.
//
// The campaign's units, one job each:
//   campaign.cpp         the run loop: queues tasks (corpus, edge rows, probes, the seed space) and
//                        pumps until done; the Campaign class's other jobs (campaign_run.hpp):
//     campaign_setup.cpp     set-up: the SUT's exports and product emulation, devices, workers
//     campaign_dispatch.cpp  batches of tasks to workers; crash shrinking's driver
//     campaign_records.cpp   records into verdicts and deviations; the result's assembly
//     campaign_deaths.cpp    crashes, hangs and device faults charged to the call in flight
//   selection.cpp        set-up: selects ops and clauses, warns about entries that match nothing
//   task.cpp             the units of work: the seed space, edge rows, fixed probes
//   worker_pool.cpp      worker processes started fresh (exec): pipes, the shared call-trace page,
//                        output capture, crash/hang detection, reaping, stopping, leftovers
//   worker_protocol.cpp  the pipes' commands and records and the accuracy rows they carry
//   worker.cpp           what a worker does with a task: runs, judges, shrinks, fingerprints it
//   worker_process.cpp   the worker process's main: loads the SUT, starts its device, commands
//   process_guard.cpp    what a SUT may do to the worker's process; the memory limit
//   crash_shrink.cpp     shrinking a crash or hang, one candidate per worker run
//   devices.cpp          --devices: spreading workers, retiring devices that fail
//   corpus.cpp           stores counterexamples and loads them for replay
//   result.cpp           CampaignResult: clause statuses, merging accuracy and shards;
//   result_json.cpp      its one serialisation (report.json, shards; a Deviation's to_json is also
//                        the pipe's failure record)
//   precision.cpp, precision_standards.cpp   the precision standards' tallies, and their outcomes
//   report.cpp           the reports' shared parts (report_detail.hpp), clause_counts() for them
//                        and the CLI; report_accuracy.cpp their accuracy rows
//   report_markdown.cpp, report_junit.cpp, report_html*.cpp (report_html_page.hpp)   the renderers
//   kit_tally.cpp, kit_policy.cpp   the vendor kits' standards per op/dtype and as --policy
//                        (reference/kit_standards.cpp has their rules; docs/standards.md)
//   ttk_parse.cpp, ttk_case.cpp, ttk_import.cpp   import-ttk: the kit's case files read, each row
//                        built into a case, the cases written as corpus entries
//   repro.cpp            standalone repro programs (repro_detail.hpp lists their pieces; the fixed
//                        part is repro/prelude.cpp); docs.cpp, golden.cpp, causes.cpp, ...
// Op-specific behaviour is read from the op's descriptor (properties/op.hpp, per-op hooks), never
// named here.
#pragma once

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "campaign/result.hpp"
#include "properties/judge.hpp"

namespace aclnn_conform {

enum class Tier { kSmoke, kCi, kNightly };
std::string tier_name(Tier t);

// Whether the SUT takes each call's product from ACLNN_CPU_SOC (campaign/product_emulation.hpp):
// auto decides by a probe call; on runs every product's rows and cases; off only `product`'s.
enum class ProductEmulation { kAuto, kOn, kOff };

struct CampaignConfig {
  // "builtin", "cann" (the vendor's three libraries under $ASCEND_HOME_PATH/lib64), the path of
  // a shared library exporting the ABI, or several paths joined by ':' in load order.
  std::string sut = "builtin";
  // The devices workers are spread over (aclrtSetDevice's ids).
  std::vector<int> devices{0};
  // A second library run on every valid case, for the precision standards' SUT/competitor
  // ratios (reported, never the verdict). "" for none; "builtin" or a path, as sut.
  std::string competitor;
  std::vector<std::string> ops;  // empty: every op in the registry
  Product product = Product::kAtlasA2;
  ProductEmulation product_emulation = ProductEmulation::kAuto;  // resolved to on/off by the run
  double budget_seconds = 0;  // 0: no time limit (then `cases` must be set)
  int64_t cases = 0;          // 0: no case limit (then `budget_seconds` must be set)
  uint64_t seed = 1;
  int jobs = 1;
  int shard_index = 0;
  int shard_count = 1;
  Tier tier = Tier::kCi;
  std::string out_dir = "campaign-out";
  JudgePolicy::Accuracy accuracy = JudgePolicy::Accuracy::kUlp;
  std::string kit_standard;  // kKit: the deciding vendor kit standard (campaign/kit_policy.hpp)
  std::vector<std::string> skips;   // clause IDs or property names ("GeluBackward/valid")
  std::vector<std::string> xfails;  // clause IDs expected to deviate
  double case_timeout_seconds = 30;
  // Below the case timeout, a call is suspected of hanging from how long this run's calls take,
  // and is called hung only if its case overruns again on another worker (campaign/hang_model.hpp).
  // false: the case timeout alone.
  bool adaptive_hang_timeout = true;
  // The allowance of first calls: a worker's start (loading the library, aclInit, aclrtSetDevice,
  // its stream) and each op's warm-up call, when a device loads its kernels.
  double first_call_timeout_seconds = 60;
  bool progress = false;          // a progress line on stderr
  bool use_corpus = true;         // replay <out>/corpus first, store new counterexamples there
  int shrink_attempts = 400;      // per deviation
  int deviations_per_clause = 3;  // shrink and keep at most this many per clause
  // Unreached / under-tested clauses do not make the verdict INCOMPLETE (the report lists them).
  bool allow_incomplete = false;
  // Targeted search for accuracy (campaign/climb.hpp): part of the valid cases climb towards the
  // largest error. --no-climb turns it off (A/B).
  bool climb = true;
  // Value sweeps (properties/sweep.hpp): part of the valid cases of elementwise ops probe
  // kSweepElements element values each. --no-sweep turns them off (A/B).
  bool sweep = true;
  // Adaptive scheduling (campaign/schedule.hpp): generated indices of units that have shown
  // nothing new for long are skipped, down to a floor. --no-adaptive turns it off (A/B); off at
  // the smoke tier. schedule_lag: indices (per shard) between a decision and the outcomes it reads.
  bool adaptive = true;
  int64_t schedule_lag = 1024;
  // Variants the SUT follows by design (--expect-variant): deviations they explain are
  // "conforms to variant", not "deviates".
  std::vector<std::string> expect_variants;
  // ECMAScript regex (searched, as ctest -R): clauses it does not match are skipped by selection
  // and do not count towards the verdict. Empty: every clause.
  std::string clause_pattern;
  std::string replay_case_id;  // replay: only the corpus entry with this id (file stem)
  // Set by the CLI's SIGINT/SIGTERM handler: the engine stops its workers and returns what ran,
  // with CampaignResult::interrupted = true, within 5 s.
  const volatile std::sig_atomic_t *stop_requested = nullptr;
};

// Generator size bound of a tier (rapidcheck's size parameter).
int tier_max_size(Tier t);
// Cases that must reach each clause for the tier before it can be judged conforming.
int tier_min_cases(Tier t);

// Runs the campaign and returns its result (reports are written by the caller). Throws
// std::runtime_error on a set-up error (SUT cannot be loaded, no such op, ...).
CampaignResult run_campaign(const CampaignConfig &config, std::ostream &log);

// corpus_files(), load_corpus(): campaign/corpus.hpp.

// Re-runs stored counterexamples (corpus files or a directory of them) on the SUT.
CampaignResult replay_cases(const CampaignConfig &config, const std::vector<std::string> &paths,
                            std::ostream &log);

}  // namespace aclnn_conform
