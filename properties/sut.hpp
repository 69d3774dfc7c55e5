// A system under test: an implementation of the aclnn ABI seen only as a table of its entry
// points, from one library or from several loaded in order (the vendor's split: libascendcl.so,
// libnnopbase.so, libopapi.so). The built-in CPU library and any dlopen()ed library look the same
// from here, and data always moves through the SUT's own aclrtMalloc/aclrtMemcpy: the host never
// dereferences the SUT's memory, which on a device is not host memory (docs/device.md).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace aclnn_conform {

// Entry points; an op entry is null where the library lacks the op (its clauses are then
// reported "not reached"), a runtime pointer is never null in a loaded table.
struct AbiTable {
  decltype(&aclInit) init = nullptr;
  decltype(&aclFinalize) finalize = nullptr;
  decltype(&aclrtSetDevice) set_device = nullptr;
  decltype(&aclrtResetDevice) reset_device = nullptr;
  decltype(&aclrtCreateStream) create_stream = nullptr;
  decltype(&aclrtDestroyStream) destroy_stream = nullptr;
  decltype(&aclrtSynchronizeStream) synchronize_stream = nullptr;
  decltype(&aclrtMalloc) malloc = nullptr;
  decltype(&aclrtFree) free = nullptr;
  decltype(&aclrtMemcpy) memcpy = nullptr;
  decltype(&aclCreateTensor) create_tensor = nullptr;
  decltype(&aclDestroyTensor) destroy_tensor = nullptr;
  decltype(&aclCreateIntArray) create_int_array = nullptr;
  decltype(&aclDestroyIntArray) destroy_int_array = nullptr;
  decltype(&aclCreateBoolArray) create_bool_array = nullptr;
  decltype(&aclDestroyBoolArray) destroy_bool_array = nullptr;
  decltype(&aclGetRecentErrMsg) recent_error = nullptr;
  decltype(&aclSetAclOpExecutorRepeatable) set_repeatable = nullptr;  // optional
  decltype(&aclDestroyAclOpExecutor) destroy_executor = nullptr;      // optional

  // The loaded libraries, in load order. Op entry points are looked up by name, so this table
  // knows no op: the op registry names each op's symbols (abi_symbols() in properties/op.hpp).
  std::vector<void *> libraries;
  // An entry point by symbol name, from the first library that has it; null where none does.
  void *symbol(const std::string &name) const;
  template <typename F>
  F entry(const std::string &name) const {
    return reinterpret_cast<F>(symbol(name));
  }
};

// An op entry point of the table, typed by the vendor's declaration of the same name:
// ACLNN_ABI_ENTRY(abi, aclnnGeluBackward)(workspace, size, executor, stream).
#define ACLNN_ABI_ENTRY(table, function) ((table).entry<decltype(&function)>(#function))

class Sut {
 public:
  // The CPU library this project builds, loaded like any other SUT (null if it cannot be).
  static std::unique_ptr<Sut> builtin();
  static std::string builtin_path();
  // dlopen()s the files in order and binds the ABI across them; then, if `start`, aclInit,
  // aclrtSetDevice(device) and a stream (each call traced as a first call). On failure returns
  // null and says why in error (a file that cannot be loaded, missing runtime symbols, the call
  // that failed with its status and the library's message).
  static std::unique_ptr<Sut> load(const std::vector<std::string> &paths, std::string &error,
                                   int device = 0, bool start = true);
  static std::unique_ptr<Sut> load(const std::string &path, std::string &error) {
    return load(std::vector<std::string>{path}, error);
  }

  ~Sut();
  Sut(const Sut &) = delete;
  Sut &operator=(const Sut &) = delete;

  const AbiTable &abi() const { return abi_; }
  const std::string &name() const { return name_; }
  int device() const { return device_; }
  aclrtStream stream() const { return stream_; }
  // aclGetRecentErrMsg() as a string ("" where the library returns NULL).
  std::string recent_error() const;
  // For the teardown probe: hands over the stream (the destructor no longer destroys it), and
  // records that the device was reset and the runtime finalised (nor does it reset the device).
  aclrtStream release_stream() { return std::exchange(stream_, nullptr); }
  void mark_torn_down() { started_ = false; }

 private:
  Sut() = default;
  bool start(int device, std::string &error);  // aclInit, aclrtSetDevice(device), a stream

  AbiTable abi_;
  std::string name_;
  int device_ = 0;
  bool started_ = false;
  aclrtStream stream_ = nullptr;
};

}  // namespace aclnn_conform
