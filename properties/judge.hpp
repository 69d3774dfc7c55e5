// Judges one Outcome against the oracle: the expected status (by the spec's check order) or the
// values of record, plus the invariants every call keeps (guards, inputs, storage around output
// views, error texts). The result is a verdict per clause the case reached.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "properties/case.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"
#include "reference/compare.hpp"

namespace aclnn_conform {

struct JudgePolicy {
  // kKit: a vendor kit's standard (kit, reference/kit_standards.hpp) decides the numbers of every
  // floating output it can judge: an output it fails deviates on the value clause the ulp judge
  // names (or, where the ulp judge finds nothing, on the clause of the kit's worst element); an
  // output it passes conforms whatever its ulp errors. The value class of every element (NaN,
  // +inf, -inf, finite, the sign of a zero where a clause names it), untouched and integer
  // outputs stay judged exactly as under kUlp; an output the standard cannot judge (no reference
  // device result, no elements) is judged by kUlp's bounds.
  enum class Accuracy { kUlp, kAscend, kKit };
  Accuracy accuracy = Accuracy::kUlp;
  std::string kit;                     // kKit: the standard's id ("ttk-mixed", ...)
  const Outcome *reference = nullptr;  // kKit: another device's outcome on the same case, or null
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
  // The oracle's values (under the policy's variants) the outputs were compared with, when the
  // call was valid and ran; null otherwise. The precision tallies reuse the record's.
  std::shared_ptr<const std::vector<aclnn_ref::ExpectedOutput>> expected;
  bool pass() const;
  // The failing clauses with their details, one per line.
  std::string failures() const;
  void add(const std::string &clause, bool pass, const std::string &detail = "");
};

Judgement judge(const OpDescriptor &op, const Case &c, const Outcome &o,
                const JudgePolicy &policy = {});

}  // namespace aclnn_conform
