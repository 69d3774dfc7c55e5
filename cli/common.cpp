// The command line's common parts (cli/cli.hpp): exit statuses of verdicts, the stop signals,
// flag values parsed with messages that name the flag and the rule, list and JSON files read,
// shell quoting for the commands the CLI prints.
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <regex>

#include "campaign/clause_lists.hpp"
#include "cli/cli.hpp"

namespace aclnn_conform::cli {

int exit_code(Verdict v) {
  switch (v) {
    case Verdict::kConformant:
      return kExitConformant;
    case Verdict::kDeviations:
      return kExitDeviations;
    case Verdict::kIncomplete:
      return kExitIncomplete;
    case Verdict::kInterrupted:
      return kExitInterrupted;
  }
  return kExitInternal;
}

volatile std::sig_atomic_t g_stop = 0;

namespace {
extern "C" void on_stop_signal(int sig) {
  if (g_stop) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_stop = 1;
  constexpr char kMsg[] = "\naclnn-conform: stopping; writing the reports of what ran\n";
  [[maybe_unused]] const auto n = write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
}
}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// "90s", "2m", "1h", "1.5m" or plain seconds; positive and finite.
double parse_duration(const std::string &flag, const std::string &text) {
  static const std::regex kDuration(R"(\s*([0-9]+(\.[0-9]*)?|\.[0-9]+)\s*(s|m|h)?\s*)");
  std::smatch m;
  const std::string hint = " is not a duration (use 90s, 2m, 1h, 1.5m)";
  if (!std::regex_match(text, m, kDuration)) throw UsageError(flag + ": '" + text + "'" + hint);
  const double v = std::strtod(m[1].str().c_str(), nullptr);
  const std::string unit = m[3].str();
  const double seconds = unit == "m" ? v * 60 : unit == "h" ? v * 3600 : v;
  if (!(seconds > 0) || !std::isfinite(seconds))
    throw UsageError(flag + ": '" + text + "' must be a positive duration");
  return seconds;
}

// A non-negative integer in decimal or 0x hex that fits in 64 bits.
uint64_t parse_u64(const std::string &flag, const std::string &text) {
  static const std::regex kNumber(R"(0[xX][0-9a-fA-F]+|[0-9]+)");
  const std::string rule = " is not a non-negative integer (0 .. 18446744073709551615, or 0x hex)";
  if (!std::regex_match(text, kNumber)) throw UsageError(flag + ": '" + text + "'" + rule);
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 0);
  if (errno == ERANGE) throw UsageError(flag + ": '" + text + "'" + rule);
  return v;
}

// "I/N": shard I of N, 0 <= I < N.
std::pair<int, int> parse_shard(const std::string &text) {
  static const std::regex kShard(R"(([0-9]{1,9})/([0-9]{1,9}))");
  std::smatch m;
  if (!std::regex_match(text, m, kShard))
    throw UsageError("--shard: '" + text + "' is not I/N (e.g. 0/4: the first of 4 shards)");
  const int i = std::stoi(m[1].str()), n = std::stoi(m[2].str());
  if (n < 1 || i >= n) throw UsageError("--shard: '" + text + "' needs 0 <= I < N and N >= 1");
  return {i, n};
}

void check_pattern(const std::string &pattern) {
  try {
    std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error &e) {
    throw UsageError("--clauses: '" + pattern +
                     "' is not an ECMAScript regular expression: " + e.what());
  }
}

std::vector<std::string> read_list(const std::string &flag, const std::string &path) {
  if (path.empty()) return {};
  auto list = read_clause_list(path);
  if (!list.error.empty()) throw UsageError(flag + ": " + list.error);
  return std::move(list.entries);
}

nlohmann::json read_json(const std::string &what, const fs::path &p) {
  std::ifstream f(p);
  if (!f) throw UsageError(what + ": cannot read " + p.string());
  try {
    return nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception &e) {
    throw UsageError(what + ": " + p.string() + " is not valid JSON: " + e.what());
  }
}

std::string shell_quote(const std::string &s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-./:=+,@") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace aclnn_conform::cli
