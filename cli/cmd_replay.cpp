// aclnn-conform replay (cli/cli.hpp): stored counterexamples (corpus files or folders, or one entry
// by --case) re-run on the SUT they record, or on --sut with a warning when it is another build;
// then the reports, which do not judge clause coverage.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <optional>

#include "campaign/corpus.hpp"
#include "cli/cli.hpp"

namespace aclnn_conform::cli {

namespace {

std::string describe_identity(const SutIdentity &s) {
  return fmt::format("{} (sha256 {})", s.path, s.sha256);
}

// A corpus entry's SUT: every file in load order (path, SONAME, size, SHA-256). Entries written
// before every file was recorded name only the file holding the ops ("sut").
std::vector<SutIdentity> recorded_files(const nlohmann::json &j) {
  std::vector<SutIdentity> files;
  if (j.contains("sut_file_identities"))
    for (const auto &f : j.at("sut_file_identities")) files.push_back(sut_identity_from_json(f));
  if (files.empty()) files.push_back(sut_identity_from_json(j.at("sut")));
  return files;
}

bool same_build(const std::vector<SutIdentity> &a, const std::vector<SutIdentity> &b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](const SutIdentity &x, const SutIdentity &y) {
           return x.sha256 == y.sha256;
         });
}

std::string describe_files(const std::vector<SutIdentity> &files) {
  std::string s;
  for (const auto &f : files) s += (s.empty() ? "" : ", ") + describe_identity(f);
  return s;
}

// replay: which SUT to load. The corpus entries record theirs ("sut_file_identities": every file
// of it; "sut_files" to load a library split over several files); without --sut that one is
// used, with --sut a different build of any of its files is pointed out.
std::string replay_sut(const std::vector<fs::path> &files, const std::string &given) {
  std::optional<std::vector<SutIdentity>> recorded;
  std::string recorded_spec;
  for (const auto &f : files) {
    const nlohmann::json j = read_json("replay", f);
    if (!j.contains("sut")) continue;
    const std::vector<SutIdentity> s = recorded_files(j);
    recorded_spec = j.value("sut_files", sut_identity_from_json(j.at("sut")).path);
    if (recorded && !same_build(*recorded, s))
      throw UsageError("replay: the corpus records two SUTs, " + describe_files(*recorded) +
                       " and " + describe_files(s) + " (" + f.string() +
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
    std::vector<SutIdentity> now;
    for (const auto &f : sut_files(given)) now.push_back(identify_sut(f));
    // An old entry names one file: the one holding the ops, the last.
    if (recorded->size() == 1 && now.size() > 1) now.erase(now.begin(), now.end() - 1);
    if (!same_build(now, *recorded))
      std::cout << "warning: replaying against " << describe_files(now)
                << ", not the SUT recorded in the corpus, " << describe_files(*recorded) << "\n";
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
