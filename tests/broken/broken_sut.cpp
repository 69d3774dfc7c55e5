// libaclnn_broken.so: a deliberately non-conformant aclnn implementation for the framework's own
// tests. It is the mutation shim (mutants/shim.hpp: the built-in library loaded privately, the
// ABI forwarded to it) with these hooks:
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
//       "fork"     leaves two children sleeping 120 s holding every inherited descriptor,
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
//       "slow"     one call of the whole run takes 3 s longer (slow once, not hung): a process's
//                  40th call, in the first process to create the file ACLNN_BROKEN_SLOW_ONCE
//                  (with ACLNN_BROKEN_SLOW_KERNEL=new: its first call from the 40th on whose
//                  dtypes no earlier call of the process had, a kernel new to it; with
//                  ACLNN_BROKEN_SLOW_SECONDS=S: S seconds longer),
//   - with ACLNN_BROKEN_GELU_KERNEL=hang8-crash1, GeluBackward's second phase hangs for an output
//     of rank 8 and crashes for an output of one element (the small call that loads a suspected
//     hang's kernel before its second run dies),
//   - with ACLNN_BROKEN_LOGIT_KERNEL=crash1, LogitGrad's second phase crashes for an output of
//     one element (crashes of one clause, which the campaign shrinks itself),
//   - with ACLNN_BROKEN_TEARDOWN=fail, aclFinalize fails (ABI-RUNTIME-1, found by the probe),
//   - with ACLNN_BROKEN_ARENA_GIB=N, loading the library maps an N GiB private read-write arena
//     (reserved, not touched), as a device runtime may map its device memory at start, and
//     aborts if it cannot (the worker's memory limit must count from the started SUT).
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mutants/shim.hpp"

namespace mutant {
namespace {

// "thread": keeps changing out's first element while the caller still holds the tensor (the
// write happens under the shim's lock on its tensors, so never after aclDestroyTensor).
void late_writer(const aclTensor *tensor, View out) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (uint8_t k = 1; std::chrono::steady_clock::now() < until; ++k) {
    const bool alive = with_live_tensor(tensor, out.data, [&](const View &) {
      static_cast<uint8_t *>(out.data)[out.offset * static_cast<int64_t>(out.element_size())] ^= k;
    });
    if (!alive) return;  // destroyed
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

// ACLNN_BROKEN_ARENA_GIB: the arena a device runtime maps when it is loaded.
__attribute__((constructor)) void map_arena() {
  const char *gib = std::getenv("ACLNN_BROKEN_ARENA_GIB");
  if (gib == nullptr || std::atoi(gib) <= 0) return;
  const size_t bytes = static_cast<size_t>(std::atoi(gib)) << 30;
  void *arena = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (arena == MAP_FAILED) std::abort();  // a runtime that cannot map its memory cannot start
  static_cast<char *>(arena)[0] = 1;
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
        sleep(120);
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
        out.data)[out.storage_numel() * static_cast<int64_t>(out.element_size())] ^= 0xFF;
  }
}

// SeluBackward's rank-0 calls run on rank-1 stand-ins of the same elements (real tensors, made in
// phase one and destroyed when it returns).
thread_local std::vector<aclTensor *> stand_ins;

aclTensor *rank1_stand_in(const View &v) {
  // The rank-0 element lives at the offset.
  return real_tensor({1}, {1}, v.offset, v.dtype, {v.offset + 1}, v.data);
}

// --- SeluBackward: any-rank, and a wrong NULL status ---------------------------------------------
std::optional<aclnnStatus> selu_phase_one(Call &c) {
  const bool outputs = c.workspace_size_arg != nullptr && c.executor_arg != nullptr;
  const aclTensor *dy = c.in_args[0], *y = c.in_args[1];
  const aclTensor *out = c.out_args[0];
  if (dy && y == nullptr && out && outputs) return ACLNN_ERR_PARAM_INVALID;  // should be 161001
  if (dy && y && out && outputs) {
    const View &a = c.in[0], &b = c.in[1], &o = c.out[0];
    if (a.dims.empty() && b.dims.empty() && o.dims.empty()) {
      // Rank 0 accepted: the op runs on rank-1 views of the same elements.
      stand_ins = {rank1_stand_in(a), rank1_stand_in(b), rank1_stand_in(o)};
      c.in_args = {stand_ins[0], stand_ins[1]};
      c.out_args = {stand_ins[2]};
    }
  }
  return std::nullopt;
}

// --- LayerNormBackward: a crash and a hang ------------------------------------------------------
void layer_norm_phase_one(const Call &c) {
  const aclTensor *input = c.in_args[1];
  if (input == nullptr || c.normalized_shape_arg == nullptr) return;
  static auto size = real<decltype(&aclGetIntArraySize)>("aclGetIntArraySize");
  uint64_t n = 0;
  size(c.normalized_shape_arg, &n);
  const View &v = c.in[1];
  int64_t inner = 1;
  for (uint64_t i = 0; i < n && i < v.dims.size(); ++i) inner *= v.dims[v.dims.size() - 1 - i];
  if (n >= 1 && inner == 3) raise(SIGSEGV);
  if (n >= 1 && inner == 5) pause();  // hangs until killed
}

bool is_gbag(Op op) {
  return op == Op::kGbag || op == Op::kGbagV2;
}

}  // namespace

