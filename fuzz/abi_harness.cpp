#include "fuzz/abi_harness.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"

namespace aclnn_fuzz {

void require(bool ok, const char *what) {
  if (ok) return;
  std::fprintf(stderr, "ABI fuzz finding: %s (recent error: \"%s\")\n", what, aclGetRecentErrMsg());
  std::abort();
}

namespace {

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
// Storage the harness allocates at most per tensor; a tensor claiming more is created with NULL
// data (it still exercises every shape check) and never run.
constexpr int64_t kMaxBytes = 256 * 1024;
// Views larger than this are validated but not run (a stride-0 input may legally describe a huge
// view over one element; reducing it is slow, not wrong).
constexpr int64_t kMaxRunElements = 1 << 16;
constexpr uint8_t kGuardByte = 0xA5;

const aclDataType kDtypes[] = {ACL_FLOAT,
                               ACL_FLOAT16,
                               ACL_BF16,
                               ACL_INT8,
                               ACL_INT16,
                               ACL_INT32,
                               ACL_INT64,
                               ACL_UINT8,
                               ACL_UINT16,
                               ACL_UINT32,
                               ACL_UINT64,
                               ACL_DOUBLE,
                               ACL_BOOL,
                               ACL_STRING,
                               ACL_COMPLEX64,
                               ACL_COMPLEX128,
                               ACL_INT4,
                               ACL_UINT1,
                               ACL_COMPLEX32,
                               ACL_DT_UNDEFINED,
                               static_cast<aclDataType>(5),
                               static_cast<aclDataType>(99),
                               static_cast<aclDataType>(-7),
                               static_cast<aclDataType>(0x7fffffff)};
const aclFormat kFormats[] = {ACL_FORMAT_ND,
                              ACL_FORMAT_NCHW,
                              ACL_FORMAT_NHWC,
                              ACL_FORMAT_NC1HWC0,
                              ACL_FORMAT_FRACTAL_Z,
                              ACL_FORMAT_FRACTAL_NZ,
                              ACL_FORMAT_NCDHW,
                              ACL_FORMAT_UNDEFINED,
                              static_cast<aclFormat>(7),
                              static_cast<aclFormat>(-100)};
const int64_t kHostileDims[] = {-1,
                                -2,
                                kI64Min,
                                kI64Max,
                                int64_t{1} << 31,
                                (int64_t{1} << 32) + 1,
                                int64_t{1} << 40,
                                int64_t{1} << 62,
                                3037000500 /* ~sqrt(2^63) */};

int64_t element_size(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
      return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
      return 1;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    default:
      return 0;  // the library must reject it
  }
}

bool documented_failure(aclnnStatus s) {
  return s == ACLNN_ERR_PARAM_NULLPTR || s == ACLNN_ERR_PARAM_INVALID ||
         s == ACLNN_ERR_RUNTIME_ERROR;
}

// Element count of dims, or -1 when a dim is negative or the product overflows.
int64_t element_count(const std::vector<int64_t> &dims) {
  __int128 n = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d == 0) return 0;
  }
  for (int64_t d : dims) {
    n *= d;
    if (n > kI64Max) return -1;
  }
  return static_cast<int64_t>(n);
}

}  // namespace

Harness::~Harness() {
  for (auto &a : args_)
    if (a->tensor != nullptr)
      require(aclDestroyTensor(a->tensor) == ACLNN_SUCCESS, "destroy tensor");
}

int64_t Harness::dim() {
  const uint8_t sel = fdp_.ConsumeIntegral<uint8_t>();
  if (sel < 224) return sel % 6;
  return kHostileDims[sel % std::size(kHostileDims)];
}

