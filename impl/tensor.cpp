#include "impl/tensor.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <new>
#include <numeric>

#include "impl/dtype.hpp"
#include "impl/status.hpp"

namespace aclnn_cpu {

int64_t numel(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string shape_str(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

char *view_base(const aclTensor &t) {
  // Only an empty view may have no data (check_data); it is never dereferenced, and an offset
  // applied to NULL would be undefined.
  if (t.data == nullptr) return nullptr;
  return static_cast<char *>(t.data) + t.offset * static_cast<int64_t>(dtype_size(t.dtype));
}

namespace {
// Storage element range [lo, hi] the non-empty view reaches (strides are non-negative).
void reach(const aclTensor &t, int64_t &lo, int64_t &hi) {
  lo = t.offset;
  hi = t.offset;
  for (size_t i = 0; i < t.view_dims.size(); ++i) hi += (t.view_dims[i] - 1) * t.strides[i];
}
}  // namespace

bool has_internal_overlap(const aclTensor &t) {
  if (numel(t) <= 1) return false;
  // Sufficient test for no overlap: with dims sorted by stride, each stride exceeds the span of
  // all smaller ones.
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) for sizes > 1
  for (size_t i = 0; i < t.view_dims.size(); ++i)
    if (t.view_dims[i] > 1) dims.emplace_back(t.strides[i], t.view_dims[i]);
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;
  bool simple = true;
  for (auto [stride, size] : dims) {
    if (stride == 0) return true;
    if (stride <= span) {
      simple = false;
      break;
    }
    span += (size - 1) * stride;
  }
  if (simple) return false;
  // Interleaved layouts: decide exactly by marking every reached element, if that is affordable.
  const int64_t n = numel(t);
  if (n > (int64_t{1} << 26)) return true;  // too large to prove disjoint: reject
  int64_t lo, hi;
  reach(t, lo, hi);
  std::vector<bool> seen(static_cast<size_t>(hi - lo + 1));
  std::vector<int64_t> idx(t.view_dims.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t pos = 0;
    for (size_t d = 0; d < idx.size(); ++d) pos += idx[d] * t.strides[d];
    if (seen[pos]) return true;
    seen[pos] = true;
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < t.view_dims[d]) break;
      idx[d] = 0;
    }
  }
  return false;
}

bool views_overlap(const aclTensor &a, const aclTensor &b) {
  if (numel(a) == 0 || numel(b) == 0 || a.data == nullptr || b.data == nullptr) return false;
  int64_t alo, ahi, blo, bhi;
  reach(a, alo, ahi);
  reach(b, blo, bhi);
  const auto base_a = reinterpret_cast<uintptr_t>(a.data);
  const auto base_b = reinterpret_cast<uintptr_t>(b.data);
  const auto ea = static_cast<int64_t>(dtype_size(a.dtype));
  const auto eb = static_cast<int64_t>(dtype_size(b.dtype));
  const uintptr_t a0 = base_a + alo * ea, a1 = base_a + (ahi + 1) * ea;
  const uintptr_t b0 = base_b + blo * eb, b1 = base_b + (bhi + 1) * eb;
  return a0 < b1 && b0 < a1;
}

bool same_view(const aclTensor &a, const aclTensor &b) {
  return view_base(a) == view_base(b) && a.dtype == b.dtype && a.view_dims == b.view_dims &&
         a.strides == b.strides;
}

bool is_contiguous(const aclTensor &t) {
  int64_t expected = 1;
  for (size_t i = t.view_dims.size(); i-- > 0;) {
    if (t.view_dims[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.view_dims[i];
  }
  return true;
}

bool broadcast_shapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
                      std::vector<int64_t> &out) {
  const size_t r = std::max(a.size(), b.size());
  out.assign(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return false;
    out[r - 1 - i] = da == 1 ? db : da;
  }
  return true;
}

}  // namespace aclnn_cpu

using aclnn_cpu::numel;

