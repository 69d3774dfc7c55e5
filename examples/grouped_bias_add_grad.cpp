/**
 * aclnnGroupedBiasAddGrad call example (vendor style), run on the CPU library by CTest.
 * Sums gradY's rows per group (groupIdxOptional holds the groups' end offsets). The printed
 * results are checked against known values.
 */
#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

int64_t GetShapeSize(const std::vector<int64_t> &shape) {
  int64_t shapeSize = 1;
  for (auto i : shape) {
    shapeSize *= i;
  }
  return shapeSize;
}

int Init(int32_t deviceId, aclrtStream *stream) {
  // Fixed pattern: resource initialisation
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret);
            return ret);
  return 0;
}

template <typename T>
int CreateAclTensor(const std::vector<T> &hostData, const std::vector<int64_t> &shape,
                    void **deviceAddr, aclDataType dataType, aclTensor **tensor) {
  auto size = GetShapeSize(shape) * sizeof(T);
  // Call aclrtMalloc to allocate device memory
  auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  // Call aclrtMemcpy to copy the host data to device memory
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);

  // Compute the strides of a contiguous tensor
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = shape.size() - 2; i >= 0; i--) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }

  // Call aclCreateTensor to create the aclTensor
  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0,
                            aclFormat::ACL_FORMAT_ND, shape.data(), shape.size(), *deviceAddr);
  // The vendor's example returns ACL_ERROR_FAILURE (acl_base.h) when no tensor was made.
  CHECK_RET(*tensor != nullptr, LOG_PRINT("aclCreateTensor failed.\n"); return ACL_ERROR_FAILURE);
  return 0;
}

int main() {
  // 1. (Fixed pattern) device/stream initialisation, see the acl API manual
  // Set deviceId to the device in use
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // 2. Construct the inputs and outputs, adapt to the API
  // The seed's example: gradY (1000, 30), groupIdxOptional (400, 600, 1000): three groups of
  // 400, 200 and 400 rows, out (3, 30).
  std::vector<int64_t> gradYShape = {1000, 30};
  std::vector<int64_t> groupIdxShape = {3};
  std::vector<int64_t> outShape = {3, 30};
  void *gradYDeviceAddr = nullptr;
  void *groupIdxDeviceAddr = nullptr;
  void *outDeviceAddr = nullptr;
  aclTensor *gradY = nullptr;
  aclTensor *groupIdx = nullptr;
  aclTensor *out = nullptr;
  std::vector<float> gradYHostData(1000 * 30);
  for (int64_t i = 0; i < 1000; i++) {
    for (int64_t h = 0; h < 30; h++) {
      gradYHostData[i * 30 + h] = (h % 5) * 0.5f + 0.25f;
    }
  }
  std::vector<int64_t> groupIdxHostData = {400, 600, 1000};
  std::vector<float> outHostData(3 * 30, 0);
  // Create the gradY aclTensor
  ret =
      CreateAclTensor(gradYHostData, gradYShape, &gradYDeviceAddr, aclDataType::ACL_FLOAT, &gradY);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Create the groupIdx aclTensor
  ret = CreateAclTensor(groupIdxHostData, groupIdxShape, &groupIdxDeviceAddr,
                        aclDataType::ACL_INT64, &groupIdx);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Create the out aclTensor
  ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. Call the CANN operator library API
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor;
  // Call the first-phase API aclnnGroupedBiasAddGradGetWorkspaceSize
  ret = aclnnGroupedBiasAddGradGetWorkspaceSize(gradY, groupIdx, out, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnGroupedBiasAddGradGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  // Allocate device memory for the workspaceSize returned by the first phase
  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  // Call the second-phase API aclnnGroupedBiasAddGrad
  ret = aclnnGroupedBiasAddGrad(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGroupedBiasAddGrad failed. ERROR: %d\n", ret);
            return ret);

  // 4. (Fixed pattern) wait for the task to finish
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);

  // 5. Get the output, copying the device result back to the host
  auto size = GetShapeSize(outShape);
  std::vector<float> resultData(size, 0);
  ret = aclrtMemcpy(resultData.data(), resultData.size() * sizeof(resultData[0]), outDeviceAddr,
                    size * sizeof(resultData[0]), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
            return ret);
  for (int64_t i = 0; i < size; i++) {
    LOG_PRINT("result[%ld] is: %f\n", i, resultData[i]);
  }

  // Known values: every row of column h holds (h % 5) * 0.5 + 0.25, so group g sums to
  // rows_g * that value, exactly (rows 400, 200, 400).
  const float rows[3] = {400, 200, 400};
  int mismatches = 0;
  for (int64_t g = 0; g < 3; g++) {
    for (int64_t h = 0; h < 30; h++) {
      const float expected = rows[g] * ((h % 5) * 0.5f + 0.25f);
      if (resultData[g * 30 + h] != expected) {
        LOG_PRINT("mismatch at [%ld, %ld]: got %.9g, expected %.9g\n", g, h, resultData[g * 30 + h],
                  expected);
        ++mismatches;
      }
    }
  }

  // 6. Release the aclTensors, adapt to the API
  aclDestroyTensor(gradY);
  aclDestroyTensor(groupIdx);
  aclDestroyTensor(out);

  // 7. Release device resources, adapt to the API
  aclrtFree(gradYDeviceAddr);
  aclrtFree(groupIdxDeviceAddr);
  aclrtFree(outDeviceAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return mismatches == 0 ? 0 : 1;
}
