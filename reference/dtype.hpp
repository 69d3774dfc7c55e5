// The oracle's own dtype vocabulary. It mirrors the ABI's numbering (ABI-DTYPE-1) so values can be
// exchanged as integers, but the oracle never includes the ABI headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace aclnn_ref {

enum class DType : int {
  kFloat32 = 0,
  kFloat16 = 1,
  kInt8 = 2,
  kInt32 = 3,
  kUInt8 = 4,
  kInt16 = 6,
  kUInt16 = 7,
  kUInt32 = 8,
  kInt64 = 9,
  kUInt64 = 10,
  kFloat64 = 11,
  kBool = 12,
  // Complex types exist in the ABI's enum and must be rejected by every op (ABI-DTYPE-1,
  // ABI-PROMOTE-1); the oracle stores and compares them by their real part only (see decode).
  kComplex64 = 16,
  kComplex128 = 17,
  kBFloat16 = 27,
};

size_t dtype_size(DType t);
// Bytes of an element that its 64-bit "bits" carry (HostTensor::bits, TensorArg::bits_at): all of
// it, but the real part alone for complex128 (its imaginary part stays as staged, zero).
size_t bits_bytes(DType t);
std::string_view dtype_name(DType t);  // "fp32", "fp16", "bf16", "int8", ...
std::optional<DType> dtype_from_name(std::string_view name);
bool is_floating(DType t);
bool is_complex(DType t);

// A binary floating-point format: precision p (with the hidden bit), exponent range of normal
// numbers [emin, emax]; value = significand * 2^exp with significand in [1, 2).
struct FloatFormat {
  int precision;
  int emin;
  int emax;
};
// The format of a floating dtype (fp16, bf16, fp32, fp64).
FloatFormat float_format(DType t);

// Exact value of the element stored at p (every dtype but int64/uint64 beyond 2^53 is exact); the
// real part for the complex types, which no op computes on.
double decode(const void *p, DType t);

}  // namespace aclnn_ref
