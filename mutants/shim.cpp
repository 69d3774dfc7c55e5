// The mutant shim (see shim.hpp): the exported ABI, forwarding to the real library, with the
// hooks' weak defaults and the record of tensors, arrays and calls. The scalar helpers mutants
// use to redo an output with a fault are in scalar.cpp.
#include "mutants/shim.hpp"

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>

#include "mutants/forward.hpp"

#define MUTANT_WEAK __attribute__((weak))

namespace mutant {

// ---- Hook defaults: forward unchanged ---------------------------------------------------------
MUTANT_WEAK std::optional<aclnnStatus> before_phase_one(Call &) {
  return std::nullopt;
}
MUTANT_WEAK void after_phase_one(Call &, aclnnStatus &, uint64_t *, aclOpExecutor **) {}
MUTANT_WEAK std::optional<aclnnStatus> before_phase_two(Call *, void *&, uint64_t &,
                                                        aclOpExecutor *) {
  return std::nullopt;
}
MUTANT_WEAK void after_phase_two(Call *, aclnnStatus &, void *, uint64_t) {}
MUTANT_WEAK aclTensor *on_create_tensor(const View &, aclTensor *made) {
  return made;
}
MUTANT_WEAK const char *on_error_message(const char *real_message) {
  return real_message;
}
MUTANT_WEAK std::optional<aclError> before_malloc(void **, size_t, aclrtMemMallocPolicy) {
  return std::nullopt;
}
MUTANT_WEAK std::optional<aclError> before_free(void *) {
  return std::nullopt;
}
MUTANT_WEAK std::optional<aclError> before_memcpy(void *, size_t, const void *, size_t,
                                                  aclrtMemcpyKind) {
  return std::nullopt;
}
MUTANT_WEAK std::optional<aclError> before_finalize() {
  return std::nullopt;
}
MUTANT_WEAK void on_phase_two_entry(Op) {}

// ---- The real library -------------------------------------------------------------------------
void *real_symbol(const char *name) {
  // Privately, DEEPBIND but in sanitizer builds (the a2-device test SUT is built there).
  static void *handle = aclnn_forward::open_private(ACLNN_REAL_LIBRARY);
  if (!handle) abort();
  void *f = dlsym(handle, name);
  if (!f) abort();
  return f;
}

void release_executor(aclOpExecutor *executor) {
  static auto destroy = real<decltype(&aclDestroyAclOpExecutor)>("aclDestroyAclOpExecutor");
  if (executor) destroy(executor);
}

aclTensor *real_tensor(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                       int64_t offset, aclDataType dtype, const std::vector<int64_t> &storage,
                       void *data) {
  static auto create = real<decltype(&aclCreateTensor)>("aclCreateTensor");
  return create(dims.data(), dims.size(), dtype, strides.data(), offset, ACL_FORMAT_ND,
                storage.data(), storage.size(), data);
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size());
  int64_t k = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    s[i] = k;
    k *= dims[i] ? dims[i] : 1;
  }
  return s;
}

aclOpExecutor *token_executor() {
  static float a = 0, b = 0, out = 0;
  static aclTensor *ta = real_tensor({1}, {1}, 0, ACL_FLOAT, {1}, &a);
  static aclTensor *tb = real_tensor({1}, {1}, 0, ACL_FLOAT, {1}, &b);
  static aclTensor *to = real_tensor({1}, {1}, 0, ACL_FLOAT, {1}, &out);
  static auto phase_one =
      real<decltype(&aclnnGeluBackwardGetWorkspaceSize)>("aclnnGeluBackwardGetWorkspaceSize");
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (phase_one(ta, tb, to, &ws, &ex) != ACLNN_SUCCESS) abort();
  return ex;
}

const char *op_name(Op op) {
  switch (op) {
    case Op::kGelu:
      return "GeluBackward";
    case Op::kSelu:
      return "SeluBackward";
    case Op::kLayerNorm:
      return "LayerNormBackward";
    case Op::kLogit:
      return "LogitGrad";
    case Op::kGbag:
      return "GroupedBiasAddGrad";
    case Op::kGbagV2:
      return "GroupedBiasAddGradV2";
  }
  return "?";
}

