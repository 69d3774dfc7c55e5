// Reusable rapidcheck generators: shapes, broadcasts, strided/offset/expanded views over guarded
// storage, and per-dtype element values rich in special cases. Every generator shrinks towards the
// simple case (small rank, small dims, contiguous layout, ordinary values).
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "properties/case.hpp"
#include "properties/staging.hpp"
#include "reference/dtype.hpp"

namespace aclnn_conform::gen {

using Shape = std::vector<int64_t>;

// ---- Sizes chosen by how kernels are built -----------------------------------------------------
// The vector widths and block sizes (elements or rows) a SIMD kernel is likely to use.
inline constexpr int64_t kVectorWidths[] = {8, 16, 32, 64};
// Elements above which the built-in library's elementwise ops and reductions start threads
// (impl/elementwise_io.hpp kParallelGrain, impl/parallel.*): large cases straddle it.
inline constexpr int64_t kThreadSplit = 65536;

// True one time in one_in, at every size (rapidcheck's inRange narrows with the size); shrinks to
// false. The generators' rarer classes are chosen with it, so that a counterexample sheds them.
rc::Gen<bool> sometimes(int one_in);
// 0..n-1 uniformly at every size (a choice among n cases: rapidcheck's inRange(0, n) draws only 0
// at the ci tier's smallest sizes, and n-1 only from size 100 * (n-1) / n); shrinks towards 0.
rc::Gen<int> pick(int n);

// A size in [lo, hi] of a class a kernel's loops tell apart: k*w + r for a vector width w of
// kVectorWidths with r in {0, 1, w/2, w-1} or any remainder; an odd size; a prime; or a threshold
// (the vector widths, 128, 256, 512, 1024, kThreadSplit and `thresholds`) or a neighbour of one.
// Shrinks towards lo (whatever its class).
rc::Gen<int64_t> kernel_size(int64_t lo, int64_t hi, std::vector<int64_t> thresholds = {});
// Whether n is prime (for the meta-tests and the size classes).
bool is_prime(int64_t n);

struct ShapeLimits {
  int min_rank = 0;
  int max_rank = 8;
  int64_t max_elements = 2048;
  bool allow_zero = true;  // dims of 0 (empty tensors) now and then
  // One shape in four has one dim (the innermost, two times in three) of a kernel_size() class,
  // with these thresholds too.
  std::vector<int64_t> thresholds = {};
};

// A shape with rank in [min_rank, max_rank], dims mostly 1..6 with 0 and larger dims now and
// then, numel <= max_elements (larger dims are cut down until it fits); one shape in four has one
// dim of a kernel_size() class (the other dims are cut down first).
rc::Gen<Shape> shape(ShapeLimits limits = {});

// A shape other than s for a call that must be refused: half of the time one with the same
// element count (dims reversed or swapped, two merged, one split, a 1 added or removed), which a
// check by element count alone lets through; otherwise a dim grown by 1 or 2, or a leading 2
// added. max_rank bounds the ranks it makes.
rc::Gen<Shape> misshaped(Shape s, int max_rank = 8);

// A shape that broadcasts to out (ABI-BCAST-1): leading dims dropped, some dims set to 1.
rc::Gen<Shape> broadcastable_to(Shape out);

// Two shapes whose broadcast is exactly out, broadcasting in both directions.
rc::Gen<std::pair<Shape, Shape>> broadcast_pair(Shape out);

struct LayoutOptions {
  bool allow_zero_strides = false;  // expanded dims (size > 1: inputs only)
  bool allow_permute = true;
  bool allow_steps = true;
  bool allow_offset = true;
  // A dim of size 1 is never stepped over, so any stride is legal there (zero included, on
  // outputs too): one such dim in three gets 0, 1, 2, a large or an odd stride.
  bool allow_unit_dim_strides = true;
  // Two dims of sizes >= 2 interleaved: strides p*E and q*E (E the extent of the dims inside)
  // with q >= the first dim's size and p = q + 1, so no element is met twice although neither
  // dim nests inside the other (legal for outputs too).
  bool allow_interleave = true;
};

// A TensorArg of the given shape and dtype whose view is one of: contiguous, permuted, sliced with
// steps, offset (now and then far into a larger storage), expanded (zero strides), with free
// strides on dims of size 1, interleaved, or a mix, over a storage sized to fit it (plus slack).
// Storage bytes are zero; fill values with fill_view / fill_storage. No two indices of the view
// reach one element unless allow_zero_strides expands a dim.
rc::Gen<TensorArg> layout(Shape shape, DType dtype, LayoutOptions options = {});

// Element bits of dtype: ordinary values, special values (±0, ±inf, NaN, subnormals, min/max
// normal, 1±ulp, powers of two±ulp, integer extremes) and the op's hot values: each ±1-2 ulps,
// ±3..64 ulps, and its neighbours in the other float dtypes (boundary_neighbours).
rc::Gen<uint64_t> value_bits(DType dtype, std::vector<double> hot = {});
// A threshold v seen from a narrower (or other) float type: for each float dtype f other than
// dtype, v's nearest f values (the one nearest v and those either side) and the midpoints between
// them (where rounding to f flips), each as dtype's nearest value and its neighbours ±1 ulp. A
// library that compares or rounds in f where the spec says dtype (or double) differs only there.
std::vector<uint64_t> boundary_neighbours(double v, DType dtype);
// Ordinary finite values only: no specials (for metamorphic properties that need finiteness).
rc::Gen<uint64_t> finite_bits(DType dtype, double min_magnitude, double max_magnitude);
// finite_bits' value taken from one 64-bit word (sign, binade, 32 fraction bits), for values drawn
// from a seeded stream rather than one rapidcheck draw each (a large call's elements).
uint64_t finite_bits_from(uint64_t word, DType dtype, double min_magnitude, double max_magnitude);

// Fills every element of a's view with values from bits (also its expanded duplicates).
rc::Gen<TensorArg> fill_view(TensorArg a, rc::Gen<uint64_t> bits);

// A whole input tensor: layout then values.
rc::Gen<TensorArg> tensor(Shape shape, DType dtype, rc::Gen<uint64_t> bits,
                          LayoutOptions options = {});

// An output tensor: a layout whose indices never meet (no expanded dims; zero or any stride on a
// dim of size 1, interleaved dims and far offsets as for inputs), storage filled with the canary.
rc::Gen<TensorArg> output(Shape shape, DType dtype, LayoutOptions options = {});

// In-place use (ABI-INPUT-1: elementwise ops accept an output that is exactly an input's view):
// one valid case in one_in (at every size; the choice shrinks to "not in place") becomes in-place
// when an input has the output's dtype and shape. That
// input is laid out in the output's layout (valid for an output: no overlap) holding its own
// values, the output takes the same view and storage, and the case records the alias; half of
// the aliases pass one aclTensor for both, half a second aclTensor over the same memory.
rc::Gen<Case> sometimes_in_place(rc::Gen<Case> valid, std::string output,
                                 std::vector<std::string> inputs, int one_in = 4);
// The same, always (when some input qualifies).
void make_in_place(Case &c, const std::string &output, const std::string &input, bool same_handle);

// Large calls (threaded paths, workspaces): a valid elementwise case whose output has rank < 8
// and at least one element, stretched to about min_elements..max_elements output elements by a
// new leading dim K. Every tensor of the output's rank gets [K] + its shape in a freshly drawn
// layout holding its old values repeated K times (so the case stays valid, broadcasts included);
// lower-rank inputs keep broadcasting. K is drawn uniformly, or of a kernel_size() class, or so
// that the output's count lies just below or just above a multiple of kThreadSplit in range.
rc::Gen<Case> enlarged(rc::Gen<Case> valid, std::string output, int64_t min_elements,
                       int64_t max_elements);
// enlarged()'s K for an output of n0 elements: uniform over the range, of a kernel_size() class,
// or (two times in five) so that K*n0 is the last count at or the first above a multiple of
// kThreadSplit in range (65536 itself half of those times).
rc::Gen<int64_t> stretch_factor(int64_t n0, int64_t min_elements, int64_t max_elements);
// Fills every element of a's view cheaply for large tensors: values drawn from a small pool of
// bits (drawn from `bits`), picked by a seeded hash (no per-element shrink tree).
rc::Gen<TensorArg> fill_view_large(TensorArg a, rc::Gen<uint64_t> bits);

// VAL-OVERFLOW-1 at the limits of the output dtype's range: input pairs (x, dy) of one float
// dtype whose exact result dy * factor(x) lies near a rounding boundary of the range, on both
// sides and with both signs. Three limits: the overflow threshold T (the midpoint between the
// largest finite value and the next power of two: above it the result is ±inf), the smallest
// normal (below it a flush-to-zero kernel gives 0), and half the smallest subnormal (below it the
// result rounds to ±0). In each list first the pairs within half a float ulp of the limit (fp32:
// within 2^-34 of it), where a result computed in float and rounded again, or truncated, lands on
// the wrong side. fp16 and bf16: every finite x is tried; fp32: 65536 x spread over every binade.
// factor returns NaN for an x the op should not get here. Other dtypes: none.
using BitsPairs = std::vector<std::pair<uint64_t, uint64_t>>;
struct RangeLimitPairs {
  BitsPairs overflow, min_normal, underflow;
  bool empty() const { return overflow.empty() && min_normal.empty() && underflow.empty(); }
};
// x_stride > 1 tries one x in x_stride (scattered), for a quicker, sparser table.
RangeLimitPairs range_limit_pairs(DType dtype,
                                  const std::function<long double(long double)> &factor,
                                  int x_stride = 1);
// range_limit_pairs of fp16, bf16 and fp32 for one factor, each computed once, when a case of
// its dtype first asks (a tenth of a second each: a worker pays only for the dtypes it draws).
// An op keeps one (a function-local static) for sometimes_at_range_limits' `pairs`.
class RangeLimitTable {
 public:
  explicit RangeLimitTable(std::function<long double(long double)> factor);
  const RangeLimitPairs &operator()(DType dtype) const;

