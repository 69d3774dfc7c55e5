// Fuzz target: a shard report as `aclnn-conform merge` reads it (a report.json): JSON ->
// result_from_json (campaign/result.cpp), then merged with a copy of itself under another shard
// name (merge_results). Malformed input must be refused with an exception that says what is
// wrong; an accepted report must survive the JSON round trip unchanged and merge without a crash.
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "campaign/result.hpp"

namespace {
void require(bool ok, const char *what) {
  if (ok) return;
  std::fprintf(stderr, "merge_report finding: %s\n", what);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const auto j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  aclnn_conform::CampaignResult r;
  try {
    r = aclnn_conform::result_from_json(j);
  } catch (const std::exception &e) {
    require(e.what() != nullptr && *e.what() != '\0', "a refusal without a reason");
    return 0;
  }
  const std::string text = aclnn_conform::to_json(r).dump();
  const auto back = aclnn_conform::result_from_json(aclnn_conform::to_json(r));
  require(aclnn_conform::to_json(back).dump() == text, "the JSON round trip changed the report");
  aclnn_conform::CampaignResult other = r;
  other.shard = r.shard + "+";
  try {
    const auto merged = aclnn_conform::merge_results({r, other});
    (void)aclnn_conform::report_json_text(merged);
  } catch (const std::runtime_error &e) {
    require(*e.what() != '\0', "a merge refusal without a reason");
  }
  return 0;
}
