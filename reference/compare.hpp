// The comparison module: judges an output a system under test wrote against the oracle's value
// of record (VAL-TOL-1, VAL-ZERO-1). Shared by the properties, the edge cases and the campaign.
//
// Definitions (docs/oracle-reductions.md has the full text):
// - Classes: NaN, +inf, -inf, finite. All NaNs are equal; +0 == -0 unless check_zero_sign.
//   A class mismatch (NaN vs number, inf vs finite, +inf vs -inf) is a verdict of its own, never a
//   number of ulps.
// - ulp distance (VAL-TOL-1 part 2): |got - exact| / ulp, ulp = the output dtype's quantum at the
//   exact value (2^(e - p + 1) for |x| in [2^e, 2^(e+1)), the subnormal quantum below the normal
//   range), with exact = ExpectedOutput::exact_nearest, less its exact_error bound (in the
//   output's favour). A correctly rounded result is <= 0.5 ulp; with the 1-ulp fp16/bf16 bound,
//   a neighbour of the value of record passes only on the exact value's side. Without
//   exact_nearest the value of record stands in. At a power of two, when got lies on the
//   smaller-magnitude side, the quantum of the binade below is used, so "n ulps" always counts
//   n representable steps.
// - Ascend standard (VAL-TOL-1 part 1): rel_i = |got - exact| / (|exact| + 1e-7) with exact the
//   oracle's exact value (ExpectedOutput::exact_nearest when present, else the value of record);
//   elements of the same non-finite class count rel = 0, a class mismatch counts rel = +inf.
//   MERE = mean rel, MARE = max rel; pass iff MERE < T and MARE < 10 T, T = 2^-10 fp16,
//   2^-7 bf16, 2^-13 fp32 (2^-13 for anything else).
// - Condition-aware sums (VAL-TOL-1 part 2):
//   |got - exact| <= 0.5 ulp(exact) + k u sum|terms|, k = ceil(log2 n) + 2 (n <= 1: k = 2).
//   With exact_nearest present: exact is that double, and the right side gets 2^-52 |exact| more
//   for its own rounding to double. Without it the test is against the value of record with a
//   full ulp instead of half (|exact - value of record| <= 0.5 ulp), which is sound but looser.
//   An infinity passes when a real within the accumulation error of the exact value reaches the
//   overflow threshold on its side (of either sign when the bound spans zero).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "reference/host_tensor.hpp"
#include "reference/spec.hpp"

namespace aclnn_ref {

enum class ValueClass { kFinite, kNaN, kPosInf, kNegInf };
ValueClass value_class(double v);

// The output dtype's quantum at a finite value v (subnormal quantum for |v| below the normal
// range, including 0). Integer dtypes: 1.
double ulp_at(double v, DType t);

// Distance between the value of record and a got element, both given as raw bits of dtype t.
struct UlpDistance {
  bool class_mismatch = false;  // then ulps is meaningless (+inf)
  bool sign_mismatch = false;   // zero of the other sign (only with check_zero_sign)
  double ulps = 0;
  std::string why;  // e.g. "expected NaN, got finite"
};
UlpDistance ulp_distance(uint64_t expected_bits, uint64_t got_bits, DType t,
                         bool check_zero_sign = false);

// The distance compare_output judges element i by: ulp_distance from the value of record, with
// the ulps measured at the exact value when the expectation carries it (exact_nearest).
UlpDistance element_distance(const ExpectedOutput &exp, int64_t i, uint64_t got_bits,
                             bool check_zero_sign = false);

struct Tolerance {
  enum class Kind { kUlp, kExact, kAscend, kSum };
  Kind kind = Kind::kUlp;
  double max_ulps = -1;  // kUlp: < 0 means the dtype default (1 fp16/bf16, 2 fp32); integers 0
  double unit_roundoff = 0x1p-24;  // kSum: the accumulation's u (FLOAT; 2^-53 for double)
  bool check_zero_sign = false;    // a clause names the sign of zero
  int max_listed = 16;             // mismatches kept in Comparison::mismatches

