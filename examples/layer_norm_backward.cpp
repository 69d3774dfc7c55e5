/**
 * aclnnLayerNormBackward call example (vendor style), run on the CPU library by CTest.
 * input (2, 3) normalized over its last dim, with mean/rstd (2, 1) as the forward pass gave them,
 * weight and bias (3); all three outputs requested. The printed results are checked against
 * values computed by hand (see the comments below) and the program exits non-zero on a mismatch.
 */
#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

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

// Copies a device result back to the host and prints it as the vendor's examples do.
int CopyBackAndPrint(const char *name, void *deviceAddr, const std::vector<int64_t> &shape,
                     std::vector<float> &resultData) {
  auto size = GetShapeSize(shape);
  resultData.assign(size, 0);
  auto ret = aclrtMemcpy(resultData.data(), resultData.size() * sizeof(resultData[0]), deviceAddr,
                         size * sizeof(resultData[0]), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
            return ret);
  LOG_PRINT("%s:\n", name);
  for (int64_t i = 0; i < size; i++) {
    LOG_PRINT("result[%ld] is: %f\n", i, resultData[i]);
  }
  return 0;
}

// Compares with known values (the correctly rounded float of each exact value).
int CountMismatches(const char *name, const std::vector<float> &got,
                    const std::vector<long double> &expected) {
  int mismatches = 0;
  for (size_t i = 0; i < expected.size(); i++) {
    const float want = static_cast<float>(expected[i]);
    if (got[i] != want) {
      LOG_PRINT("%s mismatch at %zu: got %.9g, expected %.9g\n", name, i, got[i], want);
      ++mismatches;
    }
  }
  return mismatches;
}

