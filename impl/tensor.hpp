// The ABI's opaque objects (spec ABI-TENSOR-1/2) and the view arithmetic ops need of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"

namespace aclnn_cpu {
// A C caller may pass any int where the ABI declares an enum; loading an out-of-range value through
// the C++ enum type is undefined, so enum parameters are read as their bits.
template <typename Enum>
int32_t enum_bits(const Enum &e) {
  static_assert(sizeof(Enum) == sizeof(int32_t));
  int32_t v;
  __builtin_memcpy(&v, &e, sizeof v);
  return v;
}
}  // namespace aclnn_cpu

struct aclTensor {
  std::vector<int64_t> view_dims;
  std::vector<int64_t> strides;  // in elements
  int64_t offset = 0;            // in elements
  std::vector<int64_t> storage_dims;
  aclDataType dtype = ACL_FLOAT;
  int32_t format = ACL_FORMAT_ND;  // as passed: any int (ABI-FORMAT-1: never checked)
  void *data = nullptr;  // start of the storage
};

struct aclIntArray {
  std::vector<int64_t> values;
};

struct aclBoolArray {
  std::vector<bool> values;
};

namespace aclnn_cpu {

constexpr int kMaxRank = 8;

int64_t numel(const std::vector<int64_t> &dims);
inline int64_t numel(const aclTensor &t) { return numel(t.view_dims); }
inline int rank(const aclTensor &t) { return static_cast<int>(t.view_dims.size()); }

// "[2,3]" for messages.
std::string shape_str(const std::vector<int64_t> &dims);

// Address of the view's first element (offset applied); element size from the dtype.
char *view_base(const aclTensor &t);

// True if two distinct indices of a non-empty view reach the same storage element (zero strides
// over a dim > 1, or overlapping strides): such an output is rejected (ABI-INPUT-1).
bool has_internal_overlap(const aclTensor &t);

// True if the two views touch a common storage byte of the same buffer.
bool views_overlap(const aclTensor &a, const aclTensor &b);
// True if both views are the same elements in the same order (in-place use).
bool same_view(const aclTensor &a, const aclTensor &b);

// A contiguous (row-major, dense) view.
bool is_contiguous(const aclTensor &t);

// ABI-BCAST-1: NumPy broadcast of a and b into out; false if they do not broadcast.
bool broadcast_shapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
                      std::vector<int64_t> &out);

}  // namespace aclnn_cpu