namespace {

std::mutex mutex;
std::map<const aclTensor *, View> tensors;
std::map<const aclIntArray *, std::vector<int64_t>> int_arrays;
std::map<const aclBoolArray *, std::vector<bool>> bool_arrays;
std::map<aclOpExecutor *, Call> calls;

View view_of(const aclTensor *t) {
  if (!t) return {};
  std::lock_guard lock(mutex);
  auto it = tensors.find(t);
  return it == tensors.end() ? View{} : it->second;
}

void fill_views(Call &c) {
  c.in.clear();
  c.out.clear();
  for (auto *t : c.in_args) c.in.push_back(view_of(t));
  for (auto *t : c.out_args) c.out.push_back(view_of(t));
  c.in_data.clear();
  for (const View &v : c.in) c.in_data.push_back(v.data);
  std::lock_guard lock(mutex);
  c.normalized_shape.clear();
  c.mask.clear();
  if (auto it = int_arrays.find(c.normalized_shape_arg); it != int_arrays.end())
    c.normalized_shape = it->second;
  if (auto it = bool_arrays.find(c.mask_arg); it != bool_arrays.end()) c.mask = it->second;
}

template <typename Forward>
aclnnStatus phase_one(Call &c, uint64_t *ws, aclOpExecutor **ex, Forward forward) {
  c.workspace_size_arg = ws;
  c.executor_arg = ex;
  fill_views(c);
  aclnnStatus status;
  if (auto s = before_phase_one(c))
    status = *s;
  else
    status = forward(c);
  after_phase_one(c, status, ws, ex);
  if (status == ACLNN_SUCCESS && ex && *ex) {
    c.workspace_size = ws ? *ws : 0;
    c.runs = 0;
    std::lock_guard lock(mutex);
    calls[*ex] = c;
  }
  return status;
}

template <typename Real>
aclnnStatus phase_two(Op op, void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s, Real real_fn) {
  on_phase_two_entry(op);
  Call *c = nullptr;
  {
    std::lock_guard lock(mutex);
    auto it = calls.find(ex);
    if (it != calls.end()) c = &it->second;  // std::map nodes are stable
  }
  if (c) {
    ++c->attempts;
    // The inputs' own storage again (a previous run may have pointed them at its snapshots).
    for (size_t k = 0; k < c->in.size() && k < c->in_data.size(); ++k)
      c->in[k].data = c->in_data[k];
    c->in_snapshots.clear();
    for (auto &v : c->in) {
      bool aliased = false;
      for (const auto &o : c->out) aliased |= v.present && o.present && o.data == v.data;
      if (!aliased || !v.data) continue;
      const char *p = static_cast<const char *>(v.data);
      c->in_snapshots.emplace_back(p, p + v.storage_numel() * v.element_size());
      v.data = c->in_snapshots.back().data();
    }
  }
  aclnnStatus status;
  if (auto st = before_phase_two(c, w, n, ex)) {
    status = *st;
  } else if (c && c->token) {
    static auto gelu = real<decltype(&aclnnGeluBackward)>("aclnnGeluBackward");
    status = gelu(w, n, ex, s);
    if (status == ACLNN_SUCCESS) ++c->runs;
  } else {
    status = real_fn(w, n, ex, s);
    if (c && status == ACLNN_SUCCESS) ++c->runs;
  }
  after_phase_two(c, status, w, n);
  return status;
}
}  // namespace

bool with_live_tensor(const aclTensor *t, const void *data,
                      const std::function<void(const View &)> &f) {
  std::lock_guard lock(mutex);
  const auto it = tensors.find(t);
  if (it == tensors.end() || it->second.data != data) return false;
  f(it->second);
  return true;
}

void UnwrittenTail::save(const Call *c) {
  saved_.clear();
  if (!c || c->op != op_ || c->out[0].numel() <= above_) return;
  const View &o = c->out[0];
  const size_t es = o.element_size();
  for (int64_t i = o.numel() - o.numel() % multiple_; i < o.numel(); ++i) {
    const char *p = static_cast<const char *>(o.data) + o.element(i) * es;
    saved_.emplace_back(p, p + es);
  }
}

void UnwrittenTail::restore(const Call *c, aclnnStatus status) {
  if (!c || status || c->op != op_ || saved_.empty()) return;
  const View &o = c->out[0];
  const size_t es = o.element_size();
  size_t k = 0;
  for (int64_t i = o.numel() - o.numel() % multiple_; i < o.numel(); ++i, ++k)
    std::memcpy(static_cast<char *>(o.data) + o.element(i) * es, saved_[k].data(), es);
}

}  // namespace mutant

