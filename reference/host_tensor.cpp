#include "reference/host_tensor.hpp"

#include <cstring>

namespace aclnn_ref {

std::vector<int64_t> contiguous_strides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

namespace {
int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}
}  // namespace

int64_t TensorView::numel() const { return product(shape); }

double TensorView::at(int64_t flat) const {
  int64_t pos = offset;
  for (size_t d = shape.size(); d-- > 0;) {
    pos += (flat % shape[d]) * strides[d];
    flat /= shape[d];
  }
  return decode(data + pos * static_cast<int64_t>(dtype_size(dtype)), dtype);
}

double TensorView::at(const std::vector<int64_t> &index) const {
  int64_t pos = offset;
  for (size_t d = 0; d < index.size(); ++d) pos += index[d] * strides[d];
  return decode(data + pos * static_cast<int64_t>(dtype_size(dtype)), dtype);
}

HostTensor::HostTensor(DType t, std::vector<int64_t> s)
    : dtype(t), shape(std::move(s)), bytes(static_cast<size_t>(product(shape)) * dtype_size(t)) {}

int64_t HostTensor::numel() const { return product(shape); }

TensorView HostTensor::view() const {
  return TensorView{dtype, shape, contiguous_strides(shape), 0, bytes.data()};
}

uint64_t HostTensor::bits(int64_t i) const {
  uint64_t b = 0;
  const size_t sz = dtype_size(dtype);
  std::memcpy(&b, bytes.data() + i * sz, sz);  // little-endian host
  return b;
}

void HostTensor::set_bits(int64_t i, uint64_t b) {
  const size_t sz = dtype_size(dtype);
  std::memcpy(bytes.data() + i * sz, &b, sz);
}

double HostTensor::at(int64_t i) const {
  return decode(bytes.data() + i * dtype_size(dtype), dtype);
}

}  // namespace aclnn_ref