double Harness::special_double() {
  static const double kSpecial[] = {0.0,
                                    -0.0,
                                    1e-6,
                                    0.5,
                                    -1.0,
                                    1.0,
                                    std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::quiet_NaN(),
                                    std::numeric_limits<double>::denorm_min(),
                                    -std::numeric_limits<double>::denorm_min(),
                                    std::numeric_limits<double>::min(),
                                    std::numeric_limits<double>::max(),
                                    1e-300,
                                    0.4999999};
  const uint8_t sel = fdp_.ConsumeIntegral<uint8_t>();
  if (sel < std::size(kSpecial)) return kSpecial[sel];
  return fdp_.ConsumeFloatingPoint<double>();
}

std::vector<int64_t> Harness::shape_like(const std::vector<int64_t> &base) {
  const uint8_t mode = fdp_.ConsumeIntegral<uint8_t>() % 4;
  std::vector<int64_t> dims = base;
  switch (mode) {
    case 0:
      break;
    case 1:  // one dim replaced
      if (!dims.empty()) dims[fdp_.ConsumeIntegral<uint8_t>() % dims.size()] = dim();
      break;
    case 2: {  // any rank 0..9, any dims
      dims.resize(fdp_.ConsumeIntegralInRange<int>(0, 9));
      for (auto &d : dims) d = dim();
      break;
    }
    case 3:  // a leading dim added or removed
      if (fdp_.ConsumeBool() && !dims.empty())
        dims.erase(dims.begin());
      else
        dims.insert(dims.begin(), dim());
      break;
  }
  return dims;
}

