// Merging shard reports at scale: `aclnn-conform merge` of N report.json files (wall time and
// peak memory of the process), parsing plus merge_results in process, and merge_results alone. The
// shard reports are generated here: one real campaign of the built-in library is the template, and
// every shard gets its own name, counts and three shrunk-size counterexamples for each of 20
// clauses (so the merge has 60 x N counterexamples to cut down to a single process's 60).
//   build/benchmarks/bench_merge   (runs build/cli/aclnn-conform)
// Figures: docs/scale.md.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "campaign/campaign.hpp"
#include "campaign/result.hpp"
#include "properties/clauses.hpp"
#include "properties/op.hpp"

namespace {
using namespace aclnn_conform;
namespace fs = std::filesystem;

const CampaignResult &template_result() {
  static const CampaignResult r = [] {
    CampaignConfig cfg;
    cfg.cases = 300;
    cfg.jobs = 1;
    cfg.tier = Tier::kSmoke;
    cfg.use_corpus = false;
    cfg.out_dir = (fs::temp_directory_path() / "aclnn-bench-merge-template").string();
    std::ostringstream log;
    return run_campaign(cfg, log);
  }();
  return r;
}

CampaignResult shard_result(int index, int count) {
  CampaignResult r = template_result();
  r.shard = std::to_string(index) + "/" + std::to_string(count);
  r.shard_source = "flag";
  int with_deviations = 0;
  for (auto &c : r.clauses) {
    c.reached += index % 7;
    const OpDescriptor *op = find_op(c.op);
    if (!op || with_deviations == 20) continue;
    ++with_deviations;
    for (int j = 0; j < 3; ++j) {
      Deviation d;
      d.op = op->name;
      d.clause = c.id;
      d.kind = "deviation";
      d.detail = "value differs by 3 ULP at element 0";
      d.all_failures = c.id + ": " + d.detail + "\n";
      const int64_t k = index + static_cast<int64_t>(j) * count;
      d.minimal =
          op->gen_valid(Product::kAtlasA2)(rc::Random(static_cast<uint64_t>(k) + 1), 10).value();
      d.origin = "seed 0x1 index " + std::to_string(k) + " valid size 10";
      d.expected_status = 0;
      r.deviations.push_back(std::move(d));
      ++c.deviations;
    }
  }
  finalize_statuses(r);
  return r;
}

// N shard reports on disk, written once per N.
fs::path shard_dir(int count) {
  const fs::path dir = fs::temp_directory_path() / ("aclnn-bench-merge-" + std::to_string(count));
  if (fs::exists(dir / "done")) return dir;
  fs::remove_all(dir);
  for (int i = 0; i < count; ++i) {
    fs::create_directories(dir / std::to_string(i));
    std::ofstream(dir / std::to_string(i) / "report.json")
        << to_json(shard_result(i, count)).dump(1);
  }
  std::ofstream(dir / "done") << "";
  return dir;
}

// What `aclnn-conform merge` does before writing: read and parse every report, then merge.
CampaignResult parse_and_merge(const fs::path &dir, int count) {
  std::vector<CampaignResult> shards;
  shards.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    std::ifstream f(dir / std::to_string(i) / "report.json");
    shards.push_back(result_from_json(nlohmann::json::parse(f)));
  }
  return merge_results(shards);
}

uintmax_t input_bytes(const fs::path &dir, int count) {
  uintmax_t total = 0;
  for (int i = 0; i < count; ++i) total += fs::file_size(dir / std::to_string(i) / "report.json");
  return total;
}

// `aclnn-conform merge` of the first `count` shard reports in a fresh process: its peak resident
// memory (MB) from wait4, or -1 if it failed.
double cli_merge_peak_rss_mb(const fs::path &dir, int count, const fs::path &out) {
  std::vector<std::string> args = {ACLNN_BENCH_CLI, "merge", "--out", out.string()};
  for (int i = 0; i < count; ++i) args.push_back((dir / std::to_string(i)).string());
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (!std::freopen("/dev/null", "w", stdout)) _exit(126);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  // Exit 1: the merged report has deviations (the generated counterexamples), as it should.
  if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) return -1;
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

// The command line: read, parse, merge and write every report (JSON, JUnit, Markdown, HTML).
void BM_MergeCli(benchmark::State &state) {
  const int count = static_cast<int>(state.range(0));
  const fs::path dir = shard_dir(count), out = dir / "merged";
  double rss = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    rss = cli_merge_peak_rss_mb(dir, count, out);
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (rss < 0) state.SkipWithError("aclnn-conform merge failed");
  }
  state.counters["shards"] = count;
  state.counters["input_MB"] = static_cast<double>(input_bytes(dir, count)) / 1e6;
  state.counters["peak_rss_MB"] = rss;
  // The floor: the same command on one shard report.
  state.counters["floor_peak_rss_MB"] = cli_merge_peak_rss_mb(dir, 1, dir / "merged-1");
  state.counters["merged_report_KB"] =
      static_cast<double>(fs::file_size(out / "report.json")) / 1e3;
}
BENCHMARK(BM_MergeCli)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Reading and parsing plus merge_results, in this process (no report writing).
void BM_MergeParseAndMerge(benchmark::State &state) {
  const int count = static_cast<int>(state.range(0));
  const fs::path dir = shard_dir(count);
  size_t kept = 0;
  for (auto _ : state) {
    const CampaignResult m = parse_and_merge(dir, count);
    kept = m.deviations.size();
    benchmark::DoNotOptimize(kept);
  }
  state.counters["shards"] = count;
  state.counters["kept_counterexamples"] = static_cast<double>(kept);
}
BENCHMARK(BM_MergeParseAndMerge)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

// merge_results alone, on reports already in memory.
void BM_MergeResultsOnly(benchmark::State &state) {
  const int count = static_cast<int>(state.range(0));
  std::vector<CampaignResult> shards;
  for (int i = 0; i < count; ++i) shards.push_back(shard_result(i, count));
  for (auto _ : state) benchmark::DoNotOptimize(merge_results(shards).cases);
  state.counters["shards"] = count;
}
BENCHMARK(BM_MergeResultsOnly)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
