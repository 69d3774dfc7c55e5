// aclnn-conform merge (cli/cli.hpp): shard reports (report.json files or their folders) merged one
// at a time into one result, the repro and corpus files they link copied along, then the merged
// reports and summary.
#include <fmt/format.h>

#include <fstream>
#include <optional>
#include <set>

#include "campaign/report.hpp"
#include "cli/cli.hpp"

namespace aclnn_conform::cli {

namespace {

// Copies the repro and corpus files a shard's report links into the merged folder (renamed with
// the shard's index where two shards used the same name for different files) and re-points the
// links; a link whose file is missing is dropped with a warning.
void copy_shard_artifacts(CampaignResult &shard, const fs::path &shard_dir, const fs::path &out,
                          size_t index) {
  const auto copy = [&](std::string &link) {
    if (link.empty()) return;
    const fs::path from = shard_dir / link;
    if (!fs::is_regular_file(from)) {
      shard.warnings.push_back("shard " + shard.shard + ": " + link + " is missing from " +
                               shard_dir.string() + "; its link is dropped");
      link.clear();
      return;
    }
    fs::path rel = fs::path(link);
    const auto same = [&](const fs::path &a, const fs::path &b) {
      std::ifstream x(a, std::ios::binary), y(b, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(x), {}) ==
             std::string(std::istreambuf_iterator<char>(y), {});
    };
    if (fs::exists(out / rel) && !same(from, out / rel))
      rel = rel.parent_path() / fmt::format("shard{}-{}", index, rel.filename().string());
    fs::create_directories((out / rel).parent_path());
    if (!fs::exists(out / rel)) fs::copy_file(from, out / rel);
    link = rel.generic_string();
  };
  for (auto &d : shard.deviations) {
    copy(d.repro_file);
    copy(d.corpus_file);
  }
}

}  // namespace

CLI::App *add_merge(CLI::App &app, MergeOptions &o) {
  auto *merge =
      app.add_subcommand("merge", "merge shard reports (report.json files or their directories)");
  merge->add_option("inputs", o.inputs)->required();
  merge->add_option("--out", o.out, "output directory of the merged report");
  return merge;
}

int run_merge(const MergeOptions &o) {
  const std::vector<std::string> &merge_inputs = o.inputs;
  const std::string &merge_out = o.out;
  // Shards are merged one at a time as they are read, so memory stays that of one report plus
  // the merged one (bounded: merge_results keeps what one process keeps), however many shards.
  const fs::path out(merge_out);
  fs::create_directories(out);
  std::optional<CampaignResult> merged;
  std::set<std::string> seen;
  size_t index = 0;
  for (const auto &in : merge_inputs) {
    const fs::path p = fs::is_directory(in) ? fs::path(in) / "report.json" : fs::path(in);
    CampaignResult s;
    try {
      s = result_from_json(read_json("merge", p));
    } catch (const UsageError &) {
      throw;
    } catch (const std::exception &e) {
      throw UsageError("merge: " + p.string() + " is not a report.json of schema " +
                       std::to_string(kSchemaVersion) + ": " + e.what());
    }
    if (!seen.insert(s.shard).second)
      throw UsageError("merge: shard " + s.shard + " appears twice (" + p.string() + ")");
    copy_shard_artifacts(s, p.parent_path(), out, index++);
    try {
      merged = merged ? merge_results({std::move(*merged), std::move(s)})
                      : merge_results({std::move(s)});
    } catch (const std::runtime_error &e) {
      throw UsageError(std::string("merge: ") + e.what());
    }
  }
  if (!merged) throw UsageError("merge: no shard reports given");
  CampaignResult &m = *merged;
  std::ofstream(out / "report.json") << report_json_text(m);
  write_reports(m, merge_out);
  print_summary(m, merge_out);
  return exit_code(m.verdict());
}

}  // namespace aclnn_conform::cli
