// The campaign's case stream reaches in-place calls and calls that need a workspace, on any SUT,
// and the judge flags the faults that live there: the built-in library conforms on them, and the
// mutants that reject in-place use, or overrun their workspace, are caught (mutants/).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "campaign/task.hpp"
#include "properties/judge.hpp"
#include "properties/runner.hpp"

namespace {
using namespace aclnn_conform;

std::unique_ptr<Sut> load(const std::string &name) {
  std::string error;
  auto sut =
      Sut::load(std::string(ACLNN_TEST_MUTANTS_DIR) + "/libaclnn_mutant_" + name + ".so", error);
  EXPECT_NE(sut, nullptr) << error;
  return sut;
}

// The first n valid tasks of the ci tier's seed space whose case satisfies pred.
std::vector<Case> generated(const OpDescriptor &op, bool large, int n,
                            const std::function<bool(const Case &)> &pred) {
  CampaignConfig cfg;
  cfg.seed = 3;
  std::vector<Case> out;
  const std::vector<const OpDescriptor *> ops = {&op};
  for (int64_t k = 0; k < 4000 && static_cast<int>(out.size()) < n; ++k) {
    Task t = generated_task(ops, cfg, k);
    if (t.kind != Task::Kind::kValid || t.large != large) continue;
    Case c = task_case(t, cfg);
    if (pred(c)) out.push_back(std::move(c));
  }
  return out;
}

bool in_place(const Case &c) {
  return !c.aliases.empty();
}

TEST(CaseStream, ElementwiseOpsGetInPlaceCallsOfBothKinds) {
  for (const OpDescriptor *op : {&gelu_backward_op(), &selu_backward_op(), &logit_grad_op()}) {
    const auto cases = generated(*op, false, 40, in_place);
    ASSERT_EQ(cases.size(), 40u) << op->name;
    std::set<bool> handles;
    std::set<std::string> inputs;
    for (const Case &c : cases) {
      const Alias &a = c.aliases.front();
      handles.insert(a.same_handle);
      inputs.insert(a.input);
      const TensorArg &o = *c.tensor(a.output), &i = *c.tensor(a.input);
      // Exactly the input's view: same dtype, shape, strides, offset and storage.
      EXPECT_TRUE(o.dtype == i.dtype && o.shape == i.shape && o.strides == i.strides &&
                  o.offset == i.offset && o.storage == i.storage)
          << c.describe();
      EXPECT_TRUE(op->check(c, {}).ok()) << c.describe();
      // A stored counterexample keeps the alias.
      EXPECT_EQ(case_from_json(to_json(c)).aliases.size(), 1u);
    }
    EXPECT_EQ(handles.size(), 2u) << op->name;
    EXPECT_EQ(inputs.size(), 2u) << op->name;  // either input may be overwritten
  }
}

TEST(CaseStream, BuiltinConformsInPlaceAndTheJudgeSeesTheOverwrittenInput) {
  auto sut = Sut::builtin();
  ASSERT_NE(sut, nullptr);
  for (const OpDescriptor *op : {&gelu_backward_op(), &selu_backward_op(), &logit_grad_op()})
    for (const Case &c : generated(*op, false, 15, in_place)) {
      const Outcome o = run_case(*sut, *op, c);
      const Judgement j = judge(*op, c, o);
      EXPECT_TRUE(j.pass()) << c.describe() << "\n" << j.failures();
      // The input's storage after the call is the output's: the call really ran in place.
      size_t in = 0, out = 0;
      for (size_t k = 0; k < c.tensors.size(); ++k) {
        if (c.tensors[k].first == c.aliases.front().input) in = k;
        if (c.tensors[k].first == c.aliases.front().output) out = k;
      }
      EXPECT_EQ(o.storage_after[in], o.storage_after[out]);
    }
}

TEST(CaseStream, InPlaceRejectionIsCaught) {
  auto sut = load("selu_in_place_rejected");
  ASSERT_NE(sut, nullptr);
  const auto cases = generated(selu_backward_op(), false, 10, [](const Case &c) {
    return in_place(c) && c.tensor("gradInput")->numel() > 0;
  });
  ASSERT_FALSE(cases.empty());
  for (const Case &c : cases) {
    const Judgement j = judge(selu_backward_op(), c, run_case(*sut, selu_backward_op(), c));
    EXPECT_FALSE(j.pass()) << c.describe();
    // The op's own clauses (SELU-VALUE-1, or SELU-INT-1 for integers) name the refusal.
    EXPECT_NE(j.failures().find("SELU-"), std::string::npos) << j.failures();
    EXPECT_NE(j.failures().find("a valid call was rejected"), std::string::npos) << j.failures();
  }
}

// A mutant that recomputes an output reads the inputs as they were before the call (the shim
// keeps a copy when an output aliases an input), so in-place cases do not kill it by accident:
// rounding fp16 twice stays within VAL-TOL-1 in place too, away from the overflow threshold
// (where it is a deviation, VAL-OVERFLOW-1: cases with |gradOutput| >= 1024 are left out).
TEST(CaseStream, MutantsRecomputeFromTheInputsBeforeTheCall) {
  auto sut = load("selu_f16_double_round");
  ASSERT_NE(sut, nullptr);
  const auto cases = generated(selu_backward_op(), false, 10, [](const Case &c) {
    if (!in_place(c) || c.tensor("gradInput")->dtype != aclnn_ref::DType::kFloat16) return false;
    const auto *dy = c.view("gradOutput");
    for (int64_t i = 0; i < c.tensor("gradOutput")->numel(); ++i)
      if (!(std::fabs(dy->at(i)) < 1024)) return false;
    return true;
  });
  ASSERT_FALSE(cases.empty());
  for (const Case &c : cases) {
    const Judgement j = judge(selu_backward_op(), c, run_case(*sut, selu_backward_op(), c));
    EXPECT_TRUE(j.pass()) << c.describe() << "\n" << j.failures();
  }
}

// Large GroupedBiasAddGrad calls: some make the built-in library ask for a workspace (a group of
// many rows is summed in blocks whose partial sums live there), and the built-in conforms.
TEST(CaseStream, LargeCallsNeedAWorkspaceAndConform) {
  auto sut = Sut::builtin();
  ASSERT_NE(sut, nullptr);
  int with_workspace = 0;
  for (const OpDescriptor *op : {&grouped_bias_add_grad_op(), &grouped_bias_add_grad_v2_op()}) {
    // Large calls lie either side of the library's 64 K-element thread split (a row's width
    // below it, or up to 16 times above): most of them above.
    int above_split = 0;
    const auto cases = generated(*op, true, 6, [](const Case &) { return true; });
    for (const Case &c : cases) {
      above_split += c.tensor("gradY")->numel() > 65535;
      const Outcome o = run_case(*sut, *op, c);
      with_workspace += o.workspace_size > 0;
      const Judgement j = judge(*op, c, o);
      EXPECT_TRUE(j.pass()) << c.describe() << "\n" << j.failures();
    }
    EXPECT_GT(above_split, 0) << op->name;
  }
  EXPECT_GT(with_workspace, 0);
  // The fixed tasks at the start of every campaign include large calls of every op that has them.
  CampaignConfig cfg;
  int large = 0;
  for (const Task &t : fixed_probe_tasks(registry(), cfg)) large += t.large;
  EXPECT_EQ(large, 2 * static_cast<int>(registry().size()));
}

TEST(CaseStream, WorkspaceOverrunIsCaught) {
  auto sut = load("gbag_workspace_overrun");
  ASSERT_NE(sut, nullptr);
  auto builtin = Sut::builtin();
  const OpDescriptor &op = grouped_bias_add_grad_op();
  int caught = 0;
  for (const Case &c : generated(op, true, 8, [](const Case &) { return true; })) {
    if (run_case(*builtin, op, c).workspace_size == 0) continue;
    const Judgement j = judge(op, c, run_case(*sut, op, c));
    EXPECT_NE(j.failures().find("ABI-INPUT-1"), std::string::npos) << j.failures();
    ++caught;
  }
  EXPECT_GT(caught, 0);
}

}  // namespace
