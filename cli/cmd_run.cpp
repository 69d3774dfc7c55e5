// aclnn-conform run (cli/cli.hpp): a conformance campaign - the budget or number of cases, the
// seed, the shard (from --shard, a Slurm array or an Indexed Job), the tier, the corpus - run on
// the SUT (campaign/campaign.hpp), then its reports.
#include <iostream>
#include <regex>
#include <tuple>

#include "campaign/shard_env.hpp"
#include "cli/cli.hpp"

namespace aclnn_conform::cli {

CLI::App *add_run(CLI::App &app, CampaignOptions &o) {
  auto *run = app.add_subcommand("run", "run a conformance campaign");
  add_campaign_options(run, o);
  run->add_option("--ops", o.cfg.ops, "ops to test (default: all; see `list ops`)")->delimiter(',');
  run->add_option("--budget", o.budget,
                  "time budget, e.g. 90s, 2m, 1.5h (default: 60s unless --cases)");
  run->add_option("--cases", o.cases, "number of generated cases (0: as many as the budget allows)")
      ->check(CLI::Validator(
          [](std::string &v) {
            return std::regex_match(v, std::regex("[0-9]{1,18}"))
                       ? std::string()
                       : "'" + v + "' is not a non-negative number of cases";
          },
          "N"));
  run->add_option("--seed", o.seed, "seed of the case space (0 .. 2^64-1, decimal or 0x hex)");
  run->add_option("--shard", o.shard,
                  "I/N: this process runs shard I of N of the seed space (default: from a Slurm "
                  "array or Kubernetes Indexed Job, else 0/1)");
  run->add_option("--shard-count", o.shard_count,
                  "N, for a Kubernetes Indexed Job (its index is JOB_COMPLETION_INDEX)");
  run->add_option("--tier", o.tier, "smoke, ci or nightly (case sizes, clause minimums)")
      ->check(CLI::IsMember({"smoke", "ci", "nightly"}));
  run->add_flag("--no-corpus", o.no_corpus, "do not replay or store counterexamples");
  run->add_flag("--no-climb", o.no_climb,
                "no targeted search: no valid case climbs towards the largest error against the "
                "oracle (the worst-input table still lists the worst element seen)");
  run->add_flag("--no-sweep", o.no_sweep,
                "no value sweeps: no valid case probes 65536 element values drawn without "
                "rapidcheck (elementwise ops), nor is a large call refilled with such values "
                "(the others)");
  run->add_flag("--no-adaptive", o.no_adaptive,
                "no adaptive scheduling: every generated index runs, each op and kind in its "
                "uniform share (the report's 'How the budget was spent' says which ran)");
  run->add_option("--schedule-lag", o.schedule_lag,
                  "generated indices (per shard) between a scheduling decision and the outcomes "
                  "it reads (default 1024)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  return run;
}

int run_run(CampaignOptions &o) {
  resolve_campaign_options(o);
  CampaignConfig &cfg = o.cfg;
  const std::string &budget = o.budget, &shard = o.shard, &tier = o.tier;
  CampaignResult r;
  std::string shard_source = "default";
  if (!budget.empty()) cfg.budget_seconds = parse_duration("--budget", budget);
  cfg.cases = o.cases;
  if (budget.empty() && cfg.cases == 0) cfg.budget_seconds = 60;
  cfg.seed = parse_u64("--seed", o.seed);
  // --shard, else a Slurm array or an Indexed Job; the report records which (shard_env.hpp).
  if (!shard.empty()) {
    std::tie(cfg.shard_index, cfg.shard_count) = parse_shard(shard);
    shard_source = "flag";
  } else {
    const ShardAssignment from_env = shard_from_environment(o.shard_count);
    cfg.shard_index = from_env.index;
    cfg.shard_count = from_env.count;
    shard_source = from_env.source;
  }
  cfg.tier = tier == "smoke" ? Tier::kSmoke : tier == "nightly" ? Tier::kNightly : Tier::kCi;
  cfg.use_corpus = !o.no_corpus;
  cfg.climb = !o.no_climb;
  cfg.sweep = !o.no_sweep;
  cfg.adaptive = !o.no_adaptive;
  cfg.schedule_lag = o.schedule_lag;
  r = run_campaign(cfg, std::cerr);
  return finish_campaign(r, o, shard_source);
}

}  // namespace aclnn_conform::cli
