// ABI-PROMOTE-1 table of the oracle: spot-checked rows, symmetry, wide unsigned self-promotion.
#include <gtest/gtest.h>

#include <algorithm>

#include "reference/dtype.hpp"
#include "reference/host_tensor.hpp"
#include "reference/promotion.hpp"
#include "reference/rounding.hpp"

namespace {
using aclnn_ref::DType;
using aclnn_ref::promote_types;

TEST(Promotion, SpotChecksFromTheTable) {
  EXPECT_EQ(promote_types(DType::kFloat16, DType::kBFloat16), DType::kFloat32);
  EXPECT_EQ(promote_types(DType::kFloat16, DType::kInt32), DType::kFloat16);
  EXPECT_EQ(promote_types(DType::kBFloat16, DType::kInt64), DType::kBFloat16);
  EXPECT_EQ(promote_types(DType::kFloat32, DType::kFloat64), DType::kFloat64);
  EXPECT_EQ(promote_types(DType::kInt8, DType::kUInt8), DType::kInt16);
  EXPECT_EQ(promote_types(DType::kInt8, DType::kBool), DType::kInt8);
  EXPECT_EQ(promote_types(DType::kUInt8, DType::kBool), DType::kUInt8);
  EXPECT_EQ(promote_types(DType::kInt32, DType::kInt64), DType::kInt64);
  EXPECT_EQ(promote_types(DType::kBool, DType::kBool), DType::kBool);
  EXPECT_EQ(promote_types(DType::kInt32, DType::kFloat32), DType::kFloat32);
  EXPECT_EQ(promote_types(DType::kBool, DType::kFloat16), DType::kFloat16);
}

const DType kAll[] = {DType::kFloat32, DType::kFloat16, DType::kInt8,    DType::kInt32,
                      DType::kUInt8,   DType::kInt16,   DType::kUInt16,  DType::kUInt32,
                      DType::kInt64,   DType::kUInt64,  DType::kFloat64, DType::kBool,
                      DType::kBFloat16};

TEST(Promotion, SymmetricAndIdempotent) {
  for (DType a : kAll) {
    EXPECT_EQ(promote_types(a, a), a) << aclnn_ref::dtype_name(a);
    for (DType b : kAll) EXPECT_EQ(promote_types(a, b), promote_types(b, a));
  }
}

TEST(Promotion, WideUnsignedOnlyWithThemselves) {
  for (DType u : {DType::kUInt16, DType::kUInt32, DType::kUInt64})
    for (DType b : kAll) {
      if (b == u)
        EXPECT_EQ(promote_types(u, b), u);
      else
        EXPECT_FALSE(promote_types(u, b).has_value())
            << aclnn_ref::dtype_name(u) << " " << aclnn_ref::dtype_name(b);
    }
}

}  // namespace

namespace {
const DType kComplex[] = {DType::kComplex64, DType::kComplex128};

// ABI-PROMOTE-1: complex types are out of the table, so they promote with nothing, themselves
// included (the rule every op's rejection of them relies on).
TEST(Promotion, ComplexTypesDoNotPromote) {
  for (DType c : kComplex) {
    EXPECT_FALSE(promote_types(c, c).has_value()) << aclnn_ref::dtype_name(c);
    for (DType b : kAll) {
      EXPECT_FALSE(promote_types(c, b).has_value()) << aclnn_ref::dtype_name(b);
      EXPECT_FALSE(promote_types(b, c).has_value()) << aclnn_ref::dtype_name(b);
    }
  }
}

// The complex types carry the ABI's sizes and names, and an element's 64-bit bits are its real
// part: complex128's imaginary half is never touched through them (it is 16 bytes wide).
TEST(ComplexDTypes, SizesNamesAndRealPartBits) {
  EXPECT_EQ(aclnn_ref::dtype_size(DType::kComplex64), 8u);
  EXPECT_EQ(aclnn_ref::dtype_size(DType::kComplex128), 16u);
  EXPECT_EQ(aclnn_ref::dtype_from_name("complex64"), DType::kComplex64);
  EXPECT_EQ(aclnn_ref::dtype_from_name("complex128"), DType::kComplex128);
  for (DType c : kComplex) {
    EXPECT_FALSE(aclnn_ref::is_floating(c));
    EXPECT_TRUE(aclnn_ref::is_complex(c));
  }
  aclnn_ref::HostTensor t(DType::kComplex128, {2});
  std::fill(t.bytes.begin(), t.bytes.end(), std::byte{0xAB});
  t.set_bits(0, aclnn_ref::bits_from_double(-1.5, DType::kComplex128));
  EXPECT_EQ(t.at(0), -1.5);
  EXPECT_EQ(t.bits(0), aclnn_ref::bits_from_double(-1.5, DType::kComplex128));
  for (size_t i = 8; i < 32; ++i) EXPECT_EQ(t.bytes[i], std::byte{0xAB}) << "byte " << i;
  aclnn_ref::HostTensor f(DType::kComplex64, {1});
  f.set_bits(0, aclnn_ref::bits_from_double(0.25, DType::kComplex64));
  EXPECT_EQ(f.at(0), 0.25);
  EXPECT_EQ(f.bits(0) >> 32, 0u);  // imaginary part zero
}
}  // namespace