namespace {
bool mul_overflows(int64_t a, int64_t b, int64_t &r) {
  return __builtin_mul_overflow(a, b, &r);
}

// aclCreateIntArray / aclCreateBoolArray: a copy of value[0, size), or NULL (NULL values with a
// nonzero size; out of memory, with the reason).
template <typename Array, typename Value>
Array *create_array(const char *fn, const Value *value, uint64_t size) {
  if (size > 0 && value == nullptr) return nullptr;
  try {
    auto a = std::make_unique<Array>();
    a->values.assign(value, value + size);
    return a.release();
  } catch (const std::bad_alloc &) {
    aclnn_cpu::record_error_noexcept(ACLNN_ERR_INNER, fn, "out of memory");
    return nullptr;
  }
}

aclTensor *create_tensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                         const int64_t *stride, int64_t offset, aclFormat format,
                         const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData) {
  // Every refusal returns NULL (ABI-TENSOR-1) and leaves its reason for aclGetRecentErrMsg().
  using aclnn_cpu::fail;
  constexpr const char *kFn = "aclCreateTensor";
  aclnn_cpu::clear_error();
  const int32_t dtype_bits = aclnn_cpu::enum_bits(dataType);
  if (viewDimsNum > 64 || storageDimsNum > 64) {
    fail(ACLNN_ERR_PARAM_INVALID, kFn, "viewDimsNum {} / storageDimsNum {}: at most 64 dims",
         viewDimsNum, storageDimsNum);
    return nullptr;
  }
  if ((viewDimsNum > 0 && (viewDims == nullptr || stride == nullptr)) ||
      (storageDimsNum > 0 && storageDims == nullptr)) {
    fail(ACLNN_ERR_PARAM_NULLPTR, kFn, "{} is NULL but its count is not 0",
         viewDimsNum > 0 && viewDims == nullptr ? "viewDims"
         : viewDimsNum > 0 && stride == nullptr ? "stride"
                                                : "storageDims");
    return nullptr;
  }
  if (offset < 0) {
    fail(ACLNN_ERR_PARAM_INVALID, kFn, "offset {} is negative", offset);
    return nullptr;
  }
  if (!aclnn_cpu::known_dtype(dtype_bits)) {
    fail(ACLNN_ERR_PARAM_INVALID, kFn, "dataType {} is not a dtype this library holds", dtype_bits);
    return nullptr;
  }
  // Element counts and the reach of the view must be representable and fit in the storage. A
  // count must be representable whatever the order of the dims, so zeros are left out of the
  // overflow test (an empty view of dims [0, 2^62, 2^62] is refused like [2^62, 2^62, 0]).
  int64_t view_n = 1, storage_n = 1, nonzero_n = 1, last = offset;
  for (uint64_t i = 0; i < viewDimsNum; ++i) {
    if (viewDims[i] < 0 || stride[i] < 0) {
      fail(ACLNN_ERR_PARAM_INVALID, kFn, "{}[{}] = {} is negative",
           viewDims[i] < 0 ? "viewDims" : "stride", i, viewDims[i] < 0 ? viewDims[i] : stride[i]);
      return nullptr;
    }
    if (viewDims[i] != 0 && mul_overflows(nonzero_n, viewDims[i], nonzero_n)) {
      fail(ACLNN_ERR_PARAM_INVALID, kFn, "viewDims {} has an element count that overflows int64",
           aclnn_cpu::shape_str({viewDims, viewDims + viewDimsNum}));
      return nullptr;
    }
    view_n *= viewDims[i];  // cannot overflow: |view_n| <= nonzero_n
  }
  for (uint64_t i = 0; i < storageDimsNum; ++i) {
    if (storageDims[i] < 0 || mul_overflows(storage_n, storageDims[i], storage_n)) {
      fail(ACLNN_ERR_PARAM_INVALID, kFn, "storageDims {} is negative or overflows int64",
           aclnn_cpu::shape_str({storageDims, storageDims + storageDimsNum}));
      return nullptr;
    }
  }
  if (view_n > 0) {
    bool ok = true;
    for (uint64_t i = 0; i < viewDimsNum && ok; ++i) {
      int64_t step;
      ok = !mul_overflows(viewDims[i] - 1, stride[i], step) &&
           !__builtin_add_overflow(last, step, &last);
    }
    if (!ok || last >= storage_n) {
      fail(ACLNN_ERR_PARAM_INVALID, kFn,
           "the view (viewDims {}, stride {}, offset {}) reaches past storageDims {}",
           aclnn_cpu::shape_str({viewDims, viewDims + viewDimsNum}),
           aclnn_cpu::shape_str({stride, stride + viewDimsNum}), offset,
           aclnn_cpu::shape_str({storageDims, storageDims + storageDimsNum}));
      return nullptr;
    }
  }
  int64_t bytes;
  const auto esize = static_cast<int64_t>(aclnn_cpu::dtype_size(dataType));
  // An empty view may sit at any offset (ABI-TENSOR-2), but its byte position must be
  // representable: ops compute the view's base address from it.
  if (mul_overflows(offset, esize, bytes)) {
    fail(ACLNN_ERR_PARAM_INVALID, kFn,
         "offset {} is beyond any storage: its byte position {} * {} overflows int64", offset,
         offset, esize);
    return nullptr;
  }
  // Likewise every stride, even over a dim of size 0 or 1 where it moves nowhere: ops turn
  // strides into byte steps.
  for (uint64_t i = 0; i < viewDimsNum; ++i)
    if (mul_overflows(stride[i], esize, bytes)) {
      fail(ACLNN_ERR_PARAM_INVALID, kFn,
           "stride[{}] = {} is beyond any storage: {} * {} bytes overflows int64", i, stride[i],
           stride[i], esize);
      return nullptr;
    }
  if (mul_overflows(storage_n, esize, bytes)) {
    fail(ACLNN_ERR_PARAM_INVALID, kFn, "storageDims {} hold more bytes than int64 counts",
         aclnn_cpu::shape_str({storageDims, storageDims + storageDimsNum}));
    return nullptr;
  }
  auto t = std::make_unique<aclTensor>();  // freed if an assign runs out of memory
  t->view_dims.assign(viewDims, viewDims + viewDimsNum);
  t->strides.assign(stride, stride + viewDimsNum);
  t->storage_dims.assign(storageDims, storageDims + storageDimsNum);
  t->offset = offset;
  t->dtype = dataType;
  t->format = aclnn_cpu::enum_bits(format);
  t->data = tensorData;
  return t.release();
}
}  // namespace

