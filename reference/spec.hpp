// Vocabulary the oracle shares with whoever judges: products, expected statuses with the clause
// that decides them, variant selections and expected outputs. No ABI types.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/host_tensor.hpp"

namespace aclnn_ref {

// ABI-SOC-1 products.
enum class Product { kAtlasA2, kAtlasA3, kAtlasTraining, kAtlasInference };
inline bool product_has_bf16(Product p) {
  return p == Product::kAtlasA2 || p == Product::kAtlasA3;
}

// aclnnStatus values (ABI-STATUS-1), as the oracle's own constants.
namespace status {
constexpr int32_t kSuccess = 0;
constexpr int32_t kNullptr = 161001;
constexpr int32_t kInvalid = 161002;
}  // namespace status

// What a call must return: the status and the clause that decides it (e.g. "GELU-BCAST-2"), with
// a human-readable reason. A success names the value clause in charge, or is empty.
struct Verdict {
  int32_t status = status::kSuccess;
  std::string clause;
  std::string reason;
  bool ok() const { return status == status::kSuccess; }
};

// The variants (spec: "variant `name`") an evaluation follows; empty = the behaviour of record.
class VariantSet {
 public:
  VariantSet() = default;
  VariantSet(std::initializer_list<std::string_view> names) {
    for (auto n : names) names_.emplace_back(n);
  }
  bool has(std::string_view name) const {
    for (const auto &n : names_)
      if (n == name) return true;
    return false;
  }
  const std::vector<std::string> &names() const { return names_; }
  void add(std::string_view name) { names_.emplace_back(name); }

 private:
  std::vector<std::string> names_;
};

// The clause that decided each element of an output's value of record (the special-value clause
// that applies first in the spec's order, else the value clause), one byte per element: an index
// into the op's table of clause IDs. The judge attributes a mismatch to it, and counts the clauses
// a case reaches, without re-deriving the spec's clause order.
struct DecidingClauses {
  std::span<const std::string_view> ids;  // the op's table (static storage)
  std::vector<uint8_t> of_element;        // row-major over the output's shape
  uint8_t otherwise = 0;                  // the clause for an index outside the output
  std::string_view at(int64_t i) const {
    if (ids.empty()) return {};  // nothing was decided (e.g. a rejected call)
    const bool inside = i >= 0 && i < static_cast<int64_t>(of_element.size());
    return ids[inside ? of_element[static_cast<size_t>(i)] : otherwise];
  }
  // The clauses that decide at least one element, in the order of their first element.
  std::vector<std::string_view> distinct() const {
    std::vector<bool> seen(ids.size(), false);
    std::vector<std::string_view> r;
    for (const uint8_t k : of_element)
      if (!seen[k]) {
        seen[k] = true;
        r.push_back(ids[k]);
      }
    return r;
  }
};

// The value of record of one output: exact bits, row-major over its shape.
struct ExpectedOutput {
  std::string name;     // the ABI parameter name, e.g. "gradInput"
  bool written = true;  // false: the output must be left untouched (masked, variant, ...)
  HostTensor values;    // dtype and shape of the output
  // For sums (LN-VALUE-3, GBAG-VALUE-3): sum |terms| of each element, rounded up to a double, for
  // the condition-aware bound of VAL-TOL-1. Empty for elementwise outputs.
  std::vector<double> error_scale;
  // For sums: the number of terms n of each element's sum (k = ceil(log2 n) + 2). Empty otherwise.
  std::vector<int64_t> term_count;
  // The exact value (before the one rounding to the dtype) rounded to the nearest double, so the
  // judge can apply VAL-TOL-1's bounds at the exact value, not at the value of record.
  // Elementwise float outputs keep the same (their exact value's nearest double), with
  // exact_error: a bound on |exact - exact_nearest| (sums: empty, 2^-52 |exact| applies).
  std::vector<double> exact_nearest;
  std::vector<double> exact_error;
  // The clause that decided each element (empty of_element when no element was computed).
  DecidingClauses decided_by;
};

}  // namespace aclnn_ref
