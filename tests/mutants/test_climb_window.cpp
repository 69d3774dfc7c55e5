// Targeted search finds what uniform search misses. The climb (campaign/climb.hpp):
// gelu_window_f32 is more than 2 ulp off only within a few hundred ulps of one input, with a band
// of smaller errors around it. A fixed run without climbing (and without value sweeps) calls the
// library conformant; the same run with climbing follows the band to the window and reports the
// deviation under GeluBackward's value clause. Value sweeps (properties/sweep.hpp):
// logit_window_f32 is 4 ulp off within 256 ulps of x = 0.3 and exact elsewhere, with no band to
// climb; a fixed run without sweeps calls it conformant, the same run with sweeps finds the window
// and shrinks its sweep to the one element.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "campaign/campaign.hpp"
#include "campaign/result.hpp"

namespace {
using namespace aclnn_conform;
namespace fs = std::filesystem;

CampaignResult run_window(bool climb, bool sweep = false,
                          const std::string &mutant = "gelu_window_f32") {
  CampaignConfig cfg;
  cfg.sut = std::string(ACLNN_TEST_MUTANTS_DIR) + "/libaclnn_mutant_" + mutant + ".so";
  cfg.cases = 3000;
  cfg.jobs = 2;
  cfg.seed = 1;
  cfg.tier = Tier::kCi;
  cfg.use_corpus = false;
  cfg.climb = climb;
  cfg.sweep = sweep;
  const fs::path out =
      fs::temp_directory_path() / ("aclnn-conform-window-" + mutant + std::to_string(climb) +
                                   std::to_string(sweep) + "-" + std::to_string(::getpid()));
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

TEST(SweepWindow, UniformSearchAndClimbingMissAFlatWindow) {
  const CampaignResult r = run_window(true, false, "logit_window_f32");
  EXPECT_TRUE(r.conformant());
  EXPECT_TRUE(r.deviations.empty());
}

TEST(SweepWindow, SweepsFindItAndShrinkItToTheElement) {
  const CampaignResult r = run_window(false, true, "logit_window_f32");
  EXPECT_FALSE(r.conformant());
  ASSERT_FALSE(r.deviations.empty());
  bool from_a_sweep = false;
  for (const auto &d : r.deviations) {
    EXPECT_EQ(d.op, "LogitGrad");
    EXPECT_TRUE(d.clause == "LOGIT-VALUE-1" || d.clause == "VAL-TOL-1") << d.clause;
    if (d.origin.find("sweep") == std::string::npos) continue;
    from_a_sweep = true;
    // Halved down to one element, whose x is in the window.
    const TensorArg *x = d.minimal.tensor("x");
    ASSERT_NE(x, nullptr);
    ASSERT_EQ(x->numel(), 1);
    EXPECT_NEAR(x->view().at(0), 0.3, 256 * 0x1p-25);
    EXPECT_GT(d.shrink_steps, 0);
  }
  EXPECT_TRUE(from_a_sweep);
}

}  // namespace
