// Value sweeps (issue 32): a fault confined to a narrow window of input values (a few hundred ulps
// of one float, one range of dy) is found by the number of element values a run probes, and a
// generated valid case probes a few dozen at the cost of its rapidcheck shrink trees. Two kinds:
// - Elementwise ops whose result is dy times a factor of one input (OpDescriptor::range_limits):
//   a contiguous call of kSweepElements elements of one float dtype, drawn from a seed without
//   rapidcheck: x takes every bit pattern of a 16-bit dtype, or fp32 values drawn mostly from the
//   binades where values usually lie; dy is drawn per element. It shrinks by halves, down to the
//   failing element.
// - Ops that read rows or groups (LayerNormBackward, GroupedBiasAddGrad): the op's large valid
//   call (gen_sweep, else gen_large) with every float input element drawn again from those
//   binades as a finite value, its sign kept (rstd stays positive). It shrinks as the large call
//   does, the values following their flat index.
#pragma once

#include <rapidcheck.h>

#include <cstdint>

#include "properties/case.hpp"
#include "properties/op.hpp"

namespace aclnn_conform {

// Elements of one sweep: every pattern of a 16-bit dtype; in fp32, a few tens of milliseconds of
// judging.
constexpr int64_t kSweepElements = 65536;
// One valid, non-large generated index in this many is a sweep (campaign/task.hpp): elementwise
// sweeps take tens of milliseconds, the refilled large calls a few tenths of a second.
constexpr int kElementwiseSweepOneIn = 12;
constexpr int kRowSweepOneIn = 16;

// Whether the op has sweeps (range_limits or gen_large), and of which kind.
bool has_value_sweeps(const OpDescriptor &op);
bool has_elementwise_sweeps(const OpDescriptor &op);

// The sweep of `seed` for product p as a shrink tree: elementwise sweeps halve; the others are
// gen_large's call at `size`, refilled, and shrink as it does. Throws std::logic_error for an op
// without sweeps.
rc::Shrinkable<Case> value_sweep_shrinkable(const OpDescriptor &op, Product p, uint64_t seed,
                                            int size);

// Every present element of the float inputs (not outputs, not aliased) of c, NaN and infinities
// included, drawn again from the sweep binades as a finite value, keeping its sign bit; the draw of
// an element follows its tensor's position and its flat index, so a smaller shrink of the call
// keeps the values of its first elements.
void refill_values(const OpDescriptor &op, Case &c, uint64_t seed);

// The dtype of c's float input (not an output) with the most elements; kInt8 if it has none. Half
// the row sweeps are of calls where it is FLOAT.
aclnn_ref::DType widest_float_input(const OpDescriptor &op, const Case &c);

// The elementwise sweep of `seed` for product p: attributes from range_limits.sweep_attrs (else
// attrs) by the seed; x, dy and the output in the first of the float dtypes (in an order the seed
// draws) whose call the oracle accepts for p, else the first one drawn (judged as the call it is);
// in a quarter of the sweeps, first x in one float dtype and dy and the output in others where the
// op accepts such a call. Throws std::logic_error for an op without elementwise sweeps.
Case value_sweep_case(const OpDescriptor &op, Product p, uint64_t seed);

// A shrink tree that halves every tensor of a one-dimensional contiguous case (each half a
// candidate), recursively: a deviation at one element shrinks to that element in 16 steps.
rc::Shrinkable<Case> halving_shrinkable(Case c);

// A case of n elements, each element e of the one-dimensional case c (outputs as canaries): where a
// climb starts from a sweep's worst element (campaign/climb.hpp), probing around it with n - 1.
Case element_copies(const OpDescriptor &op, const Case &c, int64_t e, int64_t n);

}  // namespace aclnn_conform
