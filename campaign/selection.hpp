// A campaign's set-up before any case runs: what it selects (ops, clauses), with the warnings for
// what the user named but does not exist or cannot run. (The libraries are loaded by workers
// only: campaign/worker.hpp.)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "campaign/result.hpp"
#include "properties/op.hpp"
#include "properties/sut.hpp"

namespace aclnn_conform {

// The ops of the given names in the given order (every op of the registry if names is empty).
// Throws std::invalid_argument naming an op that does not exist.
std::vector<const OpDescriptor *> select_ops(const std::vector<std::string> &names);

// Throws std::invalid_argument if an expected variant is no variant of any of ops.
void check_expected_variants(const std::vector<const OpDescriptor *> &ops,
                             const std::vector<std::string> &expected_variants);

// The ops among ops the SUT exports (by name, as a worker found them); a warning for each one
// it does not, in ops' order.
std::vector<const OpDescriptor *> exported_ops(const std::vector<const OpDescriptor *> &ops,
                                               const std::vector<std::string> &exported,
                                               const std::string &sut_name,
                                               std::vector<std::string> &warnings);

// The names of the selected ops in registry order (every op if names is empty), and the verdict
// rows (not yet reached, min_cases each) of their clauses and the shared ones, in spec order.
std::vector<std::string> selected_op_names(const std::vector<std::string> &names);
std::vector<ClauseVerdict> selected_clauses(const std::vector<std::string> &op_names,
                                            int64_t min_cases);

// A warning for each --skips entry that matches no clause or property and each --xfails entry
// that matches no clause.
std::vector<std::string> unmatched_entry_warnings(const std::vector<std::string> &skips,
                                                  const std::vector<std::string> &xfails);

}  // namespace aclnn_conform
