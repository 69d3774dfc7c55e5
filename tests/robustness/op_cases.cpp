#include "tests/robustness/op_cases.hpp"

#include <cmath>
#include <cstring>
#include <memory>
#include <random>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "aclnnop/aclnn_selu_backward.h"

namespace aclnn_robust {
namespace {

struct TensorDeleter {
  void operator()(aclTensor *t) const { aclDestroyTensor(t); }
};
using TensorPtr = std::unique_ptr<aclTensor, TensorDeleter>;

// A contiguous tensor over `data` (which the caller keeps alive).
TensorPtr contiguous(const std::vector<int64_t> &dims, aclDataType dt, const void *data) {
  std::vector<int64_t> strides(dims.size());
  int64_t n = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = n;
    n *= dims[i];
  }
  return TensorPtr(aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), 0, ACL_FORMAT_ND,
                                   &n, 1, const_cast<void *>(data)));
}

Bytes floats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Bytes b(n * 4);
  for (size_t i = 0; i < n; ++i) {
    const float v = dist(gen);
    std::memcpy(b.data() + 4 * i, &v, 4);
  }
  return b;
}

Bytes bf16s(size_t n, uint32_t seed, float lo, float hi) {
  const Bytes f = floats(n, seed, lo, hi);
  Bytes b(n * 2);
  for (size_t i = 0; i < n; ++i)
    std::memcpy(b.data() + 2 * i, f.data() + 4 * i + 2, 2);  // top half
  return b;
}

// Both phases; the executor's workspace is allocated as asked.
int two_phases(const std::function<int(uint64_t *, aclOpExecutor **)> &phase_one,
               int (*phase_two)(void *, uint64_t, aclOpExecutor *, aclrtStream),
               std::string &error) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  int st = phase_one(&ws, &ex);
  if (st == 0) {
    std::vector<uint8_t> workspace(ws);
    st = phase_two(ws ? workspace.data() : nullptr, ws, ex, nullptr);
  }
  if (st != 0) error = aclGetRecentErrMsg();
  return st;
}

}  // namespace

