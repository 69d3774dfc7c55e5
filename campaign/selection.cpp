#include "campaign/selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "properties/clauses.hpp"

namespace aclnn_conform {

std::vector<const OpDescriptor *> select_ops(const std::vector<std::string> &names) {
  if (names.empty()) return registry();
  std::vector<const OpDescriptor *> ops;
  for (const auto &name : names) {
    const OpDescriptor *op = find_op(name);
    if (!op)
      throw std::invalid_argument("no op named '" + name + "' (see `aclnn-conform list ops`)");
    ops.push_back(op);
  }
  return ops;
}

void check_expected_variants(const std::vector<const OpDescriptor *> &ops,
                             const std::vector<std::string> &expected_variants) {
  for (const auto &v : expected_variants) {
    const bool known = std::any_of(ops.begin(), ops.end(), [&](const OpDescriptor *op) {
      return std::find(op->variants.begin(), op->variants.end(), v) != op->variants.end();
    });
    if (!known)
      throw std::invalid_argument("--expect-variant '" + v +
                                  "' is no variant of the selected ops (see `aclnn-conform "
                                  "list variants`)");
  }
}

std::vector<const OpDescriptor *> exported_ops(const std::vector<const OpDescriptor *> &ops,
                                               const std::vector<std::string> &exported,
                                               const std::string &sut_name,
                                               std::vector<std::string> &warnings) {
  std::vector<const OpDescriptor *> available;
  for (const auto *op : ops) {
    if (std::count(exported.begin(), exported.end(), op->name))
      available.push_back(op);
    else
      warnings.push_back(fmt::format("{} does not export {}: its clauses are not reached",
                                     sut_name, op->abi_name));
  }
  return available;
}

std::vector<std::string> selected_op_names(const std::vector<std::string> &names) {
  std::vector<std::string> selected;
  for (const auto *op : registry())
    if (names.empty() || std::count(names.begin(), names.end(), op->name))
      selected.push_back(op->name);
  return selected;
}

std::vector<ClauseVerdict> selected_clauses(const std::vector<std::string> &op_names,
                                            int64_t min_cases) {
  const std::set<std::string> selected(op_names.begin(), op_names.end());
  std::set<std::string> op_clauses;
  for (const auto *op : registry())
    if (selected.count(op->name)) op_clauses.insert(op->clauses.begin(), op->clauses.end());
  std::vector<ClauseVerdict> clauses;
  for (const auto &c : clause_catalog()) {
    const bool mine = c.op == "common" || selected.count(c.op) || op_clauses.count(c.id);
    if (!mine) continue;
    ClauseVerdict v;
    v.id = c.id;
    v.op = c.op;
    v.min_cases = min_cases;
    clauses.push_back(v);
  }
  return clauses;
}

std::vector<std::string> unmatched_entry_warnings(const std::vector<std::string> &skips,
                                                  const std::vector<std::string> &xfails) {
  // Entries that match nothing are reported, not silently ignored.
  auto known = [&](const std::string &e) {
    if (find_clause(e)) return true;
    for (const auto *op : registry())
      for (const char *kind : {"/valid", "/invalid", "/protocol", "/edge", "/corpus"})
        if (e == op->name + kind) return true;
    return false;
  };
  std::vector<std::string> warnings;
  for (const auto &e : skips)
    if (!known(e)) warnings.push_back("--skips entry '" + e + "' matches no clause or property");
  for (const auto &e : xfails)
    if (!find_clause(e)) warnings.push_back("--xfails entry '" + e + "' matches no clause");
  return warnings;
}

}  // namespace aclnn_conform
