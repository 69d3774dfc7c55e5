// The shard a run takes from --shard or from the scheduler's environment (campaign/shard_env.hpp).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "campaign/shard_env.hpp"

namespace aclnn_conform {
namespace {

// A fake environment: only the variables given are set.
EnvLookup env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char *name) -> const char * {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

// The message of the std::invalid_argument `f` throws, or "" if it throws nothing.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument &e) {
    return e.what();
  }
  return "";
}

TEST(ShardFlag, ParsesIndexAndCount) {
  const auto s = parse_shard_flag("3/8");
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.count, 8);
  EXPECT_EQ(s.source, "flag");
}

TEST(ShardFlag, RefusesMalformedOrOutOfRange) {
  for (const char *bad : {"", "3", "3/", "/4", "a/4", "4/4", "-1/4", "1/0", "1/4x", "1.5/4"})
    EXPECT_NE(error_of([&] { parse_shard_flag(bad); }).find("--shard"), std::string::npos) << bad;
}

TEST(ShardEnvironment, NothingSetIsOneShard) {
  const auto s = shard_from_environment(0, env({}));
  EXPECT_EQ(s.index, 0);
  EXPECT_EQ(s.count, 1);
  EXPECT_EQ(s.source, "default");
}

TEST(ShardEnvironment, SlurmArrayFromZero) {
  const auto s = shard_from_environment(0, env({{"SLURM_ARRAY_TASK_ID", "2"},
                                                {"SLURM_ARRAY_TASK_MIN", "0"},
                                                {"SLURM_ARRAY_TASK_MAX", "3"},
                                                {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s.source, "SLURM_ARRAY_TASK_ID");
}

TEST(ShardEnvironment, SlurmArrayFromOneIsShiftedToZero) {
  // sbatch --array=1-4: task 1 is shard 0, task 4 is shard 3.
  const std::map<std::string, std::string> base = {{"SLURM_ARRAY_TASK_MIN", "1"},
                                                   {"SLURM_ARRAY_TASK_MAX", "4"},
                                                   {"SLURM_ARRAY_TASK_COUNT", "4"}};
  auto first = base, last = base;
  first["SLURM_ARRAY_TASK_ID"] = "1";
  last["SLURM_ARRAY_TASK_ID"] = "4";
  EXPECT_EQ(shard_from_environment(0, env(first)).index, 0);
  EXPECT_EQ(shard_from_environment(0, env(last)).index, 3);
}

TEST(ShardEnvironment, SlurmArrayWithStep) {
  // sbatch --array=10-16:2 runs 10, 12, 14, 16.
  const auto s = shard_from_environment(0, env({{"SLURM_ARRAY_TASK_ID", "14"},
                                                {"SLURM_ARRAY_TASK_MIN", "10"},
                                                {"SLURM_ARRAY_TASK_MAX", "16"},
                                                {"SLURM_ARRAY_TASK_STEP", "2"},
                                                {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 4);
}

TEST(ShardEnvironment, SlurmArrayThatIsNotARangeIsRefused) {
  // sbatch --array=1,5,7: three tasks over 1..7 cannot be numbered 0..2 from the environment.
  const auto e = error_of([] {
    shard_from_environment(0, env({{"SLURM_ARRAY_TASK_ID", "5"},
                                   {"SLURM_ARRAY_TASK_MIN", "1"},
                                   {"SLURM_ARRAY_TASK_MAX", "7"},
                                   {"SLURM_ARRAY_TASK_COUNT", "3"}}));
  });
  EXPECT_NE(e.find("SLURM_ARRAY_TASK_COUNT"), std::string::npos) << e;
  EXPECT_NE(e.find("--shard"), std::string::npos) << e;
}

TEST(ShardEnvironment, MalformedSlurmVariablesAreNamed) {
  auto e = error_of([] { shard_from_environment(0, env({{"SLURM_ARRAY_TASK_ID", "two"}})); });
  EXPECT_NE(e.find("SLURM_ARRAY_TASK_ID='two'"), std::string::npos) << e;
  e = error_of([] {
    shard_from_environment(0, env({{"SLURM_ARRAY_TASK_ID", "9"},
                                   {"SLURM_ARRAY_TASK_MIN", "0"},
                                   {"SLURM_ARRAY_TASK_MAX", "3"}}));
  });
  EXPECT_NE(e.find("SLURM_ARRAY_TASK_ID=9 is not in 0..3"), std::string::npos) << e;
}

TEST(ShardEnvironment, KubernetesIndexedJobTakesTheCountOption) {
  const auto s = shard_from_environment(5, env({{"JOB_COMPLETION_INDEX", "4"}}));
  EXPECT_EQ(s.index, 4);
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(s.source, "JOB_COMPLETION_INDEX");
}

TEST(ShardEnvironment, KubernetesIndexWithoutCountOrOutOfRangeIsRefused) {
  auto e = error_of([] { shard_from_environment(0, env({{"JOB_COMPLETION_INDEX", "1"}})); });
  EXPECT_NE(e.find("--shard-count"), std::string::npos) << e;
  e = error_of([] { shard_from_environment(4, env({{"JOB_COMPLETION_INDEX", "4"}})); });
  EXPECT_NE(e.find("from 0 to 3"), std::string::npos) << e;
}

TEST(ShardEnvironment, CountOptionWithoutAnIndexIsRefused) {
  const auto e = error_of([] { shard_from_environment(4, env({})); });
  EXPECT_NE(e.find("JOB_COMPLETION_INDEX"), std::string::npos) << e;
}

TEST(ShardEnvironment, SlurmWinsOverKubernetes) {
  const auto s = shard_from_environment(8, env({{"SLURM_ARRAY_TASK_ID", "1"},
                                                {"SLURM_ARRAY_TASK_MIN", "0"},
                                                {"SLURM_ARRAY_TASK_MAX", "1"},
                                                {"SLURM_ARRAY_TASK_COUNT", "2"},
                                                {"JOB_COMPLETION_INDEX", "6"}}));
  EXPECT_EQ(s.source, "SLURM_ARRAY_TASK_ID");
  EXPECT_EQ(s.count, 2);
}

TEST(ShardEnvironment, ReadsTheProcessEnvironmentByDefault) {
  ::setenv("JOB_COMPLETION_INDEX", "1", 1);
  const auto s = shard_from_environment(3);
  ::unsetenv("JOB_COMPLETION_INDEX");
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.source, "JOB_COMPLETION_INDEX");
}

}  // namespace
}  // namespace aclnn_conform