// ---- The exported ABI -------------------------------------------------------------------------
using namespace mutant;

extern "C" {

#define FORWARD(ret, name, params, args) \
  ACLNN_FORWARD(real, aclnn_forward::no_gate, ret, name, params, args)

FORWARD(aclError, aclInit, (const char *p), (p))
FORWARD(aclError, aclrtSetDevice, (int32_t d), (d))
FORWARD(aclError, aclrtResetDevice, (int32_t d), (d))
FORWARD(aclError, aclrtCreateStream, (aclrtStream * s), (s))
FORWARD(aclError, aclrtDestroyStream, (aclrtStream s), (s))
FORWARD(aclError, aclrtSynchronizeStream, (aclrtStream s), (s))
FORWARD(aclnnStatus, aclSetAclOpExecutorRepeatable, (aclOpExecutor * e), (e))
FORWARD(aclnnStatus, aclGetViewShape, (const aclTensor *t, int64_t **d, uint64_t *n), (t, d, n))
FORWARD(aclnnStatus, aclGetViewStrides, (const aclTensor *t, int64_t **d, uint64_t *n), (t, d, n))
FORWARD(aclnnStatus, aclGetViewOffset, (const aclTensor *t, int64_t *o), (t, o))
FORWARD(aclnnStatus, aclGetStorageShape, (const aclTensor *t, int64_t **d, uint64_t *n), (t, d, n))
FORWARD(aclnnStatus, aclGetFormat, (const aclTensor *t, aclFormat *f), (t, f))
FORWARD(aclnnStatus, aclGetDataType, (const aclTensor *t, aclDataType *d), (t, d))
FORWARD(aclnnStatus, aclGetIntArraySize, (const aclIntArray *a, uint64_t *n), (a, n))
FORWARD(aclnnStatus, aclGetBoolArraySize, (const aclBoolArray *a, uint64_t *n), (a, n))

ACL_FUNC_VISIBILITY aclError aclFinalize(void) {
  static auto f = real<decltype(&aclFinalize)>("aclFinalize");
  if (auto s = before_finalize()) return *s;
  return f();
}

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **p, size_t n, aclrtMemMallocPolicy m) {
  static auto f = real<decltype(&aclrtMalloc)>("aclrtMalloc");
  if (auto s = before_malloc(p, n, m)) return *s;
  return f(p, n, m);
}
ACL_FUNC_VISIBILITY aclError aclrtFree(void *p) {
  static auto f = real<decltype(&aclrtFree)>("aclrtFree");
  if (auto s = before_free(p)) return *s;
  return f(p);
}
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *d, size_t m, const void *s, size_t c,
                                         aclrtMemcpyKind k) {
  static auto f = real<decltype(&aclrtMemcpy)>("aclrtMemcpy");
  if (auto r = before_memcpy(d, m, s, c, k)) return *r;
  return f(d, m, s, c, k);
}

ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void) {
  static auto f = real<decltype(&aclGetRecentErrMsg)>("aclGetRecentErrMsg");
  return on_error_message(f());
}

ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
                                               aclDataType dataType, const int64_t *stride,
                                               int64_t offset, aclFormat format,
                                               const int64_t *storageDims, uint64_t storageDimsNum,
                                               void *tensorData) {
  static auto f = real<decltype(&aclCreateTensor)>("aclCreateTensor");
  aclTensor *made = f(viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                      storageDimsNum, tensorData);
  View v;
  v.present = true;
  if (viewDims) v.dims.assign(viewDims, viewDims + viewDimsNum);
  if (stride) v.strides.assign(stride, stride + viewDimsNum);
  if (storageDims) v.storage_dims.assign(storageDims, storageDims + storageDimsNum);
  v.offset = offset;
  v.dtype = dataType;
  v.format = format;
  v.data = tensorData;
  aclTensor *t = on_create_tensor(v, made);
  if (t) {
    std::lock_guard lock(mutex);
    tensors[t] = v;
  }
  return t;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *t) {
  static auto f = real<decltype(&aclDestroyTensor)>("aclDestroyTensor");
  {
    std::lock_guard lock(mutex);
    tensors.erase(t);
  }
  return f(t);
}

