// A run's outputs (cli/cli.hpp): its result completed with what the CLI knows, its repro programs
// and report files written, and the terminal's summary with one FALSIFIED line per deviating
// clause and the commands that re-run and rebuild it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <iostream>

#include "campaign/outputs.hpp"
#include "campaign/report.hpp"
#include "campaign/repro.hpp"
#include "cli/cli.hpp"

namespace aclnn_conform::cli {

// Fills what the CLI knows about a run into its result (the engine may have set them already)
// and recomputes the statuses with the run's selection, variants and coverage rule.
void complete_result(CampaignResult &r, const CampaignConfig &cfg, const std::string &sut_path,
                     const std::string &shard_source) {
  if (r.sut_identity.sha256.empty()) r.sut_identity = identify_sut(sut_files(sut_path).back());
  if (r.tool_version.empty()) r.tool_version = conform_version();
  if (r.shard_source.empty()) r.shard_source = shard_source;
  r.allow_incomplete = cfg.allow_incomplete;
  r.expected_variants = cfg.expect_variants;
  r.clause_pattern = cfg.clause_pattern;
  r.interrupted = r.interrupted || g_stop != 0;
  finalize_statuses(r);
}

// Repro programs for every deviation, then every report file (campaign/outputs.hpp, which the
// Python module shares).
void write_outputs(CampaignResult &r, const std::string &out_dir, const std::string &policy) {
  write_campaign_outputs(r, out_dir, policy);
}

namespace {

// The repro's build command: the line "// build: ..." of its header comment, if it has one.
std::string repro_build_line(const fs::path &repro) {
  std::ifstream in(repro);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("// build: ", 0) == 0) return line.substr(10);
  return "";
}

// The --sut that loads the library a result is about again: its files in load order.
std::string sut_argument(const CampaignResult &r) {
  if (r.sut_files.size() > 1) {
    std::string spec;
    for (const auto &f : r.sut_files) spec += (spec.empty() ? "" : ":") + f.path;
    return spec;
  }
  return r.sut_identity.path.empty() ? r.sut : r.sut_identity.path;
}

}  // namespace

void print_summary(const CampaignResult &r, const std::string &out_dir) {
  const ClauseCounts n = clause_counts(r);
  std::cout << fmt::format(
      "aclnn-conform {}: {} ({}, sha256 {}) on {} ({} tier, deciding standard {}, seed {}, "
      "shard {})\n",
      r.tool_version, r.sut, r.sut_identity.path, r.sut_identity.sha256.substr(0, 12), r.product,
      r.tier, r.policy, r.seed, r.shard);
  std::cout << fmt::format(
      "  {} cases in {:.1f} s; clauses: {} conform, {} conform to an expected variant, {} "
      "deviate, {} not reached, {} under-tested, {} skipped, {} expected failures\n",
      r.cases, r.seconds, n.conforms, n.variant, n.deviates, n.not_reached, n.under_tested,
      n.skipped, n.xfail);
  // Per deviating clause: its shrunk case and how to re-run it (Hypothesis' "Falsifying
  // example", benchdnn's repro line).
  for (const auto &c : r.clauses) {
    if (c.status != ClauseStatus::kDeviates) continue;
    const Deviation *d = nullptr;
    for (const auto &x : r.deviations)
      if (x.clause == c.id) {
        d = &x;
        break;
      }
    std::string line = fmt::format("FALSIFIED {} ({} of {} cases", c.id, c.deviations, c.reached);
    line += c.variants.empty() ? ")"
                               : fmt::format("; matches variant {})", fmt::join(c.variants, ", "));
    if (!d) line += ": no counterexample kept under this clause (see the report's deviations)";
    if (d) {
      line += ": " + (d->summary.empty() ? d->minimal.describe() : d->summary);
      if (!d->call.empty()) line += " [in " + d->call + "]";
      std::string id = d->case_id;
      if (id.empty() && !d->corpus_file.empty()) id = fs::path(d->corpus_file).stem().string();
      if (!id.empty())
        line += fmt::format("; re-run: aclnn-conform replay {} --case {} --sut {} --out {}",
                            shell_quote((fs::path(out_dir) / "corpus").string()), shell_quote(id),
                            shell_quote(sut_argument(r)),
                            shell_quote((fs::path(out_dir) / ("replay-" + id)).string()));
      if (!d->repro_file.empty()) {
        const std::string build = repro_build_line(fs::path(out_dir) / d->repro_file);
        line += "; build: " +
                (build.empty() ? "see " + (fs::path(out_dir) / d->repro_file).string() : build);
      }
    }
    std::cout << "  " << line << "\n";
  }
  for (const auto &c : r.clauses)
    if (c.status == ClauseStatus::kConformsToVariant)
      std::cout << fmt::format(
          "  {} conforms to expected variant {} ({} of {} cases differ from "
          "the behaviour of record)\n",
          c.id, fmt::join(c.expected_variants_matched, ", "), c.deviations, c.reached);
  const int64_t incomplete = n.incomplete();
  if (incomplete > 0)
    std::cout << fmt::format(
        "  {} clause{} not reached or under-tested{}: see report.md, \"Coverage\"\n", incomplete,
        incomplete == 1 ? "" : "s",
        r.allow_incomplete ? " (allowed by --allow-incomplete)" : "; raise --cases or --budget");
  for (const auto &w : r.warnings) std::cout << "  warning: " << w << "\n";
  std::string verdict = verdict_name(r.verdict());
  if (r.interrupted && !r.conformant())
    verdict += " (deviations were found before the interruption)";
  std::cout << fmt::format("  verdict: {}; report in {}/report.{{json,md,xml,html}}\n", verdict,
                           out_dir);
}

}  // namespace aclnn_conform::cli
