// The units of work of a campaign: one case of one op, run and judged in a worker process. Tasks
// come from the corpus (stored counterexamples), the edge tables, the protocol probes, and the
// seeded case space (generated valid and invalid cases), in that order.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "edge_cases/edge_case.hpp"
#include "properties/op.hpp"

namespace aclnn_conform {

struct Task {
  enum class Kind {
    kValid,     // a generated valid call
    kInvalid,   // a generated call breaking one or more error clauses
    kProtocol,  // a valid call on which the shared ABI rules are probed (properties/protocol.hpp)
    kCorpus,    // a stored counterexample
    kEdge,      // an edge-table row: its call, judged by the oracle and by the row's literals
  };
  int64_t index = 0;  // global index in the seed space; negative for corpus, edge and fixed probes
  const OpDescriptor *op = nullptr;
  Kind kind = Kind::kValid;
  uint64_t seed = 0;
  int size = 0;
  bool large = false;  // a valid case from the op's gen_large (threaded paths, workspaces)
  // A valid value sweep (properties/sweep.hpp): kSweepElements element values of an elementwise
  // op, drawn from the seed without rapidcheck, shrunk by halves.
  bool sweep = false;
  std::shared_ptr<const Case> stored;   // corpus, edge and fixed-probe cases
  std::shared_ptr<const EdgeCase> row;  // edge rows
  std::string origin;                   // how to find the case again, for reports
  std::string corpus_id;                // corpus entries: the file stem (replay --case ID)
  int64_t edge_row = -1;                // edge rows: the row's position in all_edge_cases()
  // The worker ends with the call examples' teardown after this task (ABI-RUNTIME-1): its
  // results join the task's, and the worker exits (a runtime need not start twice in a process).
  bool teardown = false;
  // A climb task (campaign/climb.hpp): a local search towards the largest error, from the start
  // the campaign gave it (seed/size of an earlier generated case, or a stored climbed case) in
  // climb_dtype ("": its own case, any dtype).
  bool climb = false;
  std::string climb_dtype;
  // A suspected hang's second run: the worker first loads the task's kernel with a small valid
  // call of its op and dtypes (kernel_load_case), so that the task's own call is timed as a known
  // kernel's even on a worker that has not run that kernel yet.
  bool load_kernel_first = false;

  bool generated() const { return !stored; }  // has a rapidcheck shrink tree
  std::string property() const;               // "GeluBackward/valid", ".../invalid", ...
};

// A task as it crosses the pipe to a worker, and back: generated tasks travel as their index,
// seed and size (the worker draws the same case), stored ones with their case, edge rows whole
// (their position in the tables, call, status and literals: no worker draws the tables).
nlohmann::json to_json(const Task &t);
Task task_from_json(const nlohmann::json &j);  // throws std::runtime_error on an unknown op

// The first valid, non-empty call of a fixed seed sequence at this size: the protocol probes'
// fixed calls and the call a worker warms an op up with.
std::optional<Case> fixed_valid_case(const OpDescriptor &op, Product product, int size);

// The call a worker warms an op up with (its first call in the worker), as a task: the fixed
// small valid call, so that a death or a device fault in it can be charged to a case.
std::optional<Task> warm_up_task(const OpDescriptor &op, const CampaignConfig &cfg);

// The kernel a valid case runs, as a device selects one: the op and each tensor's dtype.
std::string kernel_signature(const OpDescriptor &op, const Case &c);

// A small valid, non-empty call that runs the kernel of t's case c (its op and dtypes; c is passed
// so that a caller who has drawn it need not draw it again): what loads it before t runs. The
// smallest (fewest elements, then lowest rank) among the shrinks of a generated case and a fixed
// sequence of small generated calls; nullopt when none of them runs that kernel.
std::optional<Case> kernel_load_case(const Task &t, const Case &c, const CampaignConfig &cfg);

// That call as a task, named after the task it was made for (a death in it is charged to it).
std::optional<Task> kernel_load_task(const Task &for_task, const CampaignConfig &cfg);

// Whether the user skipped a clause ID or a property name ("GeluBackward/valid").
bool is_skipped(const CampaignConfig &cfg, const std::string &entry);

// Global index k of the seed space: its op, kind (two valid cases to one invalid, one protocol
// probe in 32; above the smoke tier, one valid case in 24 is large where the op has large cases)
// and size drawn from a hash of k, its own seed; with cfg.climb, above the smoke tier, one valid
// non-large case in 32 is a climb task (campaign/climb.hpp); with cfg.sweep, above the smoke tier,
// one valid non-large case in 24 of an elementwise op with sweeps (48 of another op) is a value
// sweep (properties/sweep.hpp).
// Shard i of N takes the k with k mod N = i, and so runs every op whatever N is.
Task generated_task(const std::vector<const OpDescriptor *> &ops, const CampaignConfig &cfg,
                    int64_t k);

// The case of a task, and (generated tasks only) its rapidcheck shrink tree: for cfg.product, and
// unless the SUT emulates products (cfg.product_emulation on), never for another product.
Case task_case(const Task &t, const CampaignConfig &cfg);
rc::Shrinkable<Case> task_shrinkable(const Task &t, const CampaignConfig &cfg);
// Whether a stored or generated case can run on the SUT: its product is the campaign's, or the
// SUT emulates products.
bool product_runs(const Case &c, const CampaignConfig &cfg);

// Every edge row of the given ops as a task, in table order.
std::vector<Task> edge_tasks(const std::vector<const OpDescriptor *> &ops);

// One protocol probe per op on a small fixed valid call (so every SUT gets the two-phase rules
// probed at the start, whatever the budget), then (above the smoke tier) per op with large cases
// two large valid calls of the campaign's seed: threaded paths and workspaces in any budget.
std::vector<Task> fixed_probe_tasks(const std::vector<const OpDescriptor *> &ops,
                                    const CampaignConfig &cfg);

}  // namespace aclnn_conform
