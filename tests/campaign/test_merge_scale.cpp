// merge_results at scale: a merge of many shards keeps what one process keeps (per clause the
// first counterexamples in seed-space order), adds the counts, and names its shards in order.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "campaign/result.hpp"

namespace aclnn_conform {
namespace {

// A shard report with two clauses; clause A deviates at indices shard + j * count, j < 3.
CampaignResult shard(int index, int count, const std::string &source = "SLURM_ARRAY_TASK_ID") {
  CampaignResult r;
  r.sut = "lib.so";
  r.product = "ascend910b";
  r.policy = "ulp";
  r.seed = 5;
  r.shard = std::to_string(index) + "/" + std::to_string(count);
  r.shard_source = source;
  r.cases = 10;
  r.clauses = {{"A-1", "Op", 10, 3}, {"B-1", "Op", 7, 0}};
  for (int j = 0; j < 3; ++j) {
    Deviation d;
    d.op = "Op";
    d.clause = "A-1";
    d.origin = "seed 0x5 index " + std::to_string(index + j * count) + " valid size 4";
    r.deviations.push_back(d);
  }
  r.accuracy = {{"Op", "float32", 100}};
  r.warnings = {"same warning everywhere"};
  finalize_statuses(r);
  return r;
}

TEST(MergeScale, ThousandShardsKeepTheFirstThreeCounterexamplesInSeedOrder) {
  std::vector<CampaignResult> shards;
  for (int i = 999; i >= 0; --i) shards.push_back(shard(i, 1000));  // arrival order reversed
  const CampaignResult m = merge_results(shards);
  EXPECT_EQ(m.cases, 10000);
  ASSERT_EQ(m.clauses.size(), 2u);
  EXPECT_EQ(m.clauses[0].reached, 10000);
  EXPECT_EQ(m.clauses[0].deviations, 3000);
  EXPECT_EQ(m.clauses[0].status, ClauseStatus::kDeviates);
  EXPECT_EQ(m.clauses[1].status, ClauseStatus::kConforms);
  ASSERT_EQ(m.deviations.size(), 3u);
  EXPECT_EQ(m.deviations[0].origin, "seed 0x5 index 0 valid size 4");
  EXPECT_EQ(m.deviations[1].origin, "seed 0x5 index 1 valid size 4");
  EXPECT_EQ(m.deviations[2].origin, "seed 0x5 index 2 valid size 4");
  EXPECT_EQ(m.accuracy.size(), 1u);
  EXPECT_EQ(m.accuracy[0].elements, 100000);
  EXPECT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.shard.substr(0, 21), "0/1000,1/1000,2/1000,");
  EXPECT_EQ(m.shard_source, "SLURM_ARRAY_TASK_ID");
}

TEST(MergeScale, StoredCounterexamplesComeBeforeGeneratedOnes) {
  CampaignResult a = shard(0, 2), b = shard(1, 2);
  b.deviations[2].origin = "corpus Op-A-1-00ff.json";
  const CampaignResult m = merge_results({a, b});
  ASSERT_EQ(m.deviations.size(), 3u);
  EXPECT_EQ(m.deviations[0].origin, "corpus Op-A-1-00ff.json");
}

TEST(MergeScale, MixedSourcesAreListedAndDuplicatesRefused) {
  const CampaignResult m = merge_results({shard(0, 2, "flag"), shard(1, 2)});
  EXPECT_EQ(m.shard, "0/2,1/2");
  EXPECT_EQ(m.shard_source, "SLURM_ARRAY_TASK_ID,flag");
  EXPECT_THROW(merge_results({shard(1, 2), shard(0, 2), shard(1, 2)}), std::runtime_error);
  CampaignResult other = shard(1, 2);
  other.seed = 6;
  EXPECT_THROW(merge_results({shard(0, 2), other}), std::runtime_error);
}

}  // namespace
}  // namespace aclnn_conform
