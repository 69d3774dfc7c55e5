#include "reference/layer_norm_backward.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/exact_sum.hpp"

namespace aclnn_ref {
namespace {

constexpr int kMaxRank = 8;

std::string shape_str(const std::vector<int64_t> &s) {
  return fmt::format("[{}]", fmt::join(s, ","));
}

Verdict fail(int32_t st, const char *clause, std::string reason) {
  return Verdict{st, clause, std::move(reason)};
}

bool float_ok(DType t, Product p) {
  return t == DType::kFloat32 || t == DType::kFloat16 ||
         (t == DType::kBFloat16 && product_has_bf16(p));
}

int64_t product_of(const std::vector<int64_t> &s, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) n *= s[i];
  return n;
}

// Upward-rounded helpers on non-negative doubles (error scales are upper bounds).
double up(double x) {
  return std::nextafter(x, std::numeric_limits<double>::infinity());
}
double abs_up(mpfr_srcptr x) {
  return std::fabs(mpfr_get_d(x, MPFR_RNDA));
}

}  // namespace

std::vector<std::string_view> layer_norm_backward_variants() {
  return {"any-float-grads"};
}

Verdict layer_norm_backward_check(const LayerNormBackwardCall &c, const VariantSet &variants) {
  using namespace status;
  // LN-NULL-1
  if (!c.grad_out) return fail(kNullptr, "LN-NULL-1", "gradOut is NULL");
  if (!c.input) return fail(kNullptr, "LN-NULL-1", "input is NULL");
  if (!c.normalized_shape) return fail(kNullptr, "LN-NULL-1", "normalizedShape is NULL");
  if (!c.mean) return fail(kNullptr, "LN-NULL-1", "mean is NULL");
  if (!c.rstd) return fail(kNullptr, "LN-NULL-1", "rstd is NULL");
  if (!c.output_mask) return fail(kNullptr, "LN-NULL-1", "outputMask is NULL");
  // LN-MASK-1
  const std::vector<bool> &mask = *c.output_mask;
  if (mask.size() != 3)
    return fail(kInvalid, "LN-MASK-1", fmt::format("outputMask length {} != 3", mask.size()));
  // LN-NULL-2
  if (mask[0] && !c.grad_input)
    return fail(kNullptr, "LN-NULL-2", "outputMask[0] true and gradInputOut NULL");
  if (mask[1] && !c.grad_weight)
    return fail(kNullptr, "LN-NULL-2", "outputMask[1] true and gradWeightOut NULL");
  if (mask[2] && !c.grad_bias)
    return fail(kNullptr, "LN-NULL-2", "outputMask[2] true and gradBiasOut NULL");
  // LN-DTYPE-1
  const Product p = c.product;
  const std::pair<const char *, const TensorView *> ins[] = {
      {"gradOut", c.grad_out}, {"input", c.input},   {"mean", c.mean},
      {"rstd", c.rstd},        {"weight", c.weight}, {"bias", c.bias}};
  for (const auto &[name, t] : ins)
    if (t && !float_ok(t->dtype, p))
      return fail(kInvalid, "LN-DTYPE-1",
                  fmt::format("{} dtype {} not supported (fp32, fp16{})", name,
                              dtype_name(t->dtype), product_has_bf16(p) ? ", bf16" : ""));
  const DType in_t = c.input->dtype;
  if (c.grad_out->dtype != in_t)
    return fail(kInvalid, "LN-DTYPE-1",
                fmt::format("gradOut dtype {} != input dtype {}", dtype_name(c.grad_out->dtype),
                            dtype_name(in_t)));
  if (c.mean->dtype != c.rstd->dtype)
    return fail(kInvalid, "LN-DTYPE-1",
                fmt::format("mean dtype {} != rstd dtype {}", dtype_name(c.mean->dtype),
                            dtype_name(c.rstd->dtype)));
  if (c.weight && c.weight->dtype != in_t && c.weight->dtype != DType::kFloat32)
    return fail(kInvalid, "LN-DTYPE-1",
                fmt::format("weight dtype {} neither input's ({}) nor fp32",
                            dtype_name(c.weight->dtype), dtype_name(in_t)));
  if (c.weight && c.bias && c.weight->dtype != c.bias->dtype)
    return fail(kInvalid, "LN-DTYPE-1",
                fmt::format("bias dtype {} != weight dtype {}", dtype_name(c.bias->dtype),
                            dtype_name(c.weight->dtype)));
  // LN-DTYPE-2 (outputs whose mask bit is true, as the implementation reads the clause)
  if (mask[0] && c.grad_input->dtype != in_t)
    return fail(kInvalid, "LN-DTYPE-2",
                fmt::format("gradInputOut dtype {} != input dtype {}",
                            dtype_name(c.grad_input->dtype), dtype_name(in_t)));
  const bool any_float = variants.has("any-float-grads");
  const std::pair<const char *, const TensorView *> grads[] = {
      {"gradWeightOut", mask[1] ? c.grad_weight : nullptr},
      {"gradBiasOut", mask[2] ? c.grad_bias : nullptr}};
  for (const auto &[name, t] : grads) {
    if (!t) continue;
    if (any_float ? !float_ok(t->dtype, p) : t->dtype != DType::kFloat32)
      return fail(kInvalid, "LN-DTYPE-2",
                  fmt::format("{} dtype {} must be {}", name, dtype_name(t->dtype),
                              any_float ? "a float dtype" : "fp32"));
  }
  // LN-SHAPE-1
  const std::vector<int64_t> &ns = *c.normalized_shape;
  const TensorView &x = *c.input;
  if (ns.empty() || static_cast<int>(ns.size()) > x.rank() || x.rank() > kMaxRank)
    return fail(kInvalid, "LN-SHAPE-1",
                fmt::format("need 1 <= len(normalizedShape) {} <= rank(input) {} <= 8", ns.size(),
                            x.rank()));
  const size_t lead = x.shape.size() - ns.size();
  for (size_t i = 0; i < ns.size(); ++i)
    if (x.shape[lead + i] != ns[i])
      return fail(kInvalid, "LN-SHAPE-1",
                  fmt::format("input shape {} does not end with normalizedShape {}",
                              shape_str(x.shape), shape_str(ns)));
  // LN-SHAPE-2
  if (c.grad_out->shape != x.shape)
    return fail(kInvalid, "LN-SHAPE-2",
                fmt::format("gradOut shape {} != input shape {}", shape_str(c.grad_out->shape),
                            shape_str(x.shape)));
  if (c.weight && c.weight->shape != ns)
    return fail(kInvalid, "LN-SHAPE-2",
                fmt::format("weight shape {} != normalizedShape {}", shape_str(c.weight->shape),
                            shape_str(ns)));
  if (c.bias && c.bias->shape != ns)
    return fail(kInvalid, "LN-SHAPE-2",
                fmt::format("bias shape {} != normalizedShape {}", shape_str(c.bias->shape),
                            shape_str(ns)));
  // LN-SHAPE-3
  const int64_t m = product_of(x.shape, 0, lead);
  if (c.mean->shape != c.rstd->shape)
    return fail(kInvalid, "LN-SHAPE-3",
                fmt::format("mean shape {} != rstd shape {}", shape_str(c.mean->shape),
                            shape_str(c.rstd->shape)));
  if (c.mean->numel() != m)
    return fail(kInvalid, "LN-SHAPE-3", fmt::format("numel(mean) {} != M {}", c.mean->numel(), m));
  // LN-SHAPE-4 (outputs whose mask bit is true)
  if (mask[0] && c.grad_input->shape != x.shape)
    return fail(kInvalid, "LN-SHAPE-4",
                fmt::format("gradInputOut shape {} != input shape {}",
                            shape_str(c.grad_input->shape), shape_str(x.shape)));
  if (mask[1] && c.grad_weight->shape != ns)
    return fail(kInvalid, "LN-SHAPE-4",
                fmt::format("gradWeightOut shape {} != normalizedShape {}",
                            shape_str(c.grad_weight->shape), shape_str(ns)));
  if (mask[2] && c.grad_bias->shape != ns)
    return fail(kInvalid, "LN-SHAPE-4",
                fmt::format("gradBiasOut shape {} != normalizedShape {}",
                            shape_str(c.grad_bias->shape), shape_str(ns)));
  // LN-RANK-1 (every non-NULL tensor)
  const std::pair<const char *, const TensorView *> all[] = {{"gradOut", c.grad_out},
                                                             {"input", c.input},
                                                             {"mean", c.mean},
                                                             {"rstd", c.rstd},
                                                             {"weight", c.weight},
                                                             {"bias", c.bias},
                                                             {"gradInputOut", c.grad_input},
                                                             {"gradWeightOut", c.grad_weight},
                                                             {"gradBiasOut", c.grad_bias}};
  for (const auto &[name, t] : all)
    if (t && (t->rank() < 1 || t->rank() > kMaxRank))
      return fail(kInvalid, "LN-RANK-1", fmt::format("{} rank {} not in [1, 8]", name, t->rank()));
  // ABI-INPUT-1: each requested output view is one-to-one.
  for (const auto &[name, t] :
       {std::pair<const char *, const TensorView *>{"gradInputOut", c.grad_input},
        {"gradWeightOut", c.grad_weight},
        {"gradBiasOut", c.grad_bias}})
    if (t)
      if (const std::string why = self_overlap(name, *t); !why.empty())
        return fail(kInvalid, "ABI-INPUT-1", why);
  return Verdict{kSuccess, "LN-VALUE-1", ""};
}