ACL_FUNC_VISIBILITY aclIntArray *aclCreateIntArray(const int64_t *v, uint64_t n) {
  static auto f = real<decltype(&aclCreateIntArray)>("aclCreateIntArray");
  aclIntArray *a = f(v, n);
  if (a) {
    std::lock_guard lock(mutex);
    int_arrays[a] = v ? std::vector<int64_t>(v, v + n) : std::vector<int64_t>{};
  }
  return a;
}
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyIntArray(const aclIntArray *a) {
  static auto f = real<decltype(&aclDestroyIntArray)>("aclDestroyIntArray");
  {
    std::lock_guard lock(mutex);
    int_arrays.erase(a);
  }
  return f(a);
}
ACL_FUNC_VISIBILITY aclBoolArray *aclCreateBoolArray(const bool *v, uint64_t n) {
  static auto f = real<decltype(&aclCreateBoolArray)>("aclCreateBoolArray");
  aclBoolArray *a = f(v, n);
  if (a) {
    std::lock_guard lock(mutex);
    bool_arrays[a] = v ? std::vector<bool>(v, v + n) : std::vector<bool>{};
  }
  return a;
}
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyBoolArray(const aclBoolArray *a) {
  static auto f = real<decltype(&aclDestroyBoolArray)>("aclDestroyBoolArray");
  {
    std::lock_guard lock(mutex);
    bool_arrays.erase(a);
  }
  return f(a);
}
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *e) {
  static auto f = real<decltype(&aclDestroyAclOpExecutor)>("aclDestroyAclOpExecutor");
  {
    std::lock_guard lock(mutex);
    calls.erase(e);
  }
  return f(e);
}

