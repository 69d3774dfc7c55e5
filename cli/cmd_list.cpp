// aclnn-conform list (cli/cli.hpp): the registry's ops, the clause catalogue, the spec's variants
// or the traceability table, filtered by op and clause pattern.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <regex>

#include "campaign/docs.hpp"
#include "cli/cli.hpp"
#include "properties/clauses.hpp"
#include "properties/op.hpp"

namespace aclnn_conform::cli {

CLI::App *add_list(CLI::App &app, ListOptions &o) {
  auto *list = app.add_subcommand("list", "list ops, clauses, variants or the traceability table");
  list->add_option("what", o.what)
      ->required()
      ->check(CLI::IsMember({"ops", "clauses", "variants", "traceability"}));
  list->add_option("--op", o.op, "only this op's clauses or variants (and the common ones)");
  list->add_option("--clauses", o.pattern, "only clauses whose ID matches this regex");
  return list;
}

int run_list(const ListOptions &o) {
  const std::string &what = o.what, &list_op = o.op, &list_pattern = o.pattern;
  if (!list_op.empty() && !find_op(list_op))
    throw UsageError("list --op: no op named '" + list_op + "' (see `aclnn-conform list ops`)");
  if (!list_pattern.empty()) check_pattern(list_pattern);
  const std::regex pattern(list_pattern.empty() ? "." : list_pattern);
  const auto selected = [&](const ClauseInfo &c) {
    return (list_op.empty() || c.op == list_op || c.op == "common") &&
           std::regex_search(c.id, pattern);
  };
  if (what == "ops") {
    for (const auto *op : registry())
      if (list_op.empty() || op->name == list_op)
        std::cout << fmt::format("{:<24} {} ({} clauses, variants: {})\n", op->name, op->abi_name,
                                 op->clauses.size(), fmt::join(op->variants, ", "));
  } else if (what == "clauses") {
    for (const auto &c : clause_catalog())
      if (selected(c))
        std::cout << fmt::format("{:<22} {:<20} {:<8} {}\n", c.id, c.op, c.kind,
                                 c.text.substr(0, 90));
  } else if (what == "variants") {
    for (const auto &c : clause_catalog())
      if (selected(c))
        for (const auto &[name, text] : c.variants)
          std::cout << fmt::format("{:<16} {:<22} {}\n", name, c.id, text.substr(0, 90));
  } else {
    std::cout << generated_docs().at("traceability.md");
  }
  return kExitConformant;
}

}  // namespace aclnn_conform::cli
