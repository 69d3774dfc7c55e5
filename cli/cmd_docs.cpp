// aclnn-conform docs (cli/cli.hpp): the generated documentation pages (spec pages, traceability)
// written into a folder (docs/spec in the source tree; the test docs.generated_pages_are_current
// compares them).
#include <fstream>

#include "campaign/docs.hpp"
#include "cli/cli.hpp"

namespace aclnn_conform::cli {

CLI::App *add_docs(CLI::App &app, DocsOptions &o) {
  auto *docs = app.add_subcommand("docs", "write the generated docs (spec pages, traceability)");
  docs->add_option("dir", o.dir, "output folder");
  return docs;
}

int run_docs(const DocsOptions &o) {
  for (const auto &[name, text] : generated_docs()) {
    const fs::path p = fs::path(o.dir) / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  return kExitConformant;
}

}  // namespace aclnn_conform::cli
