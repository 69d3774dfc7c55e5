// Fuzz target: a case as users hand it to the CLI (corpus entries, replayed repro cases):
// JSON -> case_from_json (properties/case.cpp). Malformed input must be refused with an exception
// that says what is wrong; an accepted case must be safe to use: every element of every present
// tensor readable through its oracle view inside its own storage, describe() and the JSON round
// trip intact.
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "properties/case.hpp"

namespace {
void require(bool ok, const char *what) {
  if (ok) return;
  std::fprintf(stderr, "case_json finding: %s\n", what);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const auto j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  aclnn_conform::Case c;
  try {
    c = aclnn_conform::case_from_json(j);
  } catch (const std::exception &e) {
    require(e.what() != nullptr && *e.what() != '\0', "a refusal without a reason");
    return 0;
  }
  double sink = 0;
  for (const auto &[name, t] : c.tensors) {
    if (!t.present) continue;
    const auto v = t.view();
    const int64_t n = v.numel();
    for (int64_t i = 0; i < n && i < (1 << 16); ++i) sink += v.at(i);  // ASan: inside storage
  }
  (void)c.describe();
  const auto again = aclnn_conform::case_from_json(aclnn_conform::to_json(c));
  require(again.describe() == c.describe(), "the JSON round trip changed the case");
  volatile double keep = sink;
  (void)keep;
  return 0;
}
