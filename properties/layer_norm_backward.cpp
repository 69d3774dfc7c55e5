// aclnnLayerNormBackward in the framework: generators, the ABI call, the oracle and clause
// attribution. Clauses: LN-NULL-1, LN-MASK-1, LN-NULL-2, LN-DTYPE-1, LN-DTYPE-2, LN-SHAPE-1..4,
// LN-RANK-1, LN-VALUE-1..3, LN-BIAS-1, LN-MASK-2, LN-EMPTY-1, LN-SPECIAL-1 (and the shared
// ABI-TENSOR-2, ABI-EMPTY-1, ABI-SOC-1, VAL-EXACT-1).
//
// A case carries the tensors in signature order ("gradOut", "input", "mean", "rstd",
// "weightOptional", "biasOptional", "gradInputOut", "gradWeightOut", "gradBiasOut"; the output
// names are the oracle's, so the judge pairs them) and two attributes: "normalizedShape"
// (vector<int64_t>, monostate = NULL aclIntArray) and "outputMask" (vector<bool>, monostate =
// NULL aclBoolArray).
#include "reference/layer_norm_backward.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "properties/gen.hpp"
#include "properties/op.hpp"
#include "properties/shape_math.hpp"
#include "properties/splitmix.hpp"

namespace aclnn_conform {

// The op's edge-case table (edge_cases/layer_norm_backward.cpp).
std::vector<EdgeCase> layer_norm_backward_edge_cases();

namespace {

using aclnn_ref::DType;
constexpr auto F32 = DType::kFloat32, F16 = DType::kFloat16, BF16 = DType::kBFloat16;

const std::vector<int64_t> *ns_attr(const Case &c) {
  const AttrValue *a = c.attr("normalizedShape");
  return a ? std::get_if<std::vector<int64_t>>(a) : nullptr;
}
const std::vector<bool> *mask_attr(const Case &c) {
  const AttrValue *a = c.attr("outputMask");
  return a ? std::get_if<std::vector<bool>>(a) : nullptr;
}

aclnn_ref::LayerNormBackwardCall oracle_call(const Case &c) {
  return {c.view("gradOut"),       c.view("input"),       ns_attr(c),
          c.view("mean"),          c.view("rstd"),        c.view("weightOptional"),
          c.view("biasOptional"),  mask_attr(c),          c.view("gradInputOut"),
          c.view("gradWeightOut"), c.view("gradBiasOut"), c.product};
}

double value_of(uint64_t bits, DType t) {
  return aclnn_ref::decode(&bits, t);
}

std::vector<DType> floats_of(Product p) {
  std::vector<DType> f = {F32, F16};
  if (aclnn_ref::product_has_bf16(p)) f.push_back(BF16);
  return f;
}

// Input layouts: strided, permuted, offset, expanded (zero strides).
const gen::LayoutOptions kIn{.allow_zero_strides = true};

enum Mode { kOrdinary, kCancel, kSpecial };

// Fills every element of t's view from bits(flat index).
template <typename F>
void fill(TensorArg &t, F bits) {
  for (int64_t i = 0; i < t.numel(); ++i) t.set_bits_at(i, bits(i));
}

// A vector of n draws of g.
std::vector<uint64_t> draws(int64_t n, rc::Gen<uint64_t> g) {
  return *rc::gen::container<std::vector<uint64_t>>(static_cast<size_t>(n), std::move(g));
}

// The per-element draws of one call. A large call's come from one seeded stream instead of one
// rapidcheck draw each: rapidcheck keeps a shrink tree per element, which took most of a
// LayerNorm-only campaign's worker time (perf), and a large call shrinks by its shape and mode, not
// element by element. The ordinary calls keep their elements' shrinks.
class ElementDraws {
 public:
  explicit ElementDraws(bool large)
      : large_(large), state_(large ? *rc::gen::noShrink(rc::gen::arbitrary<uint64_t>()) : 0) {}
  // finite_bits(F32, lo, hi) per element.
  std::vector<uint64_t> finite(int64_t n, double lo, double hi) {
    if (!large_) return draws(n, gen::finite_bits(F32, lo, hi));
    std::vector<uint64_t> v(static_cast<size_t>(n));
    for (auto &b : v) b = gen::finite_bits_from(next(), F32, lo, hi);
    return v;
  }
  // An integer in [lo, hi) per element.
  std::vector<int> coins(int64_t n, int lo, int hi) {
    if (!large_)
      return *rc::gen::container<std::vector<int>>(static_cast<size_t>(n),
                                                   rc::gen::inRange(lo, hi));
    std::vector<int> v(static_cast<size_t>(n));
    for (auto &c : v) c = lo + static_cast<int>(next() % static_cast<uint64_t>(hi - lo));
    return v;
  }
  // value_bits(t) per element; a large call picks each from 64 such draws.
  std::vector<uint64_t> values(int64_t n, DType t) {
    if (!large_) return draws(n, gen::value_bits(t));
    const auto pool = draws(64, gen::value_bits(t));
    std::vector<uint64_t> v(static_cast<size_t>(n));
    for (auto &b : v) b = pool[next() % pool.size()];
    return v;
  }