std::vector<DecidingClauses> layer_norm_backward_clauses(const LayerNormBackwardCall &c) {
  enum : uint8_t { kValue1, kValue2, kSpecial1, kEmpty1 };  // kLayerNormDecidingClauses
  std::vector<DecidingClauses> d = {{kLayerNormDecidingClauses, {}, kValue1},
                                    {kLayerNormDecidingClauses, {}, kValue2},
                                    {kLayerNormDecidingClauses, {}, kValue2}};
  if (!c.grad_out || !c.input || !c.normalized_shape || !c.mean || !c.rstd) return d;
  int64_t n = 1;
  for (const int64_t k : *c.normalized_shape) n *= k;
  if (n == 0) return d;
  const int64_t m = c.input->numel() / n;
  if (m == 0) {
    for (int k = 1; k < 3; ++k) {
      d[k].otherwise = kEmpty1;
      d[k].of_element.assign(static_cast<size_t>(n), kEmpty1);
    }
    return d;
  }
  const auto fin = [](double v) { return std::isfinite(v); };
  const TensorView &dy = *c.grad_out, &x = *c.input;
  std::vector<bool> w_ok(static_cast<size_t>(n), true);
  if (c.weight)
    for (int64_t j = 0; j < n; ++j) w_ok[static_cast<size_t>(j)] = fin(c.weight->at(j));
  std::vector<uint8_t> &gi = d[0].of_element, &gw = d[1].of_element, &gb = d[2].of_element;
  gi.assign(static_cast<size_t>(m * n), kValue1);
  gw.assign(static_cast<size_t>(n), kValue2);
  gb.assign(static_cast<size_t>(n), kValue2);
  for (int64_t i = 0; i < m; ++i) {
    const bool stats_ok = fin(c.mean->at(i)) && fin(c.rstd->at(i));
    bool row_ok = stats_ok;
    for (int64_t j = 0; j < n; ++j) {
      const size_t jj = static_cast<size_t>(j);
      const bool dy_ok = fin(dy.at(i * n + j)), x_ok = fin(x.at(i * n + j));
      row_ok = row_ok && dy_ok && x_ok && w_ok[jj];
      if (!dy_ok) gb[jj] = kSpecial1;
      if (!dy_ok || !x_ok || !stats_ok) gw[jj] = kSpecial1;
    }
    if (!row_ok)
      std::fill(gi.begin() + i * n, gi.begin() + (i + 1) * n, static_cast<uint8_t>(kSpecial1));
  }
  return d;
}

