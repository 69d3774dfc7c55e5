#include "properties/staging.hpp"

#include <cstring>

#include "properties/call_trace.hpp"

namespace aclnn_conform {

int64_t TensorArg::storage_elements() const {
  return static_cast<int64_t>(storage.size() / aclnn_ref::dtype_size(dtype));
}

int64_t TensorArg::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

aclnn_ref::TensorView TensorArg::view() const {
  return aclnn_ref::TensorView{dtype, shape, strides, offset, storage.data()};
}

TensorArg TensorArg::contiguous(DType dtype, std::vector<int64_t> shape) {
  TensorArg a;
  a.dtype = dtype;
  a.strides = aclnn_ref::contiguous_strides(shape);
  a.shape = std::move(shape);
  a.storage.resize(static_cast<size_t>(a.numel()) * aclnn_ref::dtype_size(dtype));
  return a;
}

TensorArg TensorArg::null() {
  TensorArg a;
  a.present = false;
  return a;
}

namespace {
int64_t storage_index(const TensorArg &a, int64_t flat) {
  int64_t pos = a.offset;
  for (size_t d = a.shape.size(); d-- > 0;) {
    pos += (flat % a.shape[d]) * a.strides[d];
    flat /= a.shape[d];
  }
  return pos;
}
}  // namespace

uint64_t TensorArg::bits_at(int64_t flat) const {
  uint64_t b = 0;
  std::memcpy(&b, storage.data() + storage_index(*this, flat) * aclnn_ref::dtype_size(dtype),
              aclnn_ref::bits_bytes(dtype));
  return b;
}

void TensorArg::set_bits_at(int64_t flat, uint64_t bits) {
  std::memcpy(storage.data() + storage_index(*this, flat) * aclnn_ref::dtype_size(dtype), &bits,
              aclnn_ref::bits_bytes(dtype));
}

StagedTensor::StagedTensor(const Sut &sut, const TensorArg &arg, aclFormat format) : sut_(sut) {
  if (!arg.present) {
    ok_ = true;  // a NULL argument: tensor() stays null
    return;
  }
  const AbiTable &abi = sut.abi();
  storage_bytes_ = arg.storage.size();
  const size_t total = storage_bytes_ + 2 * kGuardBytes;
  // A death inside these calls belongs to the runtime's or the tensor's clause, not the op's.
  ClauseScope runtime_clause("ABI-RUNTIME-1");
  const aclError allocated =
      traced("aclrtMalloc", [&] { return abi.malloc(&device_, total, ACL_MEM_MALLOC_HUGE_FIRST); });
  if (allocated != ACL_SUCCESS || !device_) {
    error_ = "aclrtMalloc of " + std::to_string(total) + " bytes failed with " +
             std::to_string(allocated);
    runtime_status_ = allocated != ACL_SUCCESS ? allocated : -1;
    device_ = nullptr;
    return;
  }
  std::vector<std::byte> host(total, kCanary);
  // An empty storage may have no data pointer at all (memcpy with NULL is undefined).
  if (storage_bytes_ > 0)
    std::memcpy(host.data() + kGuardBytes, arg.storage.data(), storage_bytes_);
  if (const aclError copied = traced("aclrtMemcpy(host to device)", [&] {
        return abi.memcpy(device_, total, host.data(), total, ACL_MEMCPY_HOST_TO_DEVICE);
      });
      copied != ACL_SUCCESS) {
    error_ = "aclrtMemcpy host to device failed with " + std::to_string(copied);
    runtime_status_ = copied;
    return;
  }
  create_tensor(arg, format);
}

void StagedTensor::create_tensor(const TensorArg &arg, aclFormat format) {
  const int64_t storage_dims[1] = {arg.storage_elements()};
  ClauseScope tensor_clause("ABI-TENSOR-1");
  tensor_ = traced("aclCreateTensor", [&] {
    return sut_.abi().create_tensor(arg.shape.data(), arg.shape.size(),
                                    static_cast<aclDataType>(static_cast<int>(arg.dtype)),
                                    arg.strides.data(), arg.offset, format, storage_dims, 1,
                                    static_cast<std::byte *>(device_) + kGuardBytes);
  });
  if (tensor_ == nullptr) {
    error_ = "aclCreateTensor returned NULL";
    return;
  }
  ok_ = true;
}

StagedTensor::StagedTensor(const Sut &sut, const StagedTensor &base, const TensorArg &arg,
                           aclFormat format, bool same_handle)
    : sut_(sut), device_(base.device_), storage_bytes_(base.storage_bytes_), owns_device_(false) {
  if (same_handle) {
    tensor_ = base.tensor_;
    owns_tensor_ = false;
    ok_ = base.ok_;
    return;
  }
  create_tensor(arg, format);
}

StagedTensor::~StagedTensor() {
  if (tensor_ && owns_tensor_) {
    ClauseScope clause("ABI-TENSOR-1");
    traced("aclDestroyTensor", [&] { return sut_.abi().destroy_tensor(tensor_); });
  }
  if (device_ && owns_device_) {
    ClauseScope clause("ABI-RUNTIME-1");
    traced("aclrtFree", [&] { return sut_.abi().free(device_); });
  }
}

std::vector<std::byte> StagedTensor::read_storage(bool &guards_intact, int &status) const {
  guards_intact = true;
  status = 0;
  if (device_ == nullptr) return {};
  const size_t total = storage_bytes_ + 2 * kGuardBytes;
  std::vector<std::byte> host(total);
  {
    ClauseScope clause("ABI-RUNTIME-1");
    status = traced("aclrtMemcpy(device to host)", [&] {
      return sut_.abi().memcpy(host.data(), total, device_, total, ACL_MEMCPY_DEVICE_TO_HOST);
    });
  }
  for (size_t i = 0; i < kGuardBytes; ++i)
    if (host[i] != kCanary || host[total - 1 - i] != kCanary) guards_intact = false;
  return {host.begin() + kGuardBytes, host.begin() + kGuardBytes + storage_bytes_};
}

}  // namespace aclnn_conform