TensorArg &Harness::tensor(const Hint &hint) {
  args_.push_back(std::make_unique<TensorArg>());
  TensorArg &a = *args_.back();
  const uint8_t mode = fdp_.ConsumeIntegral<uint8_t>();
  if ((mode >> 4) == 15) return a;  // a NULL argument

  a.dims = (mode & 1) ? shape_like(hint.dims) : hint.dims;
  uint64_t dims_num = a.dims.size();
  if ((mode & 6) == 6 && fdp_.ConsumeBool()) {  // beyond any rank the library accepts
    if (fdp_.ConsumeBool()) {
      a.dims.resize(65, 1);
      dims_num = 65;
    } else {
      dims_num = uint64_t{1} << 40;  // rejected by count alone, before the arrays are read
    }
  }

  const uint8_t dsel = fdp_.ConsumeIntegral<uint8_t>();
  a.dtype = dsel == 0 ? hint.dtype : kDtypes[dsel % std::size(kDtypes)];
  const uint8_t fsel = fdp_.ConsumeIntegral<uint8_t>();
  const aclFormat format = fsel == 0 ? ACL_FORMAT_ND : kFormats[fsel % std::size(kFormats)];

  // Strides (elements).
  const size_t r = a.dims.size();
  a.strides.assign(r, 0);
  const uint8_t layout = fdp_.ConsumeIntegral<uint8_t>() % 8;
  __int128 step = 1;
  const auto clamp_step = [](__int128 s) {
    return s > kI64Max ? kI64Max : static_cast<int64_t>(s);
  };
  for (size_t i = r; i-- > 0;) {  // row-major
    a.strides[i] = clamp_step(step);
    step *= a.dims[i] > 1 ? a.dims[i] : 1;
    if (step > kI64Max) step = kI64Max;
  }
  switch (layout) {
    case 0:
      break;
    case 1: {  // column-major
      step = 1;
      for (size_t i = 0; i < r; ++i) {
        a.strides[i] = clamp_step(step);
        step *= a.dims[i] > 1 ? a.dims[i] : 1;
        if (step > kI64Max) step = kI64Max;
      }
      break;
    }
    case 2:  // gaps
      for (auto &s : a.strides) s = clamp_step(static_cast<__int128>(s) * 2 + 1);
      break;
    case 3:  // one broadcast (stride 0) dim
      if (r) a.strides[fdp_.ConsumeIntegral<uint8_t>() % r] = 0;
      break;
    case 4:  // any strides
      for (auto &s : a.strides) {
        const uint8_t sel = fdp_.ConsumeIntegral<uint8_t>();
        s = sel < 200 ? sel % 9 : kHostileDims[sel % std::size(kHostileDims)];
      }
      break;
    case 5:  // every stride 1: distinct indices share elements
      for (auto &s : a.strides) s = 1;
      break;
    case 6:  // a negative stride
      if (r) a.strides[fdp_.ConsumeIntegral<uint8_t>() % r] = -1;
      break;
    case 7:  // interleaved: two dims whose strides differ by one
      if (r >= 2) {
        a.strides[0] = 3;
        a.strides[1] = 2;
      }
      break;
  }

  const uint8_t osel = fdp_.ConsumeIntegral<uint8_t>();
  const int64_t hostile_offset = kHostileDims[osel % std::size(kHostileDims)];
  a.offset = osel < 200                                ? (osel < 150 ? 0 : osel % 9)
             : (osel & 1) || hostile_offset == kI64Min ? hostile_offset
                                                       : -hostile_offset;

  // Storage: enough for the view's reach, one short, or anything.
  a.elements = element_count(a.dims);
  __int128 reach = a.offset;
  constexpr __int128 kHuge = static_cast<__int128>(1) << 100;  // saturation: far past int64
  for (size_t i = 0; i < r; ++i)
    if (a.dims[i] > 0) {
      reach += static_cast<__int128>(a.dims[i] - 1) * a.strides[i];
      reach = reach > kHuge ? kHuge : reach < -kHuge ? -kHuge : reach;
    }
  const __int128 fit = a.elements == 0 ? a.offset : reach + 1;
  std::vector<int64_t> storage;
  const uint8_t ssel = fdp_.ConsumeIntegral<uint8_t>() % 6;
  switch (ssel) {
    case 0:
    case 1:
      storage = {clamp_step(fit < 0 ? 0 : fit)};
      break;
    case 2:  // one element short
      storage = {clamp_step(fit - 1 < 0 ? 0 : fit - 1)};
      break;
    case 3:  // slack
      storage = {clamp_step((fit < 0 ? 0 : fit) + fdp_.ConsumeIntegral<uint8_t>() % 17)};
      break;
    case 4:  // the view's own dims as storage dims (fits when contiguous, offset 0)
      storage = a.dims;
      break;
    case 5:  // anything
      storage.resize(fdp_.ConsumeIntegralInRange<int>(0, 4));
      for (auto &d : storage) d = dim();
      break;
  }
  const int64_t storage_n = element_count(storage);
  const int64_t esize = element_size(a.dtype);
  const int64_t alloc_elems = storage_n < 0 ? -1 : storage_n;
  const bool fits = alloc_elems >= 0 && alloc_elems <= kMaxBytes / std::max<int64_t>(esize, 1);
  const int64_t bytes = fits ? alloc_elems * std::max<int64_t>(esize, 1) : 0;

  void *data = nullptr;
  const uint8_t data_mode = fdp_.ConsumeIntegral<uint8_t>() % 8;
  if (data_mode == 1) {
    a.buffer = -1;  // NULL data
  } else if (!fits) {
    a.backed = false;  // the claimed storage is too large to provide: NULL data, never run
  } else if (data_mode == 2 && !buffers_.empty()) {
    // Alias an earlier buffer (in-place use, overlapping outputs) when the storage fits in it.
    const size_t k = fdp_.ConsumeIntegral<uint8_t>() % buffers_.size();
    if (static_cast<size_t>(bytes) <= buffers_[k]->size()) {
      a.buffer = static_cast<int>(k);
      data = buffers_[k]->data();
    } else {
      a.backed = false;
    }
  } else {
    auto buf = std::make_unique<GuardedBuffer>();
    buf->bytes.assign(bytes + 2 * GuardedBuffer::kGuard, kGuardByte);
    // Payload: fuzzer bytes, then a generated pattern (random bits, so NaN, inf and subnormals
    // appear in every float dtype).
    const std::vector<uint8_t> head =
        fdp_.ConsumeBytes<uint8_t>(std::min<size_t>(bytes, fdp_.ConsumeIntegral<uint8_t>()));
    std::copy(head.begin(), head.end(), buf->data());
    uint32_t state = fdp_.ConsumeIntegral<uint32_t>() | 1;
    for (size_t i = head.size(); i < static_cast<size_t>(bytes); ++i) {
      state ^= state << 13, state ^= state >> 17, state ^= state << 5;
      buf->data()[i] = static_cast<uint8_t>(state);
    }
    a.buffer = static_cast<int>(buffers_.size());
    data = buf->data();
    buffers_.push_back(std::move(buf));
  }

  a.tensor = aclCreateTensor(a.dims.data(), dims_num, a.dtype, a.strides.data(), a.offset, format,
                             storage.data(), storage.size(), data);
  if (a.tensor != nullptr) {
    // What was accepted must be coherent: a representable, non-negative view inside its storage,
    // of a known dtype; the accessors give back what was passed.
    require(dims_num <= 64 && a.elements >= 0 && esize > 0 && a.offset >= 0 && storage_n >= 0,
            "aclCreateTensor accepted an invalid tensor");
    for (int64_t s : a.strides) require(s >= 0, "aclCreateTensor accepted a negative stride");
    require(a.elements == 0 || reach < storage_n,
            "aclCreateTensor accepted a view past its storage");
    int64_t *got = nullptr;
    uint64_t got_n = 0;
    require(aclGetViewShape(a.tensor, &got, &got_n) == ACLNN_SUCCESS && got_n == r &&
                std::equal(a.dims.begin(), a.dims.end(), got),
            "aclGetViewShape");
    delete[] got;
    require(aclGetViewStrides(a.tensor, &got, &got_n) == ACLNN_SUCCESS && got_n == r &&
                std::equal(a.strides.begin(), a.strides.end(), got),
            "aclGetViewStrides");
    delete[] got;
    require(aclGetStorageShape(a.tensor, &got, &got_n) == ACLNN_SUCCESS &&
                got_n == storage.size() && std::equal(storage.begin(), storage.end(), got),
            "aclGetStorageShape");
    delete[] got;
    int64_t off = -1;
    aclDataType dt;
    aclFormat fmt;
    require(aclGetViewOffset(a.tensor, &off) == ACLNN_SUCCESS && off == a.offset,
            "aclGetViewOffset");
    require(aclGetDataType(a.tensor, &dt) == ACLNN_SUCCESS && dt == a.dtype, "aclGetDataType");
    require(aclGetFormat(a.tensor, &fmt) == ACLNN_SUCCESS && fmt == format, "aclGetFormat");
  }
  return a;
}

