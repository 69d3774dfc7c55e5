#include "reference/host_tensor.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

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

int64_t TensorView::numel() const {
  return product(shape);
}

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

bool maps_two_indices_to_one_element(const TensorView &v) {
  const int64_t n = v.numel();
  if (n <= 1) return false;
  // With the dims of size > 1 sorted by |stride|, each |stride| above the span of the smaller ones
  // proves the view one-to-one; a zero stride on such a dim disproves it.
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, size)
  for (size_t d = 0; d < v.shape.size(); ++d)
    if (v.shape[d] > 1)
      dims.emplace_back(v.strides[d] < 0 ? -v.strides[d] : v.strides[d], v.shape[d]);
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;
  bool proven = true;
  for (const auto &[stride, size] : dims) {
    if (stride == 0) return true;
    if (stride <= span) {
      proven = false;
      break;
    }
    span += (size - 1) * stride;
  }
  if (proven) return false;
  // Interleaved layouts: mark every reached element (relative to the lowest one).
  int64_t lo = 0, hi = 0;
  for (size_t d = 0; d < v.shape.size(); ++d) {
    const int64_t reach = (v.shape[d] - 1) * v.strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  // A bitmap over the reached range, or the sorted positions where that range is too wide.
  const bool bitmap = hi - lo < (int64_t{1} << 28);
  if (!bitmap && n > (int64_t{1} << 26))
    throw std::runtime_error("maps_two_indices_to_one_element: view too large to decide exactly");
  std::vector<bool> seen(bitmap ? static_cast<size_t>(hi - lo + 1) : 0);
  std::vector<int64_t> positions;
  if (!bitmap) positions.reserve(static_cast<size_t>(n));
  std::vector<int64_t> idx(v.shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t pos = -lo;
    for (size_t d = 0; d < idx.size(); ++d) pos += idx[d] * v.strides[d];
    if (bitmap) {
      if (seen[static_cast<size_t>(pos)]) return true;
      seen[static_cast<size_t>(pos)] = true;
    } else {
      positions.push_back(pos);
    }
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < v.shape[d]) break;
      idx[d] = 0;
    }
  }
  std::sort(positions.begin(), positions.end());
  return std::adjacent_find(positions.begin(), positions.end()) != positions.end();
}

std::string self_overlap(std::string_view name, const TensorView &v) {
  if (!maps_two_indices_to_one_element(v)) return "";
  const auto list = [](const std::vector<int64_t> &xs) {
    std::string r = "[";
    for (size_t i = 0; i < xs.size(); ++i) r += (i ? ", " : "") + std::to_string(xs[i]);
    return r + "]";
  };
  return std::string(name) + " (shape " + list(v.shape) + ", strides " + list(v.strides) +
         ") maps two indices to one element: an output view must not overlap itself";
}

HostTensor::HostTensor(DType t, std::vector<int64_t> s)
    : dtype(t), shape(std::move(s)), bytes(static_cast<size_t>(product(shape)) * dtype_size(t)) {}

int64_t HostTensor::numel() const {
  return product(shape);
}

TensorView HostTensor::view() const {
  return TensorView{dtype, shape, contiguous_strides(shape), 0, bytes.data()};
}

uint64_t HostTensor::bits(int64_t i) const {
  uint64_t b = 0;
  std::memcpy(&b, bytes.data() + i * dtype_size(dtype), bits_bytes(dtype));  // little-endian host
  return b;
}

void HostTensor::set_bits(int64_t i, uint64_t b) {
  std::memcpy(bytes.data() + i * dtype_size(dtype), &b, bits_bytes(dtype));
}

double HostTensor::at(int64_t i) const {
  return decode(bytes.data() + i * dtype_size(dtype), dtype);
}

}  // namespace aclnn_ref
