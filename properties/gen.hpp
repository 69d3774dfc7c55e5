// Reusable rapidcheck generators: shapes, broadcasts, strided/offset/expanded views over guarded
// storage, and per-dtype element values rich in special cases. Every generator shrinks towards the
// simple case (small rank, small dims, contiguous layout, ordinary values).
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <vector>

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

// Bits of the dtype element nearest to v, and of its neighbours k ulps away (towards +inf for
// k > 0), saturating at ±inf.
uint64_t bits_of(double v, DType dtype);
uint64_t step_ulps(uint64_t bits, DType dtype, int k);

}  // namespace aclnn_conform::gen
