#include "tests/support/host_tensor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "impl/dtype.hpp"

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

size_t element_size(aclDataType dt) {
  return aclnn_cpu::dtype_size(dt);
}

GuardedTensor::~GuardedTensor() {
  if (t) aclDestroyTensor(t);
}

void GuardedTensor::set(size_t i, double v) {
  unsigned char *p = storage.data() + i * element_size(dtype);
  switch (dtype) {
    case ACL_FLOAT: {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      break;
    }
    case ACL_FLOAT16:
    case ACL_BF16: {
      const uint16_t h =
          dtype == ACL_FLOAT16 ? aclnn_cpu::double_to_half(v) : aclnn_cpu::double_to_bf16(v);
      std::memcpy(p, &h, 2);
      break;
    }
    case ACL_INT32: {
      const auto x = static_cast<int32_t>(v);
      std::memcpy(p, &x, 4);
      break;
    }
    default: {
      const auto x = static_cast<int64_t>(v);
      std::memcpy(p, &x, 8);
    }
  }
}

void GuardedTensor::set_i64(size_t i, int64_t v) {
  if (dtype == ACL_INT32) {
    const auto x = static_cast<int32_t>(v);
    std::memcpy(storage.data() + 4 * i, &x, 4);
  } else {
    std::memcpy(storage.data() + 8 * i, &v, 8);
  }
}

double GuardedTensor::get(size_t i) const {
  return aclnn_cpu::load_as_double(storage.data() + i * element_size(dtype), dtype);
}

void make(GuardedTensor &h, const std::vector<int64_t> &dims, aclDataType dt,
          std::vector<int64_t> strides, int64_t offset, int64_t storage_elems) {
  h.dtype = dt;
  if (strides.empty()) {
    strides.assign(dims.size(), 1);
    for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * dims[i + 1];
  }
  if (storage_elems < 0) {
    int64_t last = offset;
    bool empty = false;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 0)
        empty = true;
      else
        last += (dims[i] - 1) * strides[i];
    }
    storage_elems = empty ? 0 : last + 1;
  }
  h.storage.assign(static_cast<size_t>(storage_elems) * element_size(dt) + 1, kCanary);
  const int64_t storage_dims[] = {storage_elems};
  h.t = aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), offset, ACL_FORMAT_ND,
                        storage_dims, 1, h.storage.data());
  ASSERT_NE(h.t, nullptr);
}

bool all_canary(const GuardedTensor &h) {
  for (const unsigned char c : h.storage)
    if (c != kCanary) return false;
  return true;
}

ViewTensor::~ViewTensor() {
  if (t) aclDestroyTensor(t);
}

int64_t ViewTensor::pos(int64_t i) const {
  int64_t p = offset;
  for (size_t d = dims.size(); d-- > 0;) {
    p += (i % dims[d]) * strides[d];
    i /= dims[d];
  }
  return p;
}

double ViewTensor::get(int64_t i) const {
  return aclnn_cpu::load_as_double(storage.data() + pos(i) * esize(), dtype);
}

void ViewTensor::set(int64_t i, double v) {
  aclnn_cpu::store_from_double(storage.data() + pos(i) * esize(), dtype, v);
}

std::vector<double> ViewTensor::values() const {
  std::vector<double> v(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i) v[static_cast<size_t>(i)] = get(i);
  return v;
}

std::unique_ptr<ViewTensor> make_view(const std::vector<int64_t> &dims, aclDataType dtype,
                                      const std::vector<double> &values,
                                      std::optional<std::vector<int64_t>> strides, int64_t offset,
                                      int64_t extra) {
  auto h = std::make_unique<ViewTensor>();
  h->dims = dims;
  h->dtype = dtype;
  if (strides) {
    h->strides = *strides;
  } else {
    h->strides.assign(dims.size(), 1);
    for (size_t d = dims.size(); d-- > 1;)
      h->strides[d - 1] = h->strides[d] * std::max<int64_t>(dims[d], 1);
  }
  h->offset = offset;
  int64_t reach = offset;
  const bool empty = numel(dims) == 0;
  for (size_t d = 0; d < dims.size(); ++d) reach += (dims[d] - 1) * h->strides[d];
  const int64_t n_storage = empty ? offset + extra : reach + 1 + extra;
  h->storage.assign(static_cast<size_t>(n_storage) * h->esize(), kCanary);
  for (size_t i = 0; i < values.size(); ++i) h->set(static_cast<int64_t>(i), values[i]);
  const int64_t storage_dims[] = {n_storage};
  h->t = aclCreateTensor(dims.data(), dims.size(), dtype, h->strides.data(), offset, ACL_FORMAT_ND,
                         storage_dims, 1, h->storage.empty() ? nullptr : h->storage.data());
  EXPECT_NE(h->t, nullptr);
  return h;
}

}  // namespace aclnn_test
