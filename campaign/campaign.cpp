// The campaign's run loop (campaign/campaign_run.hpp lists the Campaign class's other files): the
// first tasks queued (the corpus, every edge row and protocol probe, sharded), then dispatch,
// records and shrinks pumped until the work, the budget or the run ends; the tiers; run_campaign
// and replay_cases.
#include "campaign/campaign.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <stdexcept>

#include "campaign/campaign_run.hpp"
#include "campaign/corpus.hpp"
#include "campaign/coverage.hpp"
#include "campaign/product_emulation.hpp"
#include "campaign/selection.hpp"

namespace aclnn_conform {

std::string tier_name(Tier t) {
  switch (t) {
    case Tier::kSmoke:
      return "smoke";
    case Tier::kCi:
      return "ci";
    case Tier::kNightly:
      return "nightly";
  }
  return "ci";
}

int tier_max_size(Tier t) {
  switch (t) {
    case Tier::kSmoke:
      return 30;
    case Tier::kCi:
      return 70;
    case Tier::kNightly:
      return 100;
  }
  return 70;
}

int tier_min_cases(Tier t) {
  switch (t) {
    case Tier::kSmoke:
      return 1;
    case Tier::kCi:
      return 5;
    case Tier::kNightly:
      return 20;
  }
  return 5;
}

namespace campaign_detail {

int64_t worker_task_limit() {
  const char *env = std::getenv("ACLNN_CONFORM_WORKER_TASKS");
  const long long n = env ? std::atoll(env) : 0;
  return n > 0 ? n : 512;
}

CampaignResult Campaign::run(std::deque<Task> corpus, bool generate) {
  start_ = Clock::now();
  if (cfg_.budget_seconds > 0)
    deadline_ = start_ + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(cfg_.budget_seconds));
  try {
    setup();
  } catch (...) {
    pool_.stop_all();
    throw;
  }
  int64_t other_product = 0;  // stored cases for a product the SUT cannot be run as
  for (auto &t : corpus) {
    if (!t.stored || product_runs(*t.stored, cfg_))
      pending_.push_back(std::move(t));
    else
      ++other_product;
  }
  if (generate) {
    // Every SUT gets every edge row and the protocol probes first, whatever the budget.
    // Shards split them like the seed space, so that shards merge into the whole.
    std::vector<Task> first = edge_tasks(ops_);
    for (auto &t : fixed_probe_tasks(ops_, cfg_)) first.push_back(std::move(t));
    for (size_t j = 0; j < first.size(); ++j) {
      if (static_cast<int>(j % static_cast<size_t>(cfg_.shard_count)) != cfg_.shard_index ||
          is_skipped(cfg_, first[j].property()))
        continue;
      // Generated tasks (the large calls) are drawn for --soc's product already.
      if (!first[j].stored || product_runs(*first[j].stored, cfg_))
        pending_.push_back(std::move(first[j]));
      else
        ++other_product;
    }
  }
  if (other_product > 0 && !setup_done_)
    result_.warnings.push_back(fmt::format(
        "{} stored case(s) and edge row(s) for products other than {} were not run: the run "
        "was stopped before the SUT had started",
        other_product, product_name(cfg_.product)));
  else if (other_product > 0)
    result_.warnings.push_back(fmt::format(
        "{} stored case(s) and edge row(s) for products other than {} were not run, nor "
        "generated cases for them: the SUT does not take the product from ACLNN_CPU_SOC ({}); "
        "--product-emulation on runs them on a SUT that does",
        other_product, product_name(cfg_.product), emulation_evidence_));
  for (const auto &t : pending_) task_opened(t);
  generate_ = generate;
  while (true) {
    if (stop_requested()) {
      stop_all("interrupted");
      result_.interrupted = true;
      break;
    }
    if (cfg_.budget_seconds > 0 && Clock::now() >= deadline_ + kGrace) {
      stop_all("the budget ran out");
      break;
    }
    manage_shrink();
    fill();
    if (pool_.empty()) {
      if (!has_work() && !shrinker_ && crash_queue_.empty()) break;
      if (devices_.all_retired()) {
        result_.aborted =
            "every device was retired (see the devices table): the run covers "
            "only what ran before";
        break;
      }
    }
    pump();
    progress();
  }
  // Shrinks not finished in time: their crashes are recorded unshrunk.
  if (shrinker_) finish_shrink(false);
  for (auto &s : crash_queue_) {
    auto it = pending_crashes_.find(s.task.index);
    if (it != pending_crashes_.end()) record_crash(it->second, nullptr, 0);
  }
  crash_queue_.clear();
  for (auto &[index, p] : pending_crashes_) record_crash(p, nullptr, 0);
  pending_crashes_.clear();
  pool_.stop_all();
  finish_result();
  return std::move(result_);
}

}  // namespace campaign_detail

namespace {

namespace fs = std::filesystem;
using campaign_detail::Campaign;

void validate(const CampaignConfig &cfg) {
  if (cfg.jobs < 1) throw std::invalid_argument("--jobs must be at least 1");
  if (cfg.shard_count < 1 || cfg.shard_index < 0 || cfg.shard_index >= cfg.shard_count)
    throw std::invalid_argument("--shard I/N needs 0 <= I < N");
  if (cfg.budget_seconds <= 0 && cfg.cases <= 0)
    throw std::invalid_argument("give a --budget or a number of --cases");
}

}  // namespace

CampaignResult run_campaign(const CampaignConfig &cfg, std::ostream &log) {
  validate(cfg);
  std::deque<Task> corpus;
  if (cfg.use_corpus) {
    const fs::path dir = fs::path(cfg.out_dir) / "corpus";
    if (fs::is_directory(dir)) corpus = load_corpus({dir.string()}, "", log);
    // Then the seeds an instrumented SUT's earlier runs kept (campaign/coverage.hpp).
    for (auto &t : load_seeds(cfg.out_dir, static_cast<int64_t>(corpus.size()), log))
      corpus.push_back(std::move(t));
  }
  // Stored counterexamples of ops outside --ops are left for a run that selects them.
  if (!cfg.ops.empty())
    std::erase_if(corpus, [&](const Task &t) {
      return std::find(cfg.ops.begin(), cfg.ops.end(), t.op->name) == cfg.ops.end();
    });
  Campaign campaign(cfg, log);
  return campaign.run(std::move(corpus), true);
}

CampaignResult replay_cases(const CampaignConfig &cfg, const std::vector<std::string> &paths,
                            std::ostream &log) {
  CampaignConfig c = cfg;
  c.use_corpus = false;
  std::deque<Task> tasks = load_corpus(paths, cfg.replay_case_id, log);
  if (tasks.empty()) throw std::invalid_argument("no stored counterexamples found to replay");
  Campaign campaign(c, log);
  return campaign.run(std::move(tasks), false);
}

}  // namespace aclnn_conform
