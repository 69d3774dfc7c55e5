// The oracle's deciding clause of each element (DecidingClauses): exact rows for every op's
// special-value clauses, and the same answer from the cheap *_clauses() pass and from the values
// of record (ExpectedOutput::decided_by).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "reference/gelu_backward.hpp"
#include "reference/grouped_bias_add_grad.hpp"
#include "reference/host_tensor.hpp"
#include "reference/layer_norm_backward.hpp"
#include "reference/logit_grad.hpp"
#include "reference/selu_backward.hpp"
#include "reference/spec.hpp"

namespace {
using aclnn_ref::DecidingClauses;
using aclnn_ref::DType;
using aclnn_ref::HostTensor;
using aclnn_ref::TensorView;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// An fp32 tensor of the given values (row-major over shape).
HostTensor fp32(std::vector<int64_t> shape, const std::vector<double> &values) {
  HostTensor t(DType::kFloat32, std::move(shape));
  EXPECT_EQ(t.numel(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    const float f = static_cast<float>(values[i]);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    t.set_bits(static_cast<int64_t>(i), b);
  }
  return t;
}

HostTensor int32(const std::vector<int64_t> &values) {
  HostTensor t(DType::kInt32, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i)
    t.set_bits(static_cast<int64_t>(i), static_cast<uint32_t>(values[i]));
  return t;
}

std::vector<std::string_view> all(const DecidingClauses &d) {
  std::vector<std::string_view> r;
  for (int64_t i = 0; i < static_cast<int64_t>(d.of_element.size()); ++i) r.push_back(d.at(i));
  return r;
}

using Ids = std::vector<std::string_view>;

TEST(DecidingClause, GeluSpecialValues) {
  // x = +inf, -inf, NaN (GELU-SPECIAL-1), the root +- a little (GELU-SPECIAL-2), dy = inf with an
  // ordinary x (GELU-SPECIAL-1), the root + 2^-6 (outside the band), an ordinary x.
  const double root = -0.75179152410535422;
  const HostTensor x = fp32({8}, {kInf, -kInf, kNaN, root, root + 0x1p-8, 1.0, root + 0x1p-5, 2.0});
  const HostTensor dy = fp32({8}, {1, 1, 1, 1, 1, kInf, 1, 1});
  const HostTensor out(DType::kFloat32, {8});
  const TensorView xv = x.view(), dyv = dy.view(), ov = out.view();
  const aclnn_ref::GeluBackwardCall call{&dyv, &xv, &ov};
  const Ids want = {"GELU-SPECIAL-1", "GELU-SPECIAL-1", "GELU-SPECIAL-1", "GELU-SPECIAL-2",
                    "GELU-SPECIAL-2", "GELU-SPECIAL-1", "GELU-VALUE-1",   "GELU-VALUE-1"};
  const DecidingClauses d = aclnn_ref::gelu_backward_clauses(call);
  EXPECT_EQ(all(d), want);
  EXPECT_EQ(d.at(-1), "GELU-VALUE-1");
  EXPECT_EQ(d.at(8), "GELU-VALUE-1");
  EXPECT_EQ(all(aclnn_ref::gelu_backward_values(call)[0].decided_by), want);
}

TEST(DecidingClause, GeluBroadcastReadsTheSourceElement) {
  // x [2, 1] broadcast to [2, 3]: row 0 reads x = +inf, row 1 an ordinary x.
  const HostTensor x = fp32({2, 1}, {kInf, 0.5});
  const HostTensor dy = fp32({3}, {1, 2, 3});
  const HostTensor out(DType::kFloat32, {2, 3});
  const TensorView xv = x.view(), dyv = dy.view(), ov = out.view();
  const aclnn_ref::GeluBackwardCall call{&dyv, &xv, &ov};
  const Ids want = {"GELU-SPECIAL-1", "GELU-SPECIAL-1", "GELU-SPECIAL-1",
                    "GELU-VALUE-1",   "GELU-VALUE-1",   "GELU-VALUE-1"};
  EXPECT_EQ(all(aclnn_ref::gelu_backward_clauses(call)), want);
  EXPECT_EQ(all(aclnn_ref::gelu_backward_values(call)[0].decided_by), want);
}

TEST(DecidingClause, SeluSpecialValues) {
  const HostTensor y = fp32({5}, {kNaN, 0.0, -0.0, -1.0, 2.0});
  const HostTensor dy = fp32({5}, {1, 1, 1, kInf, 1});
  const HostTensor out(DType::kFloat32, {5});
  const TensorView yv = y.view(), dyv = dy.view(), ov = out.view();
  const aclnn_ref::SeluBackwardCall call{&dyv, &yv, &ov};
  const Ids want = {"SELU-NAN-1", "SELU-ZERO-1", "SELU-ZERO-1", "SELU-VALUE-1", "SELU-VALUE-1"};
  EXPECT_EQ(all(aclnn_ref::selu_backward_clauses(call)), want);
  EXPECT_EQ(all(aclnn_ref::selu_backward_values(call)[0].decided_by), want);
}

TEST(DecidingClause, SeluIntegerOutput) {
  HostTensor y(DType::kInt8, {3}), dy(DType::kInt8, {3}), out(DType::kInt8, {3});
  y.set_bits(0, 0);  // y = 0: SELU-ZERO-1 comes before SELU-INT-1
  y.set_bits(1, 5);
  y.set_bits(2, static_cast<uint8_t>(-3));
  const TensorView yv = y.view(), dyv = dy.view(), ov = out.view();
  const aclnn_ref::SeluBackwardCall call{&dyv, &yv, &ov};
  const Ids want = {"SELU-ZERO-1", "SELU-INT-1", "SELU-INT-1"};
  EXPECT_EQ(all(aclnn_ref::selu_backward_clauses(call)), want);
  EXPECT_EQ(all(aclnn_ref::selu_backward_values(call)[0].decided_by), want);
}

TEST(DecidingClause, LogitEpsClausesDecideEveryElement) {
  const HostTensor x = fp32({3}, {0.5, kNaN, 0.0});
  const HostTensor dy = fp32({3}, {1, 1, kInf});
  const HostTensor out(DType::kFloat32, {3});
  const TensorView xv = x.view(), dyv = dy.view(), ov = out.view();
  const std::pair<double, std::string_view> rows[] = {{kNaN, "LOGIT-EPS-NAN-1"},
                                                      {kInf, "LOGIT-EPS-INF-1"},
                                                      {1.5, "LOGIT-EPS-GT1-1"},
                                                      {1.0, "LOGIT-EPS-EQ1-1"}};
  for (const auto &[eps, id] : rows) {
    const aclnn_ref::LogitGradCall call{&xv, &dyv, eps, &ov};
    const DecidingClauses d = aclnn_ref::logit_grad_clauses(call);
    EXPECT_EQ(all(d), Ids(3, id)) << eps;
    EXPECT_EQ(d.at(-1), id) << "an index outside out is decided by eps too";
    EXPECT_EQ(all(aclnn_ref::logit_grad_values(call)[0].decided_by), Ids(3, id)) << eps;
  }
}

TEST(DecidingClause, LogitElementClauses) {
  // eps = 0.25: x = inf (X-NONFINITE), x and dy NaN (X-NONFINITE comes first), dy = -inf
  // (DY-NONFINITE), x = 0 outside [eps, 1 - eps] (VALUE-1, not X01), x = 0.5 (VALUE-1).
  const HostTensor x = fp32({5}, {kInf, kNaN, 0.5, 0.0, 0.5});
  const HostTensor dy = fp32({5}, {1, kNaN, -kInf, 1, 1});
  const HostTensor out(DType::kFloat32, {5});
  const TensorView xv = x.view(), dyv = dy.view(), ov = out.view();
  const aclnn_ref::LogitGradCall call{&xv, &dyv, 0.25, &ov};
  const Ids want = {"LOGIT-X-NONFINITE-1", "LOGIT-X-NONFINITE-1", "LOGIT-DY-NONFINITE-1",
                    "LOGIT-VALUE-1", "LOGIT-VALUE-1"};
  EXPECT_EQ(all(aclnn_ref::logit_grad_clauses(call)), want);
  EXPECT_EQ(all(aclnn_ref::logit_grad_values(call)[0].decided_by), want);

  // eps < 0: the range is [0, 1], so x = 0 and x = 1 are LOGIT-X01-1; x = 2 is outside.
  const HostTensor x2 = fp32({4}, {0.0, 1.0, 2.0, 0.5});
  const HostTensor dy2 = fp32({4}, {1, 0, 1, 1});
  const HostTensor out2(DType::kFloat32, {4});
  const TensorView xv2 = x2.view(), dyv2 = dy2.view(), ov2 = out2.view();
  const aclnn_ref::LogitGradCall call2{&xv2, &dyv2, -1.0, &ov2};
  const Ids want2 = {"LOGIT-X01-1", "LOGIT-X01-1", "LOGIT-VALUE-1", "LOGIT-VALUE-1"};
  EXPECT_EQ(all(aclnn_ref::logit_grad_clauses(call2)), want2);
  EXPECT_EQ(all(aclnn_ref::logit_grad_values(call2)[0].decided_by), want2);
}

TEST(DecidingClause, LogitInsideRangeIsExact) {
  using aclnn_ref::logit_grad_inside_range;
  EXPECT_TRUE(logit_grad_inside_range(0.0, -1.0));
  EXPECT_TRUE(logit_grad_inside_range(1.0, -0.5));
  EXPECT_FALSE(logit_grad_inside_range(std::nextafter(1.0, 2.0), -1.0));
  EXPECT_TRUE(logit_grad_inside_range(0.25, 0.25));
  EXPECT_TRUE(logit_grad_inside_range(0.75, 0.25));
  EXPECT_FALSE(logit_grad_inside_range(std::nextafter(0.75, 1.0), 0.25));
  EXPECT_FALSE(logit_grad_inside_range(std::nextafter(0.25, 0.0), 0.25));
  // 1 - eps rounds up to 1 in double for eps = 2^-60; x = 1 is still outside [eps, 1 - eps].
  EXPECT_FALSE(logit_grad_inside_range(1.0, 0x1p-60));
}

TEST(DecidingClause, LayerNormSpecialRowsAndColumns) {
  // M = 2 rows, N = 2. Row 0 has x = NaN at column 1; row 1 has mean = inf.
  const HostTensor x = fp32({2, 2}, {1, kNaN, 3, 4});
  const HostTensor dy = fp32({2, 2}, {1, 1, 1, 1});
  const HostTensor mean = fp32({2}, {0.5, kInf}), rstd = fp32({2}, {1, 1});
  const HostTensor gi(DType::kFloat32, {2, 2}), gw(DType::kFloat32, {2}), gb(DType::kFloat32, {2});
  const std::vector<int64_t> ns = {2};
  const std::vector<bool> mask = {true, true, true};
  const TensorView xv = x.view(), dyv = dy.view(), mv = mean.view(), rv = rstd.view(),
                   giv = gi.view(), gwv = gw.view(), gbv = gb.view();
  aclnn_ref::LayerNormBackwardCall call;
  call.grad_out = &dyv;
  call.input = &xv;
  call.normalized_shape = &ns;
  call.mean = &mv;
  call.rstd = &rv;
  call.output_mask = &mask;
  call.grad_input = &giv;
  call.grad_weight = &gwv;
  call.grad_bias = &gbv;
  const Ids want_gi(4, "LN-SPECIAL-1");              // both rows hold a non-finite value
  const Ids want_gw(2, "LN-SPECIAL-1");              // mean = inf takes part in every column
  const Ids want_gb = {"LN-VALUE-2", "LN-VALUE-2"};  // dy is finite: gradBias sums dy only
  const auto d = aclnn_ref::layer_norm_backward_clauses(call);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(all(d[0]), want_gi);
  EXPECT_EQ(all(d[1]), want_gw);
  EXPECT_EQ(all(d[2]), want_gb);
  const auto values = aclnn_ref::layer_norm_backward_values(call);
  EXPECT_EQ(all(values[0].decided_by), want_gi);
  EXPECT_EQ(all(values[1].decided_by), want_gw);
  EXPECT_EQ(all(values[2].decided_by), want_gb);

  // A non-finite weight makes the gradInput of every row special, not the column sums.
  const HostTensor x2 = fp32({2, 2}, {1, 2, 3, 4}), mean2 = fp32({2}, {0.5, 0.5});
  const HostTensor w = fp32({2}, {1, kInf});
  const TensorView xv2 = x2.view(), mv2 = mean2.view(), wv = w.view();
  call.input = &xv2;
  call.mean = &mv2;
  call.weight = &wv;
  const auto d2 = aclnn_ref::layer_norm_backward_clauses(call);
  EXPECT_EQ(all(d2[0]), want_gi);
  EXPECT_EQ(all(d2[1]), Ids(2, "LN-VALUE-2"));
  EXPECT_EQ(all(d2[2]), Ids(2, "LN-VALUE-2"));
  EXPECT_EQ(d2[0].at(4), "LN-VALUE-1");
}

TEST(DecidingClause, LayerNormEmptyRows) {
  const HostTensor x(DType::kFloat32, {0, 3}), dy(DType::kFloat32, {0, 3});
  const HostTensor mean(DType::kFloat32, {0}), rstd(DType::kFloat32, {0});
  const std::vector<int64_t> ns = {3};
  const TensorView xv = x.view(), dyv = dy.view(), mv = mean.view(), rv = rstd.view();
  aclnn_ref::LayerNormBackwardCall call;
  call.grad_out = &dyv;
  call.input = &xv;
  call.normalized_shape = &ns;
  call.mean = &mv;
  call.rstd = &rv;
  const auto d = aclnn_ref::layer_norm_backward_clauses(call);
  EXPECT_TRUE(d[0].of_element.empty());
  EXPECT_EQ(all(d[1]), Ids(3, "LN-EMPTY-1"));
  EXPECT_EQ(d[2].at(7), "LN-EMPTY-1");
}

TEST(DecidingClause, GroupedBiasAddGradGroups) {
  // gradY [4, 2], groupIdx end offsets (1, 1, 4): group 1 is empty; group 2 sums rows 1..3, one
  // of which holds NaN in column 0.
  const HostTensor y = fp32({4, 2}, {1, 2, 3, 4, kNaN, 6, 7, 8});
  const HostTensor idx = int32({1, 1, 4});
  const HostTensor out(DType::kFloat32, {3, 2});
  const TensorView yv = y.view(), iv = idx.view(), ov = out.view();
  const aclnn_ref::GroupedBiasAddGradCall call{&yv, &iv, &ov};
  const Ids want = {"GBAG-VALUE-1", "GBAG-VALUE-1",   "GBAG-EMPTY-1",
                    "GBAG-EMPTY-1", "GBAG-SPECIAL-1", "GBAG-VALUE-1"};
  EXPECT_EQ(all(aclnn_ref::grouped_bias_add_grad_clauses(call)), want);
  EXPECT_EQ(all(aclnn_ref::grouped_bias_add_grad_values(call)[0].decided_by), want);

  // V2 type 1: sizes (1, 0, 3) are the same groups.
  const HostTensor sizes = int32({1, 0, 3});
  const TensorView sv = sizes.view();
  const aclnn_ref::GroupedBiasAddGradCall v2{&yv, &sv, &ov, 1, true};
  EXPECT_EQ(all(aclnn_ref::grouped_bias_add_grad_clauses(v2)), want);
  EXPECT_EQ(all(aclnn_ref::grouped_bias_add_grad_values(v2)[0].decided_by), want);
}

TEST(DecidingClause, GroupedBiasAddGradWithoutGroupIdx) {
  // gradY [2, 2, 1]: group 0 sums (1, inf), group 1 sums (3, 4).
  const HostTensor y = fp32({2, 2, 1}, {1, kInf, 3, 4});
  const HostTensor out(DType::kFloat32, {2, 1});
  const TensorView yv = y.view(), ov = out.view();
  const aclnn_ref::GroupedBiasAddGradCall call{&yv, nullptr, &ov};
  const Ids want = {"GBAG-SPECIAL-1", "GBAG-VALUE-2"};
  EXPECT_EQ(all(aclnn_ref::grouped_bias_add_grad_clauses(call)), want);
  EXPECT_EQ(all(aclnn_ref::grouped_bias_add_grad_values(call)[0].decided_by), want);
  EXPECT_EQ(aclnn_ref::grouped_bias_add_grad_clauses(call).at(5), "GBAG-VALUE-2");
}

TEST(DecidingClause, DistinctKeepsFirstAppearanceOrder) {
  const DecidingClauses d{aclnn_ref::kSeluDecidingClauses, {2, 0, 2, 1, 0}, 0};
  EXPECT_EQ(d.distinct(), (Ids{"SELU-ZERO-1", "SELU-VALUE-1", "SELU-NAN-1"}));
  EXPECT_EQ(DecidingClauses{}.at(0), "");
}

}  // namespace

namespace {
using aclnn_ref::TensorView;

TensorView layout(std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offset = 0) {
  return TensorView{aclnn_ref::DType::kFloat32, std::move(shape), std::move(strides), offset,
                    nullptr};
}

// ABI-INPUT-1: an output view is rejected exactly when two of its indices reach one element,
// including layouts the sorted-stride test cannot prove disjoint (decided by marking elements).
TEST(OutputOverlap, TwoIndicesOnOneElementAreFoundExactly) {
  using aclnn_ref::maps_two_indices_to_one_element;
  EXPECT_FALSE(maps_two_indices_to_one_element(layout({2, 3}, {3, 1})));  // contiguous
  EXPECT_TRUE(maps_two_indices_to_one_element(layout({2, 3}, {0, 1})));   // rows on one row
  EXPECT_FALSE(maps_two_indices_to_one_element(layout({1, 3}, {0, 1})));  // a size-1 dim's stride
  EXPECT_FALSE(maps_two_indices_to_one_element(layout({3}, {-1}, 2)));    // reversed
  // {0, 2, 3, 5} are distinct; {0, 2, 1, 3, 2, 4} are not.
  EXPECT_FALSE(maps_two_indices_to_one_element(layout({2, 2}, {3, 2})));
  EXPECT_TRUE(maps_two_indices_to_one_element(layout({3, 2}, {1, 2})));
  // Not provable by sorted strides (3 <= the span 4 of the stride-2 dim), yet distinct:
  // {0, 2, 4, 3, 5, 7}.
  EXPECT_FALSE(maps_two_indices_to_one_element(layout({3, 2}, {2, 3})));
  EXPECT_FALSE(maps_two_indices_to_one_element(layout({0, 3}, {0, 0})));  // empty
  EXPECT_EQ(aclnn_ref::self_overlap("out", layout({2, 3}, {3, 1})), "");
  EXPECT_NE(aclnn_ref::self_overlap("out", layout({2, 3}, {0, 1}))
                .find("out (shape [2, 3], strides [0, 1])"),
            std::string::npos);
}
}  // namespace
