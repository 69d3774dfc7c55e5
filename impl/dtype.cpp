#include "impl/dtype.hpp"

#include <limits>

namespace aclnn_cpu {

size_t dtype_size(aclDataType t) {
  switch (t) {
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 0;
  }
}

bool known_dtype(int32_t bits) {
  switch (bits) {
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: case ACL_FLOAT16: case ACL_BF16:
    case ACL_INT16: case ACL_UINT16: case ACL_INT8: case ACL_UINT8: case ACL_BOOL:
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: case ACL_COMPLEX64: case ACL_COMPLEX128:
      return true;
    default:
      return false;
  }
}

std::string_view dtype_name(aclDataType t) {
  switch (t) {
    case ACL_FLOAT: return "FLOAT";
    case ACL_FLOAT16: return "FLOAT16";
    case ACL_BF16: return "BFLOAT16";
    case ACL_INT8: return "INT8";
    case ACL_INT16: return "INT16";
    case ACL_INT32: return "INT32";
    case ACL_INT64: return "INT64";
    case ACL_UINT8: return "UINT8";
    case ACL_UINT16: return "UINT16";
    case ACL_UINT32: return "UINT32";
    case ACL_UINT64: return "UINT64";
    case ACL_DOUBLE: return "DOUBLE";
    case ACL_BOOL: return "BOOL";
    case ACL_COMPLEX64: return "COMPLEX64";
    case ACL_COMPLEX128: return "COMPLEX128";
    default: return "UNKNOWN";
  }
}

namespace {
// Row/column order of the ABI-PROMOTE-1 table.
constexpr aclDataType kOrder[] = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16, ACL_INT8,
                                  ACL_UINT8, ACL_INT16,   ACL_INT32,  ACL_INT64, ACL_BOOL};
constexpr aclDataType F = ACL_FLOAT, H = ACL_FLOAT16, D = ACL_DOUBLE, B = ACL_BF16,
                      S8 = ACL_INT8, U8 = ACL_UINT8, S16 = ACL_INT16, S32 = ACL_INT32,
                      S64 = ACL_INT64, BO = ACL_BOOL;
constexpr aclDataType kTable[10][10] = {
    {F, F, D, F, F, F, F, F, F, F},
    {F, H, D, F, H, H, H, H, H, H},
    {D, D, D, D, D, D, D, D, D, D},
    {F, F, D, B, B, B, B, B, B, B},
    {F, H, D, B, S8, S16, S16, S32, S64, S8},
    {F, H, D, B, S16, U8, S16, S32, S64, U8},
    {F, H, D, B, S16, S16, S16, S32, S64, S16},
    {F, H, D, B, S32, S32, S32, S32, S64, S32},
    {F, H, D, B, S64, S64, S64, S64, S64, S64},
    {F, H, D, B, S8, U8, S16, S32, S64, BO},
};
int order_index(aclDataType t) {
  for (int i = 0; i < 10; ++i)
    if (kOrder[i] == t) return i;
  return -1;
}
}  // namespace

std::optional<aclDataType> promote_types(aclDataType a, aclDataType b) {
  const int i = order_index(a), j = order_index(b);
  if (i >= 0 && j >= 0) return kTable[i][j];
  // u16, u32, u64 promote only with themselves; complex and the rest: no promotion.
  if (a == b && (a == ACL_UINT16 || a == ACL_UINT32 || a == ACL_UINT64)) return a;
  return std::nullopt;
}

double load_as_double(const void *p, aclDataType t) {
  switch (t) {
    case ACL_FLOAT: { float v; std::memcpy(&v, p, 4); return v; }
    case ACL_DOUBLE: { double v; std::memcpy(&v, p, 8); return v; }
    case ACL_FLOAT16: { uint16_t v; std::memcpy(&v, p, 2); return half_to_float(v); }
    case ACL_BF16: { uint16_t v; std::memcpy(&v, p, 2); return bf16_to_float(v); }
    case ACL_INT8: return *static_cast<const int8_t *>(p);
    case ACL_UINT8: return *static_cast<const uint8_t *>(p);
    case ACL_BOOL: return *static_cast<const uint8_t *>(p) != 0;
    case ACL_INT16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case ACL_UINT16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case ACL_INT32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case ACL_UINT32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case ACL_INT64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case ACL_UINT64: { uint64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

namespace {
template <typename I>
I saturate_rne(double v) {
  if (std::isnan(v)) return 0;
  const double r = std::nearbyint(v);  // default rounding mode: ties to even
  if (r <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}
template <typename T>
void put(void *p, T v) { std::memcpy(p, &v, sizeof v); }
}  // namespace

void store_from_double(void *p, aclDataType t, double v) {
  switch (t) {
    case ACL_FLOAT: put(p, static_cast<float>(v)); break;
    case ACL_DOUBLE: put(p, v); break;
    case ACL_FLOAT16: put(p, double_to_half(v)); break;
    case ACL_BF16: put(p, double_to_bf16(v)); break;
    case ACL_INT8: put(p, saturate_rne<int8_t>(v)); break;
    case ACL_UINT8: put(p, saturate_rne<uint8_t>(v)); break;
    case ACL_BOOL: put(p, static_cast<uint8_t>(v != 0)); break;
    case ACL_INT16: put(p, saturate_rne<int16_t>(v)); break;
    case ACL_UINT16: put(p, saturate_rne<uint16_t>(v)); break;
    case ACL_INT32: put(p, saturate_rne<int32_t>(v)); break;
    case ACL_UINT32: put(p, saturate_rne<uint32_t>(v)); break;
    case ACL_INT64: put(p, saturate_rne<int64_t>(v)); break;
    case ACL_UINT64: put(p, saturate_rne<uint64_t>(v)); break;
    default: break;
  }
}

}  // namespace aclnn_cpu
