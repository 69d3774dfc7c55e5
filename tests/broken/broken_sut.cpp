// libaclnn_broken.so: a deliberately non-conformant aclnn implementation for the framework's own
// tests. It loads the built-in library privately and forwards the ABI to it, but:
//   - GeluBackward follows the `tanh-approx` variant (GELU-VALUE-1),
//   - SeluBackward accepts rank-0 tensors (`any-rank`, SELU-RANK-1) and returns 161002 instead of
//     161001 for a NULL result (SELU-NULL-1, no known variant),
//   - LogitGrad treats a finite eps > 1 like eps in (0.5, 1) (`range-rule`, LOGIT-EPS-GT1-1),
//   - GroupedBiasAddGrad leaves out untouched for an empty gradY (`empty-untouched`),
//   - LayerNormBackward crashes when N = 3 and hangs when N = 5 (a conformance run must survive),
//   - GroupedBiasAddGradV2's first phase writes *executor before checking it: it crashes on
//     executor == NULL (ABI-TWOPHASE-2, found only by the protocol probe),
//   - with ACLNN_BROKEN_HOSTILE set, GeluBackward's second phase also misbehaves towards its
//     caller (tests of the worker pool):
//       "fork"     leaves two sleeping children holding every inherited descriptor,
//       "flood"    writes 256 KB to stdout and stderr,
//       "exit"     calls exit(0),
//       "abort"    calls abort(),
//       "alloc"    allocates 256 MiB blocks without bound, and aborts when one is refused, as
//                  C++ does on std::bad_alloc (a safety cap stops it at 4 GiB),
//       "stdio"    closes descriptor 0 and points 1 and 2 at /dev/null,
//       "closefds" closes every descriptor from 3 to 1023 (the caller's pipes among them),
//       "signals"  ignores SIGTERM, SIGINT, SIGCHLD and SIGPIPE and installs handlers of its own
//                  for SIGALRM and SIGSEGV (the latter hangs),
//       "thread"   returns, but leaves a thread writing into gradInput until the caller destroys
//                  the tensor (at most 2 s; it never writes after the destroy),
//       "guard"    after a correct run, flips the byte just past the end of gradInput's storage,
//   - with ACLNN_BROKEN_TEARDOWN=fail, aclFinalize fails (ABI-RUNTIME-1, found by the probe).
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "impl/dtype.hpp"  // header-only conversions

