// Documentation generated from data (spec/clauses.json, the op registry, the edge-case tables):
// a spec page per op and the clause traceability table. Never written by hand.
#pragma once

#include <map>
#include <string>

namespace aclnn_conform {

// File name (relative to the docs folder) -> Markdown content.
std::map<std::string, std::string> generated_docs();

}  // namespace aclnn_conform