 private:
  std::function<long double(long double)> factor_;
  // A mutex, not std::call_once: call_once's thread-local state trips LeakSanitizer's tracer at
  // exit (a garbage dynamic-TLS entry, google/sanitizers#1353) in the sanitizer job.
  mutable std::mutex mutex_;
  mutable bool built_[3] = {false, false, false};
  mutable RangeLimitPairs pairs_[3];  // fp16, bf16, fp32
  RangeLimitPairs none_;
};

// While one is alive on a thread, sometimes_at_range_limits leaves every case as drawn and never
// builds the range tables: the layout edge rows draw small base calls of fixed seeds in every
// process, where those tables would cost a tenth of a second (edge_cases/layout_rows.cpp).
class NoRangeLimits {
 public:
  NoRangeLimits();
  ~NoRangeLimits();
  NoRangeLimits(const NoRangeLimits &) = delete;
  NoRangeLimits &operator=(const NoRangeLimits &) = delete;

 private:
  bool saved_;
};

// One valid case in one_in (at every size; the choice shrinks to "none") gets up to four such
// pairs of one limit (the overflow threshold half of the time), at random elements where x, dy and
// the output share one shape and dtype (pairs(dtype) gives them; cache them, they take a moment).
// Half of the pairs are drawn from the four at the front of the limit's list (the closest).
rc::Gen<Case> sometimes_at_range_limits(rc::Gen<Case> valid, std::string output, std::string x,
                                        std::string dy,
                                        std::function<const RangeLimitPairs &(DType)> pairs,
                                        int one_in = 3);

// Bits of the dtype element nearest to v, and of its neighbours k ulps away (towards +inf for
// k > 0), saturating at ±inf.
uint64_t bits_of(double v, DType dtype);
uint64_t step_ulps(uint64_t bits, DType dtype, int k);
// Bits of a float dtype moved by k representable values along the number line (through zero, -0
// and +0 one point) in one addition; nullopt when the result is not finite.
std::optional<uint64_t> moved_by_ulps(uint64_t bits, int64_t k, DType dtype);

}  // namespace aclnn_conform::gen
