// aclnn-conform replay (cli/cli.hpp): stored counterexamples (corpus files or folders, or one entry
// by --case) re-run on the SUT they record, or on --sut with a warning when it is another build;
// then the reports, which do not judge clause coverage.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <optional>

#include "campaign/corpus.hpp"
#include "cli/cli.hpp"

namespace aclnn_conform::cli {

namespace {

std::string describe_identity(const SutIdentity &s) {
  return fmt::format("{} (sha256 {})", s.path, s.sha256);
}

// replay: which SUT to load. The corpus entries record theirs ("sut": {path, soname, size,
// sha256}, and "sut_files" for a library split over several files); without --sut that one is
// used, with --sut a different build is pointed out.
std::string replay_sut(const std::vector<fs::path> &files, const std::string &given) {
  std::optional<SutIdentity> recorded;
  std::string recorded_spec;
  for (const auto &f : files) {
    const nlohmann::json j = read_json("replay", f);
    if (!j.contains("sut")) continue;
    const SutIdentity s = sut_identity_from_json(j.at("sut"));
    recorded_spec = j.value("sut_files", s.path);
    if (recorded && recorded->sha256 != s.sha256)
      throw UsageError("replay: the corpus records two SUTs, " + describe_identity(*recorded) +
                       " and " + describe_identity(s) + " (" + f.string() +
                       "); replay them separately");
    recorded = s;
  }
  if (given.empty()) {
    if (!recorded)
      throw UsageError(
          "replay: the corpus does not name its SUT (entries without \"sut\"); pass --sut");
    std::cout << "replaying against " << recorded_spec << " (recorded in the corpus)\n";
    return recorded_spec;
  }
  if (recorded) {
    const SutIdentity now = identify_sut(sut_files(given).back());
    if (now.sha256 != recorded->sha256)
      std::cout << "warning: replaying against " << describe_identity(now)
                << ", not the SUT recorded in the corpus, " << describe_identity(*recorded) << "\n";
  }
  return given;
}

}  // namespace

CLI::App *add_replay(CLI::App &app, CampaignOptions &o) {
  auto *replay =
      app.add_subcommand("replay", "re-run stored counterexamples (corpus files or directories)");
  add_campaign_options(replay, o);
  replay->add_option("paths", o.replay_paths, "corpus directory or case files")->required();
  replay->add_option("--case", o.replay_case,
                     "only the corpus entry with this ID (its file name without .json)");
  o.replay = replay;
  return replay;
}

int run_replay(CampaignOptions &o) {
  resolve_campaign_options(o);
  CampaignConfig &cfg = o.cfg;
  const std::string &replay_case = o.replay_case;
  const std::vector<std::string> &replay_paths = o.replay_paths;
  CampaignResult r;
  std::vector<fs::path> files = corpus_files(replay_paths);
  if (!replay_case.empty()) {
    cfg.replay_case_id = replay_case;
    std::erase_if(files, [&](const fs::path &f) { return f.stem() != replay_case; });
    if (files.empty())
      throw UsageError(fmt::format("replay --case: no corpus entry '{}' in {}", replay_case,
                                   fmt::join(replay_paths, ", ")));
  }
  if (files.empty())
    throw UsageError(
        fmt::format("replay: no corpus entries (*.json) in {}", fmt::join(replay_paths, ", ")));
  cfg.sut = replay_sut(files, o.replay->count("--sut") ? cfg.sut : "");
  std::vector<std::string> paths;
  for (const auto &f : files) paths.push_back(f.string());
  r = replay_cases(cfg, paths, std::cerr);
  // A replay re-runs stored counterexamples only: clause coverage is not what it measures.
  cfg.allow_incomplete = true;
  r.warnings.push_back(
      "replay re-runs stored counterexamples only: clauses they do not reach are not judged");
  return finish_campaign(r, o, "default");
}

}  // namespace aclnn_conform::cli
