#include "reference/promotion.hpp"

namespace aclnn_ref {

namespace {
// Row/column order of the spec's table.
constexpr DType kOrder[] = {DType::kFloat32, DType::kFloat16, DType::kFloat64, DType::kBFloat16,
                            DType::kInt8,    DType::kUInt8,   DType::kInt16,   DType::kInt32,
                            DType::kInt64,   DType::kBool};
using D = DType;
constexpr D f32 = D::kFloat32, f16 = D::kFloat16, f64 = D::kFloat64, bf16 = D::kBFloat16,
            s8 = D::kInt8, u8 = D::kUInt8, s16 = D::kInt16, s32 = D::kInt32, s64 = D::kInt64,
            b1 = D::kBool;
// ABI-PROMOTE-1, transcribed row by row.
constexpr D kTable[10][10] = {
    /* f32  */ {f32, f32, f64, f32, f32, f32, f32, f32, f32, f32},
    /* f16  */ {f32, f16, f64, f32, f16, f16, f16, f16, f16, f16},
    /* f64  */ {f64, f64, f64, f64, f64, f64, f64, f64, f64, f64},
    /* bf16 */ {f32, f32, f64, bf16, bf16, bf16, bf16, bf16, bf16, bf16},
    /* s8   */ {f32, f16, f64, bf16, s8, s16, s16, s32, s64, s8},
    /* u8   */ {f32, f16, f64, bf16, s16, u8, s16, s32, s64, u8},
    /* s16  */ {f32, f16, f64, bf16, s16, s16, s16, s32, s64, s16},
    /* s32  */ {f32, f16, f64, bf16, s32, s32, s32, s32, s64, s32},
    /* s64  */ {f32, f16, f64, bf16, s64, s64, s64, s64, s64, s64},
    /* bool */ {f32, f16, f64, bf16, s8, u8, s16, s32, s64, b1},
};
int index_of(DType t) {
  for (int i = 0; i < 10; ++i)
    if (kOrder[i] == t) return i;
  return -1;
}
}  // namespace

std::optional<DType> promote_types(DType a, DType b) {
  const bool a_unsigned_wide = a == D::kUInt16 || a == D::kUInt32 || a == D::kUInt64;
  const bool b_unsigned_wide = b == D::kUInt16 || b == D::kUInt32 || b == D::kUInt64;
  if (a_unsigned_wide || b_unsigned_wide) {
    if (a == b) return a;
    return std::nullopt;
  }
  const int i = index_of(a), j = index_of(b);
  if (i < 0 || j < 0) return std::nullopt;
  return kTable[i][j];
}

}  // namespace aclnn_ref
