// aclnn-conform import-ttk (cli/cli.hpp): the vendor kit's case files (ttk_aclnn_*.csv) turned
// into a corpus that run and replay execute and judge (campaign/ttk_import.hpp).
#include <fmt/format.h>

#include <iostream>

#include "campaign/ttk_import.hpp"
#include "cli/cli.hpp"

namespace aclnn_conform::cli {

CLI::App *add_import_ttk(CLI::App &app, ImportTtkOptions &opt) {
  auto *import_ttk_cmd = app.add_subcommand(
      "import-ttk",
      "turn ops-test-kit ACLNN case files (ttk_aclnn_*.csv) into a corpus that `run --out DIR` "
      "and `replay DIR/corpus --sut LIB` execute and judge (docs/standards.md)");
  import_ttk_cmd->add_option("files", opt.files, "the kit's CSV case files")->required();
  import_ttk_cmd->add_option("--out", opt.out, "output directory (the entries go to DIR/corpus)");
  import_ttk_cmd->add_option("--soc", opt.soc,
                             "the product the cases call (rows whose soc_series excludes it are "
                             "skipped): ascend910b, ascend910_93, ascend910, ascend310p");
  import_ttk_cmd->add_option("--seed", opt.seed, "seed of the values drawn from the rows' ranges");
  import_ttk_cmd->add_option("--max-mib", opt.max_mib, "skip rows whose tensors hold more (MiB)")
      ->check(CLI::Range(0.001, 1e6));
  return import_ttk_cmd;
}

int run_import_ttk(const ImportTtkOptions &opt) {
  const std::string &ttk_out = opt.out;
  TtkImportOptions o;
  o.out_dir = ttk_out;
  const auto p = product_from_name(opt.soc);
  if (!p) throw UsageError("import-ttk --soc: unknown product '" + opt.soc + "'");
  o.product = *p;
  o.seed = parse_u64("import-ttk --seed", opt.seed);
  o.max_case_bytes = static_cast<int64_t>(opt.max_mib * 1024 * 1024);
  TtkImportResult res;
  try {
    res = import_ttk(opt.files, o, std::cout);
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

}  // namespace aclnn_conform::cli
