#include "properties/sut.hpp"

#include <dlfcn.h>

#include <filesystem>

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
  return library == nullptr ? nullptr : dlsym(library, name.c_str());
}

namespace {
template <typename F>
void bind(void *handle, const char *symbol, F &slot) {
  slot = reinterpret_cast<F>(dlsym(handle, symbol));
}
}  // namespace

std::unique_ptr<Sut> Sut::load(const std::string &path, std::string &error) {
  // DEEPBIND: the library resolves its own acl* calls to itself, even when the process also
  // links the built-in library.
  // RTLD_DEEPBIND: the SUT binds to its own symbols, not to a same-named one of the host; the
  // sanitizer runtimes refuse it (google/sanitizers#611), so sanitizer builds go without.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
#else
  void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
#endif
  if (h == nullptr) {
    const char *e = dlerror();
    error = "cannot load " + path + ": " + (e ? e : "unknown dlopen error");
    return nullptr;
  }
  std::unique_ptr<Sut> s(new Sut);
  s->handle_ = h;
  s->name_ = path;
  AbiTable &t = s->abi_;
  bind(h, "aclInit", t.init);
  bind(h, "aclFinalize", t.finalize);
  bind(h, "aclrtSetDevice", t.set_device);
  bind(h, "aclrtResetDevice", t.reset_device);
  bind(h, "aclrtCreateStream", t.create_stream);
  bind(h, "aclrtDestroyStream", t.destroy_stream);
  bind(h, "aclrtSynchronizeStream", t.synchronize_stream);
  bind(h, "aclrtMalloc", t.malloc);
  bind(h, "aclrtFree", t.free);
  bind(h, "aclrtMemcpy", t.memcpy);
  bind(h, "aclCreateTensor", t.create_tensor);
  bind(h, "aclDestroyTensor", t.destroy_tensor);
  bind(h, "aclCreateIntArray", t.create_int_array);
  bind(h, "aclDestroyIntArray", t.destroy_int_array);
  bind(h, "aclCreateBoolArray", t.create_bool_array);
  bind(h, "aclDestroyBoolArray", t.destroy_bool_array);
  bind(h, "aclGetRecentErrMsg", t.recent_error);
  bind(h, "aclSetAclOpExecutorRepeatable", t.set_repeatable);
  bind(h, "aclDestroyAclOpExecutor", t.destroy_executor);
  t.library = h;
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
    error = path + " does not export the runtime the framework needs: " + missing;
    return nullptr;
  }
  if (!s->start(error)) return nullptr;
  return s;
}

bool Sut::start(std::string &error) {
  // aclInit may legitimately report "already initialised" (100002) when called twice.
  const aclError init = abi_.init(nullptr);
  if (init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE) {
    error = name_ + ": aclInit failed with " + std::to_string(init);
    return false;
  }
  if (abi_.set_device(0) != ACL_SUCCESS) {
    error = name_ + ": aclrtSetDevice(0) failed";
    return false;
  }
  if (abi_.create_stream(&stream_) != ACL_SUCCESS) {
    error = name_ + ": aclrtCreateStream failed";
    return false;
  }
  return true;
}

Sut::~Sut() {
  if (stream_ && abi_.destroy_stream) abi_.destroy_stream(stream_);
  if (abi_.reset_device) abi_.reset_device(0);
  // The library stays loaded: executors or threads of a SUT may outlive this object.
}

std::string Sut::recent_error() const {
  if (abi_.recent_error == nullptr) return "";
  const char *m = abi_.recent_error();
  return m ? std::string(m) : std::string();
}

}  // namespace aclnn_conform
