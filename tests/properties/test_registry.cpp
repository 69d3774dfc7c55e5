// The op registry is the one list of ops: these checks fail when another layer's view of the ops
// (the built-in library's exports, the clause catalogue, the edge tables, the README) and the
// registry disagree. tools/import_spec.py keeps no op list: it takes the op files from the
// specification's own README, so EveryCatalogueOpIsInTheRegistry covers it.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "edge_cases/edge_case.hpp"
#include "properties/clauses.hpp"
#include "properties/generic.hpp"
#include "properties/op.hpp"

namespace {
using namespace aclnn_conform;

bool contains(const std::vector<std::string> &v, const std::string &s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string read_source_file(const std::string &relative) {
  std::ifstream in(std::string(ACLNN_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Registry, EveryOpsEntryPointsAreExportedByTheBuiltinLibrary) {
  const AbiTable &abi = builtin_sut().abi();
  ASSERT_FALSE(registry().empty());
  for (const auto *op : registry()) {
    for (const auto &symbol : abi_symbols(*op))
      EXPECT_NE(abi.symbol(symbol), nullptr) << op->name << ": " << symbol;
    EXPECT_TRUE(op->available(abi)) << op->name;
  }
}

TEST(Registry, NamesAreUniqueAndFound) {
  std::set<std::string> names, abi_names;
  for (const auto *op : registry()) {
    EXPECT_TRUE(names.insert(op->name).second) << op->name;
    EXPECT_TRUE(abi_names.insert(op->abi_name).second) << op->abi_name;
    EXPECT_EQ(find_op(op->name), op);
  }
  EXPECT_EQ(find_op("NoSuchOp"), nullptr);
}

// Each op's clauses are the catalogue's for its catalogue op, in the catalogue's order, with the
// deliberate differences (another variant's clauses, shared clauses) stated on the descriptor.
TEST(Registry, ClausesAreTheCataloguesForTheOp) {
  for (const auto *op : registry()) {
    std::vector<std::string> own;
    for (const auto &c : clause_catalog())
      if (c.op == op->catalogue_op) own.push_back(c.id);
    ASSERT_FALSE(own.empty()) << op->name << ": no clause of op " << op->catalogue_op;
    std::vector<std::string> expected;
    for (const auto &id : own)
      if (!contains(op->clauses_of_other_variants, id)) expected.push_back(id);
    for (const auto &id : op->shared_clauses) {
      ASSERT_NE(find_clause(id), nullptr) << id;
      EXPECT_EQ(find_clause(id)->op, "common") << op->name << ": shared clause " << id;
      expected.push_back(id);
    }
    EXPECT_EQ(op->clauses, expected) << op->name;
    // Another variant's clause is one of the catalogue op's, and that variant has it.
    for (const auto &id : op->clauses_of_other_variants) {
      EXPECT_TRUE(contains(own, id)) << op->name << ": " << id;
      EXPECT_TRUE(std::any_of(registry().begin(), registry().end(),
                              [&](const auto *other) {
                                return other != op && other->catalogue_op == op->catalogue_op &&
                                       contains(other->clauses, id);
                              }))
          << op->name << ": no variant enforces " << id;
    }
    for (const auto &id : op->caller_precondition_clauses) {
      EXPECT_TRUE(contains(op->clauses, id)) << op->name << ": " << id;
      ASSERT_NE(find_clause(id), nullptr) << id;
      EXPECT_EQ(find_clause(id)->kind, "error") << id;
    }
    for (const auto &[id, property] : op->shared_clause_enforcers) {
      ASSERT_NE(find_clause(id), nullptr) << id;
      EXPECT_EQ(find_clause(id)->op, "common") << op->name << ": " << id;
    }
  }
}

// The deliberate difference between the two GroupedBiasAddGrad variants: groupIdxType is V2's.
TEST(Registry, GroupIdxTypeIsTheV2VariantsClauseOnly) {
  EXPECT_FALSE(contains(grouped_bias_add_grad_op().clauses, "GBAG-TYPE-1"));
  EXPECT_TRUE(contains(grouped_bias_add_grad_v2_op().clauses, "GBAG-TYPE-1"));
}

TEST(Registry, EveryCatalogueOpIsInTheRegistry) {
  for (const auto &c : clause_catalog()) {
    if (c.op == "common") continue;
    EXPECT_TRUE(std::any_of(registry().begin(), registry().end(),
                            [&](const auto *op) { return op->catalogue_op == c.op; }))
        << c.id << ": op " << c.op << " is not in registry()";
  }
}

TEST(Registry, EveryClauseHasAnEnforcer) {
  std::set<std::string> enforced;
  for (const auto &e : property_enforcement())
    if (!e.by.empty()) enforced.insert(e.clause);
  for (const auto &row : all_edge_cases()) enforced.insert(row.clause);
  for (const auto *op : registry())
    for (const auto &id : op->clauses) EXPECT_TRUE(enforced.count(id)) << op->name << ": " << id;
}

// Every op has edge rows, reached through the registry, and every row is of a registry op and of
// one of its clauses or a shared one.
TEST(Registry, EveryOpHasEdgeRowsOfItsClauses) {
  const auto rows = all_edge_cases();
  for (const auto *op : registry())
    EXPECT_TRUE(std::any_of(rows.begin(), rows.end(),
                            [&](const EdgeCase &r) { return r.call.op == op->name; }))
        << op->name << " has no edge row";
  for (const auto &row : rows) {
    const OpDescriptor *op = find_op(row.call.op);
    ASSERT_NE(op, nullptr) << row.call.op;
    const ClauseInfo *clause = find_clause(row.clause);
    ASSERT_NE(clause, nullptr) << row.clause;
    EXPECT_TRUE(contains(op->clauses, row.clause) || clause->op == "common")
        << row.clause << " on " << op->name << ": " << row.title;
  }
}

// The README's op list (its opening paragraph) names exactly the registry's ABI entry points.
TEST(Registry, ReadmeListsExactlyTheRegistrysOps) {
  const std::string readme = read_source_file("README.md");
  ASSERT_FALSE(readme.empty());
  const std::string opening = readme.substr(0, readme.find("\n\n", readme.find('\n') + 2));
  std::set<std::string> listed, registered;
  const std::regex name("aclnn[A-Z][A-Za-z0-9]*");
  for (auto it = std::sregex_iterator(opening.begin(), opening.end(), name);
       it != std::sregex_iterator(); ++it)
    listed.insert(it->str());
  for (const auto *op : registry()) registered.insert(op->abi_name);
  EXPECT_EQ(listed, registered) << opening;
}

}  // namespace
