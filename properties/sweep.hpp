// Value sweeps (issue 32): a fault confined to a narrow window of input values (a few hundred ulps
// of one float, one range of dy) is found by the number of element values a run probes, and a
// generated valid case probes a few dozen at the cost of its rapidcheck shrink trees. A sweep is a
// contiguous call of kSweepElements elements of one float dtype, for an elementwise op whose result
// is dy times a factor of one input (OpDescriptor::range_limits), drawn from a seed without
// rapidcheck: x takes every bit pattern of a 16-bit dtype, or fp32 values drawn mostly from the
// binades where values usually lie; dy is drawn per element. It shrinks by halves, down to the
// failing element.
#pragma once

#include <rapidcheck.h>

#include <cstdint>

#include "properties/case.hpp"
#include "properties/op.hpp"

namespace aclnn_conform {

// Elements of one sweep: every pattern of a 16-bit dtype; in fp32, a few tens of milliseconds of
// judging.
constexpr int64_t kSweepElements = 65536;

// Whether the op has sweeps: an elementwise op with range_limits.
bool has_value_sweeps(const OpDescriptor &op);

// The sweep of `seed` for product p: the first of the float dtypes (in an order the seed draws)
// whose call the oracle accepts for p, else the first one drawn (judged as the call it is).
// Throws std::logic_error for an op without sweeps.
Case value_sweep_case(const OpDescriptor &op, Product p, uint64_t seed);

// A shrink tree that halves every tensor of a one-dimensional contiguous case (each half a
// candidate), recursively: a deviation at one element shrinks to that element in 16 steps.
rc::Shrinkable<Case> halving_shrinkable(Case c);

// A case of n elements, each element e of the one-dimensional case c (outputs as canaries): where a
// climb starts from a sweep's worst element (campaign/climb.hpp), probing around it with n - 1.
Case element_copies(const OpDescriptor &op, const Case &c, int64_t e, int64_t n);

}  // namespace aclnn_conform