std::optional<aclnnStatus> before_phase_one(Call &c) {
  switch (c.op) {
    case Op::kSelu:
      return selu_phase_one(c);
    case Op::kLogit:  // range-rule for eps > 1: the general rule, an empty range, zeros
      if (std::isfinite(c.eps) && c.eps > 1) c.eps = 0.75;
      return std::nullopt;
    case Op::kGbagV2:
      *c.executor_arg = nullptr;  // the deliberate fault: no NULL check first
      return std::nullopt;
    case Op::kLayerNorm:
      layer_norm_phase_one(c);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

void after_phase_one(Call &, aclnnStatus &, uint64_t *, aclOpExecutor **) {
  static auto destroy = real<decltype(&aclDestroyTensor)>("aclDestroyTensor");
  for (aclTensor *t : stand_ins) destroy(t);
  stand_ins.clear();
}

// "slow": the call of the run that is slow once (see the top of the file). Its dtypes decide
// whether it runs a kernel new to the process, as a device loads one per dtype signature.
void slow_once(const Call &c) {
  static int calls = 0;
  static std::set<std::string> kernels;
  std::string kernel;
  for (const auto *views : {&c.in, &c.out})
    for (const View &v : *views) kernel += std::to_string(v.present ? int{v.dtype} : -1) + " ";
  const bool fresh = kernels.insert(kernel).second;
  const char *once = std::getenv("ACLNN_BROKEN_SLOW_ONCE");
  const char *which = std::getenv("ACLNN_BROKEN_SLOW_KERNEL");
  const bool want_new = which && std::strcmp(which, "new") == 0;
  if (!once || ++calls < 40 || (want_new ? !fresh : calls != 40)) return;
  const int fd = open(once, O_CREAT | O_EXCL | O_WRONLY, 0600);
  if (fd < 0) return;  // taken: by this process or another
  close(fd);
  const char *seconds = std::getenv("ACLNN_BROKEN_SLOW_SECONDS");
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds ? std::atof(seconds) : 3.0));
}

void on_phase_two_entry(Op op) {
  if (op != Op::kGelu) return;
  if (const char *hostile = std::getenv("ACLNN_BROKEN_HOSTILE")) hostile_before(hostile);
}

// --- GroupedBiasAddGrad: empty-untouched ---------------------------------------------------------
// The first run of an executor over an empty gradY does not run: out stays as it was, and the real
// executor is released unrun.
std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *ex) {
  const char *hostile = std::getenv("ACLNN_BROKEN_HOSTILE");
  if (c && c->op == Op::kGelu && hostile && std::strcmp(hostile, "slow") == 0) slow_once(*c);
  const char *logit = std::getenv("ACLNN_BROKEN_LOGIT_KERNEL");
  if (c && c->op == Op::kLogit && logit && std::strcmp(logit, "crash1") == 0 &&
      c->out[0].numel() == 1)
    raise(SIGSEGV);
  const char *kernel = std::getenv("ACLNN_BROKEN_GELU_KERNEL");
  if (c && c->op == Op::kGelu && kernel && std::strcmp(kernel, "hang8-crash1") == 0) {
    if (c->out[0].dims.size() == 8) pause();  // hangs until killed
    if (c->out[0].numel() == 1) raise(SIGSEGV);
  }
  if (c == nullptr || !is_gbag(c->op) || c->attempts != 1) return std::nullopt;
  if (!c->in[0].present || c->in[0].numel() != 0) return std::nullopt;
  release_executor(ex);
  return ACLNN_SUCCESS;
}

// --- GeluBackward: tanh-approx -------------------------------------------------------------------
// The first run of an executor has its output redone by the tanh-approx formula in double (the
// inputs as they were before the run: the shim's snapshots in an in-place call).
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (c == nullptr || c->op != Op::kGelu || c->attempts != 1 || status != ACLNN_SUCCESS) return;
  const View &dy = c->in[0], &x = c->in[1], &out = c->out[0];
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) {
    const auto d = static_cast<double>(load(dy, dy.element(out.dims, i)));
    const auto v = static_cast<double>(load(x, x.element(out.dims, i)));
    store(out, out.element(i), d * gelu_grad_tanh_formula(v));
  }
  const char *hostile = std::getenv("ACLNN_BROKEN_HOSTILE");
  if (hostile && n > 0) hostile_after(hostile, c->out_args[0], out);
}

// --- Teardown: ACLNN_BROKEN_TEARDOWN=fail makes aclFinalize fail (ABI-RUNTIME-1) ----------------
std::optional<aclError> before_finalize() {
  const char *teardown = std::getenv("ACLNN_BROKEN_TEARDOWN");
  if (teardown != nullptr && std::strcmp(teardown, "fail") == 0) return ACL_ERROR_INVALID_PARAM;
  return std::nullopt;
}

}  // namespace mutant