void Harness::choose_soc() {
  static const char *kSocs[] = {"ascend910b",   "ascend910b", "ascend910b", "",
                                "ascend910_93", "ascend910",  "ascend310p", "no-such-soc"};
  setenv("ACLNN_CPU_SOC", kSocs[fdp_.ConsumeIntegral<uint8_t>() % std::size(kSocs)], 1);
}

void Harness::write_ints(TensorArg &t, const std::vector<int64_t> &values) {
  if (t.tensor == nullptr || t.buffer < 0 || t.elements <= 0 || t.dims.size() != 1) return;
  uint8_t *base = buffers_[t.buffer]->data();
  for (int64_t i = 0; i < t.elements && i < static_cast<int64_t>(values.size()); ++i) {
    const int64_t pos = t.offset + i * t.strides[0];
    if (t.dtype == ACL_INT32) {
      const int32_t v = static_cast<int32_t>(values[i]);
      std::memcpy(base + pos * 4, &v, 4);
    } else if (t.dtype == ACL_INT64) {
      std::memcpy(base + pos * 8, &values[i], 8);
    }
  }
}

void mark_view(const TensorArg &t, const GuardedBuffer &buf, std::vector<bool> &marks) {
  const int64_t es = element_size(t.dtype);
  if (t.elements <= 0 || es == 0) return;
  std::vector<int64_t> idx(t.dims.size(), 0);
  for (int64_t k = 0; k < t.elements; ++k) {
    int64_t pos = t.offset;
    for (size_t d = 0; d < idx.size(); ++d) pos += idx[d] * t.strides[d];
    for (int64_t b = 0; b < es; ++b) {
      const size_t at = static_cast<size_t>(pos * es + b);
      require(at < buf.size(), "an accepted view reaches past its buffer");
      marks[at + GuardedBuffer::kGuard] = true;
    }
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < t.dims[d]) break;
      idx[d] = 0;
    }
  }
}

