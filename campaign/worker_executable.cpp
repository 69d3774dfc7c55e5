// Where the worker executable is: workers are started by exec, never forked from the campaign's
// process, so that no library state of this process (or of a program embedding the campaign)
// reaches them (campaign/worker.hpp).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "campaign/worker.hpp"

namespace aclnn_conform {

std::string worker_executable() {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char *env = std::getenv("ACLNN_CONFORM_WORKER"); env && *env) return env;
  // The build tree's, then one installed beside this program (<prefix>/bin/aclnn-conform ->
  // <prefix>/libexec/aclnn-conform/aclnn-conform-worker), then the configured install prefix.
  candidates.emplace_back(ACLNN_WORKER_BUILD_PATH);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path().parent_path() / "libexec" / "aclnn-conform" /
                         "aclnn-conform-worker");
    candidates.push_back(exe.parent_path() / "aclnn-conform-worker");
  }
  candidates.emplace_back(ACLNN_WORKER_INSTALL_PATH);
  std::string looked;
  for (const auto &c : candidates) {
    if (access(c.c_str(), X_OK) == 0) return c.string();
    looked += (looked.empty() ? "" : ", ") + c.string();
  }
  throw std::runtime_error("cannot find aclnn-conform-worker (looked in " + looked +
                           "; ACLNN_CONFORM_WORKER names it)");
}

}  // namespace aclnn_conform
