// Which shard of the seed space this process runs: from `--shard I/N`, or, when it is not given,
// from the scheduler that started the process (Slurm job arrays, Kubernetes Indexed Jobs). The
// source is recorded in the report, so a merged report shows how its shards were assigned.
#pragma once

#include <functional>
#include <string>

namespace aclnn_conform {

struct ShardAssignment {
  int index = 0;
  int count = 1;
  // "flag" (--shard), "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", or "default" (0/1).
  std::string source = "default";
};

// "I/N" with 0 <= I < N; throws std::invalid_argument naming --shard and the rule otherwise.
ShardAssignment parse_shard_flag(const std::string &text);

// Reads an environment variable (nullptr if unset); tests pass their own instead of std::getenv.
using EnvLookup = std::function<const char *(const char *)>;

// The shard from the environment:
//  - Slurm job array: SLURM_ARRAY_TASK_ID among SLURM_ARRAY_TASK_MIN..MAX in steps of
//    SLURM_ARRAY_TASK_STEP (default 1); the count is SLURM_ARRAY_TASK_COUNT, which must equal the
//    number of steps (a list like --array=1,5,7 cannot be mapped onto I/N and is refused).
//  - Kubernetes Indexed Job: JOB_COMPLETION_INDEX, with the count from `count_option`
//    (--shard-count, the Job's `completions`), which the environment does not carry.
//  - neither: 0/1, source "default".
// Slurm wins when both are set. Inconsistent or malformed values throw std::invalid_argument
// naming the variable and the rule; a count option without JOB_COMPLETION_INDEX throws too.
ShardAssignment shard_from_environment(int count_option = 0, const EnvLookup &lookup = {});

}  // namespace aclnn_conform
