// Fault classes the catalog carries for every op they apply to (issue 32: a class present for one
// op only let the same fault in another op survive): a legal output view refused or its elements
// written at the wrong places, and a kernel that writes past the workspace it asked for. Each
// mutant of such a class is a few lines naming its op and output (mutants/catalog/*.cpp).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "mutants/shim.hpp"

namespace mutant::fault {

inline bool is(const Call &c, Op op) {
  return c.op == op || (op == Op::kGbag && c.op == Op::kGbagV2);
}

// The output's view, when present, written by the call and not empty.
inline const View *output(const Call &c, Op op, size_t k) {
  if (!is(c, op) || k >= c.out.size() || !c.out[k].present || c.out[k].numel() == 0) return nullptr;
  if (c.op == Op::kLayerNorm && k < c.mask.size() && !c.mask[k]) return nullptr;
  return &c.out[k];
}

// ---- Legal output views refused (161002) ----------------------------------------------------

// A zero stride on any dim: legal only on a dim of size 1 (never stepped over), which an overlap
// check that takes every zero stride for an expanded dim refuses.
inline std::optional<aclnnStatus> refuse_zero_stride(const Call &c, Op op, size_t k) {
  const View *o = output(c, op, k);
  if (o && std::count(o->strides.begin(), o->strides.end(), 0) > 0) return ACLNN_ERR_PARAM_INVALID;
  return std::nullopt;
}

// Not provably free of overlap by the sufficient test alone (dims of size > 1 sorted by stride,
// each stride beyond the span of the smaller ones): an interleaved view whose elements never meet
// is refused.
inline std::optional<aclnnStatus> refuse_interleaved(const Call &c, Op op, size_t k) {
  const View *o = output(c, op, k);
  if (!o) return std::nullopt;
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims of size > 1
  for (size_t d = 0; d < o->dims.size(); ++d)
    if (o->dims[d] > 1) dims.emplace_back(o->strides[d], o->dims[d]);
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;
  for (auto [stride, size] : dims) {
    if (stride <= span) return ACLNN_ERR_PARAM_INVALID;
    span += (size - 1) * stride;
  }
  return std::nullopt;
}

// ---- Output elements written at the wrong places ------------------------------------------------

// Where a faulty kernel writes row-major element `flat` of the view (a storage element index);
// -1 for "as the view says".
using Placement = std::function<int64_t(const View &, int64_t flat)>;

// Before phase two the output's storage is saved; after it, the values the real kernel wrote are
// moved to where `place` puts them and the right places get their old bytes back, as a kernel
// with that addressing fault would leave them. A placement that leaves the storage is not applied
// (a real kernel would write out of bounds there; the mutant must not).
class Misplaced {
 public:
  Misplaced(Op op, size_t k, Placement place) : op_(op), k_(k), place_(std::move(place)) {}

  void save(const Call *c) {
    before_.clear();
    const View *o = c ? output(*c, op_, k_) : nullptr;
    if (!o) return;
    const char *p = static_cast<const char *>(o->data);
    before_.assign(p, p + o->storage_numel() * o->element_size());
  }

  void apply(const Call *c, aclnnStatus status) {
    const View *o = c ? output(*c, op_, k_) : nullptr;
    if (!o || status != ACLNN_SUCCESS || before_.empty()) return;
    const int64_t n = o->numel();
    std::vector<int64_t> wrong(static_cast<size_t>(n));
    bool moved = false;
    for (int64_t flat = 0; flat < n; ++flat) {
      int64_t pos = place_(*o, flat);
      if (pos < 0) pos = o->element(flat);
      if (pos >= o->storage_numel()) return;
      moved |= pos != o->element(flat);
      wrong[static_cast<size_t>(flat)] = pos;
    }
    if (!moved) return;
    const size_t es = o->element_size();
    char *p = static_cast<char *>(o->data);
    std::vector<char> values(static_cast<size_t>(n) * es);
    for (int64_t flat = 0; flat < n; ++flat)
      std::memcpy(values.data() + flat * es, p + o->element(flat) * es, es);
    std::memcpy(p, before_.data(), before_.size());
    for (int64_t flat = 0; flat < n; ++flat)
      std::memcpy(p + wrong[static_cast<size_t>(flat)] * es, values.data() + flat * es, es);
  }

 private:
  Op op_;
  size_t k_;
  Placement place_;
  std::vector<char> before_;
};

// The view's offset ignored: elements placed as if it were 0.
inline int64_t offset_ignored(const View &o, int64_t flat) {
  return o.offset == 0 ? -1 : o.element(flat) - o.offset;
}

// The strides ignored: elements written contiguously from the offset.
inline int64_t strides_ignored(const View &o, int64_t flat) {
  return o.contiguous() ? -1 : o.offset + flat;
}

// ---- A workspace smaller than the kernel uses ---------------------------------------------------

// Phase one asks for `asked` bytes where the real library asks for none (or half of what it asks);
// phase two runs the real kernel and then writes `asked + extra` bytes into the workspace, as a
// kernel whose scratch is larger than the size it reported.
inline void ask_workspace(const Call &c, Op op, aclnnStatus status, uint64_t *ws, uint64_t asked) {
  const View *o = output(c, op, 0);
  if (o && status == ACLNN_SUCCESS && ws && *ws == 0) *ws = asked;
}

inline void write_past_workspace(const Call *c, Op op, aclnnStatus status, void *w, uint64_t n,
                                 uint64_t extra) {
  if (!c || !is(*c, op) || status != ACLNN_SUCCESS || !w || n == 0) return;
  std::memset(w, 0x5a, static_cast<size_t>(n + extra));
}

}  // namespace mutant::fault

// The hooks of a mutant that misplaces output k of op (a fault::Placement), inside namespace
// mutant.
#define ACLNN_MUTANT_MISPLACED(op, k, place)                                                   \
  namespace {                                                                                  \
  fault::Misplaced misplaced(op, k, place);                                                    \
  }                                                                                            \
  std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *) { \
    misplaced.save(c);                                                                         \
    return std::nullopt;                                                                       \
  }                                                                                            \
  void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {                       \
    misplaced.apply(c, status);                                                                \
  }

// The hooks of a mutant of op that asks for `asked` workspace bytes and writes `extra` past them.
#define ACLNN_MUTANT_WORKSPACE_OVERRUN(op, asked, extra)                               \
  void after_phase_one(Call &c, aclnnStatus &status, uint64_t *ws, aclOpExecutor **) { \
    fault::ask_workspace(c, op, status, ws, asked);                                    \
  }                                                                                    \
  void after_phase_two(Call *c, aclnnStatus &status, void *w, uint64_t n) {            \
    fault::write_past_workspace(c, op, status, w, n, extra);                           \
  }
