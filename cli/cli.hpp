// The aclnn-conform command line's parts, shared by its files (internal to cli/):
//   main.cpp          main(): the subcommands registered in order, parsed, dispatched; exit
//   statuses common.cpp        exit statuses, SIGINT/SIGTERM, parsing flag values, reading lists
//   and JSON outputs.cpp       a run's result completed, its repros and reports written, the
//   summary printed cmd_campaign.cpp  the options run and replay share, and their resolution into a
//   CampaignConfig cmd_run.cpp, cmd_replay.cpp, cmd_merge.cpp, cmd_list.cpp, cmd_docs.cpp,
//   cmd_golden.cpp, cmd_import_ttk.cpp   one subcommand each: its options (add_*) and what it does
//   (run_*)
// Each subcommand's add_* registers its options on the app, in the order --help shows them; its
// run_* returns the exit status, or throws UsageError (2).
#pragma once

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/result.hpp"

namespace aclnn_conform::cli {

namespace fs = std::filesystem;

// ---- common.cpp ----

enum ExitCode {
  kExitConformant = 0,
  kExitDeviations = 1,
  kExitUsage = 2,
  kExitIncomplete = 3,
  kExitInterrupted = 4,
  kExitInternal = 5,
};
int exit_code(Verdict v);

// A bad flag value or input file: exit status 2, with a message that names the flag and the rule.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// SIGINT/SIGTERM ask the engine to stop (CampaignConfig::stop_requested); a second one ends the
// process at once.
extern volatile std::sig_atomic_t g_stop;
void install_stop_handlers();

// "90s", "2m", "1h", "1.5m" or plain seconds; positive and finite.
double parse_duration(const std::string &flag, const std::string &text);
// A non-negative integer in decimal or 0x hex that fits in 64 bits.
uint64_t parse_u64(const std::string &flag, const std::string &text);
// "I/N": shard I of N, 0 <= I < N.
std::pair<int, int> parse_shard(const std::string &text);
void check_pattern(const std::string &pattern);
std::vector<std::string> read_list(const std::string &flag, const std::string &path);
nlohmann::json read_json(const std::string &what, const fs::path &p);
std::string shell_quote(const std::string &s);

// ---- outputs.cpp ----

// Fills what the CLI knows about a run into its result (the engine may have set them already)
// and recomputes the statuses with the run's selection, variants and coverage rule.
void complete_result(CampaignResult &r, const CampaignConfig &cfg, const std::string &sut_path,
                     const std::string &shard_source);
// Repro programs for every deviation, then every report file.
void write_outputs(CampaignResult &r, const std::string &out_dir, const std::string &policy);
// The terminal's summary: counts, one FALSIFIED line per deviating clause, warnings, verdict.
void print_summary(const CampaignResult &r, const std::string &out_dir);

// ---- cmd_campaign.cpp: what run and replay share ----

struct CampaignOptions {
  CampaignConfig cfg;
  std::string emulation = "auto", devices = "0";
  std::string budget, soc = "ascend910b", tier = "ci", policy = "ulp", shard, seed = "1",
                      skips_file, xfails_file, replay_case;
  int64_t cases = 0;
  bool quiet = false;
  bool fixed_case_timeout = false;
  // run
  int shard_count = 0;
  bool no_corpus = false;
  bool no_climb = false;
  bool no_sweep = false;
  bool no_adaptive = false;
  int64_t schedule_lag = 1024;
  // replay
  std::vector<std::string> replay_paths;
  CLI::App *replay = nullptr;

  CampaignOptions();  // cfg.jobs: the machine's hardware threads
};
// The options of run and replay (both bind the same variables).
void add_campaign_options(CLI::App *c, CampaignOptions &o);
// What both resolve before they start: the product, product emulation, the policy, the devices,
// the skip and xfail lists, the clause pattern, expected variants, progress and stop handlers.
void resolve_campaign_options(CampaignOptions &o);
// The run's end: its result completed, repros and reports written, the summary; the exit status.
int finish_campaign(CampaignResult &r, CampaignOptions &o, const std::string &shard_source);

// ---- one file per subcommand ----

CLI::App *add_run(CLI::App &app, CampaignOptions &o);
int run_run(CampaignOptions &o);

CLI::App *add_replay(CLI::App &app, CampaignOptions &o);
int run_replay(CampaignOptions &o);

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out = "campaign-merged";
};
CLI::App *add_merge(CLI::App &app, MergeOptions &o);
int run_merge(const MergeOptions &o);

struct ListOptions {
  std::string what, op, pattern;
};
CLI::App *add_list(CLI::App &app, ListOptions &o);
int run_list(const ListOptions &o);

struct DocsOptions {
  std::string dir = "docs/spec";
};
CLI::App *add_docs(CLI::App &app, DocsOptions &o);
int run_docs(const DocsOptions &o);

struct GoldenOptions {
  std::string request, out = "golden-out";
};
CLI::App *add_golden(CLI::App &app, GoldenOptions &o);
int run_golden_command(const GoldenOptions &o);

struct ImportTtkOptions {
  std::vector<std::string> files;
  std::string out = "ttk-import", soc = "ascend910b", seed = "1";
  double max_mib = 64;
};
CLI::App *add_import_ttk(CLI::App &app, ImportTtkOptions &o);
int run_import_ttk(const ImportTtkOptions &o);

}  // namespace aclnn_conform::cli