extern "C" {

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData) {
  // No exception crosses the C ABI: out of memory is a refusal like the others.
  try {
    return create_tensor(viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                         storageDimsNum, tensorData);
  } catch (const std::bad_alloc &) {
    aclnn_cpu::record_error_noexcept(ACLNN_ERR_INNER, "aclCreateTensor", "out of memory");
    return nullptr;
  }
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
  delete tensor;
  return ACLNN_SUCCESS;
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
  return create_array<aclIntArray>("aclCreateIntArray", value, size);
}
aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size) {
  return create_array<aclBoolArray>("aclCreateBoolArray", value, size);
}
aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) {
  delete array;
  return ACLNN_SUCCESS;
}

namespace {
aclnnStatus copy_out(const char *fn, const std::vector<int64_t> &v, int64_t **out, uint64_t *n) {
  if (out == nullptr || n == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *out = new (std::nothrow) int64_t[v.empty() ? 1 : v.size()];
  if (*out == nullptr)
    return aclnn_cpu::record_error_noexcept(ACLNN_ERR_INNER, fn, "out of memory");
  std::copy(v.begin(), v.end(), *out);
  *n = v.size();
  return ACLNN_SUCCESS;
}
}  // namespace

aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
  if (tensor == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  return copy_out("aclGetViewShape", tensor->view_dims, viewDims, viewDimsNum);
}
aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue,
                              uint64_t *stridesNum) {
  if (tensor == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  return copy_out("aclGetViewStrides", tensor->strides, stridesValue, stridesNum);
}
aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset) {
  if (tensor == nullptr || offset == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *offset = tensor->offset;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
                               uint64_t *storageDimsNum) {
  if (tensor == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  return copy_out("aclGetStorageShape", tensor->storage_dims, storageDims, storageDimsNum);
}
aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format) {
  if (tensor == nullptr || format == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  __builtin_memcpy(format, &tensor->format, sizeof *format);
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType) {
  if (tensor == nullptr || dataType == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *dataType = tensor->dtype;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size) {
  if (array == nullptr || size == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *size = array->values.size();
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size) {
  if (array == nullptr || size == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

}  // extern "C"
