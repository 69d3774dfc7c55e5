// The pipes between the campaign and a worker process (campaign/worker.hpp).
//
// Commands, campaign to worker (descriptor 3), one JSON object per line, {"cmd": ...}:
//   hello      the first line: what to load, the device, the configuration (worker_hello())
//   tasks      {"tasks": [to_json(Task)...], "saturated": [clauses], "deadline_ns"}: run each
//   candidate  {"task", "case"}: run one shrink candidate of a crash or hang, unjudged
//   emulation  run the product-emulation probe (campaign/product_emulation.hpp)
// End of file: the worker exits.
//
// Records, worker to campaign (descriptor 4): one per line, "<tag> <JSON>\n". The tags:
//  H  the answer to hello: {"ok", "error"?, "ops" (exported), "device", "start_seconds"};
//  R  a task's result: {"results", "comparisons", "precision", "seconds", "deviation"?}, where
//     "deviation" is to_json(Deviation) (campaign/result.hpp: the same record report.json holds);
//  D  the device failed during the task instead of a result (the worker then exits):
//     {"kind": "device-lost" | "out-of-memory", "problem", "after_call", "clause",
//      "failed_call", "status"};
//  K  a shrink candidate ran without dying: {};
//  P  the product-emulation probe's answer (read_emulation_probe());
//  E  the framework could not judge the task: {"error"};
//  N  a note on what the SUT did to the worker's process: {"note"};
//  W  an op's warm-up call (its first call in the worker) took {"op", "seconds"}.
// Every R, D, K or E answers the next task or candidate sent to the worker, in order; H, P, N and
// W answer no task.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "campaign/campaign.hpp"
#include "campaign/result.hpp"

namespace aclnn_conform {

namespace record_tag {
constexpr char kHello = 'H';
constexpr char kResult = 'R';
constexpr char kDeviceFault = 'D';
constexpr char kSurvived = 'K';
constexpr char kEmulation = 'P';
constexpr char kError = 'E';
constexpr char kNote = 'N';
constexpr char kWarmUp = 'W';
// A task's call deviated and its shrink starts: the deviation is found now (its result follows).
constexpr char kFound = 'F';
}  // namespace record_tag

// A command line (with its newline).
std::string encode_command(const std::string &cmd, nlohmann::json body = nlohmann::json::object());

// What a worker needs of the campaign's configuration, and back (the fields a worker reads:
// product and its emulation, tier, accuracy policy, skips, expected variants, shrink attempts,
// the competitor's name).
nlohmann::json worker_config_json(const CampaignConfig &cfg);
CampaignConfig worker_config_from_json(const nlohmann::json &j);

// One record as the line a worker writes (with its newline).
std::string encode_record(char tag, const nlohmann::json &body);

// Takes the next complete line (without its newline) off the front of buffer; nullopt if the
// buffer holds no complete line yet.
std::optional<std::string> take_line(std::string &buffer);

// A line's tag and body; the line must be at least "<tag> " (throws nlohmann::json's parse
// error on a body that is not JSON).
char record_tag_of(const std::string &line);
nlohmann::json record_body(const std::string &line);

// An element of a result's "comparisons" (one output's ULP histogram and Ascend metrics) and of
// its "precision" (the precision standards' tallies), as accuracy rows to merge_accuracy().
AccuracyStats accuracy_from_comparison(const nlohmann::json &cmp);
AccuracyStats accuracy_from_precision(const nlohmann::json &pj);

}  // namespace aclnn_conform
