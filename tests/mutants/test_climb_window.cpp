// The climb finds what uniform search misses (campaign/climb.hpp): gelu_window_f32 is more than
// 2 ulp off only within a few hundred ulps of one input, with a band of smaller errors around it.
// A fixed run without climbing calls the library conformant; the same run with climbing follows
// the band to the window and reports the deviation under GeluBackward's value clause.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "campaign/campaign.hpp"
#include "campaign/result.hpp"

namespace {
using namespace aclnn_conform;
namespace fs = std::filesystem;

CampaignResult run_window(bool climb) {
  CampaignConfig cfg;
  cfg.sut = std::string(ACLNN_TEST_MUTANTS_DIR) + "/libaclnn_mutant_gelu_window_f32.so";
  cfg.cases = 3000;
  cfg.jobs = 2;
  cfg.seed = 1;
  cfg.tier = Tier::kCi;
  cfg.use_corpus = false;
  cfg.climb = climb;
  const fs::path out =
      fs::temp_directory_path() /
      ("aclnn-conform-window-" + std::to_string(climb) + "-" + std::to_string(::getpid()));
  fs::remove_all(out);
  cfg.out_dir = out.string();
  std::ostringstream log;
  return run_campaign(cfg, log);
}

TEST(ClimbWindow, UniformSearchMissesTheWindow) {
  const CampaignResult r = run_window(false);
  EXPECT_TRUE(r.conformant());
  EXPECT_TRUE(r.deviations.empty());
}

TEST(ClimbWindow, ClimbingFindsItUnderTheValueClause) {
  const CampaignResult r = run_window(true);
  EXPECT_FALSE(r.conformant());
  ASSERT_FALSE(r.deviations.empty());
  for (const auto &d : r.deviations) {
    EXPECT_EQ(d.op, "GeluBackward");
    EXPECT_TRUE(d.clause == "GELU-VALUE-1" || d.clause == "VAL-TOL-1") << d.clause;
    EXPECT_NE(d.origin.find("climb"), std::string::npos) << d.origin;
  }
}

}  // namespace
