#include "properties/sut.hpp"

#include <dlfcn.h>

#include <filesystem>

#include "properties/call_trace.hpp"

namespace aclnn_conform {

std::unique_ptr<Sut> Sut::builtin() {
  std::string error;
  auto s = load(ACLNN_BUILTIN_LIBRARY, error);
  if (s) s->name_ = "builtin";
  return s;
}

std::string Sut::builtin_path() {
  // The build tree's library; an installed tool (where the build tree is gone) uses the library
  // installed beside it (<prefix>/bin/aclnn-conform -> <prefix>/lib*/libaclnn_cpu.so).
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(ACLNN_BUILTIN_LIBRARY, ec)) return ACLNN_BUILTIN_LIBRARY;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path prefix = exe.parent_path().parent_path();
    const std::string name = fs::path(ACLNN_BUILTIN_LIBRARY).filename().string();
    for (const char *lib : {"lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"})
      if (fs::exists(prefix / lib / name, ec)) return (prefix / lib / name).string();
  }
  return ACLNN_BUILTIN_LIBRARY;
}

void *AbiTable::symbol(const std::string &name) const {
  for (void *library : libraries)
    if (void *f = dlsym(library, name.c_str())) return f;
  return nullptr;
}

namespace {
template <typename F>
void bind(const AbiTable &t, const char *symbol, F &slot) {
  slot = reinterpret_cast<F>(t.symbol(symbol));
}

// A runtime call's failure in words: the call, its status and the library's message.
std::string failed(const Sut &sut, const std::string &call, int status) {
  const std::string message = sut.recent_error();
  return sut.name() + ": " + call + " failed with " + std::to_string(status) +
         (message.empty() ? std::string() : " (\"" + message + "\")");
}
}  // namespace

std::unique_ptr<Sut> Sut::load(const std::vector<std::string> &paths, std::string &error,
                               int device, bool start) {
  if (paths.empty()) {
    error = "no library to load";
    return nullptr;
  }
  std::unique_ptr<Sut> s(new Sut);
  for (const auto &path : paths) s->name_ += (s->name_.empty() ? "" : ":") + path;
  AbiTable &t = s->abi_;
  for (const auto &path : paths) {
    // One library: RTLD_DEEPBIND, so that it resolves its own acl* calls to itself even when the
    // process also links another implementation. Several (the vendor's split): RTLD_GLOBAL in
    // load order, so that a later one may resolve what it needs against an earlier one. The
    // sanitizer runtimes refuse RTLD_DEEPBIND (google/sanitizers#611): sanitizer builds go
    // without. Loading runs the library's constructors: a first call.
    int flags = RTLD_NOW | (paths.size() > 1 ? RTLD_GLOBAL : RTLD_LOCAL);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    if (paths.size() == 1) flags |= RTLD_DEEPBIND;
#endif
    void *h = nullptr;
    {
      FirstCallScope first(true);
      ClauseScope clause("ABI-RUNTIME-1");
      h = traced("dlopen " + path, [&] { return dlopen(path.c_str(), flags); });
    }
    if (h == nullptr) {
      const char *e = dlerror();
      error = "cannot load " + path + ": " + (e ? e : "unknown dlopen error");
      return nullptr;
    }
    t.libraries.push_back(h);
  }
  bind(t, "aclInit", t.init);
  bind(t, "aclFinalize", t.finalize);
  bind(t, "aclrtSetDevice", t.set_device);
  bind(t, "aclrtResetDevice", t.reset_device);
  bind(t, "aclrtCreateStream", t.create_stream);
  bind(t, "aclrtDestroyStream", t.destroy_stream);
  bind(t, "aclrtSynchronizeStream", t.synchronize_stream);
  bind(t, "aclrtMalloc", t.malloc);
  bind(t, "aclrtFree", t.free);
  bind(t, "aclrtMemcpy", t.memcpy);
  bind(t, "aclCreateTensor", t.create_tensor);
  bind(t, "aclDestroyTensor", t.destroy_tensor);
  bind(t, "aclCreateIntArray", t.create_int_array);
  bind(t, "aclDestroyIntArray", t.destroy_int_array);
  bind(t, "aclCreateBoolArray", t.create_bool_array);
  bind(t, "aclDestroyBoolArray", t.destroy_bool_array);
  bind(t, "aclGetRecentErrMsg", t.recent_error);
  bind(t, "aclSetAclOpExecutorRepeatable", t.set_repeatable);
  bind(t, "aclDestroyAclOpExecutor", t.destroy_executor);
  std::string missing;
  const std::pair<const char *, const void *> required[] = {
      {"aclInit", reinterpret_cast<const void *>(t.init)},
      {"aclrtSetDevice", reinterpret_cast<const void *>(t.set_device)},
      {"aclrtCreateStream", reinterpret_cast<const void *>(t.create_stream)},
      {"aclrtMalloc", reinterpret_cast<const void *>(t.malloc)},
      {"aclrtFree", reinterpret_cast<const void *>(t.free)},
      {"aclrtMemcpy", reinterpret_cast<const void *>(t.memcpy)},
      {"aclCreateTensor", reinterpret_cast<const void *>(t.create_tensor)},
      {"aclDestroyTensor", reinterpret_cast<const void *>(t.destroy_tensor)},
      {"aclCreateIntArray", reinterpret_cast<const void *>(t.create_int_array)},
      {"aclDestroyIntArray", reinterpret_cast<const void *>(t.destroy_int_array)},
      {"aclCreateBoolArray", reinterpret_cast<const void *>(t.create_bool_array)},
      {"aclDestroyBoolArray", reinterpret_cast<const void *>(t.destroy_bool_array)},
  };
  for (auto [sym, p] : required)
    if (p == nullptr) missing += std::string(missing.empty() ? "" : ", ") + sym;
  if (!missing.empty()) {
    error = s->name_ + (paths.size() > 1 ? " do" : " does") +
            " not export the runtime the framework needs: " + missing +
            (paths.size() == 1 ? " (a library split over several files is given as "
                                 "--sut first.so:second.so:..., in load order)"
                               : "");
    return nullptr;
  }
  if (start && !s->start(device, error)) return nullptr;
  return s;
}

bool Sut::start(int device, std::string &error) {
  device_ = device;
  // Starting a device loads its runtime and firmware: first calls, with the longer allowance.
  FirstCallScope first(true);
  ClauseScope clause("ABI-RUNTIME-1");
  // aclInit may legitimately report "already initialised" (100002) when called twice.
  const aclError init = traced("aclInit", [&] { return abi_.init(nullptr); });
  if (init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE) {
    error = failed(*this, "aclInit", init);
    return false;
  }
  const std::string set = "aclrtSetDevice(" + std::to_string(device) + ")";
  if (const aclError e = traced(set, [&] { return abi_.set_device(device); }); e != ACL_SUCCESS) {
    error = failed(*this, set, e);
    return false;
  }
  started_ = true;
  if (const aclError e = traced("aclrtCreateStream", [&] { return abi_.create_stream(&stream_); });
      e != ACL_SUCCESS) {
    error = failed(*this, "aclrtCreateStream", e);
    stream_ = nullptr;
    return false;
  }
  return true;
}

Sut::~Sut() {
  if (stream_ && abi_.destroy_stream) abi_.destroy_stream(stream_);
  if (started_ && abi_.reset_device) abi_.reset_device(device_);
  // The libraries stay loaded: executors or threads of a SUT may outlive this object.
}

std::string Sut::recent_error() const {
  if (abi_.recent_error == nullptr) return "";
  const char *m = abi_.recent_error();
  return m ? std::string(m) : std::string();
}

}  // namespace aclnn_conform
