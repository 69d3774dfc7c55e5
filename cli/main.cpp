// aclnn-conform: conformance campaigns of any aclnn implementation against the specification.
// Exit status (kExitCodes below, docs/report-format.md): 0 conformant, 1 deviations, 2 usage or
// set-up error, 3 incomplete, 4 interrupted, 5 internal error.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "campaign/campaign.hpp"
#include "campaign/clause_lists.hpp"
#include "campaign/corpus.hpp"
#include "campaign/devices.hpp"
#include "campaign/docs.hpp"
#include "campaign/golden.hpp"
#include "campaign/kit_policy.hpp"
#include "campaign/kit_tally.hpp"
#include "campaign/outputs.hpp"
#include "campaign/report.hpp"
#include "campaign/repro.hpp"
#include "campaign/result.hpp"
#include "campaign/shard_env.hpp"
#include "campaign/ttk_import.hpp"
#include "edge_cases/edge_case.hpp"
#include "properties/clauses.hpp"
#include "properties/op.hpp"

namespace fs = std::filesystem;
using namespace aclnn_conform;

namespace {

enum ExitCode {
  kExitConformant = 0,
  kExitDeviations = 1,
  kExitUsage = 2,
  kExitIncomplete = 3,
  kExitInterrupted = 4,
  kExitInternal = 5,
};

constexpr const char *kExitCodes =
    "Exit status:\n"
    "  0  CONFORMANT: every selected clause reached often enough, none deviates\n"
    "  1  DEVIATIONS: at least one clause deviates (expected failures and expected variants "
    "excepted)\n"
    "  2  usage or set-up error: bad flag, value or file; SUT cannot be loaded\n"
    "  3  INCOMPLETE: a clause was not reached or under-tested (see --allow-incomplete)\n"
    "  4  INTERRUPTED: stopped by SIGINT/SIGTERM; the reports cover what ran\n"
    "  5  internal error of aclnn-conform itself (never a verdict)\n";

int exit_code(Verdict v) {
  switch (v) {
    case Verdict::kConformant:
      return kExitConformant;
    case Verdict::kDeviations:
      return kExitDeviations;
    case Verdict::kIncomplete:
      return kExitIncomplete;
    case Verdict::kInterrupted:
      return kExitInterrupted;
  }
  return kExitInternal;
}

// A bad flag value or input file: exit status 2, with a message that names the flag and the rule.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// SIGINT/SIGTERM ask the engine to stop (CampaignConfig::stop_requested); a second one ends the
// process at once.
volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int sig) {
  if (g_stop) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_stop = 1;
  constexpr char kMsg[] = "\naclnn-conform: stopping; writing the reports of what ran\n";
  [[maybe_unused]] const auto n = write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
}
void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// "90s", "2m", "1h", "1.5m" or plain seconds; positive and finite.
double parse_duration(const std::string &flag, const std::string &text) {
  static const std::regex kDuration(R"(\s*([0-9]+(\.[0-9]*)?|\.[0-9]+)\s*(s|m|h)?\s*)");
  std::smatch m;
  const std::string hint = " is not a duration (use 90s, 2m, 1h, 1.5m)";
  if (!std::regex_match(text, m, kDuration)) throw UsageError(flag + ": '" + text + "'" + hint);
  const double v = std::strtod(m[1].str().c_str(), nullptr);
  const std::string unit = m[3].str();
  const double seconds = unit == "m" ? v * 60 : unit == "h" ? v * 3600 : v;
  if (!(seconds > 0) || !std::isfinite(seconds))
    throw UsageError(flag + ": '" + text + "' must be a positive duration");
  return seconds;
}

// A non-negative integer in decimal or 0x hex that fits in 64 bits.
uint64_t parse_u64(const std::string &flag, const std::string &text) {
  static const std::regex kNumber(R"(0[xX][0-9a-fA-F]+|[0-9]+)");
  const std::string rule = " is not a non-negative integer (0 .. 18446744073709551615, or 0x hex)";
  if (!std::regex_match(text, kNumber)) throw UsageError(flag + ": '" + text + "'" + rule);
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 0);
  if (errno == ERANGE) throw UsageError(flag + ": '" + text + "'" + rule);
  return v;
}

