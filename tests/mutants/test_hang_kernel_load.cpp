// A hang is confirmed below the case timeout even where its second run lands on a worker that has
// not run its kernel yet. gelu_hang_rank8 hangs in every rank-8 GeluBackward call; with one worker
// each suspect's second run is on the killed worker's successor, where the call's dtypes are new:
// without the kernel load that precedes a suspect's second run, that call gets the whole case
// timeout and the hang is called only at it (10.7 s to the first one here, against 2.2 s).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "campaign/campaign.hpp"
#include "campaign/result.hpp"

namespace {
using namespace aclnn_conform;
namespace fs = std::filesystem;

TEST(HangOnAFreshWorker, IsConfirmedAtTheSuspectsAllowanceAfterItsKernelIsLoaded) {
  CampaignConfig cfg;
  cfg.sut = std::string(ACLNN_TEST_MUTANTS_DIR) + "/libaclnn_mutant_gelu_hang_rank8.so";
  cfg.ops = {"GeluBackward"};
  cfg.cases = 30;
  cfg.jobs = 1;
  cfg.seed = 1;
  cfg.tier = Tier::kCi;
  cfg.use_corpus = false;
  cfg.case_timeout_seconds = 10;
  cfg.shrink_attempts = 2;  // the hang's confirmation is the point here, not its smallest case
  const fs::path out =
      fs::temp_directory_path() / ("aclnn-conform-hang-load-" + std::to_string(::getpid()));
  fs::remove_all(out);
  cfg.out_dir = out.string();
  std::ostringstream log;
  const CampaignResult r = run_campaign(cfg, log);
  int hangs = 0;
  for (const auto &d : r.deviations) {
    if (d.kind != "timeout") continue;
    ++hangs;
    EXPECT_EQ(d.clause, "ABI-RANK-1") << d.origin;
    double limit = 0;
    ASSERT_EQ(std::sscanf(d.detail.c_str() + d.detail.find("within ") + 7, "%lf", &limit), 1)
        << d.detail;
    EXPECT_LT(limit, cfg.case_timeout_seconds) << d.origin << ": " << d.detail;
    EXPECT_NE(d.detail.find("on a second worker after an earlier one was killed"),
              std::string::npos)
        << d.detail;
  }
  EXPECT_GT(hangs, 0) << "the rank-8 hang was not found";
  const auto load = std::find_if(r.first_calls.begin(), r.first_calls.end(),
                                 [](const TimingStats &t) { return t.what == "kernel load"; });
  ASSERT_NE(load, r.first_calls.end()) << "no suspect's second run loaded its kernel first";
  EXPECT_GE(load->count, hangs);  // a suspect cleared on its second run loads too
}

}  // namespace
