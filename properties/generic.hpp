// Property bodies shared by every op (they use RC_ASSERT and friends, so call them inside a
// property). Each runs generated cases on a SUT and judges them against the oracle.
#pragma once

#include <string>

#include "properties/case.hpp"
#include "properties/judge.hpp"
#include "properties/op.hpp"
#include "properties/sut.hpp"

namespace aclnn_conform {

// The built-in library, loaded once per process.
const Sut &builtin_sut();

// 1. A valid call succeeds and every output matches the oracle (VAL-TOL-1 part 2 by default);
//    inputs, guards and storage around the outputs are unchanged. Tags the clauses reached.
void prop_valid_call_matches_oracle(const Sut &sut, const OpDescriptor &op, Product product,
                                    const JudgePolicy &policy = {});

// 2. An invalid call returns the status of the first failing clause in the spec's order, in
//    phase one, with an error text, and leaves every tensor untouched. Tags the deciding clause.
void prop_invalid_call_rejected(const Sut &sut, const OpDescriptor &op, Product product);

// 3. Determinism (VAL-DET-1): the same valid call twice, and with ACLNN_CPU_NUM_THREADS 1 and 2
//    (built-in library), gives bitwise identical storage.
void prop_deterministic(const Sut &sut, const OpDescriptor &op, Product product);

// 3. The protocol probes of properties/protocol.hpp: two-phase checks (an executor runs once,
//    ABI-TWOPHASE-2/3/4), determinism, formats, tensor creation and the runtime.
void prop_executor_runs_once(const Sut &sut, const OpDescriptor &op, Product product);

// Asserts the judgement passed, printing the case and the failing clauses otherwise.
void assert_judged(const Case &c, const Judgement &j);

}  // namespace aclnn_conform