std::vector<std::vector<uint8_t>> Harness::snapshot() const {
  std::vector<std::vector<uint8_t>> s;
  for (const auto &b : buffers_) s.push_back(b->bytes);
  return s;
}

void Harness::check_untouched(const std::vector<std::vector<uint8_t>> &before,
                              const std::vector<const TensorArg *> &outputs,
                              const char *what) const {
  for (size_t k = 0; k < buffers_.size(); ++k) {
    const auto &now = buffers_[k]->bytes;
    if (now == before[k]) continue;
    std::vector<bool> allowed(now.size(), false);
    for (const TensorArg *o : outputs)
      if (o != nullptr && o->tensor != nullptr && o->buffer == static_cast<int>(k))
        mark_view(*o, *buffers_[k], allowed);
    for (size_t i = 0; i < now.size(); ++i)
      if (now[i] != before[k][i] && !allowed[i]) {
        std::fprintf(stderr, "buffer %zu byte %zu (payload %zu bytes) changed\n", k, i,
                     buffers_[k]->size());
        require(false, what);
      }
  }
}

void Harness::check_failure(const char *op, aclnnStatus status,
                            const std::vector<std::vector<uint8_t>> &before,
                            const char *what) const {
  require(documented_failure(status), "a failure status outside the documented set");
  const std::string_view msg = aclGetRecentErrMsg();
  require(!msg.empty(), "a failure without aclGetRecentErrMsg() text");
  require(msg.substr(0, std::strlen(op)) == op, "an error message that does not name the op");
  check_untouched(before, {}, what);
}

bool Harness::runnable(const std::vector<const TensorArg *> &) const {
  for (const auto &a : args_) {
    if (a->tensor == nullptr) continue;
    if (!a->backed || a->elements > kMaxRunElements) return false;
  }
  return true;
}

