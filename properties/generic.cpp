#include "properties/generic.hpp"

#include <rapidcheck.h>

#include <cstdlib>
#include <stdexcept>

#include "properties/protocol.hpp"

namespace aclnn_conform {

const Sut &builtin_sut() {
  static std::unique_ptr<Sut> sut = [] {
    auto s = Sut::builtin();
    if (!s) throw std::runtime_error("cannot load the built-in library " + Sut::builtin_path());
    return s;
  }();
  return *sut;
}

void assert_judged(const Case &c, const Judgement &j) {
  if (j.pass()) return;
  RC_FAIL("deviation on " + c.describe() + "\n" + j.failures());
}

void prop_valid_call_matches_oracle(const Sut &sut, const OpDescriptor &op, Product product,
                                    const JudgePolicy &policy) {
  const Case c = *op.gen_valid(product);
  const auto verdict = op.check(c, policy.variants);
  RC_PRE(verdict.ok());  // the generator aims at valid calls; the oracle has the last word
  for (const auto &clause : op.reached(c)) RC_TAG(clause);
  const Outcome o = run_case(sut, op, c);
  assert_judged(c, judge(op, c, o, policy));
}

void prop_invalid_call_rejected(const Sut &sut, const OpDescriptor &op, Product product) {
  const Case c = *op.gen_invalid(product);
  const auto verdict = op.check(c, {});
  RC_TAG(verdict.ok() ? std::string("valid") : verdict.clause);
  const Outcome o = run_case(sut, op, c);
  assert_judged(c, judge(op, c, o));
}

void prop_deterministic(const Sut &sut, const OpDescriptor &op, Product product) {
  const Case c = *op.gen_valid(product);
  RC_PRE(op.check(c, {}).ok());
  const char *saved = std::getenv("ACLNN_CPU_NUM_THREADS");
  const std::string restore = saved ? saved : "";
  setenv("ACLNN_CPU_NUM_THREADS", "1", 1);
  const Outcome one = run_case(sut, op, c);
  setenv("ACLNN_CPU_NUM_THREADS", "2", 1);
  const Outcome two = run_case(sut, op, c);
  const Outcome again = run_case(sut, op, c);
  if (saved)
    setenv("ACLNN_CPU_NUM_THREADS", restore.c_str(), 1);
  else
    unsetenv("ACLNN_CPU_NUM_THREADS");
  RC_ASSERT(one.status == 0 && two.status == 0 && again.status == 0);
  RC_ASSERT(output_storage(op, c, one) == output_storage(op, c, two));
  RC_ASSERT(output_storage(op, c, two) == output_storage(op, c, again));
}

void prop_executor_runs_once(const Sut &sut, const OpDescriptor &op, Product product) {
  const Case c = *op.gen_valid(product);
  RC_PRE(op.check(c, {}).ok());
  // The shared two-phase rules (ABI-TWOPHASE-2/3/4) and the other protocol probes, as a campaign
  // runs them on any SUT.
  const auto results = protocol_probe(sut, op, c);
  for (const auto &r : results) {
    RC_TAG(r.clause);
    if (!r.pass) RC_FAIL(r.clause + " on " + c.describe() + ": " + r.detail);
  }
}

}  // namespace aclnn_conform