  static Tolerance ulp(double max_ulps = -1);
  static Tolerance exact();
  static Tolerance ascend();
  static Tolerance sum(double unit_roundoff = 0x1p-24);
  // The per-element ulp bound of kUlp for dtype t.
  double ulp_bound(DType t) const;
};

// One element that fails the policy.
struct ElementMismatch {
  int64_t index = 0;  // row-major flat index of the output
  uint64_t expected_bits = 0, got_bits = 0;
  double expected = 0, got = 0;
  double ulps = 0;  // +inf for a class mismatch
  std::string why;
};

// Histogram of the ulp errors.
enum Bucket : int { kB0, kBHalf, kB1, kB2, kB4, kB16, kB256, kBMore, kBClass, kBucketCount };
int bucket_of(const UlpDistance &d);
const char *bucket_label(
    int b);  // "0", "<=0.5", "1", "2", "3-4", "5-16", "17-256", ">256", "class"

struct AscendMetrics {
  double mere = 0, mare = 0;  // +inf after a class mismatch
  double threshold = 0;       // T
  bool pass = true;
};
// T of VAL-TOL-1 for an output dtype.
double ascend_threshold(DType t);

struct Comparison {
  std::string name;
  DType dtype = DType::kFloat32;
  Tolerance::Kind kind = Tolerance::Kind::kUlp;
  int64_t count = 0;  // elements compared
  bool pass = true;
  std::string error;  // set when no element-wise comparison was possible (shape mismatch, ...)

  double max_ulps = 0;     // over elements of the same class
  int64_t max_index = -1;  // its index (-1: none)
  int64_t class_mismatches = 0;
  std::array<int64_t, kBucketCount> histogram{};
  AscendMetrics ascend;
  // kSum: the largest |got - exact| / bound over the elements (<= 1 passes).
  double max_bound_ratio = 0;
  int64_t max_bound_index = -1;

  int64_t mismatch_count = 0;               // elements failing the policy
  std::vector<ElementMismatch> mismatches;  // the first Tolerance::max_listed of them

  // written=false expectations.
  bool untouched_check = false;
  int64_t changed_bytes = 0;
  int64_t first_changed_byte = -1;

  std::string summary() const;  // one line
  std::string details() const;  // summary, histogram and the listed mismatches
};

// Compares an output a system wrote (got: any strided view of the output's dtype and shape) with
// the value of record. exp.written must be true (else the result fails with an error naming
// compare_untouched).
Comparison compare_output(const ExpectedOutput &exp, const TensorView &got, const Tolerance &tol);

// The accepted interval [lo, hi] of element i of a written output under tol, as doubles: what a
// program that checks lo <= got <= hi element by element (a repro, campaign/repro.hpp) embeds
// beside the value of record.
// - An output with an error scale (sums) under kUlp or kSum: the condition-aware bound around the
//   exact value (exact_nearest, else the value of record with a full ulp), with u =
//   tol.unit_roundoff under kSum and sum_unit_roundoff under kUlp; its right side is summed
//   before the (1 + 2^-50) margin, compare_output's term by term.
// - Otherwise under kSum or kAscend (judged per output, not per element): the value of record.
// - Integers: +- the floor of tol.ulp_bound; floats: the representable neighbours of the value of
//   record whose element_distance stays within tol.ulp_bound (at most 2^20 steps each way).
// A non-finite value of record is its own interval.
struct AcceptedInterval {
  double lo = 0, hi = 0;
};
AcceptedInterval accepted_interval(const ExpectedOutput &e, int64_t i, const Tolerance &tol,
                                   double sum_unit_roundoff);

// For written=false: the output's storage bytes before and after the call must be equal.
Comparison compare_untouched(const ExpectedOutput &exp, std::span<const std::byte> before,
                             std::span<const std::byte> after);

}  // namespace aclnn_ref