std::vector<OpCase> all_op_cases() {
  std::vector<OpCase> cases;

  {  // GeluBackward FLOAT [256, 513]
    const std::vector<int64_t> d{256, 513};
    const size_t n = 256 * 513;
    cases.push_back({"GeluBackward",
                     {floats(n, 1, -2, 2), floats(n, 2, -6, 6)},
                     {n * 4},
                     [d](const std::vector<Bytes> &in, std::vector<Bytes> &out, std::string &e) {
                       auto dy = contiguous(d, ACL_FLOAT, in[0].data());
                       auto x = contiguous(d, ACL_FLOAT, in[1].data());
                       auto gi = contiguous(d, ACL_FLOAT, out[0].data());
                       return two_phases(
                           [&](uint64_t *ws, aclOpExecutor **ex) {
                             return aclnnGeluBackwardGetWorkspaceSize(dy.get(), x.get(), gi.get(),
                                                                      ws, ex);
                           },
                           aclnnGeluBackward, e);
                     }});
  }
  {  // SeluBackward BFLOAT16 [128, 1031]
    const std::vector<int64_t> d{128, 1031};
    const size_t n = 128 * 1031;
    cases.push_back({"SeluBackward",
                     {bf16s(n, 3, -2, 2), bf16s(n, 4, -1.7f, 5)},
                     {n * 2},
                     [d](const std::vector<Bytes> &in, std::vector<Bytes> &out, std::string &e) {
                       auto dy = contiguous(d, ACL_BF16, in[0].data());
                       auto r = contiguous(d, ACL_BF16, in[1].data());
                       auto gi = contiguous(d, ACL_BF16, out[0].data());
                       return two_phases(
                           [&](uint64_t *ws, aclOpExecutor **ex) {
                             return aclnnSeluBackwardGetWorkspaceSize(dy.get(), r.get(), gi.get(),
                                                                      ws, ex);
                           },
                           aclnnSeluBackward, e);
                     }});
  }
  {  // LogitGrad FLOAT [300, 437], eps 1e-3
    const std::vector<int64_t> d{300, 437};
    const size_t n = 300 * 437;
    cases.push_back({"LogitGrad",
                     {floats(n, 5, 0, 1), floats(n, 6, -3, 3)},
                     {n * 4},
                     [d](const std::vector<Bytes> &in, std::vector<Bytes> &out, std::string &e) {
                       auto x = contiguous(d, ACL_FLOAT, in[0].data());
                       auto dy = contiguous(d, ACL_FLOAT, in[1].data());
                       auto o = contiguous(d, ACL_FLOAT, out[0].data());
                       return two_phases(
                           [&](uint64_t *ws, aclOpExecutor **ex) {
                             return aclnnLogitGradGetWorkspaceSize(x.get(), dy.get(), 1e-3, o.get(),
                                                                   ws, ex);
                           },
                           aclnnLogitGrad, e);
                     }});
  }
  {  // LayerNormBackward FLOAT input [1024, 384], normalizedShape [384], all outputs
    const int64_t m = 1024, h = 384;
    cases.push_back({"LayerNormBackward",
                     {floats(m * h, 7, -2, 2), floats(m * h, 8, -3, 3), floats(m, 9, -0.5, 0.5),
                      floats(m, 10, 0.5, 2), floats(h, 11, -1, 1), floats(h, 12, -1, 1)},
                     {size_t(m * h * 4), size_t(h * 4), size_t(h * 4)},
                     [m, h](const std::vector<Bytes> &in, std::vector<Bytes> &out, std::string &e) {
                       auto dy = contiguous({m, h}, ACL_FLOAT, in[0].data());
                       auto x = contiguous({m, h}, ACL_FLOAT, in[1].data());
                       auto mean = contiguous({m, 1}, ACL_FLOAT, in[2].data());
                       auto rstd = contiguous({m, 1}, ACL_FLOAT, in[3].data());
                       auto w = contiguous({h}, ACL_FLOAT, in[4].data());
                       auto b = contiguous({h}, ACL_FLOAT, in[5].data());
                       auto gi = contiguous({m, h}, ACL_FLOAT, out[0].data());
                       auto gw = contiguous({h}, ACL_FLOAT, out[1].data());
                       auto gb = contiguous({h}, ACL_FLOAT, out[2].data());
                       aclIntArray *ns = aclCreateIntArray(&h, 1);
                       const bool mask_values[3] = {true, true, true};
                       aclBoolArray *mask = aclCreateBoolArray(mask_values, 3);
                       const int st = two_phases(
                           [&](uint64_t *ws, aclOpExecutor **ex) {
                             return aclnnLayerNormBackwardGetWorkspaceSize(
                                 dy.get(), x.get(), ns, mean.get(), rstd.get(), w.get(), b.get(),
                                 mask, gi.get(), gw.get(), gb.get(), ws, ex);
                           },
                           aclnnLayerNormBackward, e);
                       aclDestroyIntArray(ns);
                       aclDestroyBoolArray(mask);
                       return st;
                     }});
  }
  {  // GroupedBiasAddGradV2 FLOAT gradY [4000, 96], 9 groups given by sizes (type 1), INT64
    const int64_t rows = 4000, h = 96;
    const std::vector<int64_t> sizes{0, 700, 1, 999, 300, 0, 1000, 1, 999};  // sums to 4000
    Bytes idx(sizes.size() * 8);
    std::memcpy(idx.data(), sizes.data(), idx.size());
    const int64_t g = static_cast<int64_t>(sizes.size());
    cases.push_back(
        {"GroupedBiasAddGradV2",
         {floats(rows * h, 13, -2, 2), idx},
         {size_t(g * h * 4)},
         [rows, h, g](const std::vector<Bytes> &in, std::vector<Bytes> &out, std::string &e) {
           auto dy = contiguous({rows, h}, ACL_FLOAT, in[0].data());
           auto gi = contiguous({g}, ACL_INT64, in[1].data());
           auto o = contiguous({g, h}, ACL_FLOAT, out[0].data());
           return two_phases(
               [&](uint64_t *ws, aclOpExecutor **ex) {
                 return aclnnGroupedBiasAddGradV2GetWorkspaceSize(dy.get(), gi.get(), 1, o.get(),
                                                                  ws, ex);
               },
               aclnnGroupedBiasAddGradV2, e);
         }});
  }
  return cases;
}

}  // namespace aclnn_robust
