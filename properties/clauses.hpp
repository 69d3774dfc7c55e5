// The clause catalogue: the project's own transcription of the specification (spec/clauses.json,
// compiled into the binary), and which property or edge case enforces each clause.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace aclnn_conform {

struct ClauseInfo {
  std::string id;    // "GELU-BCAST-1"
  std::string op;    // "GeluBackward", or "common" for ABI-* and VAL-*
  std::string kind;  // "error", "success", "value", "rule"
  std::string text;
  std::optional<int> status;  // for error clauses
  bool project = false;       // a project rule where the vendor is silent
  std::vector<std::pair<std::string, std::string>> variants;  // (name, text)
};

// Every clause, in the specification's order.
const std::vector<ClauseInfo> &clause_catalog();
const ClauseInfo *find_clause(const std::string &id);

// Where a clause is enforced: test names (Suite.Name) and edge-case rows ("edge: title").
struct Enforcement {
  std::string clause;
  std::vector<std::string> by;
};
// Derived from the op registry: each op's generic properties enforce its clauses and the shared
// ones of clauses.cpp's table, a descriptor's shared_clause_enforcers name its tests that stand
// for shared clauses; the Abi.* tests are listed in clauses.cpp. The caller adds the edge rows.
std::vector<Enforcement> property_enforcement();

}  // namespace aclnn_conform
