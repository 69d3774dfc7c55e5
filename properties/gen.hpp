// Reusable rapidcheck generators: shapes, broadcasts, strided/offset/expanded views over guarded
// storage, and per-dtype element values rich in special cases. Every generator shrinks towards the
// simple case (small rank, small dims, contiguous layout, ordinary values).
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "properties/case.hpp"
#include "properties/staging.hpp"
#include "reference/dtype.hpp"

namespace aclnn_conform::gen {

using Shape = std::vector<int64_t>;

struct ShapeLimits {
  int min_rank = 0;
  int max_rank = 8;
  int64_t max_elements = 2048;
  bool allow_zero = true;  // dims of 0 (empty tensors) now and then
};

// A shape with rank in [min_rank, max_rank], dims mostly 1..6 with 0 and larger dims now and
// then, numel <= max_elements (larger dims are cut down until it fits).
rc::Gen<Shape> shape(ShapeLimits limits = {});

// A shape that broadcasts to out (ABI-BCAST-1): leading dims dropped, some dims set to 1.
rc::Gen<Shape> broadcastable_to(Shape out);

// Two shapes whose broadcast is exactly out, broadcasting in both directions.
rc::Gen<std::pair<Shape, Shape>> broadcast_pair(Shape out);

struct LayoutOptions {
  bool allow_zero_strides = false;  // expanded dims (inputs only)
  bool allow_permute = true;
  bool allow_steps = true;
  bool allow_offset = true;
};

// A TensorArg of the given shape and dtype whose view is one of: contiguous, permuted, sliced with
// steps, offset, expanded (zero strides), or a mix, over a storage sized to fit it exactly (plus
// slack). Storage bytes are zero; fill values with fill_view / fill_storage.
rc::Gen<TensorArg> layout(Shape shape, DType dtype, LayoutOptions options = {});

// Element bits of dtype: ordinary values, special values (±0, ±inf, NaN, subnormals, min/max
// normal, 1±ulp, powers of two±ulp, integer extremes) and the op's hot values ±1-2 ulps.
rc::Gen<uint64_t> value_bits(DType dtype, std::vector<double> hot = {});
// Ordinary finite values only: no specials (for metamorphic properties that need finiteness).
rc::Gen<uint64_t> finite_bits(DType dtype, double min_magnitude, double max_magnitude);

// Fills every element of a's view with values from bits (also its expanded duplicates).
rc::Gen<TensorArg> fill_view(TensorArg a, rc::Gen<uint64_t> bits);

// A whole input tensor: layout then values.
rc::Gen<TensorArg> tensor(Shape shape, DType dtype, rc::Gen<uint64_t> bits,
                          LayoutOptions options = {});

// An output tensor: layout without zero strides, storage filled with the canary byte.
rc::Gen<TensorArg> output(Shape shape, DType dtype, LayoutOptions options = {});

// In-place use (ABI-INPUT-1: elementwise ops accept an output that is exactly an input's view):
// one valid case in one_in becomes in-place when an input has the output's dtype and shape. That
// input is laid out in the output's layout (valid for an output: no overlap) holding its own
// values, the output takes the same view and storage, and the case records the alias; half of
// the aliases pass one aclTensor for both, half a second aclTensor over the same memory.
rc::Gen<Case> sometimes_in_place(rc::Gen<Case> valid, std::string output,
                                 std::vector<std::string> inputs, int one_in = 8);
// The same, always (when some input qualifies).
void make_in_place(Case &c, const std::string &output, const std::string &input, bool same_handle);

// Large calls (threaded paths, workspaces): a valid elementwise case whose output has rank < 8
// and at least one element, stretched to min_elements..max_elements output elements by a new
// leading dim K. Every tensor of the output's rank gets [K] + its shape in a freshly drawn layout
// holding its old values repeated K times (so the case stays valid, broadcasts included);
// lower-rank inputs keep broadcasting.
rc::Gen<Case> enlarged(rc::Gen<Case> valid, std::string output, int64_t min_elements,
                       int64_t max_elements);
// Fills every element of a's view cheaply for large tensors: values drawn from a small pool of
// bits (drawn from `bits`), picked by a seeded hash (no per-element shrink tree).
rc::Gen<TensorArg> fill_view_large(TensorArg a, rc::Gen<uint64_t> bits);

// VAL-OVERFLOW-1 at its boundary: input pairs (x, dy) of fp16 or bf16 whose exact result
// dy * factor(x) lies within half an ulp of the dtype's overflow threshold T (the midpoint between
// its largest finite value and the next power of two), on both sides and with both signs; first
// in the list, those within half a float ulp of T, where a result computed in float and rounded
// again, or truncated, lands on the wrong side of T. Every finite x of the dtype is tried; factor
// returns NaN for an x the op should not get here. Other dtypes: none.
using BitsPairs = std::vector<std::pair<uint64_t, uint64_t>>;
BitsPairs overflow_threshold_pairs(DType dtype,
                                   const std::function<long double(long double)> &factor);

// One valid case in one_in gets up to four such pairs, at random elements where x, dy and the
// output share one shape and dtype (pairs(dtype) gives them; cache them, they take a moment).
rc::Gen<Case> sometimes_at_overflow_threshold(rc::Gen<Case> valid, std::string output,
                                              std::string x, std::string dy,
                                              std::function<const BitsPairs &(DType)> pairs,
                                              int one_in = 10);

// Bits of the dtype element nearest to v, and of its neighbours k ulps away (towards +inf for
// k > 0), saturating at ±inf.
uint64_t bits_of(double v, DType dtype);
uint64_t step_ulps(uint64_t bits, DType dtype, int k);

}  // namespace aclnn_conform::gen
