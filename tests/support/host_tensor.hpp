// The test harness of tests/impl: host memory viewed as aclTensors through the vendor ABI
// (aclCreateTensor), so each op's tests need no private tensor wrapper.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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

// A strided view over host storage filled with kCanary, elements addressed by the view's
// row-major flat index; the aclTensor views it.
struct ViewTensor {
  std::vector<int64_t> dims, strides;
  int64_t offset = 0;
  aclDataType dtype = ACL_FLOAT;
  std::vector<unsigned char> storage;
  aclTensor *t = nullptr;

  ViewTensor() = default;
  ViewTensor(const ViewTensor &) = delete;
  ViewTensor &operator=(const ViewTensor &) = delete;
  ~ViewTensor();
  int64_t numel() const { return aclnn_test::numel(dims); }
  size_t esize() const { return element_size(dtype); }
  int64_t pos(int64_t i) const;  // the storage element of flat view index i
  double get(int64_t i) const;
  void set(int64_t i, double v);  // rounded once to the dtype
  std::vector<double> values() const;
};

// A view of dims with the given strides (default: contiguous, a zero dim counted as 1) at an
// element offset, in storage reaching `extra` spare elements past the view (an empty view:
// offset + extra elements; no storage at all gives a NULL data pointer); values written in.
std::unique_ptr<ViewTensor> make_view(const std::vector<int64_t> &dims, aclDataType dtype,
                                      const std::vector<double> &values = {},
                                      std::optional<std::vector<int64_t>> strides = std::nullopt,
                                      int64_t offset = 0, int64_t extra = 0);

}  // namespace aclnn_test