int main() {
  // 1. (Fixed pattern) device/stream initialisation, see the acl API manual
  // Set deviceId to the device in use
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // 2. Construct the inputs and outputs, adapt to the API
  std::vector<int64_t> gradOutShape = {2, 3};
  std::vector<int64_t> inputShape = {2, 3};
  std::vector<int64_t> meanShape = {2, 1};
  std::vector<int64_t> rstdShape = {2, 1};
  std::vector<int64_t> weightShape = {3};
  std::vector<int64_t> biasShape = {3};
  std::vector<int64_t> gradInputShape = {2, 3};
  std::vector<int64_t> gradWeightShape = {3};
  std::vector<int64_t> gradBiasShape = {3};
  void *gradOutDeviceAddr = nullptr;
  void *inputDeviceAddr = nullptr;
  void *meanDeviceAddr = nullptr;
  void *rstdDeviceAddr = nullptr;
  void *weightDeviceAddr = nullptr;
  void *biasDeviceAddr = nullptr;
  void *gradInputDeviceAddr = nullptr;
  void *gradWeightDeviceAddr = nullptr;
  void *gradBiasDeviceAddr = nullptr;
  aclTensor *gradOut = nullptr;
  aclTensor *input = nullptr;
  aclIntArray *normalizedShape = nullptr;
  aclTensor *mean = nullptr;
  aclTensor *rstd = nullptr;
  aclTensor *weight = nullptr;
  aclTensor *bias = nullptr;
  aclBoolArray *outputMask = nullptr;
  aclTensor *gradInput = nullptr;
  aclTensor *gradWeight = nullptr;
  aclTensor *gradBias = nullptr;
  std::vector<float> gradOutHostData = {1, 0, 0, 2, 2, 2};
  std::vector<float> inputHostData = {1, 2, 3, 0, 0, 4};
  std::vector<float> meanHostData = {2, 1};
  std::vector<float> rstdHostData = {1, 0.5};
  std::vector<float> weightHostData = {1, 2, 0.5};
  std::vector<float> biasHostData = {0, 0, 0};
  std::vector<float> gradInputHostData(6, 0);
  std::vector<float> gradWeightHostData(3, 0);
  std::vector<float> gradBiasHostData(3, 0);
  std::vector<int64_t> normData = {3};
  bool maskData[3] = {true, true, true};
  // Create the gradOut aclTensor
  ret = CreateAclTensor(gradOutHostData, gradOutShape, &gradOutDeviceAddr, aclDataType::ACL_FLOAT,
                        &gradOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Create the input aclTensor
  ret =
      CreateAclTensor(inputHostData, inputShape, &inputDeviceAddr, aclDataType::ACL_FLOAT, &input);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Create the normalizedShape aclIntArray
  normalizedShape = aclCreateIntArray(normData.data(), normData.size());
  CHECK_RET(normalizedShape != nullptr, return ACL_ERROR_INVALID_PARAM);
  // Create the mean aclTensor
  ret = CreateAclTensor(meanHostData, meanShape, &meanDeviceAddr, aclDataType::ACL_FLOAT, &mean);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Create the rstd aclTensor
  ret = CreateAclTensor(rstdHostData, rstdShape, &rstdDeviceAddr, aclDataType::ACL_FLOAT, &rstd);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Create the weight aclTensor
  ret = CreateAclTensor(weightHostData, weightShape, &weightDeviceAddr, aclDataType::ACL_FLOAT,
                        &weight);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Create the bias aclTensor
  ret = CreateAclTensor(biasHostData, biasShape, &biasDeviceAddr, aclDataType::ACL_FLOAT, &bias);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Create the outputMask aclBoolArray
  outputMask = aclCreateBoolArray(maskData, 3);
  CHECK_RET(outputMask != nullptr, return ACL_ERROR_INVALID_PARAM);
  // Create the gradInput aclTensor
  ret = CreateAclTensor(gradInputHostData, gradInputShape, &gradInputDeviceAddr,
                        aclDataType::ACL_FLOAT, &gradInput);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Create the gradWeight aclTensor
  ret = CreateAclTensor(gradWeightHostData, gradWeightShape, &gradWeightDeviceAddr,
                        aclDataType::ACL_FLOAT, &gradWeight);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  // Create the gradBias aclTensor
  ret = CreateAclTensor(gradBiasHostData, gradBiasShape, &gradBiasDeviceAddr,
                        aclDataType::ACL_FLOAT, &gradBias);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 3. Call the CANN operator library API
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor;
  // Call the first-phase API aclnnLayerNormBackwardGetWorkspaceSize
  ret = aclnnLayerNormBackwardGetWorkspaceSize(gradOut, input, normalizedShape, mean, rstd, weight,
                                               bias, outputMask, gradInput, gradWeight, gradBias,
                                               &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnLayerNormBackwardGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  // Allocate device memory for the workspaceSize returned by the first phase
  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  // Call the second-phase API aclnnLayerNormBackward
  ret = aclnnLayerNormBackward(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnLayerNormBackward failed. ERROR: %d\n", ret);
            return ret);

  // 4. (Fixed pattern) wait for the task to finish
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);

  // 5. Get the outputs, copying the device results back to the host
  std::vector<float> gradInputResult, gradWeightResult, gradBiasResult;
  ret = CopyBackAndPrint("gradInput", gradInputDeviceAddr, gradInputShape, gradInputResult);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CopyBackAndPrint("gradWeight", gradWeightDeviceAddr, gradWeightShape, gradWeightResult);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CopyBackAndPrint("gradBias", gradBiasDeviceAddr, gradBiasShape, gradBiasResult);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // Known values, by hand. xhat = (x - mean) * rstd: row 0 [-1, 0, 1], row 1 [-0.5, -0.5, 1.5].
  // g = gradOut * weight: row 0 [1, 0, 0], row 1 [2, 4, 1].
  // gradInput = rstd * (g - sum(g)/3 - xhat * sum(g*xhat)/3):
  //   row 0: sum(g) = 1, sum(g*xhat) = -1 -> [1 - 1/3 - 1/3, -1/3, -1/3 + 1/3] = [1/3, -1/3, 0]
  //   row 1: sum(g) = 7, sum(g*xhat) = -1.5 -> 0.5 * (g - 7/3 + xhat/2) = [-7/24, 17/24, -7/24]
  // gradWeight = sum over rows of gradOut * xhat = [-1 - 1, 0 - 1, 0 + 3] = [-2, -1, 3]
  // gradBias = sum over rows of gradOut = [3, 2, 2]
  const std::vector<long double> gradInputExpected = {1.0L / 3,   -1.0L / 3,  0.0L,
                                                      -7.0L / 24, 17.0L / 24, -7.0L / 24};
  const std::vector<long double> gradWeightExpected = {-2, -1, 3};
  const std::vector<long double> gradBiasExpected = {3, 2, 2};
  int mismatches = CountMismatches("gradInput", gradInputResult, gradInputExpected) +
                   CountMismatches("gradWeight", gradWeightResult, gradWeightExpected) +
                   CountMismatches("gradBias", gradBiasResult, gradBiasExpected);

  // 6. Release the aclTensors, adapt to the API
  aclDestroyTensor(gradOut);
  aclDestroyTensor(input);
  aclDestroyIntArray(normalizedShape);
  aclDestroyTensor(mean);
  aclDestroyTensor(rstd);
  aclDestroyTensor(weight);
  aclDestroyTensor(bias);
  aclDestroyBoolArray(outputMask);
  aclDestroyTensor(gradInput);
  aclDestroyTensor(gradWeight);
  aclDestroyTensor(gradBias);

  // 7. Release device resources, adapt to the API
  aclrtFree(gradOutDeviceAddr);
  aclrtFree(inputDeviceAddr);
  aclrtFree(meanDeviceAddr);
  aclrtFree(rstdDeviceAddr);
  aclrtFree(weightDeviceAddr);
  aclrtFree(biasDeviceAddr);
  aclrtFree(gradInputDeviceAddr);
  aclrtFree(gradWeightDeviceAddr);
  aclrtFree(gradBiasDeviceAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  if (mismatches != 0) {
    LOG_PRINT("%d mismatches\n", mismatches);
    return 1;
  }
  return 0;
}
