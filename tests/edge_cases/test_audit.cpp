// The campaign's side of the edge rows: the literals it checks on any SUT (edge_row_literals), and
// the sub-rule audit (docs/spec/audit.md), which must name every clause and cite only rows that
// exist, so that it cannot silently go stale.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "edge_cases/edge_case.hpp"
#include "properties/clauses.hpp"
#include "properties/gen.hpp"
#include "reference/compare.hpp"

namespace {
using namespace aclnn_conform;

// An outcome in which the SUT returned `status`, asked for `workspace` bytes and changed nothing.
Outcome outcome_of(const EdgeCase &row, int32_t status, uint64_t workspace) {
  Outcome o;
  o.status = status;
  o.phase = status == 0 ? 0 : 1;
  o.workspace_size = workspace;
  for (const auto &[name, t] : row.call.tensors) {
    o.storage_after.push_back(t.storage);
    o.guards_intact.push_back(true);
  }
  return o;
}

bool all_pass(const std::vector<ClauseResult> &rs) {
  return std::all_of(rs.begin(), rs.end(), [](const ClauseResult &r) { return r.pass; });
}

TEST(EdgeRowLiterals, ACallerPreconditionRowStatesNoStatusForOtherSuts) {
  const auto rows = all_edge_cases();
  int preconditions = 0;
  for (const auto &row : rows) {
    if (!row.caller_precondition) continue;
    ++preconditions;
    // GBAG-IDX-1: a SUT that does not check the precondition (status 0, nothing written) conforms.
    EXPECT_TRUE(all_pass(edge_row_literals(row, outcome_of(row, 0, 0)))) << row.title;
  }
  EXPECT_GT(preconditions, 0);
  // Every other error row does state its status: success there is a deviation.
  for (const auto &row : rows) {
    if (row.caller_precondition || row.expected_status == 0) continue;
    EXPECT_FALSE(all_pass(edge_row_literals(row, outcome_of(row, 0, 0)))) << row.title;
  }
}

TEST(EdgeRowLiterals, AStatedWorkspaceSizeIsChecked) {
  int stated = 0;
  for (const auto &row : all_edge_cases()) {
    if (row.expected_workspace < 0) continue;
    ++stated;
    const auto w = static_cast<uint64_t>(row.expected_workspace);
    EXPECT_TRUE(all_pass(edge_row_literals(row, outcome_of(row, 0, w)))) << row.title;
    EXPECT_FALSE(all_pass(edge_row_literals(row, outcome_of(row, 0, w + 64)))) << row.title;
  }
  EXPECT_GE(stated, 3);  // GELU-EMPTY-1, SELU-EMPTY-1, LOGIT-EMPTY-1 state "workspace 0"
}

// A finite literal is a value of record: within VAL-TOL-1's elementwise bound of it conforms
// (1 ulp fp16: the row's value one step up), beyond it deviates; NaN and inf are exact.
TEST(EdgeRowLiterals, FiniteLiteralsAllowTheElementwiseBound) {
  int checked = 0;
  for (const auto &row : all_edge_cases()) {
    if (row.expected_status != 0 || row.expected.empty() || row.caller_precondition) continue;
    const auto &e = row.expected.front();
    size_t i = 0;
    while (i < row.call.tensors.size() && row.call.tensors[i].first != e.output) ++i;
    ASSERT_LT(i, row.call.tensors.size());
    const TensorArg &t = row.call.tensors[i].second;
    if (t.dtype != DType::kFloat16 || !std::isfinite(e.value) || e.value == 0 ||
        std::fabs(e.value) > 60000)  // two steps up stay finite
      continue;
    const auto moved = [&](double steps) {
      Outcome o = outcome_of(row, 0, 0);
      for (const auto &x : row.expected) {  // every literal of the row as stated...
        size_t j = 0;
        while (row.call.tensors[j].first != x.output) ++j;
        TensorArg after = row.call.tensors[j].second;
        after.storage = o.storage_after[j];
        after.set_bits_at(x.index, gen::bits_of(x.value, after.dtype));
        o.storage_after[j] = after.storage;
      }
      TensorArg after = t;  // ...and the first one moved
      after.storage = o.storage_after[i];
      const double v = e.value + steps * aclnn_ref::ulp_at(e.value, t.dtype);
      after.set_bits_at(e.index, gen::bits_of(v, t.dtype));
      o.storage_after[i] = after.storage;
      return all_pass(edge_row_literals(row, o));
    };
    EXPECT_TRUE(moved(0)) << row.title;
    EXPECT_TRUE(moved(1)) << row.title;
    EXPECT_FALSE(moved(2)) << row.title;
    ++checked;
  }
  EXPECT_GT(checked, 3);
}

std::string audit_text() {
  std::ifstream in(ACLNN_AUDIT_MD);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Audit, NamesEveryClause) {
  const std::string text = audit_text();
  ASSERT_FALSE(text.empty()) << "cannot read " << ACLNN_AUDIT_MD;
  for (const auto &c : clause_catalog())
    EXPECT_NE(text.find("`" + c.id + "`"), std::string::npos) << c.id << " is not audited";
}

TEST(Audit, EveryCitedEdgeRowExists) {
  const std::string text = audit_text();
  ASSERT_FALSE(text.empty()) << "cannot read " << ACLNN_AUDIT_MD;
  std::set<std::string> rows;
  for (const auto &row : all_edge_cases()) rows.insert(row.clause + ": " + row.title);
  // A row is cited as `CLAUSE-ID: title`, exactly as the table spells it.
  const std::regex cite("`([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-[0-9]+: [^`]+)`");
  int cited = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), cite); it != std::sregex_iterator();
       ++it) {
    ++cited;
    EXPECT_TRUE(rows.count((*it)[1].str())) << "no edge row " << (*it)[1].str();
  }
  EXPECT_GT(cited, 100);
}

// The summary's totals are the statuses of the sub-rule tables (last cell of each row).
TEST(Audit, SummaryCountsTheTables) {
  const std::string text = audit_text();
  ASSERT_FALSE(text.empty()) << "cannot read " << ACLNN_AUDIT_MD;
  const size_t tables = text.find("\n## Common clauses");
  ASSERT_NE(tables, std::string::npos);
  std::map<std::string, int> n;
  std::istringstream lines(text.substr(tables));
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("| ") || line.size() < 3) continue;
    const size_t end = line.find_last_not_of(" |");
    const size_t bar = line.rfind('|', end);
    const std::string status = line.substr(bar + 2, end - bar - 1);
    if (status == "ok" || status == "added" || status == "gap" || status == "n/a") ++n[status];
  }
  const int total = n["ok"] + n["added"] + n["gap"] + n["n/a"];
  const std::string row = "| **all** | **" + std::to_string(total) + "** | **" +
                          std::to_string(n["ok"]) + "** | **" +
                          std::to_string(n["ok"] + n["added"]) + "** | **" +
                          std::to_string(n["gap"]) + "** | **" + std::to_string(n["n/a"]) + "** |";
  EXPECT_NE(text.find(row), std::string::npos) << "the summary should read " << row;
}

}  // namespace
