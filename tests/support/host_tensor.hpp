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

}  // namespace aclnn_test
