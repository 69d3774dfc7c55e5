// Judges one Outcome against the oracle: the expected status (by the spec's check order) or the
// values of record, plus the invariants every call keeps (guards, inputs, storage around output
// views, error texts). The result is a verdict per clause the case reached.
#pragma once

#include <string>
#include <vector>

#include "properties/case.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"
#include "reference/compare.hpp"

namespace aclnn_conform {

struct JudgePolicy {
  enum class Accuracy { kUlp, kAscend };
  Accuracy accuracy = Accuracy::kUlp;
  aclnn_ref::VariantSet variants;      // judge against these variants instead of the record
  double sum_unit_roundoff = 0x1p-24;  // VAL-TOL-1's u for sums (the vendor accumulates in FLOAT)
};

struct ClauseResult {
  std::string clause;
  bool pass = true;
  std::string detail;  // why it deviates (empty when it conforms)
};

struct Judgement {
  std::vector<ClauseResult> results;               // one per clause reached; a failure dominates
  std::vector<aclnn_ref::Comparison> comparisons;  // per compared output (histograms, MERE/MARE)
  bool pass() const;
  // The failing clauses with their details, one per line.
  std::string failures() const;
  void add(const std::string &clause, bool pass, const std::string &detail = "");
};

Judgement judge(const OpDescriptor &op, const Case &c, const Outcome &o,
                const JudgePolicy &policy = {});

}  // namespace aclnn_conform
