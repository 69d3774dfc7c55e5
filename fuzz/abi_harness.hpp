// Shared machinery of the ABI fuzz targets: bytes decoded into tensors (hostile or plausible
// dims, strides, offsets, storages, dtypes, formats, NULLs), guarded buffers, and the checks every
// call sequence must pass: a status from the documented set, a message on failure, nothing
// touched on failure, only the output views touched on success, executors run once, twice, never,
// with a short workspace or by the wrong op.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"

namespace aclnn_fuzz {

// Aborts (a libFuzzer finding) with the reason when `ok` is false.
void require(bool ok, const char *what);

// A heap buffer with 64 guard bytes of a fixed pattern before and after its payload.
struct GuardedBuffer {
  std::vector<uint8_t> bytes;  // guard + payload + guard
  static constexpr size_t kGuard = 64;
  size_t size() const { return bytes.size() - 2 * kGuard; }
  uint8_t *data() { return bytes.data() + kGuard; }
};

// What the harness made of one tensor argument.
struct TensorArg {
  aclTensor *tensor = nullptr;  // NULL when creation failed or the argument is NULL on purpose
  std::vector<int64_t> dims, strides;
  int64_t offset = 0;
  aclDataType dtype = ACL_FLOAT;
  int buffer = -1;       // index into Harness::buffers, -1 when the data pointer is NULL
  bool backed = true;    // false: the storage the tensor claims was too large to allocate
  int64_t elements = 0;  // view element count (when representable)
};

// Per-tensor wishes of a fuzz target: the shape and dtype a valid call would use. The decoder
// keeps them, perturbs them or replaces them, as the bytes say.
struct Hint {
  std::vector<int64_t> dims;
  aclDataType dtype = ACL_FLOAT;
};

class Harness {
 public:
  explicit Harness(const uint8_t *data, size_t size) : fdp_(data, size) {}
  ~Harness();

  FuzzedDataProvider &fdp() { return fdp_; }

  // Decodes one tensor argument (may be NULL, hostile or plausible).
  TensorArg &tensor(const Hint &hint);
  // A shape near `base` (kept, perturbed, or hostile): for shape arguments such as
  // normalizedShape.
  std::vector<int64_t> shape_like(const std::vector<int64_t> &base);
  // Writes integer values (e.g. groupIdx contents) into a backed 1-D INT32/INT64 view.
  void write_ints(TensorArg &t, const std::vector<int64_t> &values);
  // Sets ACLNN_CPU_SOC to one of the products, or to a name of none.
  void choose_soc();
  // A double from the interesting set (+-0, +-inf, NaN, subnormals, ...) or raw bits.
  double special_double();
  // A small integer dim most of the time, else a hostile one (negative, huge).
  int64_t dim();

  // Runs phase two as the bytes say (once, twice, never, repeatable, short workspace, wrong op) and
  // checks every outcome. `phase_one` returns the status; `outputs` are the tensors the op may
  // write; `run` is the op's phase two, `other_run` another op's phase two.
  using PhaseTwo = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);
  void call(const char *op,
            const std::function<aclnnStatus(uint64_t *, aclOpExecutor **)> &phase_one,
            const std::vector<const TensorArg *> &outputs, PhaseTwo run, PhaseTwo other_run);

 private:
  std::vector<std::vector<uint8_t>> snapshot() const;
  // Every byte of every buffer (guards included) equals the snapshot, except the bytes of the
  // given output views.
  void check_untouched(const std::vector<std::vector<uint8_t>> &before,
                       const std::vector<const TensorArg *> &outputs, const char *what) const;
  void check_failure(const char *op, aclnnStatus status,
                     const std::vector<std::vector<uint8_t>> &before, const char *what) const;
  bool runnable(const std::vector<const TensorArg *> &outputs) const;

  FuzzedDataProvider fdp_;
  std::vector<std::unique_ptr<GuardedBuffer>> buffers_;
  std::vector<std::unique_ptr<TensorArg>> args_;
};

// Byte-footprint of a view: every byte any index of it reaches, relative to the storage start.
// Used to tell the output views' bytes from the rest.
// marks covers the whole buffer, guards included.
void mark_view(const TensorArg &t, const GuardedBuffer &buf, std::vector<bool> &marks);

}  // namespace aclnn_fuzz