namespace {

void *real() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizer runtimes refuse RTLD_DEEPBIND (google/sanitizers#611).
  static void *handle = dlopen(ACLNN_REAL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
#else
  static void *handle = dlopen(ACLNN_REAL_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
#endif
  if (!handle) abort();
  return handle;
}

template <typename F>
F fn(const char *name) {
  return reinterpret_cast<F>(dlsym(real(), name));
}

// What the shim remembers of each tensor: the arguments of aclCreateTensor.
struct View {
  std::vector<int64_t> dims, strides;
  int64_t offset;
  aclDataType dtype;
  void *data;
  int64_t storage_elements;
};
std::mutex mutex;
std::map<const aclTensor *, View> views;
std::map<aclOpExecutor *, std::vector<View>> gelu_jobs;     // executors whose output is redone
std::map<aclOpExecutor *, bool> skipped;                    // executors that must not run
std::map<aclOpExecutor *, const aclTensor *> gelu_outputs;  // for the hostile modes

View view_of(const aclTensor *t) {
  std::lock_guard lock(mutex);
  return views.at(t);
}

int64_t numel(const View &v) {
  int64_t n = 1;
  for (auto d : v.dims) n *= d;
  return n;
}

size_t esize(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
    case ACL_INT32:
      return 4;
    case ACL_INT64:
      return 8;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
      return 1;
    default:
      return 2;  // FLOAT16, BF16, INT16
  }
}

template <typename T>
T get(const void *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Every dtype GELU's promotion admits, with the library's header-only 16-bit conversions.
double load_at(const void *p, aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
      return get<float>(p);
    case ACL_INT32:
      return get<int32_t>(p);
    case ACL_INT64:
      return static_cast<double>(get<int64_t>(p));
    case ACL_INT16:
      return get<int16_t>(p);
    case ACL_INT8:
      return get<int8_t>(p);
    case ACL_UINT8:
      return get<uint8_t>(p);
    case ACL_BOOL:
      return get<uint8_t>(p) != 0;
    case ACL_BF16:
      return aclnn_cpu::bf16_to_float(get<uint16_t>(p));
    default:
      return aclnn_cpu::half_to_float(get<uint16_t>(p));
  }
}

void store_at(void *p, aclDataType t, double v) {
  if (t == ACL_FLOAT) {
    const float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else {
    const uint16_t h = t == ACL_BF16 ? aclnn_cpu::double_to_bf16(v) : aclnn_cpu::double_to_half(v);
    std::memcpy(p, &h, 2);
  }
}

double load(const View &v, int64_t pos) {
  return load_at(static_cast<char *>(v.data) + pos * esize(v.dtype), v.dtype);
}

int64_t position(const View &v, const std::vector<int64_t> &out_dims, int64_t flat) {
  // Broadcast-aware storage position of output index `flat` in view v.
  int64_t pos = v.offset;
  const size_t r = out_dims.size(), rv = v.dims.size();
  for (size_t k = 0; k < r; ++k) {
    const size_t d = r - 1 - k;
    const int64_t i = flat % out_dims[d];
    flat /= out_dims[d];
    if (k < rv && v.dims[rv - 1 - k] != 1) pos += i * v.strides[rv - 1 - k];
  }
  return pos;
}

double gelu_tanh_grad(double x) {
  const double c = std::sqrt(2.0 / M_PI), u = c * (x + 0.044715 * x * x * x), t = std::tanh(u);
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x);
}

// "thread": keeps changing out's first element while the caller still holds the tensor.
void late_writer(const aclTensor *tensor, View out) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (uint8_t k = 1; std::chrono::steady_clock::now() < until; ++k) {
    {
      std::lock_guard lock(mutex);
      const auto it = views.find(tensor);
      if (it == views.end() || it->second.data != out.data) return;  // destroyed
      static_cast<uint8_t *>(out.data)[out.offset * static_cast<int64_t>(esize(out.dtype))] ^= k;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void hang_on_segv(int) {
  for (;;) pause();
}
void ignore_alarm(int) {}

// Misbehaviour towards the caller before the real call (ACLNN_BROKEN_HOSTILE).
void hostile_before(const char *how) {
  if (std::strcmp(how, "fork") == 0) {
    for (int k = 0; k < 2; ++k)
      if (fork() == 0) {
        sleep(30);
        _exit(0);
      }
  } else if (std::strcmp(how, "flood") == 0) {
    static const std::string chunk(4096, 'x');
    for (int k = 0; k < 32; ++k) {
      fwrite(chunk.data(), 1, chunk.size(), stdout);
      fwrite(chunk.data(), 1, chunk.size(), stderr);
    }
    fflush(stdout);
  } else if (std::strcmp(how, "exit") == 0) {
    std::exit(0);
  } else if (std::strcmp(how, "abort") == 0) {
    std::abort();
  } else if (std::strcmp(how, "alloc") == 0) {
    constexpr size_t kBlock = size_t{256} << 20;
    for (int k = 0; k < 16; ++k) {
      void *p = std::malloc(kBlock);
      if (!p) std::abort();
      // Only the first page is touched: RLIMIT_DATA counts what is allocated, and touching all
      // of it takes seconds per GiB on a loaded machine (the hang detector's business).
      std::memset(p, k + 1, 4096);
    }
    std::abort();  // the safety cap: never more than 4 GiB, limit or not
  } else if (std::strcmp(how, "stdio") == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    if (null > 2) close(null);
    close(0);
  } else if (std::strcmp(how, "closefds") == 0) {
    for (int fd = 3; fd < 1024; ++fd) close(fd);
  } else if (std::strcmp(how, "signals") == 0) {
    for (int sig : {SIGTERM, SIGINT, SIGCHLD, SIGPIPE}) signal(sig, SIG_IGN);
    signal(SIGALRM, ignore_alarm);
    signal(SIGSEGV, hang_on_segv);
  }
}

// Misbehaviour after the real call wrote out (ACLNN_BROKEN_HOSTILE).
void hostile_after(const char *how, const aclTensor *out_tensor, const View &out) {
  if (std::strcmp(how, "thread") == 0) {
    std::thread(late_writer, out_tensor, out).detach();
  } else if (std::strcmp(how, "guard") == 0) {
    // The storage ends here; the caller's memory beyond it is not the op's.
    static_cast<uint8_t *>(
        out.data)[out.storage_elements * static_cast<int64_t>(esize(out.dtype))] ^= 0xFF;
  }
}

}  // namespace

extern "C" {

#define FORWARD(ret, name, params, args)            \
  ACL_FUNC_VISIBILITY ret name params {             \
    static auto real_fn = fn<ret(*) params>(#name); \
    return real_fn args;                            \
  }

FORWARD(aclError, aclInit, (const char *p), (p))
// With ACLNN_BROKEN_TEARDOWN=fail, aclFinalize reports a failure (ABI-RUNTIME-1).
ACL_FUNC_VISIBILITY aclError aclFinalize(void) {
  static auto real_fn = fn<aclError (*)(void)>("aclFinalize");
  const char *teardown = std::getenv("ACLNN_BROKEN_TEARDOWN");
  if (teardown != nullptr && std::strcmp(teardown, "fail") == 0) return ACL_ERROR_INVALID_PARAM;
  return real_fn();
}
FORWARD(aclError, aclrtSetDevice, (int32_t d), (d))
FORWARD(aclError, aclrtResetDevice, (int32_t d), (d))
FORWARD(aclError, aclrtCreateStream, (aclrtStream * s), (s))
FORWARD(aclError, aclrtDestroyStream, (aclrtStream s), (s))
FORWARD(aclError, aclrtSynchronizeStream, (aclrtStream s), (s))
FORWARD(aclError, aclrtMalloc, (void **p, size_t n, aclrtMemMallocPolicy m), (p, n, m))
FORWARD(aclError, aclrtFree, (void *p), (p))
FORWARD(aclError, aclrtMemcpy, (void *d, size_t m, const void *s, size_t c, aclrtMemcpyKind k),
        (d, m, s, c, k))
FORWARD(aclIntArray *, aclCreateIntArray, (const int64_t *v, uint64_t n), (v, n))
FORWARD(aclnnStatus, aclDestroyIntArray, (const aclIntArray *a), (a))
FORWARD(aclBoolArray *, aclCreateBoolArray, (const bool *v, uint64_t n), (v, n))
FORWARD(aclnnStatus, aclDestroyBoolArray, (const aclBoolArray *a), (a))
FORWARD(const char *, aclGetRecentErrMsg, (void), ())
FORWARD(aclnnStatus, aclSetAclOpExecutorRepeatable, (aclOpExecutor * e), (e))
FORWARD(aclnnStatus, aclDestroyAclOpExecutor, (aclOpExecutor * e), (e))

ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
                                               aclDataType dataType, const int64_t *stride,
                                               int64_t offset, aclFormat format,
                                               const int64_t *storageDims, uint64_t storageDimsNum,
                                               void *tensorData) {
  static auto f = fn<decltype(&aclCreateTensor)>("aclCreateTensor");
  aclTensor *t = f(viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                   storageDimsNum, tensorData);
  if (t) {
    std::lock_guard lock(mutex);
    int64_t storage = 1;
    for (uint64_t i = 0; i < storageDimsNum; ++i) storage *= storageDims[i];
    views[t] = View{{viewDims, viewDims + viewDimsNum},
                    {stride, stride + viewDimsNum},
                    offset,
                    dataType,
                    tensorData,
                    storage};
  }
  return t;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *t) {
  static auto f = fn<decltype(&aclDestroyTensor)>("aclDestroyTensor");
  {
    std::lock_guard lock(mutex);
    views.erase(t);
  }
  return f(t);
}

// --- GeluBackward: tanh-approx -----------------------------------------------------------------
ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *dy,
                                                                  const aclTensor *x,
                                                                  const aclTensor *out,
                                                                  uint64_t *ws,
                                                                  aclOpExecutor **ex) {
  static auto f =
      fn<decltype(&aclnnGeluBackwardGetWorkspaceSize)>("aclnnGeluBackwardGetWorkspaceSize");
  const aclnnStatus s = f(dy, x, out, ws, ex);
  if (s == ACLNN_SUCCESS) {
    std::vector<View> job = {view_of(dy), view_of(x), view_of(out)};
    std::lock_guard lock(mutex);
    gelu_jobs[*ex] = job;
    gelu_outputs[*ex] = out;
  }
  return s;
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluBackward(void *w, uint64_t n, aclOpExecutor *ex,
                                                  aclrtStream s) {
  static auto f = fn<decltype(&aclnnGeluBackward)>("aclnnGeluBackward");
  std::vector<View> job;
  const aclTensor *out_tensor = nullptr;
  {
    std::lock_guard lock(mutex);
    auto it = gelu_jobs.find(ex);
    if (it != gelu_jobs.end()) {
      job = it->second;
      gelu_jobs.erase(it);
      out_tensor = gelu_outputs[ex];
      gelu_outputs.erase(ex);
    }
  }
  const char *hostile = std::getenv("ACLNN_BROKEN_HOSTILE");
  if (hostile) hostile_before(hostile);
  // The results are computed before the real kernel runs: in an in-place call it overwrites an
  // input.
  std::vector<double> redone;
  if (!job.empty()) {
    const View &dy = job[0], &x = job[1], &out = job[2];
    for (int64_t i = 0; i < numel(out); ++i)
      redone.push_back(load(dy, position(dy, out.dims, i)) *
                       gelu_tanh_grad(load(x, position(x, out.dims, i))));
  }
  const aclnnStatus st = f(w, n, ex, s);
  if (st != ACLNN_SUCCESS || job.empty()) return st;
  const View &out = job[2];
  for (int64_t i = 0; i < numel(out); ++i)
    store_at(static_cast<char *>(out.data) + position(out, out.dims, i) * esize(out.dtype),
             out.dtype, redone[static_cast<size_t>(i)]);
  if (hostile && numel(out) > 0) hostile_after(hostile, out_tensor, out);
  return st;
}

// --- SeluBackward: any-rank, and a wrong NULL status --------------------------------------------
ACL_FUNC_VISIBILITY aclnnStatus aclnnSeluBackwardGetWorkspaceSize(const aclTensor *dy,
                                                                  const aclTensor *y,
                                                                  aclTensor *out, uint64_t *ws,
                                                                  aclOpExecutor **ex) {
  static auto f =
      fn<decltype(&aclnnSeluBackwardGetWorkspaceSize)>("aclnnSeluBackwardGetWorkspaceSize");
  if (dy && y == nullptr && out && ws && ex) return ACLNN_ERR_PARAM_INVALID;  // should be 161001
  if (dy && y && out && ws && ex) {
    const View a = view_of(dy), b = view_of(y), c = view_of(out);
    if (a.dims.empty() && b.dims.empty() && c.dims.empty()) {
      // Rank 0 accepted: run the op on rank-1 views of the same elements.
      const int64_t one = 1, stride = 1;
      auto make = [&](const View &v) {
        const int64_t storage = v.offset + 1;  // the rank-0 element lives at the offset
        return aclCreateTensor(&one, 1, v.dtype, &stride, v.offset, ACL_FORMAT_ND, &storage, 1,
                               v.data);
      };
      aclTensor *ra = make(a), *rb = make(b), *rc = make(c);
      const aclnnStatus s = f(ra, rb, rc, ws, ex);
      aclDestroyTensor(ra);
      aclDestroyTensor(rb);
      aclDestroyTensor(rc);
      return s;
    }
  }
  return f(dy, y, out, ws, ex);
}
FORWARD(aclnnStatus, aclnnSeluBackward, (void *w, uint64_t n, aclOpExecutor *e, aclrtStream s),
        (w, n, e, s))

// --- LogitGrad: range-rule for eps > 1 ----------------------------------------------------------
ACL_FUNC_VISIBILITY aclnnStatus aclnnLogitGradGetWorkspaceSize(const aclTensor *x,
                                                               const aclTensor *dy, double eps,
                                                               const aclTensor *out, uint64_t *ws,
                                                               aclOpExecutor **ex) {
  static auto f = fn<decltype(&aclnnLogitGradGetWorkspaceSize)>("aclnnLogitGradGetWorkspaceSize");
  if (std::isfinite(eps) && eps > 1) eps = 0.75;  // the general rule: an empty range, zeros
  return f(x, dy, eps, out, ws, ex);
}
FORWARD(aclnnStatus, aclnnLogitGrad, (void *w, uint64_t n, aclOpExecutor *e, aclrtStream s),
        (w, n, e, s))

// --- GroupedBiasAddGrad: empty-untouched
// ----------------------------------------------------------
namespace {
aclnnStatus gbag_phase_one(aclnnStatus s, const aclTensor *gradY, aclOpExecutor **ex) {
  if (s == ACLNN_SUCCESS && gradY && numel(view_of(gradY)) == 0) {
    std::lock_guard lock(mutex);
    skipped[*ex] = true;
  }
  return s;
}
aclnnStatus gbag_phase_two(aclnnStatus (*f)(void *, uint64_t, aclOpExecutor *, aclrtStream),
                           void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s) {
  {
    std::lock_guard lock(mutex);
    if (skipped.erase(ex)) {
      // Not run: out stays as it was. The real executor is released without running.
      static auto destroy = fn<decltype(&aclDestroyAclOpExecutor)>("aclDestroyAclOpExecutor");
      destroy(ex);
      return ACLNN_SUCCESS;
    }
  }
  return f(w, n, ex, s);
}
}  // namespace

ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedBiasAddGradGetWorkspaceSize(const aclTensor *gradY,
                                                                        const aclTensor *groupIdx,
                                                                        aclTensor *out,
                                                                        uint64_t *ws,
                                                                        aclOpExecutor **ex) {
  static auto f = fn<decltype(&aclnnGroupedBiasAddGradGetWorkspaceSize)>(
      "aclnnGroupedBiasAddGradGetWorkspaceSize");
  return gbag_phase_one(f(gradY, groupIdx, out, ws, ex), gradY, ex);
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedBiasAddGrad(void *w, uint64_t n, aclOpExecutor *ex,
                                                        aclrtStream s) {
  static auto f = fn<decltype(&aclnnGroupedBiasAddGrad)>("aclnnGroupedBiasAddGrad");
  return gbag_phase_two(f, w, n, ex, s);
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedBiasAddGradV2GetWorkspaceSize(
    const aclTensor *gradY, const aclTensor *groupIdx, int64_t type, aclTensor *out, uint64_t *ws,
    aclOpExecutor **ex) {
  static auto f = fn<decltype(&aclnnGroupedBiasAddGradV2GetWorkspaceSize)>(
      "aclnnGroupedBiasAddGradV2GetWorkspaceSize");
  *ex = nullptr;  // the deliberate fault: no NULL check first
  return gbag_phase_one(f(gradY, groupIdx, type, out, ws, ex), gradY, ex);
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedBiasAddGradV2(void *w, uint64_t n, aclOpExecutor *ex,
                                                          aclrtStream s) {
  static auto f = fn<decltype(&aclnnGroupedBiasAddGradV2)>("aclnnGroupedBiasAddGradV2");
  return gbag_phase_two(f, w, n, ex, s);
}

// --- LayerNormBackward: a crash and a hang ------------------------------------------------------
ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape,
    const aclTensor *mean, const aclTensor *rstd, const aclTensor *weight, const aclTensor *bias,
    const aclBoolArray *mask, aclTensor *gi, aclTensor *gw, aclTensor *gb, uint64_t *ws,
    aclOpExecutor **ex) {
  static auto f = fn<decltype(&aclnnLayerNormBackwardGetWorkspaceSize)>(
      "aclnnLayerNormBackwardGetWorkspaceSize");
  if (input && normalizedShape) {
    uint64_t n = 0;
    static auto size = fn<decltype(&aclGetIntArraySize)>("aclGetIntArraySize");
    size(normalizedShape, &n);
    const View v = view_of(input);
    int64_t inner = 1;
    for (uint64_t i = 0; i < n && i < v.dims.size(); ++i) inner *= v.dims[v.dims.size() - 1 - i];
    if (n >= 1 && inner == 3) raise(SIGSEGV);
    if (n >= 1 && inner == 5) pause();  // hangs until killed
  }
  return f(gradOut, input, normalizedShape, mean, rstd, weight, bias, mask, gi, gw, gb, ws, ex);
}
FORWARD(aclnnStatus, aclnnLayerNormBackward, (void *w, uint64_t n, aclOpExecutor *e, aclrtStream s),
        (w, n, e, s))

FORWARD(aclnnStatus, aclGetViewShape, (const aclTensor *t, int64_t **d, uint64_t *n), (t, d, n))
FORWARD(aclnnStatus, aclGetViewStrides, (const aclTensor *t, int64_t **d, uint64_t *n), (t, d, n))
FORWARD(aclnnStatus, aclGetViewOffset, (const aclTensor *t, int64_t *o), (t, o))
FORWARD(aclnnStatus, aclGetStorageShape, (const aclTensor *t, int64_t **d, uint64_t *n), (t, d, n))
FORWARD(aclnnStatus, aclGetFormat, (const aclTensor *t, aclFormat *f), (t, f))
FORWARD(aclnnStatus, aclGetDataType, (const aclTensor *t, aclDataType *d), (t, d))
FORWARD(aclnnStatus, aclGetIntArraySize, (const aclIntArray *a, uint64_t *n), (a, n))
FORWARD(aclnnStatus, aclGetBoolArraySize, (const aclBoolArray *a, uint64_t *n), (a, n))

}  // extern "C"
