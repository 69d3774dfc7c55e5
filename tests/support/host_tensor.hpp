// The test harness of tests/impl: host memory viewed as aclTensors through the vendor ABI
// (aclCreateTensor), so each op's tests need no private tensor wrapper.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "acl/acl.h"

namespace aclnn_test {

// Row-major strides (in elements) of a contiguous tensor of these dims.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t> &dims);

// The number of elements of a tensor of these dims (1 for rank 0).
int64_t numel(const std::vector<int64_t> &dims);

// An aclTensor over caller-owned memory: `storage_elems` elements of storage at `data`, viewed
// with dims, strides (contiguous when empty) and an element offset. Destroys the aclTensor.
class AclTensor {
 public:
  AclTensor() = default;
  AclTensor(const std::vector<int64_t> &dims, aclDataType dt, void *data, int64_t storage_elems,
            std::vector<int64_t> strides = {}, int64_t offset = 0);
  AclTensor(const AclTensor &) = delete;
  AclTensor &operator=(const AclTensor &) = delete;
  AclTensor(AclTensor &&o) noexcept : t_(o.t_) { o.t_ = nullptr; }
  AclTensor &operator=(AclTensor &&o) noexcept;
  ~AclTensor();

  aclTensor *get() const { return t_; }
  operator aclTensor *() const { return t_; }

 private:
  aclTensor *t_ = nullptr;
};

// The byte a GuardedTensor's storage is filled with, to prove memory untouched.
inline constexpr unsigned char kCanary = 0xA5;

// The library's element size of a dtype (0 for a dtype it does not know).
size_t element_size(aclDataType dt);

// Host storage for one tensor, filled with kCanary, with one spare canary byte after the storage
// the aclTensor is given (so the data pointer is never NULL, and a write past the end shows);
// the aclTensor views it. Elements are addressed by storage index.
struct GuardedTensor {
  aclDataType dtype = ACL_FLOAT;
  std::vector<unsigned char> storage;
  aclTensor *t = nullptr;

  GuardedTensor() = default;
  GuardedTensor(const GuardedTensor &) = delete;
  GuardedTensor &operator=(const GuardedTensor &) = delete;
  ~GuardedTensor();
  // Storage element i := v, rounded once (RNE) to a float dtype, truncated to an integer one.
  void set(size_t i, double v);
  void set_i64(size_t i, int64_t v);  // INT32 or INT64 storage element i := v
  double get(size_t i) const;         // the exact value of storage element i
  size_t elems() const { return (storage.size() - 1) / element_size(dtype); }
};

// (Re)creates h as a view of dims with the given strides (contiguous when empty) at an element
// offset into storage_elems elements of storage (default: the view's reach, 0 when empty).
void make(GuardedTensor &h, const std::vector<int64_t> &dims, aclDataType dt,
          std::vector<int64_t> strides = {}, int64_t offset = 0, int64_t storage_elems = -1);

// True if no byte of h's storage (spare byte included) was written.
bool all_canary(const GuardedTensor &h);

}  // namespace aclnn_test
