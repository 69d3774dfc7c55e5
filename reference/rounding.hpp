// Single rounding of an exact (or tightly bounded) real to an output dtype (VAL-EXACT-1,
// VAL-OVERFLOW-1): round to nearest, ties to even, directly from the MPFR value, with gradual
// underflow, overflow to +-inf for floats and saturation for integers. Thread-safe: no global MPFR
// exponent range is touched.
#pragma once

// <cstdint> before <mpfr.h> turns on MPFR's intmax_t functions (mpfr_get_sj, mpfr_get_uj).
#include <cstdint>
// clang-format off
#include <mpfr.h>
// clang-format on
#include <optional>

#include "reference/dtype.hpp"

namespace aclnn_ref {

// Bits of the dtype element nearest to x (x may be any MPFR value, incl. NaN, +-inf, +-0).
// Integer dtypes: round half to even, saturate; NaN gives 0.
uint64_t round_to_bits(mpfr_srcptr x, DType out);

// Ziv's test: the bits if every real in [x - err, x + err] rounds to the same element, else
// nullopt (the caller raises its working precision). err >= 0 is an absolute bound.
std::optional<uint64_t> round_if_decided(mpfr_srcptr x, mpfr_srcptr err, DType out);

// The real the last rounding on this thread rounded, as its nearest double `value` and a bound
// `error` on their distance (NaN/inf as themselves). VAL-TOL-1 measures ulps "at the exact value",
// not at the value of record (which can be half an ulp away), so the oracles keep this beside each
// value of record (ExpectedOutput::exact_nearest/exact_error). Every rounding entry point of the
// oracle (round_to_bits, round_if_decided, fast_round_double, fast_decide) notes its argument
// last; callers read it right after the rounding that made the value of record.
struct RoundedFrom {
  double value = 0;
  double error = 0;
};
RoundedFrom last_rounded_from();
void note_rounded_from(double value, double error);

// Bits of a double that is exactly representable in a floating dtype (e.g. 0.5 in fp16), or of
// the nearest element otherwise (one rounding from the double).
uint64_t bits_from_double(double v, DType out);

}  // namespace aclnn_ref
