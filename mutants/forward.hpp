// What every library that forwards the aclnn ABI to another one shares: how it loads the library
// it forwards to, and the forwarding entry point. The mutation shim (mutants/shim.cpp, under the
// mutants, libaclnn_broken and the a2-device SUT) and the device emulation (tests/device/) use it.
#pragma once

#include <dlfcn.h>

#include <optional>

namespace aclnn_forward {

// The library forwarded to, loaded privately with RTLD_DEEPBIND: it binds to its own acl*
// symbols, never back to the forwarder's. The sanitizer runtimes refuse RTLD_DEEPBIND
// (google/sanitizers#611): sanitizer builds load it without. NULL if it cannot be loaded.
inline void *open_private(const char *path) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return dlopen(path, RTLD_NOW | RTLD_LOCAL);
#else
  return dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
#endif
}

// A gate that lets every call through.
inline std::optional<int> no_gate(const char *) {
  return std::nullopt;
}

}  // namespace aclnn_forward

// An exported entry point `name` that forwards to the loaded library's: `lookup<F>(name)` finds
// it (once), then `gate(name)` answers the call itself (a status) or lets it through (nullopt).
#define ACLNN_FORWARD(lookup, gate, ret, name, params, args)    \
  ACL_FUNC_VISIBILITY ret name params {                         \
    static const auto real_fn = lookup<decltype(&name)>(#name); \
    if (const auto refused = gate(#name)) return *refused;      \
    return real_fn args;                                        \
  }