void Harness::call(const char *op,
                   const std::function<aclnnStatus(uint64_t *, aclOpExecutor **)> &phase_one,
                   const std::vector<const TensorArg *> &outputs, PhaseTwo run,
                   PhaseTwo other_run) {
  const auto before = snapshot();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const uint8_t outs = fdp_.ConsumeIntegral<uint8_t>();
  uint64_t *ws_ptr = outs == 0xfe ? nullptr : &ws;
  aclOpExecutor **ex_ptr = outs == 0xff ? nullptr : &ex;
  const aclnnStatus st = phase_one(ws_ptr, ex_ptr);
  if (st != ACLNN_SUCCESS) {
    check_failure(op, st, before, "a failed phase one touched memory");
    return;
  }
  require(ws_ptr != nullptr && ex_ptr != nullptr, "phase one succeeded without its out-params");
  require(ex != nullptr, "phase one succeeded without an executor");
  check_untouched(before, {}, "phase one wrote to memory");
  if (!runnable(outputs) || ws > (uint64_t{64} << 20)) {
    require(aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS, "destroying an unrun executor");
    return;
  }
  GuardedBuffer workspace;
  workspace.bytes.assign(ws + 2 * GuardedBuffer::kGuard, kGuardByte);
  void *wsp = ws > 0 ? workspace.data() : nullptr;
  const auto check_guards = [&] {
    for (size_t i = 0; i < GuardedBuffer::kGuard; ++i)
      require(workspace.bytes[i] == kGuardByte &&
                  workspace.bytes[workspace.bytes.size() - 1 - i] == kGuardByte,
              "the workspace's guard bytes changed");
  };
  const auto run_fails = [&](void *w, uint64_t n, aclOpExecutor *e, const char *what) {
    const auto now = snapshot();
    const aclnnStatus s = run(w, n, e, nullptr);
    require(s != ACLNN_SUCCESS, what);
    check_failure(op, s, now, what);
  };
  const auto run_ok = [&] {
    require(run(wsp, ws, ex, nullptr) == ACLNN_SUCCESS, "phase two failed after phase one passed");
    check_untouched(before, outputs, "phase two wrote outside the output views");
    check_guards();
  };

  switch (fdp_.ConsumeIntegral<uint8_t>() % 6) {
    case 0:  // never run: destroyed, then a run is refused
      require(aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS, "destroying an unrun executor");
      run_fails(wsp, ws, ex, "a destroyed executor ran");
      break;
    case 1:  // run once; a second run is refused and touches nothing
      run_ok();
      run_fails(wsp, ws, ex, "an executor ran twice");
      break;
    case 2:  // a workspace smaller than asked is refused first
      if (ws > 0) run_fails(wsp, ws - 1, ex, "a short workspace was accepted");
      if (ws > 0) run_fails(nullptr, ws, ex, "a NULL workspace was accepted");
      run_ok();
      break;
    case 3:  // another op's phase two is refused
      if (other_run != nullptr) {
        const auto now = snapshot();
        const aclnnStatus s = other_run(wsp, ws, ex, nullptr);
        require(s == ACLNN_ERR_PARAM_INVALID, "another op ran this op's executor");
        check_untouched(now, {}, "another op's refused run touched memory");
      }
      run_ok();
      break;
    case 4: {  // repeatable: two runs give the same bytes (when no output aliases an input)
      require(aclSetAclOpExecutorRepeatable(ex) == ACLNN_SUCCESS, "aclSetAclOpExecutorRepeatable");
      run_ok();
      const auto first = snapshot();
      require(run(wsp, ws, ex, nullptr) == ACLNN_SUCCESS, "a repeatable executor's second run");
      bool aliased = false;
      for (const TensorArg *o : outputs)
        for (const auto &a : args_)
          if (o && o != a.get() && o->tensor && a->tensor && o->buffer >= 0 &&
              o->buffer == a->buffer)
            aliased = true;
      if (!aliased) require(snapshot() == first, "a repeated run gave different bytes");
      require(aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS, "destroying a repeatable executor");
      run_fails(wsp, ws, ex, "a destroyed repeatable executor ran");
      break;
    }
    case 5:  // a NULL executor is refused
      run_fails(wsp, ws, nullptr, "a NULL executor was accepted");
      run_ok();
      break;
  }
}

}  // namespace aclnn_fuzz

// One thread unless the caller says otherwise: fast, reproducible runs. The pool's threads are
// covered by the concurrency tests (tests/robustness) and by ACLNN_CPU_NUM_THREADS=2 fuzz runs.
//
// The library parks released executors in a bounded quarantine (ABI-TWOPHASE-4), so until it is
// full every input allocates more than it frees and libFuzzer runs a slow leak check after it.
// Filling the quarantine once up front keeps -detect_leaks=1 on at full speed.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  setenv("ACLNN_CPU_NUM_THREADS", "1", 0);
  const int64_t dims[] = {0};
  const int64_t strides[] = {1};
  aclTensor *empty =
      aclCreateTensor(dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 1, nullptr);
  for (int i = 0; i < 5000; ++i) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    aclnn_fuzz::require(
        aclnnGeluBackwardGetWorkspaceSize(empty, empty, empty, &ws, &ex) == ACLNN_SUCCESS &&
            aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS,
        "warm-up call on empty tensors");
  }
  aclDestroyTensor(empty);
  return 0;
}
