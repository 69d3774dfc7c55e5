// What run and replay share (cli/cli.hpp): their common options, bound to one CampaignOptions,
// the resolution of those options into the CampaignConfig (product, emulation, policy, devices,
// skips and xfails, clause pattern, expected variants, progress, stop handlers), and a campaign's
// end (its result completed, repros and reports, the summary, the exit status).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <thread>

#include "campaign/devices.hpp"
#include "campaign/kit_policy.hpp"
#include "cli/cli.hpp"
#include "properties/clauses.hpp"
#include "properties/op.hpp"

namespace aclnn_conform::cli {

namespace {

std::set<std::string> known_variants() {
  std::set<std::string> names;
  for (const auto *op : registry()) names.insert(op->variants.begin(), op->variants.end());
  for (const auto &c : clause_catalog())
    for (const auto &v : c.variants) names.insert(v.first);
  return names;
}

}  // namespace

CampaignOptions::CampaignOptions() {
  cfg.jobs = std::max(1u, std::thread::hardware_concurrency());
}

void add_campaign_options(CLI::App *c, CampaignOptions &o) {
  c->add_option("--sut", o.cfg.sut,
                "builtin; the path of a shared library exporting the ABI; a library split over "
                "several files, in load order: a.so:b.so:c.so; or cann: the vendor's "
                "libascendcl.so, libnnopbase.so and libopapi.so under $ASCEND_HOME_PATH/lib64");
  c->add_option("--devices", o.devices,
                "devices to spread the workers over: 0, 0-7, 0,2,4 (aclrtSetDevice's ids)");
  c->add_option("--first-call-timeout", o.cfg.first_call_timeout_seconds,
                "seconds a worker's start (library, aclInit, aclrtSetDevice, stream) and each "
                "op's first call in a worker may take (a device loads its kernels then)")
      ->check(CLI::Range(0.001, 1e6));
  c->add_option("--competitor", o.cfg.competitor,
                "a second aclnn library (builtin or a path) run on every valid case: the "
                "report gives SUT/competitor error ratios (reported, not the verdict)");
  c->add_option("--soc", o.soc,
                "product whose gates apply: ascend910b, ascend910_93, ascend910, ascend310p");
  c->add_option("--product-emulation", o.emulation,
                "whether the SUT takes each call's product from ACLNN_CPU_SOC (as the built-in "
                "library does): auto probes it; off runs only --soc's rows and cases")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  c->add_option("--out", o.cfg.out_dir, "output directory (reports, corpus, repros)");
  c->add_option("--policy", o.policy,
                "the standard that decides the accuracy verdict: ulp (VAL-TOL-1 part 2), ascend "
                "(MERE/MARE) or a vendor kit's standard (ttk-mixed, msprobe-benchmark, ...; "
                "docs/standards.md); every standard is reported either way")
      ->check(CLI::IsMember(policy_names()));
  c->add_option("--jobs", o.cfg.jobs, "worker processes")->check(CLI::Range(1, 1024));
  c->add_option("--skips", o.skips_file,
                "file of clause IDs or property names (Op/valid, Op/invalid) to skip");
  c->add_option("--xfails", o.xfails_file, "file of clause IDs expected to deviate");
  c->add_option("--case-timeout", o.cfg.case_timeout_seconds,
                "seconds before a case counts as hung at the latest (a call that runs far "
                "longer than the run's calls predict is suspected earlier, and hung if its "
                "case overruns again on another worker)")
      ->check(CLI::Range(0.001, 1e6));
  c->add_flag("--fixed-case-timeout", o.fixed_case_timeout,
              "no earlier suspicion: every call gets the whole --case-timeout");
  c->add_option("--clauses", o.cfg.clause_pattern,
                "only clauses whose ID matches this ECMAScript regex (as ctest -R); the others "
                "are skipped by selection and do not count");
  c->add_option("--expect-variant", o.cfg.expect_variants,
                "variants the SUT follows by design (see `list variants`): deviations they "
                "explain count as 'conforms to variant'")
      ->delimiter(',');
  c->add_flag("--allow-incomplete", o.cfg.allow_incomplete,
              "exit 0, not 3, when clauses are not reached or under-tested (the report still "
              "lists them)");
  c->add_flag("--quiet", o.quiet, "no progress line");
}

void resolve_campaign_options(CampaignOptions &o) {
  CampaignConfig &cfg = o.cfg;
  const std::string &soc = o.soc, &emulation = o.emulation, &policy = o.policy,
                    &devices = o.devices;
  const auto product = product_from_name(soc);
  if (!product) throw UsageError("--soc: unknown product '" + soc + "'");
  cfg.product = *product;
  cfg.adaptive_hang_timeout = !o.fixed_case_timeout;
  cfg.product_emulation = emulation == "on"    ? ProductEmulation::kOn
                          : emulation == "off" ? ProductEmulation::kOff
                                               : ProductEmulation::kAuto;
  set_policy(cfg, policy);
  if (const std::string why = policy_problem(cfg); !why.empty()) throw UsageError(why);
  try {
    cfg.devices = parse_devices(devices);
  } catch (const std::invalid_argument &e) {
    throw UsageError(std::string("--devices: ") + e.what());
  }
  cfg.skips = read_list("--skips", o.skips_file);
  cfg.xfails = read_list("--xfails", o.xfails_file);
  if (!cfg.clause_pattern.empty()) check_pattern(cfg.clause_pattern);
  const auto variants = known_variants();
  for (const auto &v : cfg.expect_variants)
    if (!variants.count(v))
      throw UsageError(fmt::format("--expect-variant: no variant named '{}' (known: {})", v,
                                   fmt::join(variants, ", ")));
  cfg.progress = !o.quiet && isatty(STDERR_FILENO) && std::getenv("CI") == nullptr;
  cfg.stop_requested = &g_stop;
  install_stop_handlers();
}

int finish_campaign(CampaignResult &r, CampaignOptions &o, const std::string &shard_source) {
  CampaignConfig &cfg = o.cfg;
  complete_result(r, cfg, cfg.sut, shard_source);
  write_outputs(r, cfg.out_dir, policy_name(cfg));
  print_summary(r, cfg.out_dir);
  return exit_code(r.verdict());
}

}  // namespace aclnn_conform::cli
