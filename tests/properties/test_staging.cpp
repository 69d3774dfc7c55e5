// The SUT seam: the built-in table, staging through the SUT's own memory, guards around storage.
#include <gtest/gtest.h>

#include <cstring>

#include "properties/staging.hpp"
#include "properties/sut.hpp"

namespace {
using namespace aclnn_conform;

TEST(Sut, BuiltinTableHasEveryEntryPoint) {
  auto sut = Sut::builtin();
  ASSERT_NE(sut, nullptr);
  const AbiTable &t = sut->abi();
  EXPECT_NE(t.symbol("aclnnGeluBackwardGetWorkspaceSize"), nullptr);
  EXPECT_NE(t.symbol("aclnnGroupedBiasAddGradV2"), nullptr);
  EXPECT_EQ(t.symbol("aclnnNoSuchOp"), nullptr);
  EXPECT_NE(t.memcpy, nullptr);
  EXPECT_NE(sut->stream(), nullptr);
}

TEST(Sut, LoadingAMissingLibraryExplainsWhy) {
  std::string error;
  EXPECT_EQ(Sut::load("/nonexistent/libnothing.so", error), nullptr);
  EXPECT_NE(error.find("cannot load"), std::string::npos) << error;
}

TEST(Staging, RoundTripsStorageAndKeepsGuards) {
  auto sut = Sut::builtin();
  TensorArg a = TensorArg::contiguous(DType::kFloat32, {2, 3});
  for (int64_t i = 0; i < a.numel(); ++i) {
    const float v = static_cast<float>(i) + 0.5f;
    uint32_t b;
    std::memcpy(&b, &v, 4);
    a.set_bits_at(i, b);
  }
  StagedTensor staged(*sut, a);
  ASSERT_TRUE(staged.ok()) << staged.error();
  bool guards = false;
  int status = 0;
  const auto back = staged.read_storage(guards, status);
  EXPECT_EQ(status, 0);
  EXPECT_TRUE(guards);
  EXPECT_EQ(back, a.storage);
}

TEST(Staging, ANullArgumentStagesAsNull) {
  auto sut = Sut::builtin();
  StagedTensor staged(*sut, TensorArg::null());
  EXPECT_TRUE(staged.ok());
  EXPECT_EQ(staged.tensor(), nullptr);
}

TEST(Staging, OracleViewReadsTheSameElements) {
  TensorArg a = TensorArg::contiguous(DType::kInt32, {4});
  a.shape = {2};
  a.strides = {2};
  a.offset = 1;  // elements 1 and 3
  for (int64_t i = 0; i < 4; ++i) std::memcpy(a.storage.data() + 4 * i, &i, 4);
  const auto v = a.view();
  EXPECT_EQ(v.at(int64_t{0}), 1.0);
  EXPECT_EQ(v.at(int64_t{1}), 3.0);
  EXPECT_EQ(a.bits_at(1), 3u);
}

}  // namespace
