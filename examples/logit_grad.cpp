/**
 * aclnnLogitGrad call example (vendor style), run on the CPU library by CTest.
 * Computes dx = dy / (x * (1 - x)) with eps = -1 (the recommended value): x outside [0, 1] gives
 * NaN, x = 0 or 1 gives inf. The printed results are checked against known values.
 */
#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_logit_grad.h"

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
  std::vector<int64_t> xShape = {2, 4};
  std::vector<int64_t> dyShape = {2, 4};
  std::vector<int64_t> outShape = {2, 4};
  void *xDeviceAddr = nullptr;
  void *dyDeviceAddr = nullptr;
  void *outDeviceAddr = nullptr;
  aclTensor *x = nullptr;
  aclTensor *dy = nullptr;
  aclTensor *out = nullptr;
  std::vector<float> xHostData = {0.5, 0.25, 0.1, 0.9, 0, 1, 1.5, -0.5};
  std::vector<float> dyHostData = {1, 1, 2, -1, 1, -1, 1, 1};
  std::vector<float> outHostData = {0, 0, 0, 0, 0, 0, 0, 0};
  double eps = -1;
  // Create the x aclTensor
  ret = CreateAclTensor(xHostData, xShape, &xDeviceAddr, aclDataType::ACL_FLOAT, &x);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Create the dy aclTensor
  ret = CreateAclTensor(dyHostData, dyShape, &dyDeviceAddr, aclDataType::ACL_FLOAT, &dy);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Create the out aclTensor
  ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. Call the CANN operator library API
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor;
  // Call the first-phase API aclnnLogitGradGetWorkspaceSize
  ret = aclnnLogitGradGetWorkspaceSize(x, dy, eps, out, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnLogitGradGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  // Allocate device memory for the workspaceSize returned by the first phase
  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  // Call the second-phase API aclnnLogitGrad
  ret = aclnnLogitGrad(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnLogitGrad failed. ERROR: %d\n", ret); return ret);

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

  // Known values: dy / (x (1 - x)) rounded once to float; NaN outside [0, 1] (eps < 0), inf at
  // 0, 1.
  const float inf = INFINITY;
  const std::vector<float> expected = {4.0f, 5.33333349f, 22.2222214f, -11.1111088f,
                                       inf,  -inf,        NAN,         NAN};
  int mismatches = 0;
  for (int64_t i = 0; i < size; i++) {
    const bool ok =
        std::isnan(expected[i]) ? std::isnan(resultData[i]) : resultData[i] == expected[i];
    if (!ok) {
      LOG_PRINT("mismatch at %ld: got %.9g, expected %.9g\n", i, resultData[i], expected[i]);
      ++mismatches;
    }
  }

  // 6. Release the aclTensors, adapt to the API
  aclDestroyTensor(x);
  aclDestroyTensor(dy);
  aclDestroyTensor(out);

  // 7. Release device resources, adapt to the API
  aclrtFree(xDeviceAddr);
  aclrtFree(dyDeviceAddr);
  aclrtFree(outDeviceAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return mismatches == 0 ? 0 : 1;
}
