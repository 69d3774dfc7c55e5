#include "properties/clauses.hpp"

#include <map>
#include <nlohmann/json.hpp>

#include "properties/op.hpp"

namespace aclnn_conform {
namespace detail {
extern const char *const kClausesJson;
}

const std::vector<ClauseInfo> &clause_catalog() {
  static const std::vector<ClauseInfo> catalog = [] {
    std::vector<ClauseInfo> out;
    const auto j = nlohmann::json::parse(detail::kClausesJson);
    for (const auto &c : j.at("clauses")) {
      ClauseInfo info;
      info.id = c.at("id");
      info.op = c.at("op");
      info.kind = c.at("kind");
      info.text = c.at("text");
      if (!c.at("status").is_null()) info.status = c.at("status").get<int>();
      info.project = c.at("project");
      for (const auto &v : c.at("variants")) info.variants.emplace_back(v.at("name"), v.at("text"));
      out.push_back(std::move(info));
    }
    return out;
  }();
  return catalog;
}

const ClauseInfo *find_clause(const std::string &id) {
  for (const auto &c : clause_catalog())
    if (c.id == id) return &c;
  return nullptr;
}

std::vector<Enforcement> property_enforcement() {
  std::map<std::string, std::vector<std::string>> by;
  for (const auto *op : registry()) {
    for (const auto &clause : op->clauses) {
      by[clause].push_back(op->name + "Property.ValidCallsMatchTheOracle");
      by[clause].push_back(op->name + "Property.InvalidCallsAreRejectedInOrder");
    }
    // Shared clauses every op's generic properties and judge check.
    for (const char *clause :
         {"ABI-TWOPHASE-1", "ABI-TWOPHASE-2", "ABI-ERRMSG-1", "ABI-INPUT-1", "ABI-TENSOR-2",
          "VAL-EXACT-1", "VAL-TOL-1", "VAL-IEEE-1", "VAL-ZERO-1", "VAL-OVERFLOW-1"})
      by[clause].push_back(op->name + "Property.ValidCallsMatchTheOracle");
    by["ABI-TWOPHASE-3"].push_back(op->name + "Property.ExecutorRunsOnce");
    by["ABI-TWOPHASE-4"].push_back(op->name + "Property.ExecutorRunsOnce");
    by["VAL-DET-1"].push_back(op->name + "Property.Deterministic");
  }
  // Shared clauses with tests of their own, through the SUT table (tests/properties/).
  by["ABI-STATUS-1"].push_back("Abi.StatusCodesAndEnumsAreTheVendors");
  by["ABI-DTYPE-1"].push_back("Abi.StatusCodesAndEnumsAreTheVendors");
  by["ABI-TENSOR-1"].push_back("Abi.CreateTensorRejectsInvalidViews");
  by["ABI-FORMAT-1"].push_back("Abi.FormatIsNotChecked");
  by["ABI-RUNTIME-1"].push_back("Abi.RuntimeCallsWorkOnTheSut");
  by["ABI-EMPTY-1"].push_back("GeluBackwardProperty.ValidCallsMatchTheOracle");
  by["ABI-RANK-1"].push_back("GeluBackwardProperty.InvalidCallsAreRejectedInOrder");
  by["ABI-PROMOTE-1"].push_back("GeluBackwardProperty.ValidCallsMatchTheOracle");
  by["ABI-BCAST-1"].push_back("GeluBackwardProperty.BroadcastingEqualsMaterialising");
  by["ABI-SOC-1"].push_back("GeluBackwardProperty.ValidCallsMatchTheOracle");
  by["ABI-SOC-1"].push_back("LogitGradProperty.InvalidCallsAreRejectedInOrder");
  std::vector<Enforcement> out;
  for (auto &[clause, tests] : by) out.push_back({clause, tests});
  return out;
}

}  // namespace aclnn_conform