 private:
  uint64_t next() { return splitmix64(state_ += 0x9e3779b97f4a7c15ull); }
  bool large_;
  uint64_t state_;
};

// The shapes mean/rstd may take (LN-SHAPE-3): [A..,1..1], [A..] (not for M = 1 without leading
// dims: that would be rank 0, LN-RANK-1) and [M].
gen::Shape stat_shape(const gen::Shape &x, size_t k, int form) {
  const size_t lead = x.size() - k;
  gen::Shape s(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(lead));
  if (form == 1 && lead > 0) return s;
  if (form == 2) return {shape_numel(s)};
  s.resize(x.size(), 1);
  return s;
}

struct Parts {
  DType xt, st, wt, bt;
  bool weight, bias;
  gen::Shape x;
  size_t k;
  std::vector<bool> mask;
};

// large: about 2^15..2^18 input elements as [M, N] or [2, M/2, N] over one normalized dim (the
// threaded paths, either side of their threshold, and the row blocks a kernel may keep partial sums
// of in a workspace). every_output: outputMask all true (the call a row sweep refills).
rc::Gen<Case> gen_valid_sized(Product p, bool large, bool every_output = false) {
  return rc::gen::exec([p, large, every_output] {
    const auto floats = floats_of(p);
    Parts s;
    s.xt = *rc::gen::elementOf(floats);
    s.st = *rc::gen::weightedOneOf<DType>(
        {{3, rc::gen::just(s.xt)}, {2, rc::gen::just(F32)}, {1, rc::gen::elementOf(floats)}});
    s.weight = *rc::gen::weightedElement<bool>({{1, false}, {3, true}});
    s.bias = *rc::gen::weightedElement<bool>({{1, false}, {1, true}});
    s.wt = *rc::gen::element(s.xt, F32);
    s.bt = s.weight ? s.wt : *rc::gen::elementOf(floats);
    if (large) {
      // N of the usual widths or of a kernel_size() class; M*N either side of the thread split
      // (kThreadSplit) or anywhere up to 2^18.
      const int64_t nn = *rc::gen::weightedOneOf<int64_t>(
          {{3, rc::gen::element<int64_t>(1, 5, 64, 300, 1024, 4096)},
           {2, gen::kernel_size(1, 4096, {32, 256})}});
      const int64_t mm =
          !*gen::sometimes(2)
              ? (*rc::gen::inRange<int64_t>(65537, (int64_t{1} << 18) + 1) + nn - 1) / nn
              : std::max<int64_t>(2,
                                  gen::kThreadSplit / nn + (*rc::gen::arbitrary<bool>() ? 1 : 0));
      s.x = *rc::gen::arbitrary<bool>() ? gen::Shape{mm, nn} : gen::Shape{2, (mm + 1) / 2, nn};
      s.k = 1;
    } else if (*gen::sometimes(3)) {
      // Rows and columns of the sizes a row kernel tells apart: the reduced dimension N of a
      // kernel_size() class (remainders modulo 8..64, odd, prime, either side of the library's
      // float-path thresholds N >= 32 FLOAT and N > 256 fp16/bf16), in one normalized dim or two
      // ([a, N]); M rows of a kernel_size() class (multiples of 8 and 1024), in one leading dim or
      // two with a 1.
      const int64_t budget = *rc::gen::weightedElement<int64_t>({{2, 1024}, {1, 2048}});
      const bool two = *rc::gen::weightedElement<bool>({{2, false}, {1, true}});
      const int64_t a = two ? *rc::gen::inRange<int64_t>(2, 5) : 1;
      // Either reduced dimension first: N (gradInput's row sums) or M (gradWeight's and
      // gradBias's column sums; the built-in's row blocks, of at least 8 rows and 32768 elements,
      // are reached by the large cases above).
      int64_t n = 0, m = 0;
      if (*gen::sometimes(2)) {
        m = *gen::kernel_size(1, budget / a, {1024});
        n = *gen::kernel_size(1, std::max<int64_t>(1, budget / (a * m)), {32, 256});
      } else {
        n = *gen::kernel_size(1, budget / a, {32, 256});
        m = *gen::kernel_size(1, std::max<int64_t>(1, budget / (a * n)), {1024});
      }
      gen::Shape lead = *rc::gen::element(gen::Shape{m}, gen::Shape{1, m}, gen::Shape{m, 1});
      gen::Shape ns = two ? gen::Shape{a, n} : gen::Shape{n};
      s.x = lead;
      s.x.insert(s.x.end(), ns.begin(), ns.end());
      s.k = ns.size();
    } else {
      const int64_t budget = *rc::gen::weightedElement<int64_t>({{4, 256}, {2, 1024}, {1, 2048}});
      s.x = *gen::shape({1, 8, budget, true, {32, 256}});
      s.k = *rc::gen::inRange<size_t>(1, s.x.size() + 1);
    }
    const size_t lead = s.x.size() - s.k;
    // Empty inputs now and then: M = 0 (a leading dim 0) or N = 0 (a normalized dim 0).
    switch (large ? 0 : *rc::gen::weightedElement<int>({{14, 0}, {1, 1}, {1, 2}})) {
      case 1:
        if (lead > 0) s.x[*rc::gen::inRange<size_t>(0, lead)] = 0;
        break;
      case 2:
        s.x[*rc::gen::inRange<size_t>(lead, s.x.size())] = 0;
        break;
      default:
        break;
    }
    // A zero dim lets gen::shape's element budget pass with the other dims unbounded, and mean and
    // rstd hold one value per leading index, each drawn with its own shrink tree: seed 116 gave
    // [57, 45, 54, 4, 66, 3, 5, 0] (k = 2), 1.1e8 rows, 24 GB. Halve the largest leading dim until
    // M fits the ordinary calls' budget.
    while (!large && shape_numel(gen::Shape(s.x.begin(),
                                            s.x.end() - static_cast<std::ptrdiff_t>(s.k))) > 2048) {
      auto big = std::max_element(s.x.begin(), s.x.end() - static_cast<std::ptrdiff_t>(s.k));
      *big /= 2;
    }
    const int bits = every_output ? 7 : *gen::pick(8);
    s.mask = {(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};

    const gen::Shape ns(s.x.begin() + static_cast<std::ptrdiff_t>(lead), s.x.end());
    const int64_t n = shape_numel(ns), m = shape_numel(gen::Shape(s.x.begin(), s.x.end() - s.k));
    const int form = *gen::pick(3);
    const gen::Shape stat = stat_shape(s.x, s.k, form);

    TensorArg dy = *gen::layout(s.x, s.xt, kIn), x = *gen::layout(s.x, s.xt, kIn);
    TensorArg mean = *gen::layout(stat, s.st, kIn), rstd = *gen::layout(stat, s.st, kIn);
    TensorArg w = s.weight ? *gen::layout(ns, s.wt, kIn) : TensorArg::null();
    TensorArg b = s.bias ? *gen::tensor(ns, s.bt, gen::value_bits(s.bt), kIn) : TensorArg::null();

    const Mode mode =
        *rc::gen::weightedElement<Mode>({{5, kOrdinary}, {2, kCancel}, {2, kSpecial}});
    ElementDraws el(large);
    // Per row: mean near the data, rstd a positive ordinary value.
    const auto mv = el.finite(m, 0x1p-3, 16.0);
    const auto rv = el.finite(m, 0x1p-3, 8.0);
    std::vector<double> mu(static_cast<size_t>(m)), rs(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) {
      const size_t ii = static_cast<size_t>(i);
      const uint64_t mb = gen::bits_of(value_of(mv[ii], F32), s.st);
      mean.set_bits_at(i, mb);
      rstd.set_bits_at(i, gen::bits_of(std::fabs(value_of(rv[ii], F32)), s.st));
    }
    // Read back (expanded views may have merged rows).
    for (int64_t i = 0; i < m; ++i) {
      mu[static_cast<size_t>(i)] = value_of(mean.bits_at(i), s.st);
      rs[static_cast<size_t>(i)] = value_of(rstd.bits_at(i), s.st);
    }
    const int64_t total = m * n;
    if (mode == kCancel) {
      // Rows whose dy*w is nearly constant and whose x sits within ulps of the mean: the terms
      // N*dy*w - S1 - xhat*S2 cancel almost completely.
      const auto cv = el.finite(std::max<int64_t>(m, 1), 0x1p-2, 4.0);
      const auto du = el.coins(total, -2, 3), xu = el.coins(total, -3, 4);
      fill(dy, [&](int64_t f) {
        return gen::step_ulps(gen::bits_of(value_of(cv[static_cast<size_t>(f / n)], F32), s.xt),
                              s.xt, du[static_cast<size_t>(f)]);
      });
      fill(x, [&](int64_t f) {
        return gen::step_ulps(gen::bits_of(mu[static_cast<size_t>(f / n)], s.xt), s.xt,
                              xu[static_cast<size_t>(f)]);
      });
      if (s.weight) {
        const auto wu = el.coins(n, -1, 2);
        fill(w, [&](int64_t j) {
          return gen::step_ulps(gen::bits_of(1.0, s.wt), s.wt, wu[static_cast<size_t>(j)]);
        });
      }
    } else {
      const auto dv = el.finite(total, 0x1p-6, 4.0);
      const auto xv = el.finite(total, 0x1p-6, 4.0);
      const auto dz = el.coins(total, 0, 12);
      fill(dy, [&](int64_t f) {
        const size_t ff = static_cast<size_t>(f);
        return gen::bits_of(dz[ff] == 0 ? 0.0 : value_of(dv[ff], F32), s.xt);
      });
      fill(x, [&](int64_t f) {
        const size_t ff = static_cast<size_t>(f), i = static_cast<size_t>(f / n);
        return gen::bits_of(mu[i] + value_of(xv[ff], F32) / rs[i], s.xt);
      });
      if (s.weight) {
        const auto wv = el.finite(n, 0x1p-2, 4.0);
        fill(w, [&](int64_t j) {
          return gen::bits_of(value_of(wv[static_cast<size_t>(j)], F32), s.wt);
        });
      }
      if (mode == kSpecial) {
        // A few elements of any input replaced by special values (LN-SPECIAL-1): inf, NaN,
        // subnormals, extremes; rstd may become 0, inf or NaN.
        auto sprinkle = [&el](TensorArg &t, int odds) {
          if (!t.present || t.numel() == 0) return;
          const auto hit = el.coins(t.numel(), 0, odds);
          const auto v = el.values(t.numel(), t.dtype);
          for (int64_t i = 0; i < t.numel(); ++i)
            if (hit[static_cast<size_t>(i)] == 0) t.set_bits_at(i, v[static_cast<size_t>(i)]);
        };
        sprinkle(dy, 16);
        sprinkle(x, 16);
        sprinkle(mean, 8);
        sprinkle(w, 8);
        if (*rc::gen::arbitrary<bool>()) {
          const auto hit = el.coins(rstd.numel(), 0, 4);
          for (int64_t i = 0; i < rstd.numel(); ++i)
            if (hit[static_cast<size_t>(i)] == 0)
              rstd.set_bits_at(i, gen::bits_of(*rc::gen::element(0.0, INFINITY, NAN), s.st));
        }
      }
    }

    // Outputs: strided and offset views; unrequested ones NULL or present (and then never
    // written, LN-MASK-2), sometimes of a shape the mask makes irrelevant (LN-SHAPE-4 applies to
    // requested outputs only).
    auto out = [&](bool wanted, gen::Shape shape, DType t) {
      if (!wanted) {
        const int how = *rc::gen::weightedElement<int>({{2, 0}, {2, 1}, {1, 2}});
        if (how == 0) return TensorArg::null();
        if (how == 2) shape = *gen::shape({1, 4, 64, true});
      }
      return *gen::output(shape, t);
    };
    Case c;
    c.op = "LayerNormBackward";
    c.product = p;
    c.tensors.emplace_back("gradOut", std::move(dy));
    c.tensors.emplace_back("input", std::move(x));
    c.tensors.emplace_back("mean", std::move(mean));
    c.tensors.emplace_back("rstd", std::move(rstd));
    c.tensors.emplace_back("weightOptional", std::move(w));
    c.tensors.emplace_back("biasOptional", std::move(b));
    c.tensors.emplace_back("gradInputOut", out(s.mask[0], s.x, s.xt));
    c.tensors.emplace_back("gradWeightOut", out(s.mask[1], ns, F32));
    c.tensors.emplace_back("gradBiasOut", out(s.mask[2], ns, F32));
    c.attrs.emplace_back("normalizedShape", ns);
    c.attrs.emplace_back("outputMask", s.mask);
    return c;
  });
}

rc::Gen<Case> gen_valid(Product p) {
  return gen_valid_sized(p, false);
}

// A tensor of the given shape and dtype with arbitrary values (an input) or canary (an output).
TensorArg remade(const std::string &name, gen::Shape shape, DType dtype) {
  if (name.starts_with("grad") && name.ends_with("Out") && name != "gradOut")
    return *gen::output(std::move(shape), dtype);
  return *gen::tensor(std::move(shape), dtype, gen::value_bits(dtype));
}

// A valid call broken in one way (sometimes two, so the check order is exercised).
rc::Gen<Case> gen_invalid(Product p) {
  return rc::gen::exec([p] {
    Case c = *gen_valid(p);
    const int breaks = *rc::gen::weightedElement<int>({{4, 1}, {1, 2}});
    for (int b = 0; b < breaks; ++b) {
      auto *ns = std::get_if<std::vector<int64_t>>(&c.attrs[0].second);
      auto *mask = std::get_if<std::vector<bool>>(&c.attrs[1].second);
      TensorArg &x = *c.tensor("input");
      const auto remake = [&](const char *name, gen::Shape shape, DType dtype) {
        *c.tensor(name) = remade(name, std::move(shape), dtype);
      };
      const auto bad_float = [] {
        return *rc::gen::element(DType::kFloat64, DType::kInt32, DType::kInt8, DType::kBool,
                                 DType::kInt64, DType::kUInt8);
      };
      switch (*gen::pick(10)) {
        case 0: {  // LN-NULL-1
          const int which = *gen::pick(6);
          if (which == 4)
            c.attrs[0].second = std::monostate{};
          else if (which == 5)
            c.attrs[1].second = std::monostate{};
          else
            *c.tensor(*rc::gen::element<std::string>("gradOut", "input", "mean", "rstd")) =
                TensorArg::null();
          break;
        }
        case 1:  // LN-MASK-1: length != 3
          if (mask) {
            const size_t len = *rc::gen::element<size_t>(0, 1, 2, 4, 5);
            mask->resize(len, *rc::gen::arbitrary<bool>());
          }
          break;
        case 2:  // LN-NULL-2: a requested output NULL
          if (mask && mask->size() == 3) {
            const size_t k = static_cast<size_t>(*gen::pick(3));
            (*mask)[k] = true;
            *c.tensor(std::array{"gradInputOut", "gradWeightOut", "gradBiasOut"}[k]) =
                TensorArg::null();
          }
          break;
        case 3: {  // LN-DTYPE-1
          const int what = *gen::pick(6);
          if (!x.present) break;
          const gen::Shape xs = x.shape;
          const DType xt = x.dtype;
          if (what == 0) {  // an unsupported dtype in one input
            const char *name = *rc::gen::element("gradOut", "input", "mean", "rstd",
                                                 "weightOptional", "biasOptional");
            TensorArg *t = c.tensor(name);
            if (t->present) remake(name, t->shape, bad_float());
          } else if (what == 1) {  // gradOut's dtype != input's
            remake("gradOut", xs, xt == F32 ? F16 : F32);
          } else if (what == 2) {  // mean's dtype != rstd's
            TensorArg *m = c.tensor("mean");
            if (m->present) remake("mean", m->shape, m->dtype == F32 ? F16 : F32);
          } else if (what == 3) {  // weight neither input's dtype nor FLOAT
            if (xt != F32) {
              const gen::Shape ns_shape = ns ? *ns : gen::Shape{1};
              const DType other =
                  xt == F16 ? (aclnn_ref::product_has_bf16(c.product) ? BF16 : F32) : F16;
              if (other != F32) {
                remake("weightOptional", ns_shape, other);
                if (c.tensor("biasOptional")->present) remake("biasOptional", ns_shape, other);
              }
            }
          } else if (what == 4) {  // bias's dtype != weight's
            TensorArg *w = c.tensor("weightOptional");
            if (w->present) {
              const gen::Shape ns_shape = w->shape;
              remake("biasOptional", ns_shape, w->dtype == F32 ? F16 : F32);
            }
          } else {  // BF16 on a product without it (ABI-SOC-1)
            if (xt == BF16)
              c.product = *rc::gen::element(Product::kAtlasTraining, Product::kAtlasInference);
          }
          break;
        }
        case 4: {  // LN-DTYPE-2: a requested output of the wrong dtype
          if (!mask || mask->size() != 3) break;
          const size_t k = static_cast<size_t>(*gen::pick(3));
          const char *name = std::array{"gradInputOut", "gradWeightOut", "gradBiasOut"}[k];
          TensorArg *t = c.tensor(name);
          if (!t->present || !(*mask)[k]) break;
          const DType want = k == 0 ? x.dtype : F32;
          DType bad = *rc::gen::element(F32, F16, DType::kFloat64, DType::kInt32);
          if (bad == want) bad = F16 == want ? F32 : F16;
          remake(name, t->shape, bad);
          break;
        }
        case 5: {  // LN-SHAPE-1
          if (!ns || !x.present) break;
          const int what = *gen::pick(4);
          if (what == 0) {
            ns->clear();
          } else if (what == 1) {  // longer than input's rank
            // (an earlier break may have changed ns: only lengthen, never underflow the count)
            if (ns->size() <= x.shape.size())
              ns->insert(ns->begin(), x.shape.size() + 1 - ns->size(), 1);
          } else if (what == 2) {  // trailing dims differ (an earlier break may have emptied ns)
            if (!ns->empty()) ns->back() += *rc::gen::inRange<int64_t>(1, 3);
          } else {  // input of rank 9 (gradOut matching)
            gen::Shape s9 = x.shape;
            s9.insert(s9.begin(), 9 - std::min<size_t>(9, s9.size()), 1);
            if (s9.size() > 9) break;
            remake("input", s9, x.dtype);
            TensorArg *dy = c.tensor("gradOut");
            if (dy->present) remake("gradOut", s9, dy->dtype);
          }
          break;
        }
        case 6: {  // LN-SHAPE-2
          const char *name = *rc::gen::element("gradOut", "weightOptional", "biasOptional");
          TensorArg *t = c.tensor(name);
          if (!t->present || t->shape.empty()) break;
          remake(name, *gen::misshaped(t->shape), t->dtype);  // same count half of the time
          break;
        }
        case 7: {  // LN-SHAPE-3
          TensorArg *m = c.tensor("mean"), *r = c.tensor("rstd");
          if (!m->present || !r->present) break;
          if (*rc::gen::arbitrary<bool>()) {  // numel(mean) != M (both alike)
            gen::Shape s = m->shape;
            if (s.empty()) s = {1};
            s.back() += *rc::gen::inRange<int64_t>(1, 3);
            remake("mean", s, m->dtype);
            remake("rstd", s, r->dtype);
          } else {  // mean's shape != rstd's, same numel
            gen::Shape s = r->shape;
            s.push_back(1);
            if (s.size() <= 8) remake("rstd", s, r->dtype);
          }
          break;
        }
        case 8: {  // LN-SHAPE-4: a requested output of the wrong shape
          if (!mask || mask->size() != 3) break;
          const size_t k = static_cast<size_t>(*gen::pick(3));
          const char *name = std::array{"gradInputOut", "gradWeightOut", "gradBiasOut"}[k];
          TensorArg *t = c.tensor(name);
          if (!t->present || !(*mask)[k] || t->shape.empty()) break;
          remake(name, *gen::misshaped(t->shape), t->dtype);  // same count half of the time
          break;
        }
        default: {  // LN-RANK-1: mean/rstd of rank 9 (numel M), rank 0 (M = 1), or a masked-off
                    // output of rank 0 or 9
          TensorArg *m = c.tensor("mean"), *r = c.tensor("rstd");
          if (*rc::gen::arbitrary<bool>() && m->present && r->present) {
            const int64_t mm = m->numel();
            gen::Shape s =
                (mm == 1 && *rc::gen::arbitrary<bool>()) ? gen::Shape{} : gen::Shape(9, 1);
            if (!s.empty()) s[0] = mm;
            remake("mean", s, m->dtype);
            remake("rstd", s, r->dtype);
          } else if (mask && mask->size() == 3) {
            const size_t k = static_cast<size_t>(*gen::pick(3));
            const char *name = std::array{"gradInputOut", "gradWeightOut", "gradBiasOut"}[k];
            (*mask)[k] = false;
            const DType t = k == 0 && x.present ? x.dtype : F32;
            remake(name, *rc::gen::element(gen::Shape{}, gen::Shape(9, 1)), t);
          }
          break;
        }
      }
    }
    c.refresh_views();
    return c;
  });
}

struct Dims {
  int64_t m = 0, n = 0;
};
Dims dims_of(const Case &c) {
  const auto *ns = ns_attr(c);
  const TensorArg *x = c.tensor("input");
  if (!ns || !x || !x->present) return {};
  const int64_t n = shape_numel(*ns);
  return {n == 0 ? (c.tensor("mean")->present ? c.tensor("mean")->numel() : 0) : x->numel() / n, n};
}

// The position of an output in layer_norm_backward_clauses()' answer.
size_t output_index(const std::string &output) {
  return output == "gradInputOut" ? 0 : output == "gradWeightOut" ? 1 : 2;
}

// The clause that decided element idx of an output, as the oracle tells it; an output that must
// not be written (idx < 0) is LN-MASK-2's.
std::string value_clause(const Case &c, const std::string &output, int64_t idx) {
  if (idx < 0) return "LN-MASK-2";
  return std::string(
      aclnn_ref::layer_norm_backward_clauses(oracle_call(c))[output_index(output)].at(idx));
}

std::vector<std::string> reached(const Case &c) {
  std::vector<std::string> r = {"LN-NULL-1",  "LN-MASK-1",  "LN-NULL-2",  "LN-DTYPE-1",
                                "LN-DTYPE-2", "LN-SHAPE-1", "LN-SHAPE-2", "LN-SHAPE-3",
                                "LN-SHAPE-4", "LN-RANK-1",  "LN-VALUE-3", "ABI-TENSOR-2",
                                "VAL-EXACT-1"};
  const auto *mask = mask_attr(c);
  const TensorArg *x = c.tensor("input");
  if (!mask || mask->size() != 3 || !x || !x->present) return r;
  if (c.product == Product::kAtlasTraining || c.product == Product::kAtlasInference ||
      x->dtype == BF16)
    r.push_back("ABI-SOC-1");
  if (c.tensor("biasOptional")->present) r.push_back("LN-BIAS-1");
  const bool any = (*mask)[0] || (*mask)[1] || (*mask)[2];
  if (!(*mask)[0] || !(*mask)[1] || !(*mask)[2]) r.push_back("LN-MASK-2");
  const Dims d = dims_of(c);
  if (d.m == 0 || d.n == 0) {
    r.push_back("LN-EMPTY-1");
    r.push_back("ABI-EMPTY-1");
    return r;
  }
  if ((*mask)[0]) r.push_back("LN-VALUE-1");
  if ((*mask)[1] || (*mask)[2]) r.push_back("LN-VALUE-2");
  if (!any) return r;
  const auto decided = aclnn_ref::layer_norm_backward_clauses(oracle_call(c));
  bool special = false;
  for (size_t k = 0; k < 3; ++k)
    if ((*mask)[k])
      for (const std::string_view clause : decided[k].distinct())
        special |= clause == "LN-SPECIAL-1";
  if (special) r.push_back("LN-SPECIAL-1");
  return r;
}

OpDescriptor make() {
  OpDescriptor d;
  d.name = "LayerNormBackward";
  d.abi_name = "aclnnLayerNormBackward";
  d.outputs = {"gradInputOut", "gradWeightOut", "gradBiasOut"};
  for (auto v : aclnn_ref::layer_norm_backward_variants()) d.variants.emplace_back(v);
  // Its attributes are arrays the SUT creates, so their entry points are needed too.
  d.available = [entries = two_phase_available(d.abi_name)](const AbiTable &a) {
    return entries(a) && a.create_int_array && a.destroy_int_array && a.create_bool_array &&
           a.destroy_bool_array;
  };
  d.phase_one = [](const AbiTable &a, const Case &c, const std::vector<aclTensor *> &t,
                   uint64_t *ws, aclOpExecutor **ex) -> aclnnStatus {
    // The arrays are created through the SUT's own table and destroyed after the call (an
    // executor must not depend on them). A NULL attribute passes nullptr.
    aclIntArray *ns = nullptr;
    aclBoolArray *mask = nullptr;
    const int64_t no_int = 0;
    const bool no_bool = false;
    if (const auto *v = ns_attr(c)) {
      ns = a.create_int_array(v->empty() ? &no_int : v->data(), v->size());
      if (!ns) return ACLNN_ERR_INNER;  // the SUT refused a valid array (reported as a deviation)
    }
    if (const auto *m = mask_attr(c)) {
      const std::unique_ptr<bool[]> bits(new bool[std::max<size_t>(1, m->size())]);
      for (size_t i = 0; i < m->size(); ++i) bits[i] = (*m)[i];
      mask = a.create_bool_array(m->empty() ? &no_bool : bits.get(), m->size());
      if (!mask) {
        if (ns) a.destroy_int_array(ns);
        return ACLNN_ERR_INNER;
      }
    }
    const aclnnStatus s = ACLNN_ABI_ENTRY(a, aclnnLayerNormBackwardGetWorkspaceSize)(
        t[0], t[1], ns, t[2], t[3], t[4], t[5], mask, t[6], t[7], t[8], ws, ex);
    if (ns) a.destroy_int_array(ns);
    if (mask) a.destroy_bool_array(mask);
    return s;
  };
  d.phase_two = [](const AbiTable &a, void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s) {
    return ACLNN_ABI_ENTRY(a, aclnnLayerNormBackward)(w, n, ex, s);
  };
  d.check = [](const Case &c, const aclnn_ref::VariantSet &v) {
    return aclnn_ref::layer_norm_backward_check(oracle_call(c), v);
  };
  d.values = [](const Case &c, const aclnn_ref::VariantSet &v) {
    return aclnn_ref::layer_norm_backward_values(oracle_call(c), v);
  };
  d.header = "aclnnop/aclnn_layer_norm_backward.h";
  d.phase_two_name = "aclnnLayerNormBackward";
  d.repro_phase_one = [](const Case &c, const std::vector<std::string> &t) {
    std::string s = "{\n";
    std::string ns = "nullptr", mask = "nullptr";
    if (const auto *v = ns_attr(c)) {
      s += "  const int64_t nsData[] = {0";
      for (int64_t d : *v) s += ", " + std::to_string(d);
      s += "};\n  aclIntArray *normalizedShape = aclCreateIntArray(nsData + 1, " +
           std::to_string(v->size()) + ");\n";
      ns = "normalizedShape";
    }
    if (const auto *m = mask_attr(c)) {
      s += "  const bool maskData[] = {false";
      for (bool b : *m) s += b ? ", true" : ", false";
      s += "};\n  aclBoolArray *outputMask = aclCreateBoolArray(maskData + 1, " +
           std::to_string(m->size()) + ");\n";
      mask = "outputMask";
    }
    s += "  ret = aclnnLayerNormBackwardGetWorkspaceSize(" + t[0] + ", " + t[1] + ", " + ns + ", " +
         t[2] + ", " + t[3] + ", " + t[4] + ", " + t[5] + ", " + mask + ", " + t[6] + ", " + t[7] +
         ", " + t[8] + ", &workspaceSize, &executor);\n";
    if (ns != "nullptr") s += "  aclDestroyIntArray(normalizedShape);\n";
    if (mask != "nullptr") s += "  aclDestroyBoolArray(outputMask);\n";
    return s + "}\n";
  };
  d.reached = reached;
  d.value_clause = value_clause;
  d.gen_valid = gen_valid;
  d.gen_large = [](Product p) { return gen_valid_sized(p, true); };
  d.gen_sweep = [](Product p) { return gen_valid_sized(p, true, true); };
  d.gen_invalid = gen_invalid;
  d.catalogue_op = d.name;
  d.edge_cases = layer_norm_backward_edge_cases;
  d.clauses = clauses_from_catalogue(d);
  return d;
}

}  // namespace

const OpDescriptor &layer_norm_backward_op() {
  static const OpDescriptor d = make();
  return d;
}

}  // namespace aclnn_conform
