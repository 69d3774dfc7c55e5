// The mutant shim: the one forwarding layer of the project. A wrapper library that exports the
// whole aclnn ABI and forwards every call to the built-in libaclnn_cpu.so (loaded privately with
// RTLD_DEEPBIND), with hooks where a mutant injects one fault. The shim records every tensor
// aclCreateTensor made (the CPU runtime's memory is host memory), so a hook can read the inputs of
// an op and rewrite its outputs.
//
// A mutant is one source file that defines (strongly) the hooks it needs; the defaults (weak, in
// shim.cpp) forward unchanged, so the `passthrough` mutant defines none. The test libraries
// libaclnn_broken.so (tests/broken/broken_sut.cpp) and libaclnn_a2_device.so are built the same
// way. shim.cpp holds the forwarding layer, scalar.cpp the scalar helpers below.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "aclnnop/aclnn_selu_backward.h"

namespace mutant {

// What the shim remembers of a tensor: the arguments of aclCreateTensor.
struct View {
  bool present = false;  // false for a NULL operand
  std::vector<int64_t> dims, strides, storage_dims;
  int64_t offset = 0;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  void *data = nullptr;

  int64_t numel() const;
  int64_t storage_numel() const;
  size_t element_size() const;
  bool contiguous() const;  // row-major strides, whatever the offset
  // Storage element of row-major index `flat` of shape `shape`, broadcasting this view to it
  // (NumPy alignment on the right; a dim of 1 stretches).
  int64_t element(const std::vector<int64_t> &shape, int64_t flat) const;
  int64_t element(int64_t flat) const { return element(dims, flat); }
};

enum class Op { kGelu, kSelu, kLayerNorm, kLogit, kGbag, kGbagV2 };
const char *op_name(Op op);

// One op call: the raw arguments (a before_phase_one hook may change them before they are
// forwarded) and the views of its tensors.
struct Call {
  Op op = Op::kGelu;
  // Inputs in signature order. GELU: gradOutput, self. SELU: gradOutput, result. LayerNorm:
  // gradOut, input, mean, rstd, weight, bias. Logit: x, dy. GBAG: gradY, groupIdx.
  std::vector<const aclTensor *> in_args;
  // Outputs in signature order. LayerNorm: gradInput, gradWeight, gradBias; the others: one.
  std::vector<aclTensor *> out_args;
  std::vector<View> in, out;   // views of the above, filled by the shim (present = non-NULL)
  double eps = 0;              // LogitGrad
  int64_t group_idx_type = 0;  // GBAG V2 (V1: 0)
  const aclIntArray *normalized_shape_arg = nullptr;  // LayerNorm
  const aclBoolArray *mask_arg = nullptr;
  std::vector<int64_t> normalized_shape;  // LayerNorm (empty if the array is NULL)
  std::vector<bool> mask;                 // LayerNorm
  // The phase-one output pointers as the caller passed them (NULL included).
  uint64_t *workspace_size_arg = nullptr;
  aclOpExecutor **executor_arg = nullptr;
  uint64_t workspace_size = 0;  // what phase one answered
  int attempts = 0;             // phase-two calls made with the executor, this one too
  int runs = 0;                 // phase-two calls that reached the real executor
  bool token = false;  // the executor is a token_executor(): phase two runs it as GeluBackward
  // In-place calls (an output over an input's storage): the inputs' storage as it was before
  // phase two; `in` then points into these copies, so a hook recomputing an output reads the
  // inputs of the call, not what the real kernel wrote over them.
  std::vector<std::vector<char>> in_snapshots;
  std::vector<void *> in_data;  // the inputs' own storage (in[k].data before any snapshot)
};

// Hooks: every one has a forwarding default. Return a status from a before_* hook to answer the
// call without forwarding it.
std::optional<aclnnStatus> before_phase_one(Call &call);
void after_phase_one(Call &call, aclnnStatus &status, uint64_t *workspace_size,
                     aclOpExecutor **executor);
// First thing in every phase-two entry point `op`, whatever the executor.
void on_phase_two_entry(Op op);
// call is null for an executor the shim does not know (NULL, or never returned by phase one).
std::optional<aclnnStatus> before_phase_two(Call *call, void *&workspace, uint64_t &workspace_size,
                                            aclOpExecutor *executor);
void after_phase_two(Call *call, aclnnStatus &status, void *workspace, uint64_t workspace_size);
// aclCreateTensor: may answer itself (e.g. refuse a tensor); `made` is what the real one made.
aclTensor *on_create_tensor(const View &requested, aclTensor *made);
const char *on_error_message(const char *real_message);
// Runtime hooks (ABI-RUNTIME-1).
std::optional<aclError> before_malloc(void **ptr, size_t size, aclrtMemMallocPolicy policy);
std::optional<aclError> before_free(void *ptr);
std::optional<aclError> before_memcpy(void *dst, size_t dest_max, const void *src, size_t count,
                                      aclrtMemcpyKind kind);
std::optional<aclError> before_finalize();

// The real library.
void *real_symbol(const char *name);
template <typename F>
F real(const char *name) {
  return reinterpret_cast<F>(real_symbol(name));
}
// Releases an executor the mutant does not run.
void release_executor(aclOpExecutor *executor);
// A real executor (workspace 0) that touches only the shim's own memory: what a mutant hands out
// when it accepts a call the real library refuses, and then computes the outputs itself.
aclOpExecutor *token_executor();
// A tensor made by the real library (not recorded by the shim).
aclTensor *real_tensor(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                       int64_t offset, aclDataType dtype, const std::vector<int64_t> &storage,
                       void *data);
std::vector<int64_t> contiguous_strides(const std::vector<int64_t> &dims);
// f(view) while tensor t is alive (not destroyed) and still over `data`, under the lock that
// aclDestroyTensor takes: f never runs after the destroy. Returns whether it ran.
bool with_live_tensor(const aclTensor *t, const void *data,
                      const std::function<void(const View &)> &f);

// ---- Element access and rounding (helpers for mutants that recompute an output) ----------------
// The 16-bit formats are rounded by impl/dtype.hpp's scalar conversions (from the value's double).
bool is_float(aclDataType t);
// The exact value of one storage element.
long double load(const View &v, int64_t element);
// How a value becomes an element of the output dtype.
enum class Rounding {
  kNearest,         // once, to nearest-even, saturating integers (the value of record's rule)
  kTruncateBf16,    // bf16 only: round to float, then drop the low 16 bits
  kTwiceViaFloat,   // fp16/bf16: round to float first, then to the dtype
  kFlushSubnormal,  // as kNearest, then a subnormal result becomes a zero of its sign
  kWrapInt,         // integers: round to nearest-even, then wrap modulo 2^bits
  kTruncateInt,     // integers: toward zero, saturating
};
void store(const View &v, int64_t element, long double value, Rounding r = Rounding::kNearest);
// value rounded to dtype t (nearest-even; integers saturate) and returned as a number.
long double round_to(aclDataType t, long double value);
// The unit in the last place of dtype t at value (floats; 1 for integers).
long double ulp_of(aclDataType t, long double value);
// A float's place on the number line in representable values from zero (negative below it), so
// that the ulps between two floats are the difference of their places.
int64_t float_place(float f);
// Broadcast shape of two shapes (empty optional if they do not broadcast).
std::optional<std::vector<int64_t>> broadcast(const std::vector<int64_t> &a,
                                              const std::vector<int64_t> &b);

// A kernel that uses twice the workspace phase one asked for: `run` (the op's real second call)
// in a private workspace of that size, whose whole content is then copied over the caller's `w`,
// past its end. Nothing when the caller gave less than was asked (the library refuses that).
template <typename PhaseTwo>
std::optional<aclnnStatus> run_past_workspace(Call &c, void *w, uint64_t n, aclOpExecutor *ex,
                                              PhaseTwo run) {
  const uint64_t full = c.workspace_size * 2;
  if (n < c.workspace_size) return std::nullopt;
  void *mine = std::aligned_alloc(64, (full + 63) / 64 * 64);
  const aclnnStatus s = run(mine, full, ex, nullptr);
  if (s == ACLNN_SUCCESS) {
    ++c.runs;
    std::memcpy(w, mine, full);
  }
  std::free(mine);
  return s;
}

// A threaded path that leaves the output's last elements unwritten: for a call of `op` whose output
// has more than `above` elements, the elements from numel - numel mod `multiple` on keep the bytes
// they had before the second call (before_phase_two saves them, after_phase_two puts them back).
class UnwrittenTail {
 public:
  UnwrittenTail(Op op, int64_t above, int64_t multiple)
      : op_(op), above_(above), multiple_(multiple) {}
  void save(const Call *c);
  void restore(const Call *c, aclnnStatus status);

