#include "reference/dtype.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace aclnn_ref {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUInt32:
      return 4;
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kInt16:
    case DType::kUInt16:
      return 2;
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kBool:
      return 1;
    case DType::kInt64:
    case DType::kUInt64:
    case DType::kFloat64:
    case DType::kComplex64:
      return 8;
    case DType::kComplex128:
      return 16;
  }
  return 0;
}

size_t bits_bytes(DType t) {
  return t == DType::kComplex128 ? 8 : dtype_size(t);
}

namespace {
struct Named {
  DType t;
  std::string_view name;
};
constexpr Named kNames[] = {
    {DType::kFloat32, "fp32"},
    {DType::kFloat16, "fp16"},
    {DType::kBFloat16, "bf16"},
    {DType::kFloat64, "fp64"},
    {DType::kInt8, "int8"},
    {DType::kInt16, "int16"},
    {DType::kInt32, "int32"},
    {DType::kInt64, "int64"},
    {DType::kUInt8, "uint8"},
    {DType::kUInt16, "uint16"},
    {DType::kUInt32, "uint32"},
    {DType::kUInt64, "uint64"},
    {DType::kBool, "bool"},
    {DType::kComplex64, "complex64"},
    {DType::kComplex128, "complex128"},
};
}  // namespace

std::string_view dtype_name(DType t) {
  for (const auto &n : kNames)
    if (n.t == t) return n.name;
  return "unknown";
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto &n : kNames)
    if (n.name == name) return n.t;
  return std::nullopt;
}

bool is_floating(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16 ||
         t == DType::kFloat64;
}

bool is_complex(DType t) {
  return t == DType::kComplex64 || t == DType::kComplex128;
}

FloatFormat float_format(DType t) {
  switch (t) {
    case DType::kFloat16:
      return {11, -14, 15};
    case DType::kBFloat16:
      return {8, -126, 127};
    case DType::kFloat32:
      return {24, -126, 127};
    default:
      return {53, -1022, 1023};
  }
}

namespace {
template <typename T>
T load(const void *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
// Exact decoding of a 16-bit float with the given exponent width.
double decode16(uint16_t h, int exp_bits) {
  const int mant_bits = 15 - exp_bits;
  const int bias = (1 << (exp_bits - 1)) - 1;
  const int e = (h >> mant_bits) & ((1 << exp_bits) - 1);
  const int m = h & ((1 << mant_bits) - 1);
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (e == (1 << exp_bits) - 1)
    return m ? std::numeric_limits<double>::quiet_NaN() * sign
             : sign * std::numeric_limits<double>::infinity();
  if (e == 0) return sign * std::ldexp(m, 1 - bias - mant_bits);
  return sign * std::ldexp(m + (1 << mant_bits), e - bias - mant_bits);
}
}  // namespace

double decode(const void *p, DType t) {
  switch (t) {
    case DType::kFloat32:
      return load<float>(p);
    case DType::kFloat64:
    case DType::kComplex128:
      return load<double>(p);
    case DType::kComplex64:
      return load<float>(p);
    case DType::kFloat16:
      return decode16(load<uint16_t>(p), 5);
    case DType::kBFloat16:
      return decode16(load<uint16_t>(p), 8);
    case DType::kInt8:
      return load<int8_t>(p);
    case DType::kUInt8:
      return load<uint8_t>(p);
    case DType::kBool:
      return load<uint8_t>(p) != 0;
    case DType::kInt16:
      return load<int16_t>(p);
    case DType::kUInt16:
      return load<uint16_t>(p);
    case DType::kInt32:
      return load<int32_t>(p);
    case DType::kUInt32:
      return load<uint32_t>(p);
    case DType::kInt64:
      return static_cast<double>(load<int64_t>(p));
    case DType::kUInt64:
      return static_cast<double>(load<uint64_t>(p));
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace aclnn_ref
