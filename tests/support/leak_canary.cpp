// The sanitizer job's leak canary: proof that LeakSanitizer still reports a leak under the
// options the `asan` test preset sets (intercept_tls_get_addr=0 among them). Like the tests, it
// dlopens the CPU library and touches its thread-local error message (dynamic TLS), then drops
// the only pointer to a heap block. Its CTest test passes only if the leak is reported.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace {
void *volatile leaked_block = nullptr;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: leak_canary LIBRARY\n");
    return 2;
  }
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  using RecentErrMsg = const char *(*)();
  auto recent = reinterpret_cast<RecentErrMsg>(dlsym(library, "aclGetRecentErrMsg"));
  if (recent == nullptr) {
    std::fprintf(stderr, "%s does not export aclGetRecentErrMsg\n", argv[1]);
    return 2;
  }
  const char *message = recent();
  std::printf("recent error message: \"%s\"\n", message == nullptr ? "(null)" : message);
  leaked_block = std::malloc(4321);
  leaked_block = nullptr;  // the block's only pointer is gone: a leak of 4321 bytes
  return 0;
}