 private:
  Op op_;
  int64_t above_, multiple_;
  std::vector<std::vector<char>> saved_;
};

// ---- The ops in plain scalar code, for mutants that redo an output with one fault -------------
// Each writes every element of the call's output views; `f` gets the two inputs already rounded
// to the computation dtype (= the output's dtype) and returns the exact-ish result.
template <typename F>
void elementwise(const Call &c, F f, Rounding r = Rounding::kNearest) {
  const View &a = c.in[0], &b = c.in[1], &o = c.out[0];
  const int64_t n = o.numel();
  for (int64_t i = 0; i < n; ++i) {
    const long double x = round_to(o.dtype, load(a, a.element(o.dims, i)));
    const long double y = round_to(o.dtype, load(b, b.element(o.dims, i)));
    store(o, o.element(i), f(x, y), r);
  }
}
long double gelu_grad_erf(long double x);   // g(x) of GELU-VALUE-1
long double gelu_grad_tanh(long double x);  // the `tanh-approx` variant; limits at +/-inf
double gelu_grad_tanh_formula(double x);    // its formula in double as written (+/-inf: NaN)
constexpr long double kSeluLambda = 1.0507009873554804934193349852946L;
constexpr long double kSeluAlpha = 1.6732632423543772848170429916717L;
constexpr long double kSeluLambdaAlpha = 1.7580993408473768599402175208123L;
long double selu_grad(long double dy, long double y);               // SELU-VALUE-1, -ZERO-1, -NAN-1
long double logit_grad(long double x, long double dy, double eps);  // LOGIT-* of record

// LayerNormBackward with knobs for the faults the catalog injects.
struct LayerNormFaults {
  bool recompute_stats = false;  // mean and rstd recomputed from the input
  bool accumulate_half = false;  // Σ_row sums rounded to fp16 after every term
  bool wrong_axis = false;       // 2-D normalizedShape: Σ_row over the first axis only
  bool ignore_weight = false;    // w = 1 even when weight is given
  bool skip_nan = false;         // NaN terms left out of the sums
  bool write_masked = false;     // outputs whose mask bit is false are written too
  bool n1_zero = false;          // N = 1: gradInput written as 0
  bool m1_no_xhat = false;       // M = 1: gradWeight = Σ dy (xhat forgotten)
  int alternate_order = 0;       // 1: Σ_rows summed in reverse (float accumulation)
};
void layer_norm_backward(const Call &c, const LayerNormFaults &faults);

// GroupedBiasAddGrad (V1/V2): group end offsets from groupIdx (type 0/1), or none (3-D gradY).
// Returns false if the groupIdx is not a valid one (GBAG-IDX-1).
bool group_ends(const Call &c, std::vector<int64_t> &ends);
struct GbagFaults {
  bool boundary_inclusive = false;  // each group also sums the first row of the next one
  bool drop_last_row = false;       // 3-D gradY: the last of the C rows left out
  bool accumulate_bf16 = false;     // sums rounded to bf16 after every term
  int split_halves = 0;             // > 1: rows summed in that many float partials, then added
};
void grouped_bias_add_grad(const Call &c, const GbagFaults &faults);

}  // namespace mutant