std::vector<ExpectedOutput> layer_norm_backward_values(const LayerNormBackwardCall &c,
                                                       const VariantSet &variants) {
  std::vector<ExpectedOutput> outs(3);
  const char *names[] = {"gradInputOut", "gradWeightOut", "gradBiasOut"};
  const TensorView *views[] = {c.grad_input, c.grad_weight, c.grad_bias};
  for (int k = 0; k < 3; ++k) {
    outs[k].name = names[k];
    if (views[k]) outs[k].values = HostTensor(views[k]->dtype, views[k]->shape);
  }
  const Verdict v = layer_norm_backward_check(c, variants);
  if (!v.ok()) {
    for (auto &o : outs) o.written = false;
    return outs;
  }
  const std::vector<bool> &mask = *c.output_mask;
  for (int k = 0; k < 3; ++k) outs[k].written = mask[k];
  // The deciding clauses take a pass over the inputs, far cheaper than the exact sums below.
  auto decided = layer_norm_backward_clauses(c);
  for (int k = 0; k < 3; ++k) outs[k].decided_by = std::move(decided[k]);

  const TensorView &x = *c.input, &dy = *c.grad_out, &mean = *c.mean, &rstd = *c.rstd;
  const int64_t n = c.normalized_shape->empty() ? 1 : [&] {
    int64_t r = 1;
    for (int64_t d : *c.normalized_shape) r *= d;
    return r;
  }();
  const int64_t m = n == 0 ? mean.numel() : x.numel() / n;
  const bool want_gi = mask[0], want_gw = mask[1], want_gb = mask[2];

  using exact::Real;
  std::vector<exact::Accumulator> gw(want_gw ? static_cast<size_t>(n) : 0);
  std::vector<exact::Accumulator> gb(want_gb ? static_cast<size_t>(n) : 0);
  std::vector<Real> w(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j)
    exact::set(w[static_cast<size_t>(j)], c.weight ? c.weight->at(j) : 1.0);

  std::vector<Real> dyv(static_cast<size_t>(n)), dyw(static_cast<size_t>(n)),
      xhat(static_cast<size_t>(n)), dywx(static_cast<size_t>(n));
  std::vector<mpfr_srcptr> t1(static_cast<size_t>(n)), t2(static_cast<size_t>(n));
  Real xv, mu, rs, diff, s1, s2, a, b, num, prod;
  if (want_gi) {
    auto &gi = outs[0];
    gi.error_scale.resize(static_cast<size_t>(x.numel()));
    gi.term_count.assign(static_cast<size_t>(x.numel()), n);
    gi.exact_nearest.resize(static_cast<size_t>(x.numel()));
  }
  const DType gi_t = want_gi ? c.grad_input->dtype : DType::kFloat32;

  for (int64_t i = 0; i < m; ++i) {
    exact::set(mu, mean.at(i));
    exact::set(rs, rstd.at(i));
    double a1 = 0, a2 = 0;  // sum |dy*w| and sum |dy*w*xhat|, rounded upwards
    for (int64_t j = 0; j < n; ++j) {
      const size_t jj = static_cast<size_t>(j);
      const int64_t flat = i * n + j;
      exact::set(dyv[jj], dy.at(flat));
      exact::set(xv, x.at(flat));
      exact::sub(diff, exact::ptr(xv), exact::ptr(mu));
      exact::mul(xhat[jj], exact::ptr(diff), exact::ptr(rs));
      if (want_gb) gb[jj].add(exact::ptr(dyv[jj]));
      if (want_gw) {
        exact::mul(prod, exact::ptr(dyv[jj]), exact::ptr(xhat[jj]));
        gw[jj].add(exact::ptr(prod));
      }
      if (want_gi) {
        exact::mul(dyw[jj], exact::ptr(dyv[jj]), exact::ptr(w[jj]));
        exact::mul(dywx[jj], exact::ptr(dyw[jj]), exact::ptr(xhat[jj]));
        t1[jj] = exact::ptr(dyw[jj]);
        t2[jj] = exact::ptr(dywx[jj]);
        a1 = up(a1 + abs_up(t1[jj]));
        a2 = up(a2 + abs_up(t2[jj]));
      }
    }
    if (!want_gi) continue;
    exact::sum(s1, t1);  // S1 = sum_row(dy*w)
    exact::sum(s2, t2);  // S2 = sum_row(dy*w*xhat)
    const double arstd = abs_up(exact::ptr(rs));
    const double a1n = up(a1 / static_cast<double>(n)), a2n = up(a2 / static_cast<double>(n));
    auto &gi = outs[0];
    for (int64_t j = 0; j < n; ++j) {
      const size_t jj = static_cast<size_t>(j);
      const int64_t flat = i * n + j;
      // N * gradInput = rstd * (N*dy*w - S1 - xhat*S2): a dyadic, computed exactly.
      exact::mul_int(a, exact::ptr(dyw[jj]), n);
      exact::sub(b, exact::ptr(a), exact::ptr(s1));
      exact::mul(prod, exact::ptr(xhat[jj]), exact::ptr(s2));
      exact::sub(a, exact::ptr(b), exact::ptr(prod));
      exact::mul(num, exact::ptr(rs), exact::ptr(a));
      // One rounding of num / N to the output dtype.
      gi.values.set_bits(flat, exact::round_quotient(exact::ptr(num), n, gi_t));
      gi.exact_nearest[static_cast<size_t>(flat)] =
          exact::quotient_nearest_double(exact::ptr(num), n);
      // |rstd| * (|dy*w| + sum|dy*w|/N + |xhat| * sum|dy*w*xhat|/N), rounded upwards.
      const double inner =
          up(up(abs_up(exact::ptr(dyw[jj])) + a1n) + up(abs_up(exact::ptr(xhat[jj])) * a2n));
      gi.error_scale[static_cast<size_t>(flat)] = up(arstd * inner);
    }
  }
  // Column sums: gradWeight = sum_rows(dy*xhat), gradBias = sum_rows(dy); M = 0 gives +0.
  for (int k = 1; k < 3; ++k) {
    if (!mask[k]) continue;
    auto &o = outs[k];
    auto &acc = k == 1 ? gw : gb;
    o.error_scale.resize(static_cast<size_t>(n));
    o.term_count.resize(static_cast<size_t>(n));
    o.exact_nearest.resize(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      const auto &s = acc[static_cast<size_t>(j)];
      o.values.set_bits(j, round_to_bits(s.value(), o.values.dtype));
      o.error_scale[static_cast<size_t>(j)] = s.abs_sum_up();
      o.term_count[static_cast<size_t>(j)] = s.count();
      o.exact_nearest[static_cast<size_t>(j)] = mpfr_get_d(s.value(), MPFR_RNDN);
    }
  }
  return outs;
}

}  // namespace aclnn_ref
