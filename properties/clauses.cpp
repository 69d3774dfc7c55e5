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

namespace {
// The generic properties every op has, and the clauses each enforces for every op: the op's own
// clauses (the first two) and shared ones. The first two are written per op (their generators'
// products and required tags are the op's: tests/properties/test_<op>.cpp); the others are
// instantiated over the registry (tests/properties/test_generic_properties.cpp).
struct GenericProperty {
  const char *name;
  bool op_clauses;
  std::vector<const char *> shared;
  bool over_registry = false;
};
// The GoogleTest name of an op's generic property.
std::string enforcer_name(const OpDescriptor &op, const GenericProperty &p) {
  // INSTANTIATE_TEST_SUITE_P(AllOps, GenericProperty, ValuesIn(registry()), <op name>).
  if (p.over_registry) return "AllOps/GenericProperty." + std::string(p.name) + "/" + op.name;
  return property_test_name(op, p.name);
}
const std::vector<GenericProperty> &generic_properties() {
  static const std::vector<GenericProperty> properties = {
      {"ValidCallsMatchTheOracle", true, {}},
      {"InvalidCallsAreRejectedInOrder", true, {}},
      // The judge checks these on every valid call of every op.
      {"ValidCallsMatchTheOracle",
       false,
       {"ABI-TWOPHASE-1", "ABI-TWOPHASE-2", "ABI-ERRMSG-1", "ABI-INPUT-1", "ABI-TENSOR-2",
        "VAL-EXACT-1", "VAL-TOL-1", "VAL-IEEE-1", "VAL-ZERO-1", "VAL-OVERFLOW-1"}},
      {"ExecutorRunsOnce", false, {"ABI-TWOPHASE-3", "ABI-TWOPHASE-4"}, true},
      {"Deterministic", false, {"VAL-DET-1"}, true},
  };
  return properties;
}
}  // namespace

std::vector<Enforcement> property_enforcement() {
  std::map<std::string, std::vector<std::string>> by;
  for (const auto *op : registry()) {
    for (const auto &clause : op->clauses)
      for (const auto &p : generic_properties())
        if (p.op_clauses) by[clause].push_back(enforcer_name(*op, p));
    for (const auto &p : generic_properties())
      for (const char *clause : p.shared) by[clause].push_back(enforcer_name(*op, p));
  }
  // Shared clauses with tests of their own, through the SUT table (tests/properties/test_abi.cpp).
  by["ABI-STATUS-1"].push_back("Abi.StatusCodesAndEnumsAreTheVendors");
  by["ABI-DTYPE-1"].push_back("Abi.StatusCodesAndEnumsAreTheVendors");
  by["ABI-TENSOR-1"].push_back("Abi.CreateTensorRejectsInvalidViews");
  by["ABI-FORMAT-1"].push_back("Abi.FormatIsNotChecked");
  by["ABI-RUNTIME-1"].push_back("Abi.RuntimeCallsWorkOnTheSut");
  // Shared clauses that particular ops' properties stand for (each descriptor's data).
  for (const auto *op : registry())
    for (const auto &[clause, property] : op->shared_clause_enforcers)
      by[clause].push_back(property_test_name(*op, property));
  std::vector<Enforcement> out;
  for (auto &[clause, tests] : by) out.push_back({clause, tests});
  return out;
}

}  // namespace aclnn_conform
