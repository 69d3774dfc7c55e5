// Dtype facts, the promotion table (spec ABI-PROMOTE-1) and exact-as-possible conversions
// between float, double and the 16-bit formats (round to nearest even, one rounding).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "acl/acl_base.h"

namespace aclnn_cpu {

// Size in bytes of one element; 0 for dtypes this library cannot hold.
size_t dtype_size(aclDataType t);
// True for the dtype values the library knows (those with a nonzero dtype_size), given as bits.
bool known_dtype(int32_t bits);
std::string_view dtype_name(aclDataType t);
inline bool is_float16_or_32(aclDataType t) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16;
}

// ABI-PROMOTE-1: the promoted dtype of a and b, or nullopt where the table says no promotion.
std::optional<aclDataType> promote_types(aclDataType a, aclDataType b);

// ---- 16-bit float formats ------------------------------------------------------------------
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {  // inf, or NaN made quiet (IEEE 754's conversion; F16C does the same)
    bits = sign | 0x7f800000u | (mant << 13) | (mant != 0 ? 0x00400000u : 0u);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: value = mant * 2^-24, exact in float
    float f = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -f : f;
  }
  return std::bit_cast<float>(bits);
}

// Rounds a double to the nearest binary16 (ties to even), with subnormals and overflow to inf.
// Rounding straight from double avoids the double rounding of double -> float -> half. NaN: quiet,
// the payload's top 9 bits kept (sign | 0x7e00 | payload >> 42: what F16C gives for the float).
inline uint16_t double_to_half(double d) {
  const uint64_t bits = std::bit_cast<uint64_t>(d);
  const uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000u);
  const double a = std::fabs(d);
  if (std::isnan(d)) return sign | 0x7e00u | static_cast<uint16_t>((bits >> 42) & 0x3ffu);
  if (a >= 65520.0) return sign | 0x7c00u;  // 65520 = max half + half ulp: rounds to inf
  if (a < 0x1p-14) {
    // Subnormal range: quantum 2^-24; nearbyint rounds ties to even in the default mode.
    const double q = std::nearbyint(a * 0x1p24);
    return sign | static_cast<uint16_t>(q);  // q == 1024 yields the smallest normal
  }
  int e;
  const double m = std::frexp(a, &e);                // a = m * 2^e, m in [0.5, 1)
  const double q = std::nearbyint(std::ldexp(m, 11));  // 11 significant bits
  int64_t mant = static_cast<int64_t>(q);
  if (mant == 2048) {
    mant = 1024;
    ++e;
  }
  const int biased = e - 1 + 15;
  if (biased >= 31) return sign | 0x7c00u;
  return sign | static_cast<uint16_t>((biased << 10) | (mant - 1024));
}
inline uint16_t float_to_half(float f) { return double_to_half(static_cast<double>(f)); }

inline float bf16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

// Rounds a float to the nearest bfloat16, ties to even; NaN stays NaN (quiet).
inline uint16_t float_to_bf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// Rounds a double to the nearest bfloat16 in one step (8 significant bits, float's range).
// NaN gives sign | 0x7fc0.
inline uint16_t double_to_bf16(double d) {
  if (std::isnan(d)) return std::signbit(d) ? 0xffc0u : 0x7fc0u;
  const double a = std::fabs(d);
  const uint16_t sign = std::signbit(d) ? 0x8000u : 0u;
  // Largest bf16 is (2 - 2^-7) * 2^127; half an ulp above it rounds to inf.
  if (a >= 0x1.ffp127) return sign | 0x7f80u;
  if (a < 0x1p-126) {
    const double q = std::nearbyint(a * 0x1p133);  // subnormal quantum 2^-133
    return sign | static_cast<uint16_t>(q);
  }
  int e;
  const double m = std::frexp(a, &e);
  int64_t mant = static_cast<int64_t>(std::nearbyint(std::ldexp(m, 8)));
  if (mant == 256) {
    mant = 128;
    ++e;
  }
  const int biased = e - 1 + 127;
  if (biased >= 255) return sign | 0x7f80u;
  return sign | static_cast<uint16_t>((biased << 7) | (mant - 128));
}

// Loads one element of any supported dtype as double (exact for every dtype but int64/uint64).
double load_as_double(const void *p, aclDataType t);
// Stores v rounded once to dtype t (integers: round to nearest even, saturate; NaN -> 0).
void store_from_double(void *p, aclDataType t, double v);

}  // namespace aclnn_cpu
