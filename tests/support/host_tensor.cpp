#include "tests/support/host_tensor.hpp"

#include <utility>

namespace aclnn_test {

std::vector<int64_t> contiguous_strides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size());
  int64_t acc = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    s[i] = acc;
    acc *= dims[i];
  }
  return s;
}

int64_t numel(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (const int64_t d : dims) n *= d;
  return n;
}

AclTensor::AclTensor(const std::vector<int64_t> &dims, aclDataType dt, void *data,
                     int64_t storage_elems, std::vector<int64_t> strides, int64_t offset) {
  if (strides.empty() && !dims.empty()) strides = contiguous_strides(dims);
  const int64_t storage_dims[] = {storage_elems};
  t_ = aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), offset, ACL_FORMAT_ND,
                       storage_dims, 1, data);
}

AclTensor &AclTensor::operator=(AclTensor &&o) noexcept {
  if (this != &o) {
    if (t_) aclDestroyTensor(t_);
    t_ = std::exchange(o.t_, nullptr);
  }
  return *this;
}

AclTensor::~AclTensor() {
  if (t_) aclDestroyTensor(t_);
}

}  // namespace aclnn_test