// --- The ops: phase one records the call, phase two runs the hooks around the real executor ----
ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *dy,
                                                                  const aclTensor *x,
                                                                  const aclTensor *out,
                                                                  uint64_t *ws,
                                                                  aclOpExecutor **ex) {
  static auto f =
      real<decltype(&aclnnGeluBackwardGetWorkspaceSize)>("aclnnGeluBackwardGetWorkspaceSize");
  Call c;
  c.op = Op::kGelu;
  c.in_args = {dy, x};
  c.out_args = {const_cast<aclTensor *>(out)};
  return phase_one(c, ws, ex,
                   [&](Call &k) { return f(k.in_args[0], k.in_args[1], k.out_args[0], ws, ex); });
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluBackward(void *w, uint64_t n, aclOpExecutor *ex,
                                                  aclrtStream s) {
  static auto f = real<decltype(&aclnnGeluBackward)>("aclnnGeluBackward");
  return phase_two(Op::kGelu, w, n, ex, s, f);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSeluBackwardGetWorkspaceSize(const aclTensor *dy,
                                                                  const aclTensor *y,
                                                                  aclTensor *out, uint64_t *ws,
                                                                  aclOpExecutor **ex) {
  static auto f =
      real<decltype(&aclnnSeluBackwardGetWorkspaceSize)>("aclnnSeluBackwardGetWorkspaceSize");
  Call c;
  c.op = Op::kSelu;
  c.in_args = {dy, y};
  c.out_args = {out};
  return phase_one(c, ws, ex,
                   [&](Call &k) { return f(k.in_args[0], k.in_args[1], k.out_args[0], ws, ex); });
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnSeluBackward(void *w, uint64_t n, aclOpExecutor *ex,
                                                  aclrtStream s) {
  static auto f = real<decltype(&aclnnSeluBackward)>("aclnnSeluBackward");
  return phase_two(Op::kSelu, w, n, ex, s, f);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape,
    const aclTensor *mean, const aclTensor *rstd, const aclTensor *weight, const aclTensor *bias,
    const aclBoolArray *mask, aclTensor *gi, aclTensor *gw, aclTensor *gb, uint64_t *ws,
    aclOpExecutor **ex) {
  static auto f = real<decltype(&aclnnLayerNormBackwardGetWorkspaceSize)>(
      "aclnnLayerNormBackwardGetWorkspaceSize");
  Call c;
  c.op = Op::kLayerNorm;
  c.in_args = {gradOut, input, mean, rstd, weight, bias};
  c.out_args = {gi, gw, gb};
  c.normalized_shape_arg = normalizedShape;
  c.mask_arg = mask;
  return phase_one(c, ws, ex, [&](Call &k) {
    return f(k.in_args[0], k.in_args[1], k.normalized_shape_arg, k.in_args[2], k.in_args[3],
             k.in_args[4], k.in_args[5], k.mask_arg, k.out_args[0], k.out_args[1], k.out_args[2],
             ws, ex);
  });
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormBackward(void *w, uint64_t n, aclOpExecutor *ex,
                                                       aclrtStream s) {
  static auto f = real<decltype(&aclnnLayerNormBackward)>("aclnnLayerNormBackward");
  return phase_two(Op::kLayerNorm, w, n, ex, s, f);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLogitGradGetWorkspaceSize(const aclTensor *x,
                                                               const aclTensor *dy, double eps,
                                                               const aclTensor *out, uint64_t *ws,
                                                               aclOpExecutor **ex) {
  static auto f = real<decltype(&aclnnLogitGradGetWorkspaceSize)>("aclnnLogitGradGetWorkspaceSize");
  Call c;
  c.op = Op::kLogit;
  c.in_args = {x, dy};
  c.out_args = {const_cast<aclTensor *>(out)};
  c.eps = eps;
  return phase_one(c, ws, ex, [&](Call &k) {
    return f(k.in_args[0], k.in_args[1], k.eps, k.out_args[0], ws, ex);
  });
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnLogitGrad(void *w, uint64_t n, aclOpExecutor *ex,
                                               aclrtStream s) {
  static auto f = real<decltype(&aclnnLogitGrad)>("aclnnLogitGrad");
  return phase_two(Op::kLogit, w, n, ex, s, f);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedBiasAddGradGetWorkspaceSize(const aclTensor *gradY,
                                                                        const aclTensor *groupIdx,
                                                                        aclTensor *out,
                                                                        uint64_t *ws,
                                                                        aclOpExecutor **ex) {
  static auto f = real<decltype(&aclnnGroupedBiasAddGradGetWorkspaceSize)>(
      "aclnnGroupedBiasAddGradGetWorkspaceSize");
  static auto f2 = real<decltype(&aclnnGroupedBiasAddGradV2GetWorkspaceSize)>(
      "aclnnGroupedBiasAddGradV2GetWorkspaceSize");
  Call c;
  c.op = Op::kGbag;
  c.in_args = {gradY, groupIdx};
  c.out_args = {out};
  return phase_one(c, ws, ex, [&](Call &k) {
    // A hook that changed the type (0 for V1) goes through V2, which has the parameter.
    return k.group_idx_type == 0
               ? f(k.in_args[0], k.in_args[1], k.out_args[0], ws, ex)
               : f2(k.in_args[0], k.in_args[1], k.group_idx_type, k.out_args[0], ws, ex);
  });
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedBiasAddGrad(void *w, uint64_t n, aclOpExecutor *ex,
                                                        aclrtStream s) {
  static auto f = real<decltype(&aclnnGroupedBiasAddGrad)>("aclnnGroupedBiasAddGrad");
  return phase_two(Op::kGbag, w, n, ex, s, f);
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedBiasAddGradV2GetWorkspaceSize(
    const aclTensor *gradY, const aclTensor *groupIdx, int64_t type, aclTensor *out, uint64_t *ws,
    aclOpExecutor **ex) {
  static auto f = real<decltype(&aclnnGroupedBiasAddGradV2GetWorkspaceSize)>(
      "aclnnGroupedBiasAddGradV2GetWorkspaceSize");
  Call c;
  c.op = Op::kGbagV2;
  c.in_args = {gradY, groupIdx};
  c.out_args = {out};
  c.group_idx_type = type;
  return phase_one(c, ws, ex, [&](Call &k) {
    return f(k.in_args[0], k.in_args[1], k.group_idx_type, k.out_args[0], ws, ex);
  });
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedBiasAddGradV2(void *w, uint64_t n, aclOpExecutor *ex,
                                                          aclrtStream s) {
  static auto f = real<decltype(&aclnnGroupedBiasAddGradV2)>("aclnnGroupedBiasAddGradV2");
  return phase_two(Op::kGbagV2, w, n, ex, s, f);
}

}  // extern "C"