// "I/N": shard I of N, 0 <= I < N.
std::pair<int, int> parse_shard(const std::string &text) {
  static const std::regex kShard(R"(([0-9]{1,9})/([0-9]{1,9}))");
  std::smatch m;
  if (!std::regex_match(text, m, kShard))
    throw UsageError("--shard: '" + text + "' is not I/N (e.g. 0/4: the first of 4 shards)");
  const int i = std::stoi(m[1].str()), n = std::stoi(m[2].str());
  if (n < 1 || i >= n) throw UsageError("--shard: '" + text + "' needs 0 <= I < N and N >= 1");
  return {i, n};
}

void check_pattern(const std::string &pattern) {
  try {
    std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error &e) {
    throw UsageError("--clauses: '" + pattern +
                     "' is not an ECMAScript regular expression: " + e.what());
  }
}

std::set<std::string> known_variants() {
  std::set<std::string> names;
  for (const auto *op : registry()) names.insert(op->variants.begin(), op->variants.end());
  for (const auto &c : clause_catalog())
    for (const auto &v : c.variants) names.insert(v.first);
  return names;
}

std::vector<std::string> read_list(const std::string &flag, const std::string &path) {
  if (path.empty()) return {};
  auto list = read_clause_list(path);
  if (!list.error.empty()) throw UsageError(flag + ": " + list.error);
  return std::move(list.entries);
}

nlohmann::json read_json(const std::string &what, const fs::path &p) {
  std::ifstream f(p);
  if (!f) throw UsageError(what + ": cannot read " + p.string());
  try {
    return nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception &e) {
    throw UsageError(what + ": " + p.string() + " is not valid JSON: " + e.what());
  }
}

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

// Repro programs for every deviation, then every report file (campaign/outputs.hpp).
void write_outputs(CampaignResult &r, const std::string &out_dir, const std::string &policy) {
  write_campaign_outputs(r, out_dir, policy);
}

// The repro's build command: the line "// build: ..." of its header comment, if it has one.
std::string repro_build_line(const fs::path &repro) {
  std::ifstream in(repro);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("// build: ", 0) == 0) return line.substr(10);
  return "";
}

