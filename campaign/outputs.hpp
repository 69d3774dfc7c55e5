// A run's files: repro programs for every deviation, then report.json and the other reports
// (Markdown, JUnit, HTML). Shared by the CLI (`run`, `replay`) and the Python module's run()
// (python/), so both write the same files for the same result.
#pragma once

#include <string>

#include "campaign/result.hpp"

namespace aclnn_conform {

// The repros check the policy's tolerance where it is per element (a bitwise kit standard:
// exact; ascend: MERE/MARE), else the ulp bound. Creates out_dir.
void write_campaign_outputs(CampaignResult &r, const std::string &out_dir,
                            const std::string &policy);

}  // namespace aclnn_conform
