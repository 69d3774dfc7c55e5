// aclnn-conform: conformance campaigns of any aclnn implementation against the specification.
// Exit status: 0 conformant, 1 deviations found, 2 usage or set-up error.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "campaign/campaign.hpp"
#include "campaign/docs.hpp"
#include "campaign/golden.hpp"
#include "campaign/report.hpp"
#include "campaign/repro.hpp"
#include "campaign/result.hpp"
#include "campaign/shard_env.hpp"
#include "edge_cases/edge_case.hpp"
#include "properties/clauses.hpp"
#include "properties/op.hpp"

namespace fs = std::filesystem;
using namespace aclnn_conform;

namespace {

constexpr int kConformant = 0, kDeviations = 1, kUsage = 2;

// "90s", "2m", "1h", "1.5m" or plain seconds.
double parse_duration(const std::string &text) {
  size_t used = 0;
  const double v = std::stod(text, &used);
  const std::string unit = text.substr(used);
  if (unit.empty() || unit == "s") return v;
  if (unit == "m") return v * 60;
  if (unit == "h") return v * 3600;
  throw std::invalid_argument("bad duration '" + text + "' (use 90s, 2m, 1h)");
}

std::vector<std::string> read_list(const std::string &path) {
  std::vector<std::string> out;
  if (path.empty()) return out;
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read " + path);
  std::string line;
  while (std::getline(in, line)) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    line.erase(0, line.find_first_not_of(" \t\r"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// Repro programs for every deviation, then every report file.
void write_outputs(CampaignResult &r, const std::string &out_dir, bool ascend) {
  ReproOptions repro_options;
  if (ascend) repro_options.tolerance = aclnn_ref::Tolerance::ascend();
  fs::create_directories(out_dir);
  write_repros(r, out_dir, repro_options);
  std::ofstream(fs::path(out_dir) / "report.json") << to_json(r).dump(1) << "\n";
  write_reports(r, out_dir);
}

void print_summary(const CampaignResult &r, const std::string &out_dir) {
  int conforms = 0, deviates = 0, not_reached = 0, skipped = 0, xfail = 0;
  for (const auto &c : r.clauses) {
    switch (c.status) {
      case ClauseStatus::kConforms:
        ++conforms;
        break;
      case ClauseStatus::kDeviates:
        ++deviates;
        break;
      case ClauseStatus::kNotReached:
        ++not_reached;
        break;
      case ClauseStatus::kSkipped:
        ++skipped;
        break;
      case ClauseStatus::kExpectedFailure:
        ++xfail;
        break;
    }
  }
  std::cout << fmt::format("aclnn-conform: {} on {} ({} tier, {} policy, seed {}, shard {})\n",
                           r.sut, r.product, r.tier, r.policy, r.seed, r.shard);
  std::cout << fmt::format(
      "  {} cases in {:.1f} s; clauses: {} conform, {} deviate, {} not reached, "
      "{} skipped, {} expected failures\n",
      r.cases, r.seconds, conforms, deviates, not_reached, skipped, xfail);
  for (const auto &c : r.clauses) {
    if (c.status != ClauseStatus::kDeviates) continue;
    std::cout << fmt::format(
        "  DEVIATES {} ({} of {} cases): {}\n", c.id, c.deviations, c.reached,
        c.variants.empty() ? "no known variant"
                           : "matches variant " + fmt::format("{}", fmt::join(c.variants, ", ")));
  }
  for (const auto &w : r.warnings) std::cout << "  warning: " << w << "\n";
  std::cout << fmt::format("  verdict: {}; report in {}/report.{{json,md,xml,html}}\n",
                           r.conformant() ? "CONFORMANT" : "DEVIATIONS FOUND", out_dir);
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"aclnn-conform: conformance campaigns of aclnn implementations"};
  app.require_subcommand(1);

  CampaignConfig cfg;
  cfg.jobs = std::max(1u, std::thread::hardware_concurrency());
  std::string budget = "", soc = "ascend910b", tier = "ci", policy = "ulp", shard, skips_file,
              xfails_file;
  bool quiet = false;

  auto add_common = [&](CLI::App *c) {
    c->add_option("--sut", cfg.sut, "builtin, or the path of a shared library exporting the ABI");
    c->add_option("--soc", soc,
                  "product whose gates apply: ascend910b, ascend910_93, ascend910, ascend310p");
    c->add_option("--out", cfg.out_dir, "output directory (reports, corpus, repros)");
    c->add_option("--policy", policy,
                  "accuracy verdict: ulp (VAL-TOL-1 part 2) or ascend (MERE/MARE)")
        ->check(CLI::IsMember({"ulp", "ascend"}));
    c->add_option("--jobs", cfg.jobs, "worker processes");
    c->add_option("--skips", skips_file,
                  "file of clause IDs or property names (Op/valid, Op/invalid) to skip");
    c->add_option("--xfails", xfails_file, "file of clause IDs expected to deviate");
    c->add_option("--case-timeout", cfg.case_timeout_seconds,
                  "seconds before a case counts as hung");
    c->add_flag("--quiet", quiet, "no progress line");
  };

  auto *run = app.add_subcommand("run", "run a conformance campaign");
  add_common(run);
  run->add_option("--ops", cfg.ops, "ops to test (default: all; see `list ops`)")->delimiter(',');
  run->add_option("--budget", budget, "time budget, e.g. 90s, 2m");
  run->add_option("--cases", cfg.cases, "number of generated cases");
  run->add_option("--seed", cfg.seed, "seed of the case space");
  run->add_option("--shard", shard, "I/N: this process runs shard I of N of the seed space");
  // [integrate] Without --shard the scheduler's environment picks the shard (shard_env.hpp).
  int shard_count = 0;
  run->add_option("--shard-count", shard_count,
                  "N, for a Kubernetes Indexed Job (its index is JOB_COMPLETION_INDEX)");
  ShardAssignment shard_choice;
  run->add_option("--tier", tier, "smoke, ci or nightly (case sizes)")
      ->check(CLI::IsMember({"smoke", "ci", "nightly"}));
  bool no_corpus = false;
  run->add_flag("--no-corpus", no_corpus, "do not replay or store counterexamples");

  auto *replay =
      app.add_subcommand("replay", "re-run stored counterexamples (corpus files or directories)");
  add_common(replay);
  std::vector<std::string> replay_paths;
  replay->add_option("paths", replay_paths, "corpus directory or case files")->required();

  auto *merge =
      app.add_subcommand("merge", "merge shard reports (report.json files or their directories)");
  std::vector<std::string> merge_inputs;
  std::string merge_out = "campaign-merged";
  merge->add_option("inputs", merge_inputs)->required();
  merge->add_option("--out", merge_out, "output directory of the merged report");

  auto *list = app.add_subcommand("list", "list ops, clauses, variants or the traceability table");
  std::string what;
  list->add_option("what", what)
      ->required()
      ->check(CLI::IsMember({"ops", "clauses", "variants", "traceability"}));

  auto *docs = app.add_subcommand("docs", "write the generated docs (spec pages, traceability)");
  std::string docs_dir = "docs/spec";
  docs->add_option("dir", docs_dir, "output folder");

  auto *golden = app.add_subcommand("golden", "oracle outputs for given inputs (.bin and .npy)");
  std::string golden_request, golden_out = "golden-out";
  golden
      ->add_option("request", golden_request,
                   "JSON request: op, product, attrs, tensors with .bin files")
      ->required();
  golden->add_option("--out", golden_out, "output directory");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kUsage;
  }

  try {
    if (*list) {
      if (what == "ops") {
        for (const auto *op : registry())
          std::cout << fmt::format("{:<24} {} ({} clauses, variants: {})\n", op->name, op->abi_name,
                                   op->clauses.size(), fmt::join(op->variants, ", "));
      } else if (what == "clauses") {
        for (const auto &c : clause_catalog())
          std::cout << fmt::format("{:<22} {:<20} {:<8} {}\n", c.id, c.op, c.kind,
                                   c.text.substr(0, 90));
      } else if (what == "variants") {
        for (const auto &c : clause_catalog())
          for (const auto &[name, text] : c.variants)
            std::cout << fmt::format("{:<16} {:<22} {}\n", name, c.id, text.substr(0, 90));
      } else {
        std::cout << generated_docs().at("traceability.md");
      }
      return kConformant;
    }
    if (*docs) {
      for (const auto &[name, text] : generated_docs()) {
        const fs::path p = fs::path(docs_dir) / name;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
      }
      return kConformant;
    }
    if (*merge) {
      std::vector<CampaignResult> shards;
      for (const auto &in : merge_inputs) {
        const fs::path p = fs::is_directory(in) ? fs::path(in) / "report.json" : fs::path(in);
        std::ifstream f(p);
        if (!f) throw std::invalid_argument("cannot read " + p.string());
        shards.push_back(result_from_json(nlohmann::json::parse(f)));
      }
      CampaignResult m = merge_results(shards);
      fs::create_directories(merge_out);
      std::ofstream(fs::path(merge_out) / "report.json") << to_json(m).dump(1) << "\n";
      write_reports(m, merge_out);
      print_summary(m, merge_out);
      return m.conformant() ? kConformant : kDeviations;
    }
    if (*golden) {
      std::ifstream f(golden_request);
      if (!f) throw std::invalid_argument("cannot read " + golden_request);
      auto request = nlohmann::json::parse(f);
      // Relative .bin paths are taken from the request file's folder unless it says otherwise.
      if (!request.contains("base_dir"))
        request["base_dir"] = fs::absolute(golden_request).parent_path().string();
      const auto summary = run_golden(request, golden_out);
      std::cout << summary.dump(1) << "\n";
      return kConformant;
    }
    const auto product = product_from_name(soc);
    if (!product) throw std::invalid_argument("unknown --soc '" + soc + "'");
    cfg.product = *product;
    cfg.accuracy =
        policy == "ascend" ? JudgePolicy::Accuracy::kAscend : JudgePolicy::Accuracy::kUlp;
    cfg.skips = read_list(skips_file);
    cfg.xfails = read_list(xfails_file);
    cfg.progress = !quiet && isatty(STDERR_FILENO) && std::getenv("CI") == nullptr;
    CampaignResult r;
    if (*run) {
      if (!budget.empty()) cfg.budget_seconds = parse_duration(budget);
      if (budget.empty() && cfg.cases == 0) cfg.budget_seconds = 60;
      // [integrate] --shard, else Slurm array / Indexed Job; the report records which.
      shard_choice = shard.empty() ? shard_from_environment(shard_count) : parse_shard_flag(shard);
      cfg.shard_index = shard_choice.index;
      cfg.shard_count = shard_choice.count;
      cfg.tier = tier == "smoke" ? Tier::kSmoke : tier == "nightly" ? Tier::kNightly : Tier::kCi;
      cfg.use_corpus = !no_corpus;
      r = run_campaign(cfg, std::cerr);
      r.shard_source = shard_choice.source;  // [integrate]
    } else {
      r = replay_cases(cfg, replay_paths, std::cerr);
    }
    write_outputs(r, cfg.out_dir, cfg.accuracy == JudgePolicy::Accuracy::kAscend);
    print_summary(r, cfg.out_dir);
    return r.conformant() ? kConformant : kDeviations;
  } catch (const std::exception &e) {
    std::cerr << "aclnn-conform: " << e.what() << "\n";
    return kUsage;
  }
}
