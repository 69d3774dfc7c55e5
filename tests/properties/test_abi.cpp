// Shared ABI clauses checked through a SUT's entry points (the built-in one here), so they hold
// for whatever library the table comes from.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "aclnnop/aclnn_gelu_backward.h"
#include "properties/generic.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"

namespace {
using namespace aclnn_conform;

// ABI-STATUS-1 and ABI-DTYPE-1: the vendor's values, fixed at compile time.
static_assert(ACLNN_SUCCESS == 0 && ACLNN_ERR_PARAM_NULLPTR == 161001 &&
              ACLNN_ERR_PARAM_INVALID == 161002 && ACLNN_ERR_RUNTIME_ERROR == 361001 &&
              ACLNN_ERR_INNER == 561000);
static_assert(ACL_SUCCESS == 0 && ACL_ERROR_INVALID_PARAM == 100000);
static_assert(ACL_FLOAT == 0 && ACL_FLOAT16 == 1 && ACL_INT8 == 2 && ACL_INT32 == 3 &&
              ACL_UINT8 == 4 && ACL_INT16 == 6 && ACL_UINT16 == 7 && ACL_UINT32 == 8 &&
              ACL_INT64 == 9 && ACL_UINT64 == 10 && ACL_DOUBLE == 11 && ACL_BOOL == 12 &&
              ACL_COMPLEX64 == 16 && ACL_COMPLEX128 == 17 && ACL_BF16 == 27);
static_assert(ACL_FORMAT_NCHW == 0 && ACL_FORMAT_NHWC == 1 && ACL_FORMAT_ND == 2);
static_assert(ACL_MEM_MALLOC_HUGE_FIRST == 0 && ACL_MEM_MALLOC_HUGE_ONLY == 1 &&
              ACL_MEM_MALLOC_NORMAL_ONLY == 2);
static_assert(ACL_MEMCPY_HOST_TO_HOST == 0 && ACL_MEMCPY_HOST_TO_DEVICE == 1 &&
              ACL_MEMCPY_DEVICE_TO_HOST == 2 && ACL_MEMCPY_DEVICE_TO_DEVICE == 3);

TEST(Abi, StatusCodesAndEnumsAreTheVendors) {
  // The SUT reports the vendor's codes: a NULL tensor is 161001, a bad dtype 161002.
  const AbiTable &abi = builtin_sut().abi();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_EQ(
      ACLNN_ABI_ENTRY(abi, aclnnGeluBackwardGetWorkspaceSize)(nullptr, nullptr, nullptr, &ws, &ex),
      ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(ACLNN_ABI_ENTRY(abi, aclnnGeluBackwardGetWorkspaceSize)(nullptr, nullptr, nullptr,
                                                                    nullptr, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
}

// ABI-TENSOR-1: negative dims, strides or offset, a view outside its storage, or an element count
// that overflows int64 give NULL.
TEST(Abi, CreateTensorRejectsInvalidViews) {
  const AbiTable &abi = builtin_sut().abi();
  std::vector<float> storage(16);
  const int64_t dims[] = {4, 4}, strides[] = {4, 1}, sdims[] = {16};
  aclTensor *ok =
      abi.create_tensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, sdims, 1, storage.data());
  ASSERT_NE(ok, nullptr);
  abi.destroy_tensor(ok);
  const int64_t neg[] = {4, -1};
  EXPECT_EQ(
      abi.create_tensor(neg, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, sdims, 1, storage.data()),
      nullptr);
  EXPECT_EQ(abi.create_tensor(dims, 2, ACL_FLOAT, neg, 0, ACL_FORMAT_ND, sdims, 1, storage.data()),
            nullptr);
  EXPECT_EQ(
      abi.create_tensor(dims, 2, ACL_FLOAT, strides, -1, ACL_FORMAT_ND, sdims, 1, storage.data()),
      nullptr);
  EXPECT_EQ(
      abi.create_tensor(dims, 2, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, sdims, 1, storage.data()),
      nullptr);
  const int64_t huge[] = {int64_t{1} << 62, 4}, huge_strides[] = {0, 0};
  EXPECT_EQ(abi.create_tensor(huge, 2, ACL_FLOAT, huge_strides, 0, ACL_FORMAT_ND, huge, 2,
                              storage.data()),
            nullptr);
}

// ABI-FORMAT-1: the storage format is not checked; NCHW and NHWC views compute as ND.
TEST(Abi, FormatIsNotChecked) {
  const AbiTable &abi = builtin_sut().abi();
  std::vector<float> dy(4, 2.0f), x(4, 0.0f);
  std::vector<std::vector<float>> outs;
  for (aclFormat f : {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}) {
    std::vector<float> out(4, -1.0f);
    const int64_t dims[] = {1, 1, 2, 2}, strides[] = {4, 4, 2, 1}, sdims[] = {4};
    aclTensor *a = abi.create_tensor(dims, 4, ACL_FLOAT, strides, 0, f, sdims, 1, dy.data());
    aclTensor *b = abi.create_tensor(dims, 4, ACL_FLOAT, strides, 0, f, sdims, 1, x.data());
    aclTensor *c = abi.create_tensor(dims, 4, ACL_FLOAT, strides, 0, f, sdims, 1, out.data());
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    ASSERT_EQ(ACLNN_ABI_ENTRY(abi, aclnnGeluBackwardGetWorkspaceSize)(a, b, c, &ws, &ex),
              ACLNN_SUCCESS)
        << f;
    ASSERT_EQ(ACLNN_ABI_ENTRY(abi, aclnnGeluBackward)(nullptr, ws, ex, builtin_sut().stream()),
              ACLNN_SUCCESS);
    outs.push_back(out);
    abi.destroy_tensor(a);
    abi.destroy_tensor(b);
    abi.destroy_tensor(c);
  }
  EXPECT_EQ(outs[0], std::vector<float>(4, 1.0f));  // 2 * g(0) = 1
  EXPECT_EQ(outs[1], outs[0]);
  EXPECT_EQ(outs[2], outs[0]);
}

// ABI-RUNTIME-1: the runtime of the call examples works, with its documented failures.
TEST(Abi, RuntimeCallsWorkOnTheSut) {
  const AbiTable &abi = builtin_sut().abi();
  void *p = nullptr;
  ASSERT_EQ(abi.malloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 32, 0u);
  std::vector<char> host(100, 7), back(100, 0);
  EXPECT_EQ(abi.memcpy(p, 100, host.data(), 100, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(abi.memcpy(back.data(), 100, p, 100, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back, host);
  EXPECT_NE(abi.memcpy(p, 50, host.data(), 100, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  aclrtStream s = nullptr;
  EXPECT_EQ(abi.create_stream(&s), ACL_SUCCESS);
  EXPECT_EQ(abi.synchronize_stream(s), ACL_SUCCESS);
  EXPECT_EQ(abi.destroy_stream(s), ACL_SUCCESS);
  EXPECT_EQ(abi.free(p), ACL_SUCCESS);
}

}  // namespace

namespace {
// The device's out-of-memory statuses are told from the op's own failures: each code the
// vendor's headers give for it, and no neighbouring code.
TEST(Abi, OutOfMemoryStatusesAreTheVendorsFour) {
  using aclnn_conform::is_out_of_memory_status;
  for (const int oom : {ACL_ERROR_BAD_ALLOC, 207001, 207018, ACL_ERROR_STORAGE_OVER_LIMIT})
    EXPECT_TRUE(is_out_of_memory_status(oom)) << oom;
  for (const int other : {0, 100000, 107000, 161002, 207000, 207002, 207017, 207019, 507015})
    EXPECT_FALSE(is_out_of_memory_status(other)) << other;
}
}  // namespace
