#include "properties/protocol.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <memory>

#include "properties/runner.hpp"

namespace aclnn_conform {
namespace {

// The case's tensors staged on the SUT, for calls the runner does not make.
struct Staged {
  std::vector<std::unique_ptr<StagedTensor>> tensors;
  std::vector<aclTensor *> ptrs;
  bool ok = true;
  Staged(const Sut &sut, const Case &c) {
    for (const auto &[name, t] : c.tensors) {
      tensors.push_back(std::make_unique<StagedTensor>(sut, t));
      ok = ok && tensors.back()->ok();
      ptrs.push_back(tensors.back()->tensor());
    }
  }
};

std::vector<std::vector<std::byte>> outputs_of(const OpDescriptor &op, const Case &c,
                                               const Outcome &o) {
  std::vector<std::vector<std::byte>> out;
  for (size_t i = 0; i < c.tensors.size(); ++i)
    for (const auto &name : op.outputs)
      if (c.tensors[i].first == name) out.push_back(o.storage_after[i]);
  return out;
}

}  // namespace

std::vector<ClauseResult> protocol_probe(const Sut &sut, const OpDescriptor &op, const Case &c) {
  std::vector<ClauseResult> r;
  const auto add = [&](const char *clause, bool pass, std::string detail) {
    r.push_back({clause, pass, pass ? "" : std::move(detail)});
  };
  const AbiTable &abi = sut.abi();
  setenv("ACLNN_CPU_SOC", std::string(product_name(c.product)).c_str(), 1);

  // VAL-DET-1: the same call twice gives the same bits; ABI-FORMAT-1: and so does the call with
  // every tensor created as NCHW or NHWC (formats are not checked, all treated as ND).
  {
    const Outcome a = run_case(sut, op, c), b = run_case(sut, op, c);
    if (a.status == 0 && b.status == 0)
      add("VAL-DET-1", outputs_of(op, c, a) == outputs_of(op, c, b),
          "the same call twice gave different output bits");
    for (aclFormat f : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}) {
      const Outcome other = run_case(sut, op, c, RunOptions{f});
      if (a.status == 0)
        add("ABI-FORMAT-1", other.status == 0 && outputs_of(op, c, other) == outputs_of(op, c, a),
            fmt::format("with format {} the call gave status {} or other output bits",
                        static_cast<int>(f), other.status));
    }
  }
  // ABI-TWOPHASE-2: NULL workspaceSize or executor in phase one.
  {
    Staged s(sut, c);
    if (s.ok) {
      uint64_t ws = 0;
      aclOpExecutor *ex = nullptr;
      const aclnnStatus a = op.phase_one(abi, c, s.ptrs, nullptr, &ex);
      const aclnnStatus b = op.phase_one(abi, c, s.ptrs, &ws, nullptr);
      add("ABI-TWOPHASE-2", a == ACLNN_ERR_PARAM_NULLPTR && b == ACLNN_ERR_PARAM_NULLPTR,
          fmt::format("phase one with workspaceSize NULL gave {}, with executor NULL gave {} "
                      "(expected 161001 both)",
                      a, b));
    }
  }
  // ABI-TWOPHASE-3 and -4: the second call's checks, and an executor that runs once.
  {
    Staged s(sut, c);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    if (s.ok && op.phase_one(abi, c, s.ptrs, &ws, &ex) == 0) {
      const aclnnStatus null_ex = op.phase_two(abi, nullptr, ws, nullptr, sut.stream());
      void *workspace = nullptr;
      aclnnStatus null_ws = ACLNN_ERR_PARAM_NULLPTR, small_ws = ACLNN_ERR_PARAM_INVALID;
      if (ws > 0) {
        null_ws = op.phase_two(abi, nullptr, ws, ex, sut.stream());
        abi.malloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
        small_ws = op.phase_two(abi, workspace, ws - 1, ex, sut.stream());
      }
      add("ABI-TWOPHASE-3",
          null_ex == ACLNN_ERR_PARAM_NULLPTR && null_ws == ACLNN_ERR_PARAM_NULLPTR &&
              small_ws == ACLNN_ERR_PARAM_INVALID,
          fmt::format("phase two with executor NULL gave {}, workspace NULL gave {} (161001 "
                      "expected), workspaceSize too small gave {} (161002 expected)",
                      null_ex, null_ws, small_ws));
      const aclnnStatus first = op.phase_two(abi, workspace, ws, ex, sut.stream());
      if (first == 0) {
        const aclnnStatus second = op.phase_two(abi, workspace, ws, ex, sut.stream());
        add("ABI-TWOPHASE-4", second == ACLNN_ERR_PARAM_INVALID,
            fmt::format("running a released executor again gave {} (161002 expected)", second));
      }
      if (workspace) abi.free(workspace);
    }
  }
  // ABI-TENSOR-1: invalid views are refused with NULL.
  {
    float storage[4] = {};
    const int64_t dims[] = {2, 2}, strides[] = {2, 1}, neg[] = {2, -1}, sdims[] = {4};
    aclTensor *a =
        abi.create_tensor(neg, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, sdims, 1, storage);
    aclTensor *b =
        abi.create_tensor(dims, 2, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, sdims, 1, storage);
    add("ABI-TENSOR-1", a == nullptr && b == nullptr,
        "aclCreateTensor accepted a negative dim or a view that does not fit its storage");
    if (a) abi.destroy_tensor(a);
    if (b) abi.destroy_tensor(b);
  }
  // ABI-RUNTIME-1: aligned memory, a refused over-long copy.
  {
    void *p = nullptr;
    const bool alloc = abi.malloc(&p, 96, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS && p;
    char host[128] = {};
    const bool aligned = alloc && reinterpret_cast<uintptr_t>(p) % 32 == 0;
    const bool refused =
        alloc && abi.memcpy(p, 96, host, 128, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS;
    add("ABI-RUNTIME-1", alloc && aligned && refused,
        "aclrtMalloc failed or was not 32-byte aligned, or aclrtMemcpy accepted count > destMax");
    if (p) abi.free(p);
  }
  return r;
}

}  // namespace aclnn_conform
