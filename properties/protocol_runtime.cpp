// The runtime's probes (properties/protocol_probes.hpp): ABI-TENSOR-1 (aclCreateTensor refuses
// invalid views, aclCreateIntArray/aclCreateBoolArray NULL values) and ABI-RUNTIME-1 (aligned
// memory, a refused over-long copy and its status ABI-STATUS-1, all four copy kinds, a stream of
// its own, aclrtFree).
#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "properties/call_trace.hpp"
#include "properties/protocol_probes.hpp"

namespace aclnn_conform::protocol_detail {

void probe_invalid_views(ProbeRun &p) {
  const AbiTable &abi = p.abi;
  // Invalid views are refused with NULL (a negative dim, a negative stride, a negative offset, a
  // view past its storage, an element count that overflows int64).
  ClauseScope clause("ABI-TENSOR-1");
  float storage[4] = {};
  const int64_t dims[] = {2, 2}, strides[] = {2, 1}, neg[] = {2, -1}, sdims[] = {4};
  const int64_t neg_strides[] = {-2, 1}, huge[] = {INT64_C(1) << 40, INT64_C(1) << 40},
                huge_sdims[] = {INT64_MAX};
  struct Bad {
    const char *what;
    const int64_t *dims, *strides;
    int64_t offset;
    const int64_t *sdims;
  };
  const Bad bad[] = {{"a negative dim", neg, strides, 0, sdims},
                     {"a negative stride", dims, neg_strides, 2, sdims},
                     {"a negative offset", dims, strides, -1, sdims},
                     {"a view past its storage", dims, strides, 1, sdims},
                     {"an element count that overflows int64", huge, strides, 0, huge_sdims}};
  std::string refused_not;
  for (const auto &b : bad) {
    aclTensor *t = traced(std::string("aclCreateTensor(") + b.what + ")", [&] {
      return abi.create_tensor(b.dims, 2, ACL_FLOAT, b.strides, b.offset, ACL_FORMAT_ND, b.sdims, 1,
                               storage);
    });
    if (t) {
      refused_not += refused_not.empty() ? b.what : std::string(", ") + b.what;
      traced("aclDestroyTensor", [&] { return abi.destroy_tensor(t); });
    }
  }
  // "Likewise aclCreateIntArray/aclCreateBoolArray": NULL values for a non-empty array.
  if (traced("aclCreateIntArray(NULL, 3)", [&] { return abi.create_int_array(nullptr, 3); }))
    refused_not += std::string(refused_not.empty() ? "" : ", ") + "aclCreateIntArray(NULL, 3)";
  if (traced("aclCreateBoolArray(NULL, 3)", [&] { return abi.create_bool_array(nullptr, 3); }))
    refused_not += std::string(refused_not.empty() ? "" : ", ") + "aclCreateBoolArray(NULL, 3)";
  p.add("ABI-TENSOR-1", refused_not.empty(), "accepted " + refused_not);
}

namespace {

// All four copy kinds: host -> device (`dev`, 96 bytes) -> device -> host -> host gives the bytes
// back.
void probe_copy_kinds(ProbeRun &p, void *dev) {
  const AbiTable &abi = p.abi;
  void *q = nullptr;
  if (traced("aclrtMalloc", [&] { return abi.malloc(&q, 96, ACL_MEM_MALLOC_HUGE_FIRST); }) !=
          ACL_SUCCESS ||
      !q)
    return;
  char src[96], mid[96] = {}, dst[96] = {};
  for (int i = 0; i < 96; ++i) src[i] = static_cast<char>(i * 7 + 1);
  const aclError k1 = traced("aclrtMemcpy(HOST_TO_DEVICE)", [&] {
    return abi.memcpy(dev, 96, src, 96, ACL_MEMCPY_HOST_TO_DEVICE);
  });
  const aclError k3 = traced("aclrtMemcpy(DEVICE_TO_DEVICE)", [&] {
    return abi.memcpy(q, 96, dev, 96, ACL_MEMCPY_DEVICE_TO_DEVICE);
  });
  const aclError k2 = traced("aclrtMemcpy(DEVICE_TO_HOST)",
                             [&] { return abi.memcpy(mid, 96, q, 96, ACL_MEMCPY_DEVICE_TO_HOST); });
  const aclError k0 = traced("aclrtMemcpy(HOST_TO_HOST)",
                             [&] { return abi.memcpy(dst, 96, mid, 96, ACL_MEMCPY_HOST_TO_HOST); });
  p.add("ABI-RUNTIME-1",
        k0 == ACL_SUCCESS && k1 == ACL_SUCCESS && k2 == ACL_SUCCESS && k3 == ACL_SUCCESS &&
            std::memcmp(src, dst, sizeof src) == 0,
        fmt::format("aclrtMemcpy host->device {}, device->device {}, device->host {}, "
                    "host->host {} (0 expected each), or the bytes did not come back",
                    k1, k3, k2, k0));
  traced("aclrtFree", [&] { return abi.free(q); });
}

// A stream of its own: created, synchronised and destroyed with ACL_SUCCESS.
void probe_own_stream(ProbeRun &p) {
  const AbiTable &abi = p.abi;
  aclrtStream stream = nullptr;
  const aclError created = traced("aclrtCreateStream", [&] { return abi.create_stream(&stream); });
  const aclError synced =
      created == ACL_SUCCESS && abi.synchronize_stream
          ? traced("aclrtSynchronizeStream", [&] { return abi.synchronize_stream(stream); })
          : created;
  const aclError destroyed =
      created == ACL_SUCCESS && abi.destroy_stream
          ? traced("aclrtDestroyStream", [&] { return abi.destroy_stream(stream); })
          : created;
  p.add("ABI-RUNTIME-1",
        created == ACL_SUCCESS && synced == ACL_SUCCESS && destroyed == ACL_SUCCESS &&
            abi.synchronize_stream && abi.destroy_stream,
        fmt::format("aclrtCreateStream gave {}, aclrtSynchronizeStream {}, aclrtDestroyStream {} "
                    "(0 expected each; a missing entry point counts as a failure)",
                    created, synced, destroyed));
}

}  // namespace

void probe_runtime(ProbeRun &p) {
  const AbiTable &abi = p.abi;
  // Aligned memory, a refused over-long copy.
  ClauseScope clause("ABI-RUNTIME-1");
  void *dev = nullptr;
  const bool alloc =
      traced("aclrtMalloc", [&] { return abi.malloc(&dev, 96, ACL_MEM_MALLOC_HUGE_FIRST); }) ==
          ACL_SUCCESS &&
      dev;
  char host[128] = {};
  const bool aligned = alloc && reinterpret_cast<uintptr_t>(dev) % 32 == 0;
  const aclError over =
      alloc ? traced("aclrtMemcpy(count > destMax)",
                     [&] { return abi.memcpy(dev, 96, host, 128, ACL_MEMCPY_HOST_TO_DEVICE); })
            : ACL_SUCCESS;
  p.add("ABI-RUNTIME-1", alloc && aligned && over != ACL_SUCCESS,
        "aclrtMalloc failed or was not 32-byte aligned, or aclrtMemcpy accepted count > destMax");
  // ABI-STATUS-1: that failure is a parameter error of the aclError family: ACL_ERROR_INVALID_PARAM
  // (100000, the ACL layer's, as the CPU library answers) or ACL_ERROR_RT_PARAM_INVALID (107000,
  // what the vendor's runtime gives for cnt > destMax: hicann/runtime ApiImpl::MemCopySync maps
  // RT_ERROR_INVALID_VALUE to it; docs/device-emulation.md, "Sources").
  if (alloc && over != ACL_SUCCESS)
    p.add("ABI-STATUS-1", over == ACL_ERROR_INVALID_PARAM || over == ACL_ERROR_RT_PARAM_INVALID,
          fmt::format("aclrtMemcpy with count > destMax gave {} (a parameter error expected: "
                      "ACL_ERROR_INVALID_PARAM 100000 or the runtime's ACL_ERROR_RT_PARAM_INVALID "
                      "107000)",
                      over));
  if (alloc) probe_copy_kinds(p, dev);
  probe_own_stream(p);
  if (dev) {
    const aclError freed = traced("aclrtFree", [&] { return abi.free(dev); });
    p.add("ABI-RUNTIME-1", freed == ACL_SUCCESS,
          fmt::format("aclrtFree of a block from aclrtMalloc gave {}", freed));
  }
}

}  // namespace aclnn_conform::protocol_detail
