// A system under test: an implementation of the aclnn ABI seen only as a table of its entry
// points. The built-in CPU library and any dlopen()ed library look the same from here, and data
// always moves through the SUT's own aclrtMalloc/aclrtMemcpy, so a device-backed library works too.
#pragma once

#include <memory>
#include <string>

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

  // The loaded library. Op entry points are looked up by name, so this table knows no op: the op
  // registry names each op's symbols (abi_symbols() in properties/op.hpp).
  void *library = nullptr;
  // An entry point by symbol name; null where the library lacks it.
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
  // dlopen()s path; on failure returns null and says why in error (missing runtime symbols, ...).
  static std::unique_ptr<Sut> load(const std::string &path, std::string &error);

  ~Sut();
  Sut(const Sut &) = delete;
  Sut &operator=(const Sut &) = delete;

  const AbiTable &abi() const { return abi_; }
  const std::string &name() const { return name_; }
  aclrtStream stream() const { return stream_; }
  // aclGetRecentErrMsg() as a string ("" where the library returns NULL).
  std::string recent_error() const;

 private:
  Sut() = default;
  bool start(std::string &error);  // aclInit, aclrtSetDevice(0), a stream

  AbiTable abi_;
  std::string name_;
  void *handle_ = nullptr;
  aclrtStream stream_ = nullptr;
};

}  // namespace aclnn_conform
