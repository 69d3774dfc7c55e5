// aclnn-conform: conformance campaigns of any aclnn implementation against the specification.
// Exit status (kExitCodes below, docs/report-format.md): 0 conformant, 1 deviations, 2 usage or
// set-up error, 3 incomplete, 4 interrupted, 5 internal error.
//
// This file: main() and the subcommands registered, parsed and dispatched; each subcommand's
// options and work are in its own file (cli/cli.hpp lists them).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "cli/cli.hpp"

using namespace aclnn_conform;
using namespace aclnn_conform::cli;

namespace {

constexpr const char *kExitCodes =
    "Exit status:\n"
    "  0  CONFORMANT: every selected clause reached often enough, none deviates\n"
    "  1  DEVIATIONS: at least one clause deviates (expected failures and expected variants "
    "excepted)\n"
    "  2  usage or set-up error: bad flag, value or file; SUT cannot be loaded\n"
    "  3  INCOMPLETE: a clause was not reached or under-tested (see --allow-incomplete)\n"
    "  4  INTERRUPTED: stopped by SIGINT/SIGTERM; the reports cover what ran\n"
    "  5  internal error of aclnn-conform itself (never a verdict)\n";

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

  CampaignOptions campaign;
  MergeOptions merge_options;
  ListOptions list_options;
  DocsOptions docs_options;
  GoldenOptions golden_options;
  ImportTtkOptions ttk_options;
  auto *run = add_run(app, campaign);
  add_replay(app, campaign);
  auto *merge = add_merge(app, merge_options);
  auto *list = add_list(app, list_options);
  auto *docs = add_docs(app, docs_options);
  auto *golden = add_golden(app, golden_options);
  auto *import_ttk_cmd = add_import_ttk(app, ttk_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    const int code = app.exit(e);
    return code == 0 ? kExitConformant : kExitUsage;
  }

  if (*list) return run_list(list_options);
  if (*docs) return run_docs(docs_options);
  if (*merge) return run_merge(merge_options);
  if (*golden) return run_golden_command(golden_options);
  if (*import_ttk_cmd) return run_import_ttk(ttk_options);
  if (*run) return run_run(campaign);
  return run_replay(campaign);  // replay: the one subcommand left
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
