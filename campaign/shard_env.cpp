#include "campaign/shard_env.hpp"

#include <charconv>
#include <cstdlib>
#include <optional>
#include <stdexcept>

namespace aclnn_conform {

namespace {

// A whole non-negative decimal number, or nothing.
std::optional<long long> whole_number(const std::string &text) {
  long long v = 0;
  const char *end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v < 0) return std::nullopt;
  return v;
}

// Shard counts are ints in the campaign; a bound far above any real array keeps them there.
constexpr long long kMaxShards = 1'000'000;

struct Env {
  const EnvLookup &lookup;
  const char *raw(const char *name) const { return lookup ? lookup(name) : std::getenv(name); }
  bool has(const char *name) const {
    const char *v = raw(name);
    return v != nullptr && *v != '\0';
  }
  long long number(const char *name, std::optional<long long> fallback = std::nullopt) const {
    if (!has(name)) {
      if (fallback) return *fallback;
      throw std::invalid_argument(std::string(name) + " is not set");
    }
    const std::string text = raw(name);
    const auto v = whole_number(text);
    if (!v || *v > kMaxShards)
      throw std::invalid_argument(std::string(name) + "='" + text +
                                  "' is not a whole number from 0 to " +
                                  std::to_string(kMaxShards));
    return *v;
  }
};

ShardAssignment checked(long long index, long long count, std::string source,
                        const std::string &what) {
  if (count < 1 || count > kMaxShards)
    throw std::invalid_argument(what + ": the shard count must be from 1 to " +
                                std::to_string(kMaxShards) + ", not " + std::to_string(count));
  if (index < 0 || index >= count)
    throw std::invalid_argument(what + ": the shard index must be from 0 to " +
                                std::to_string(count - 1) + ", not " + std::to_string(index));
  return {static_cast<int>(index), static_cast<int>(count), std::move(source)};
}

}  // namespace

ShardAssignment parse_shard_flag(const std::string &text) {
  const auto slash = text.find('/');
  const auto index = whole_number(text.substr(0, slash));
  const auto count =
      slash == std::string::npos ? std::nullopt : whole_number(text.substr(slash + 1));
  if (!index || !count || *index > kMaxShards || *count > kMaxShards)
    throw std::invalid_argument("--shard '" + text + "' is not I/N (e.g. 0/4)");
  return checked(*index, *count, "flag", "--shard " + text);
}

ShardAssignment shard_from_environment(int count_option, const EnvLookup &lookup) {
  const Env env{lookup};
  if (env.has("SLURM_ARRAY_TASK_ID")) {
    const long long id = env.number("SLURM_ARRAY_TASK_ID");
    const long long min = env.number("SLURM_ARRAY_TASK_MIN", 0);
    const long long max = env.number("SLURM_ARRAY_TASK_MAX", id);
    const long long step = env.number("SLURM_ARRAY_TASK_STEP", 1);
    const long long count = env.number("SLURM_ARRAY_TASK_COUNT", step ? (max - min) / step + 1 : 0);
    if (step < 1 || id < min || id > max || (id - min) % step != 0)
      throw std::invalid_argument("SLURM_ARRAY_TASK_ID=" + std::to_string(id) + " is not in " +
                                  std::to_string(min) + ".." + std::to_string(max) + " step " +
                                  std::to_string(step));
    if ((max - min) / step + 1 != count)
      throw std::invalid_argument(
          "SLURM_ARRAY_TASK_COUNT=" + std::to_string(count) + " is not the number of tasks in " +
          std::to_string(min) + ".." + std::to_string(max) + " step " + std::to_string(step) +
          ": the array is not a range (e.g. --array=0-3), so give --shard I/N");
    return checked((id - min) / step, count, "SLURM_ARRAY_TASK_ID", "Slurm job array");
  }
  if (env.has("JOB_COMPLETION_INDEX")) {
    const long long index = env.number("JOB_COMPLETION_INDEX");
    if (count_option < 1)
      throw std::invalid_argument(
          "JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but the number of shards is "
          "not: give --shard-count N (the Job's completions), or --shard I/N");
    return checked(index, count_option, "JOB_COMPLETION_INDEX", "Kubernetes Indexed Job");
  }
  if (count_option > 0)
    throw std::invalid_argument(
        "--shard-count needs JOB_COMPLETION_INDEX in the environment (a Kubernetes Indexed Job); "
        "elsewhere give --shard I/N");
  return {};
}

}  // namespace aclnn_conform
