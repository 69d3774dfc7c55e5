// Host descriptions of tensor arguments and their staging on a SUT's device memory, with guard
// regions (canaries) around every storage so writes outside a view are caught.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "properties/sut.hpp"
#include "reference/host_tensor.hpp"

namespace aclnn_conform {

using aclnn_ref::DType;

// One tensor argument of a call, on the host: a view over its own storage.
struct TensorArg {
  bool present = true;  // false: the argument is NULL
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;    // elements
  int64_t offset = 0;              // elements
  std::vector<std::byte> storage;  // whole storage; its size fixes the storage dims [n]

  int64_t storage_elements() const;
  int64_t numel() const;
  // The view as the oracle reads it.
  aclnn_ref::TensorView view() const;
  // A contiguous tensor of shape filled by element index: value(i) gives the element's bits.
  static TensorArg contiguous(DType dtype, std::vector<int64_t> shape);
  static TensorArg null();
  // Bits of the element at a row-major flat index of the view.
  uint64_t bits_at(int64_t flat) const;
  void set_bits_at(int64_t flat, uint64_t bits);
};

// Bytes of guard on each side of a staged storage, and the fill pattern (not a plausible value).
constexpr size_t kGuardBytes = 64;
constexpr std::byte kCanary{0xA5};

// A TensorArg copied into the SUT's memory (guard | storage | guard) and an aclTensor over it.
class StagedTensor {
 public:
  StagedTensor(const Sut &sut, const TensorArg &arg, aclFormat format = ACL_FORMAT_ND);
  // In-place use: the same view over base's memory, as base's own aclTensor (same_handle) or a
  // second aclTensor (arg must describe base's view). Owns neither base's memory nor its tensor.
  StagedTensor(const Sut &sut, const StagedTensor &base, const TensorArg &arg, aclFormat format,
               bool same_handle);
  ~StagedTensor();
  StagedTensor(const StagedTensor &) = delete;
  StagedTensor &operator=(const StagedTensor &) = delete;

  // False if the SUT refused the memory or the tensor (aclCreateTensor returned NULL).
  bool ok() const { return ok_; }
  const std::string &error() const { return error_; }
  // The status of the runtime call that failed (aclrtMalloc, aclrtMemcpy), 0 if none did.
  int runtime_status() const { return runtime_status_; }
  aclTensor *tensor() const { return tensor_; }
  // Storage bytes copied back from the SUT (through its aclrtMemcpy: the host never reads the
  // SUT's memory); guards_intact says whether both guards survived, status is the copy's status
  // (on a failure the bytes are meaningless).
  std::vector<std::byte> read_storage(bool &guards_intact, int &status) const;

 private:
  const Sut &sut_;
  void *device_ = nullptr;
  size_t storage_bytes_ = 0;
  aclTensor *tensor_ = nullptr;
  bool owns_device_ = true, owns_tensor_ = true;
  bool ok_ = false;

  void create_tensor(const TensorArg &arg, aclFormat format);
  std::string error_;
  int runtime_status_ = 0;
};

}  // namespace aclnn_conform