std::string shell_quote(const std::string &s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-./:=+,@") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
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

int run_cli(int argc, char **argv) {
  CLI::App app{"aclnn-conform " + conform_version() +
               ": conformance campaigns of aclnn implementations against the specification"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "aclnn-conform " + conform_version());
  app.option_defaults()->always_capture_default();
  app.footer(kExitCodes);
  // A profile: a TOML file of options, [run] and [replay] sections, e.g. a SUT that follows a
  // variant by design: [run] expect-variant = ["le-zero"]. Given before or after the subcommand.
  app.set_config("--profile", "", "TOML file of options ([run], [replay] sections)");
  app.fallthrough();

  CampaignConfig cfg;
  cfg.jobs = std::max(1u, std::thread::hardware_concurrency());
  std::string emulation = "auto", devices = "0";
  std::string budget, soc = "ascend910b", tier = "ci", policy = "ulp", shard, seed = "1",
                      skips_file, xfails_file, replay_case;
  int64_t cases = 0;
  bool quiet = false;

  auto add_common = [&](CLI::App *c) {
    c->add_option("--sut", cfg.sut,
                  "builtin; the path of a shared library exporting the ABI; a library split over "
                  "several files, in load order: a.so:b.so:c.so; or cann: the vendor's "
                  "libascendcl.so, libnnopbase.so and libopapi.so under $ASCEND_HOME_PATH/lib64");
    c->add_option("--devices", devices,
                  "devices to spread the workers over: 0, 0-7, 0,2,4 (aclrtSetDevice's ids)");
    c->add_option("--first-call-timeout", cfg.first_call_timeout_seconds,
                  "seconds a worker's start (library, aclInit, aclrtSetDevice, stream) and each "
                  "op's first call in a worker may take (a device loads its kernels then)")
        ->check(CLI::Range(0.001, 1e6));
    c->add_option("--competitor", cfg.competitor,
                  "a second aclnn library (builtin or a path) run on every valid case: the "
                  "report gives SUT/competitor error ratios (reported, not the verdict)");
    c->add_option("--soc", soc,
                  "product whose gates apply: ascend910b, ascend910_93, ascend910, ascend310p");
    c->add_option("--product-emulation", emulation,
                  "whether the SUT takes each call's product from ACLNN_CPU_SOC (as the built-in "
                  "library does): auto probes it; off runs only --soc's rows and cases")
        ->check(CLI::IsMember({"auto", "on", "off"}))
        ->capture_default_str();
    c->add_option("--out", cfg.out_dir, "output directory (reports, corpus, repros)");
    c->add_option("--policy", policy,
                  "the standard that decides the accuracy verdict: ulp (VAL-TOL-1 part 2), ascend "
                  "(MERE/MARE) or a vendor kit's standard (ttk-mixed, msprobe-benchmark, ...; "
                  "docs/standards.md); every standard is reported either way")
        ->check(CLI::IsMember(policy_names()));
    c->add_option("--jobs", cfg.jobs, "worker processes")->check(CLI::Range(1, 1024));
    c->add_option("--skips", skips_file,
                  "file of clause IDs or property names (Op/valid, Op/invalid) to skip");
    c->add_option("--xfails", xfails_file, "file of clause IDs expected to deviate");
    c->add_option("--case-timeout", cfg.case_timeout_seconds,
                  "seconds before a case counts as hung")
        ->check(CLI::Range(0.001, 1e6));
    c->add_option("--clauses", cfg.clause_pattern,
                  "only clauses whose ID matches this ECMAScript regex (as ctest -R); the others "
                  "are skipped by selection and do not count");
    c->add_option("--expect-variant", cfg.expect_variants,
                  "variants the SUT follows by design (see `list variants`): deviations they "
                  "explain count as 'conforms to variant'")
        ->delimiter(',');
    c->add_flag("--allow-incomplete", cfg.allow_incomplete,
                "exit 0, not 3, when clauses are not reached or under-tested (the report still "
                "lists them)");
    c->add_flag("--quiet", quiet, "no progress line");
  };

  auto *run = app.add_subcommand("run", "run a conformance campaign");
  add_common(run);
  run->add_option("--ops", cfg.ops, "ops to test (default: all; see `list ops`)")->delimiter(',');
  run->add_option("--budget", budget,
                  "time budget, e.g. 90s, 2m, 1.5h (default: 60s unless --cases)");
  run->add_option("--cases", cases, "number of generated cases (0: as many as the budget allows)")
      ->check(CLI::Validator(
          [](std::string &v) {
            return std::regex_match(v, std::regex("[0-9]{1,18}"))
                       ? std::string()
                       : "'" + v + "' is not a non-negative number of cases";
          },
          "N"));
  run->add_option("--seed", seed, "seed of the case space (0 .. 2^64-1, decimal or 0x hex)");
  run->add_option("--shard", shard,
                  "I/N: this process runs shard I of N of the seed space (default: from a Slurm "
                  "array or Kubernetes Indexed Job, else 0/1)");
  int shard_count = 0;
  run->add_option("--shard-count", shard_count,
                  "N, for a Kubernetes Indexed Job (its index is JOB_COMPLETION_INDEX)");
  run->add_option("--tier", tier, "smoke, ci or nightly (case sizes, clause minimums)")
      ->check(CLI::IsMember({"smoke", "ci", "nightly"}));
  bool no_corpus = false;
  run->add_flag("--no-corpus", no_corpus, "do not replay or store counterexamples");

  auto *replay =
      app.add_subcommand("replay", "re-run stored counterexamples (corpus files or directories)");
  add_common(replay);
  std::vector<std::string> replay_paths;
  replay->add_option("paths", replay_paths, "corpus directory or case files")->required();
  replay->add_option("--case", replay_case,
                     "only the corpus entry with this ID (its file name without .json)");

  auto *merge =
      app.add_subcommand("merge", "merge shard reports (report.json files or their directories)");
  std::vector<std::string> merge_inputs;
  std::string merge_out = "campaign-merged";
  merge->add_option("inputs", merge_inputs)->required();
  merge->add_option("--out", merge_out, "output directory of the merged report");

  auto *list = app.add_subcommand("list", "list ops, clauses, variants or the traceability table");
  std::string what, list_op, list_pattern;
  list->add_option("what", what)
      ->required()
      ->check(CLI::IsMember({"ops", "clauses", "variants", "traceability"}));
  list->add_option("--op", list_op, "only this op's clauses or variants (and the common ones)");
  list->add_option("--clauses", list_pattern, "only clauses whose ID matches this regex");

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

  auto *import_ttk_cmd = app.add_subcommand(
      "import-ttk",
      "turn ops-test-kit ACLNN case files (ttk_aclnn_*.csv) into a corpus that `run --out DIR` "
      "and `replay DIR/corpus --sut LIB` execute and judge (docs/standards.md)");
  std::vector<std::string> ttk_files;
  std::string ttk_out = "ttk-import", ttk_soc = "ascend910b", ttk_seed = "1";
  double ttk_max_mib = 64;
  import_ttk_cmd->add_option("files", ttk_files, "the kit's CSV case files")->required();
  import_ttk_cmd->add_option("--out", ttk_out, "output directory (the entries go to DIR/corpus)");
  import_ttk_cmd->add_option("--soc", ttk_soc,
                             "the product the cases call (rows whose soc_series excludes it are "
                             "skipped): ascend910b, ascend910_93, ascend910, ascend310p");
  import_ttk_cmd->add_option("--seed", ttk_seed, "seed of the values drawn from the rows' ranges");
  import_ttk_cmd->add_option("--max-mib", ttk_max_mib, "skip rows whose tensors hold more (MiB)")
      ->check(CLI::Range(0.001, 1e6));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    const int code = app.exit(e);
    return code == 0 ? kExitConformant : kExitUsage;
  }

  if (*list) {
    if (!list_op.empty() && !find_op(list_op))
      throw UsageError("list --op: no op named '" + list_op + "' (see `aclnn-conform list ops`)");
    if (!list_pattern.empty()) check_pattern(list_pattern);
    const std::regex pattern(list_pattern.empty() ? "." : list_pattern);
    const auto selected = [&](const ClauseInfo &c) {
      return (list_op.empty() || c.op == list_op || c.op == "common") &&
             std::regex_search(c.id, pattern);
    };
    if (what == "ops") {
      for (const auto *op : registry())
        if (list_op.empty() || op->name == list_op)
          std::cout << fmt::format("{:<24} {} ({} clauses, variants: {})\n", op->name, op->abi_name,
                                   op->clauses.size(), fmt::join(op->variants, ", "));
    } else if (what == "clauses") {
      for (const auto &c : clause_catalog())
        if (selected(c))
          std::cout << fmt::format("{:<22} {:<20} {:<8} {}\n", c.id, c.op, c.kind,
                                   c.text.substr(0, 90));
    } else if (what == "variants") {
      for (const auto &c : clause_catalog())
        if (selected(c))
          for (const auto &[name, text] : c.variants)
            std::cout << fmt::format("{:<16} {:<22} {}\n", name, c.id, text.substr(0, 90));
    } else {
      std::cout << generated_docs().at("traceability.md");
    }
    return kExitConformant;
  }
  if (*docs) {
    for (const auto &[name, text] : generated_docs()) {
      const fs::path p = fs::path(docs_dir) / name;
      fs::create_directories(p.parent_path());
      std::ofstream(p) << text;
    }
    return kExitConformant;
  }
  if (*merge) {
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
  if (*golden) {
    auto request = read_json("golden", golden_request);
    // Relative .bin paths are taken from the request file's folder unless it says otherwise.
    if (!request.contains("base_dir"))
      request["base_dir"] = fs::absolute(golden_request).parent_path().string();
    const auto summary = run_golden(request, golden_out, golden_request);
    std::cout << summary.dump(1) << "\n";
    return kExitConformant;
  }

  if (*import_ttk_cmd) {
    TtkImportOptions o;
    o.out_dir = ttk_out;
    const auto p = product_from_name(ttk_soc);
    if (!p) throw UsageError("import-ttk --soc: unknown product '" + ttk_soc + "'");
    o.product = *p;
    o.seed = parse_u64("import-ttk --seed", ttk_seed);
    o.max_case_bytes = static_cast<int64_t>(ttk_max_mib * 1024 * 1024);
    TtkImportResult res;
    try {
      res = import_ttk(ttk_files, o, std::cout);
    } catch (const TtkImportError &e) {
      throw UsageError(std::string("import-ttk: ") + e.what());
    }
    for (const auto &n : res.notes) std::cout << n << "\n";
    std::cout << fmt::format(
        "imported {} case{} into {} ({} skipped); run them: aclnn-conform replay {} --sut LIB, or "
        "aclnn-conform run --out {} (which replays {} first)\n",
        res.imported, res.imported == 1 ? "" : "s", (fs::path(ttk_out) / "corpus").string(),
        res.skipped, shell_quote((fs::path(ttk_out) / "corpus").string()), shell_quote(ttk_out),
        (fs::path(ttk_out) / "corpus").string());
    return kExitConformant;
  }

  const auto product = product_from_name(soc);
  if (!product) throw UsageError("--soc: unknown product '" + soc + "'");
  cfg.product = *product;
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
  cfg.skips = read_list("--skips", skips_file);
  cfg.xfails = read_list("--xfails", xfails_file);
  if (!cfg.clause_pattern.empty()) check_pattern(cfg.clause_pattern);
  const auto variants = known_variants();
  for (const auto &v : cfg.expect_variants)
    if (!variants.count(v))
      throw UsageError(fmt::format("--expect-variant: no variant named '{}' (known: {})", v,
                                   fmt::join(variants, ", ")));
  cfg.progress = !quiet && isatty(STDERR_FILENO) && std::getenv("CI") == nullptr;
  cfg.stop_requested = &g_stop;
  install_stop_handlers();

  CampaignResult r;
  std::string shard_source = "default";
  if (*run) {
    if (!budget.empty()) cfg.budget_seconds = parse_duration("--budget", budget);
    cfg.cases = cases;
    if (budget.empty() && cfg.cases == 0) cfg.budget_seconds = 60;
    cfg.seed = parse_u64("--seed", seed);
    // --shard, else a Slurm array or an Indexed Job; the report records which (shard_env.hpp).
    if (!shard.empty()) {
      std::tie(cfg.shard_index, cfg.shard_count) = parse_shard(shard);
      shard_source = "flag";
    } else {
      const ShardAssignment from_env = shard_from_environment(shard_count);
      cfg.shard_index = from_env.index;
      cfg.shard_count = from_env.count;
      shard_source = from_env.source;
    }
    cfg.tier = tier == "smoke" ? Tier::kSmoke : tier == "nightly" ? Tier::kNightly : Tier::kCi;
    cfg.use_corpus = !no_corpus;
    r = run_campaign(cfg, std::cerr);
  } else {
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
    cfg.sut = replay_sut(files, replay->count("--sut") ? cfg.sut : "");
    std::vector<std::string> paths;
    for (const auto &f : files) paths.push_back(f.string());
    r = replay_cases(cfg, paths, std::cerr);
    // A replay re-runs stored counterexamples only: clause coverage is not what it measures.
    cfg.allow_incomplete = true;
    r.warnings.push_back(
        "replay re-runs stored counterexamples only: clauses they do not reach are not judged");
  }
  complete_result(r, cfg, cfg.sut, shard_source);
  write_outputs(r, cfg.out_dir, policy_name(cfg));
  print_summary(r, cfg.out_dir);
  return exit_code(r.verdict());
}

}  // namespace

int main(int argc, char **argv) {
  // The framework's own failure is never a verdict: anything unexpected exits 5.
  std::set_terminate([] {
    std::fputs("aclnn-conform: internal error (terminate)\n", stderr);
    std::_Exit(kExitInternal);
  });
  try {
    return run_cli(argc, argv);
  } catch (const std::invalid_argument &e) {  // UsageError and the engine's bad configuration
    std::cerr << "aclnn-conform: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::runtime_error &e) {  // set-up: the SUT cannot be loaded, no such op, ...
    std::cerr << "aclnn-conform: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception &e) {
    std::cerr << "aclnn-conform: internal error: " << e.what() << "\n";
    return kExitInternal;
  } catch (...) {
    std::cerr << "aclnn-conform: internal error (unknown exception)\n";
    return kExitInternal;
  }
}
