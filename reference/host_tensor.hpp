// Plain host tensors: what the oracle reads and writes. No ABI types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reference/dtype.hpp"

namespace aclnn_ref {

// A non-owning strided view: element (i0..ik) is at data + (offset + sum(ij*strides[j])) * size.
struct TensorView {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements
  int64_t offset = 0;            // in elements
  const std::byte *data = nullptr;

  int64_t numel() const;
  int rank() const { return static_cast<int>(shape.size()); }
  // Exact value of the element at a row-major flat index of the view.
  double at(int64_t flat) const;
  // Exact value at a multi-index.
  double at(const std::vector<int64_t> &index) const;
};

// ABI-INPUT-1: whether two distinct indices of the view reach one element (an output view like
// that is rejected with 161002). Exact: a layout the sorted-stride test cannot prove disjoint is
// decided by marking every element it reaches. Negative strides count by their magnitude.
bool maps_two_indices_to_one_element(const TensorView &v);
// "" if the output view named `name` is one-to-one, else why it is rejected (ABI-INPUT-1).
std::string self_overlap(std::string_view name, const TensorView &v);

// An owning, contiguous tensor (row-major), e.g. an oracle output or a generated input.
struct HostTensor {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<std::byte> bytes;

  HostTensor() = default;
  HostTensor(DType t, std::vector<int64_t> s);
  int64_t numel() const;
  TensorView view() const;
  // Raw bits of element i (zero-extended), for bitwise comparison.
  uint64_t bits(int64_t i) const;
  void set_bits(int64_t i, uint64_t b);
  double at(int64_t i) const;
};

std::vector<int64_t> contiguous_strides(const std::vector<int64_t> &shape);

}  // namespace aclnn_ref
