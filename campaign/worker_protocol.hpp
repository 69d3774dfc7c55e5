// The pipe from a worker to the campaign: one record per line, "<tag> <JSON>\n". The tags:
//  R  a task's result: {"results", "comparisons", "precision", "seconds", "deviation"?}, where
//     "deviation" is to_json(Deviation) (campaign/result.hpp: the same record report.json holds);
//  C  a crash or hang shrunk: {"case", "shrink_steps"};
//  E  the framework could not judge the task or finish the shrink: {"error"};
//  N  a note on what the SUT did to the worker's process: {"note"} (not counted as a record).
// Every R, C or E answers the next task of the worker's batch (then its crash shrinks), in order.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "campaign/result.hpp"

namespace aclnn_conform {

namespace record_tag {
constexpr char kResult = 'R';
constexpr char kShrunkCrash = 'C';
constexpr char kError = 'E';
constexpr char kNote = 'N';
}  // namespace record_tag

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
