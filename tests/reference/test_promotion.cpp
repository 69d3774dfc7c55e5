// ABI-PROMOTE-1 table of the oracle: spot-checked rows, symmetry, wide unsigned self-promotion.
#include <gtest/gtest.h>

#include "reference/dtype.hpp"
#include "reference/promotion.hpp"

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
