#include "campaign/outputs.hpp"

#include <filesystem>
#include <fstream>

#include "campaign/report.hpp"
#include "campaign/repro.hpp"

namespace aclnn_conform {

void write_campaign_outputs(CampaignResult &r, const std::string &out_dir,
                            const std::string &policy) {
  namespace fs = std::filesystem;
  ReproOptions repro_options;
  if (policy == "ascend") repro_options.tolerance = aclnn_ref::Tolerance::ascend();
  if (policy == "ttk-binary" || policy == "msprobe-binary_consistency")
    repro_options.tolerance = aclnn_ref::Tolerance::exact();
  fs::create_directories(out_dir);
  write_repros(r, out_dir, repro_options);
  std::ofstream(fs::path(out_dir) / "report.json") << report_json_text(r);
  write_reports(r, out_dir);
}

}  // namespace aclnn_conform
