// Traceability: every clause of the specification (as the project transcribed it) is enforced by
// a property or an edge case, and every named enforcer exists.
#include <gtest/gtest.h>

#include <set>

#include "edge_cases/edge_case.hpp"
#include "properties/clauses.hpp"
#include "properties/op.hpp"

namespace {
using namespace aclnn_conform;

std::set<std::string> tests_in_this_binary() {
  std::set<std::string> names;
  const auto *unit = ::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit->total_test_suite_count(); ++i) {
    const auto *suite = unit->GetTestSuite(i);
    for (int j = 0; j < suite->total_test_count(); ++j)
      names.insert(std::string(suite->name()) + "." + suite->GetTestInfo(j)->name());
  }
  return names;
}

TEST(Traceability, EveryClauseHasAnEnforcingPropertyOrEdgeCase) {
  std::set<std::string> enforced;
  for (const auto &e : property_enforcement())
    if (!e.by.empty()) enforced.insert(e.clause);
  for (const auto &row : all_edge_cases()) enforced.insert(row.clause);
  ASSERT_GT(clause_catalog().size(), 80u);
  for (const auto &c : clause_catalog())
    EXPECT_TRUE(enforced.count(c.id)) << c.id << " is enforced by nothing";
}

TEST(Traceability, EveryNamedEnforcerExists) {
  const auto tests = tests_in_this_binary();
  for (const auto &e : property_enforcement())
    for (const auto &t : e.by) EXPECT_TRUE(tests.count(t)) << e.clause << ": no test named " << t;
}

TEST(Traceability, EveryEdgeRowAndOpClauseIsInTheCatalogue) {
  for (const auto &row : all_edge_cases())
    EXPECT_NE(find_clause(row.clause), nullptr) << row.clause;
  for (const auto *op : registry())
    for (const auto &c : op->clauses) EXPECT_NE(find_clause(c), nullptr) << op->name << ": " << c;
}

}  // namespace
