#include "properties/gen.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "reference/rounding.hpp"

namespace aclnn_conform::gen {

using aclnn_ref::dtype_size;

namespace {
int64_t product(const Shape &s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}
}  // namespace

rc::Gen<Shape> shape(ShapeLimits limits) {
  return rc::gen::exec([limits] {
    // rapidcheck's inRange scales with the size, so at a tier's sizes the top ranks would never
    // come up; one draw in six takes a bound of the rank range, size-independently.
    const int rank = *rc::gen::weightedOneOf<int>({
        {5, rc::gen::inRange(limits.min_rank, limits.max_rank + 1)},
        {1, rc::gen::element(limits.min_rank, limits.max_rank)},
    });
    Shape s(rank);
    for (auto &d : s) {
      d = *rc::gen::weightedOneOf<int64_t>({
          {6, rc::gen::inRange<int64_t>(1, 7)},
          {2, rc::gen::just<int64_t>(1)},
          {1, rc::gen::inRange<int64_t>(7, 70)},
          {limits.allow_zero ? 1u : 0u, rc::gen::just<int64_t>(0)},
      });
    }
    // Cut the largest dims down until the element count fits.
    while (product(s) > limits.max_elements) {
      auto it = std::max_element(s.begin(), s.end());
      *it = std::max<int64_t>(1, *it / 2);
    }
    return s;
  });
}

rc::Gen<Shape> broadcastable_to(Shape out) {
  return rc::gen::exec([out] {
    const int drop = *rc::gen::inRange<int>(0, static_cast<int>(out.size()) + 1);
    Shape s(out.begin() + drop, out.end());
    for (auto &d : s)
      if (*rc::gen::weightedElement<bool>({{3, false}, {1, true}})) d = 1;
    return s;
  });
}

rc::Gen<std::pair<Shape, Shape>> broadcast_pair(Shape out) {
  return rc::gen::exec([out] {
    const int r = static_cast<int>(out.size());
    // One side has the full rank (so the broadcast rank is r); the other may be shorter. Each
    // dim of out is carried by both sides, or by one while the other stretches a 1.
    const bool a_full = *rc::gen::arbitrary<bool>();
    const int short_rank = *rc::gen::inRange(0, r + 1);
    const int ra = a_full ? r : short_rank, rb = a_full ? short_rank : r;
    Shape a(ra), b(rb);
    for (int i = 0; i < r; ++i) {
      const int ia = i - (r - ra), ib = i - (r - rb);
      int who = *rc::gen::weightedElement<int>({{4, 0}, {1, 1}, {1, 2}});  // both, a, b
      if (ia < 0) who = 2;
      if (ib < 0) who = 1;
      if (ia >= 0) a[ia] = (who == 2) ? 1 : out[i];
      if (ib >= 0) b[ib] = (who == 1) ? 1 : out[i];
    }
    return std::make_pair(a, b);
  });
}

rc::Gen<TensorArg> layout(Shape shape, DType dtype, LayoutOptions options) {
  return rc::gen::exec([shape, dtype, options] {
    const int r = static_cast<int>(shape.size());
    TensorArg a;
    a.dtype = dtype;
    a.shape = shape;
    a.strides.assign(r, 0);
    // Memory order of dims (outermost first), steps, expanded dims and offset.
    std::vector<int> order(r);
    std::iota(order.begin(), order.end(), 0);
    if (options.allow_permute && r > 1 && *rc::gen::weightedElement<bool>({{3, false}, {1, true}}))
      order = *rc::gen::map(rc::gen::container<std::vector<int>>(static_cast<size_t>(r),
                                                                 rc::gen::inRange(0, 1 << 20)),
                            [order](std::vector<int> keys) {
                              std::vector<int> o = order;
                              std::stable_sort(o.begin(), o.end(),
                                               [&](int x, int y) { return keys[x] < keys[y]; });
                              return o;
                            });
    std::vector<int64_t> step(r, 1);
    std::vector<bool> expanded(r, false);
    for (int d = 0; d < r; ++d) {
      if (options.allow_steps && *rc::gen::weightedElement<bool>({{5, false}, {1, true}}))
        step[d] = *rc::gen::inRange<int64_t>(2, 4);
      if (options.allow_zero_strides && shape[d] > 1 &&
          *rc::gen::weightedElement<bool>({{6, false}, {1, true}}))
        expanded[d] = true;
    }
    const int64_t offset =
        options.allow_offset && *rc::gen::weightedElement<bool>({{3, false}, {1, true}})
            ? *rc::gen::inRange<int64_t>(1, 9)
            : 0;
    // Innermost memory dim first: stride = running extent * step.
    int64_t extent = 1;
    for (int k = r - 1; k >= 0; --k) {
      const int d = order[k];
      if (expanded[d]) {
        a.strides[d] = 0;
        continue;
      }
      a.strides[d] = extent * step[d];
      extent *= std::max<int64_t>(1, shape[d]) * step[d];
    }
    a.offset = offset;
    int64_t reach = 0;
    bool empty = false;
    for (int d = 0; d < r; ++d) {
      if (shape[d] == 0)
        empty = true;
      else
        reach += (shape[d] - 1) * a.strides[d];
    }
    const int64_t slack = *rc::gen::weightedElement<int64_t>({{3, 0}, {1, 3}});
    const int64_t elements = empty ? offset + slack : offset + reach + 1 + slack;
    a.storage.assign(static_cast<size_t>(elements) * dtype_size(dtype), std::byte{0});
    return a;
  });
}

uint64_t bits_of(double v, DType dtype) {
  return aclnn_ref::bits_from_double(v, dtype);
}

uint64_t step_ulps(uint64_t bits, DType dtype, int k) {
  // Walk the ordered number line of a sign-magnitude float format.
  if (!aclnn_ref::is_floating(dtype)) return bits + static_cast<uint64_t>(k);
  const int width = static_cast<int>(dtype_size(dtype)) * 8;
  const uint64_t sign = uint64_t{1} << (width - 1);
  const uint64_t inf = bits_of(std::numeric_limits<double>::infinity(), dtype);
  for (int i = 0; i < std::abs(k); ++i) {
    const bool neg = (bits & sign) != 0;
    const uint64_t mag = bits & ~sign;
    const bool up = k > 0;
    if (mag == 0) {
      bits = up ? 1 : (sign | 1);  // ±0 -> smallest subnormal of the step's sign
    } else if (up != neg) {
      bits = mag >= inf ? bits : bits + 1;  // away from zero
    } else {
      bits = bits - 1;  // towards zero
    }
  }
  return bits;
}

namespace {
std::vector<double> specials(DType dtype) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (dtype) {
    case DType::kFloat16:
      return {0.0,     -0.0,     inf, -inf, nan, 0x1p-24, -0x1p-24,  0x1.ff8p-15, 0x1p-14, -0x1p-14,
              65504.0, -65504.0, 1.0, -1.0, 2.0, 0.5,     0x1.004p0, 0x1.ffcp-1,  2048.0};
    case DType::kBFloat16:
      return {0.0,         -0.0,     inf,       -inf,       nan,         0x1p-133, -0x1p-133,
              0x1.fcp-127, 0x1p-126, -0x1p-126, 0x1.fep127, -0x1.fep127, 1.0,      -1.0,
              2.0,         0.5,      0x1.02p0,  0x1.fep-1,  256.0};
    case DType::kFloat32:
      return {0.0,
              -0.0,
              inf,
              -inf,
              nan,
              0x1p-149,
              -0x1p-149,
              0x1.fffffcp-127,
              0x1p-126,
              -0x1p-126,
              0x1.fffffep127,
              -0x1.fffffep127,
              1.0,
              -1.0,
              2.0,
              0.5,
              0x1.000002p0,
              0x1.fffffep-1,
              16777216.0};
    case DType::kInt8:
      return {0, 1, -1, 127, -128, 126, -127, 2, -2};
    case DType::kInt32:
      return {0, 1, -1, 2147483647.0, -2147483648.0, 2048, 2049, 65504, 65505, -2049, -65536};
    default:
      return {0, 1, -1};
  }
}

rc::Gen<uint64_t> ordinary_bits(DType dtype) {
  if (dtype == DType::kInt8)
    return rc::gen::map(rc::gen::inRange<int>(-128, 128),
                        [](int v) { return static_cast<uint64_t>(static_cast<uint8_t>(v)); });
  if (dtype == DType::kInt32)
    return rc::gen::map(rc::gen::inRange<int64_t>(-100000, 100001), [](int64_t v) {
      return static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(v)));
    });
  // Sign, a binade in [-6, 6) and a uniform significand: ordinary magnitudes.
  return rc::gen::apply(
      [dtype](bool neg, int e, uint32_t frac) {
        const double v = std::ldexp(1.0 + frac / 4294967296.0, e);
        return bits_of(neg ? -v : v, dtype);
      },
      rc::gen::arbitrary<bool>(), rc::gen::inRange(-6, 6), rc::gen::arbitrary<uint32_t>());
}

rc::Gen<uint64_t> any_bits(DType dtype) {
  const int width = static_cast<int>(dtype_size(dtype)) * 8;
  return rc::gen::map(rc::gen::arbitrary<uint64_t>(), [width](uint64_t b) {
    return width == 64 ? b : (b & ((uint64_t{1} << width) - 1));
  });
}
}  // namespace

rc::Gen<uint64_t> value_bits(DType dtype, std::vector<double> hot) {
  std::vector<uint64_t> special_bits;
  for (double v : specials(dtype)) special_bits.push_back(bits_of(v, dtype));
  std::vector<uint64_t> hot_bits;
  for (double v : hot) {
    const uint64_t b = bits_of(v, dtype);
    for (int k = -2; k <= 2; ++k) hot_bits.push_back(step_ulps(b, dtype, k));
  }
  if (hot_bits.empty()) hot_bits = special_bits;
  return rc::gen::weightedOneOf<uint64_t>({
      {6, ordinary_bits(dtype)},
      {2, rc::gen::elementOf(special_bits)},
      {2, rc::gen::elementOf(hot_bits)},
      {1, any_bits(dtype)},
  });
}

rc::Gen<uint64_t> finite_bits(DType dtype, double min_magnitude, double max_magnitude) {
  const int lo = static_cast<int>(std::floor(std::log2(min_magnitude)));
  const int hi = static_cast<int>(std::floor(std::log2(max_magnitude)));
  return rc::gen::apply(
      [dtype, min_magnitude, max_magnitude](bool neg, int e, uint32_t frac) {
        double v = std::ldexp(1.0 + frac / 4294967296.0, e);
        v = std::clamp(v, min_magnitude, max_magnitude);
        return bits_of(neg ? -v : v, dtype);
      },
      rc::gen::arbitrary<bool>(), rc::gen::inRange(lo, hi + 1), rc::gen::arbitrary<uint32_t>());
}

rc::Gen<TensorArg> fill_view(TensorArg a, rc::Gen<uint64_t> bits) {
  return rc::gen::exec([a0 = std::move(a), bits] {
    TensorArg a = a0;
    const int64_t n = a.numel();
    const auto values = *rc::gen::container<std::vector<uint64_t>>(static_cast<size_t>(n), bits);
    for (int64_t i = 0; i < n; ++i) a.set_bits_at(i, values[static_cast<size_t>(i)]);
    return a;
  });
}

rc::Gen<TensorArg> tensor(Shape shape, DType dtype, rc::Gen<uint64_t> bits, LayoutOptions options) {
  return rc::gen::mapcat(layout(std::move(shape), dtype, options),
                         [bits](TensorArg a) { return fill_view(std::move(a), bits); });
}

rc::Gen<TensorArg> output(Shape shape, DType dtype, LayoutOptions options) {
  options.allow_zero_strides = false;
  return rc::gen::map(layout(std::move(shape), dtype, options), [](TensorArg a) {
    std::fill(a.storage.begin(), a.storage.end(), kCanary);
    return a;
  });
}

rc::Gen<TensorArg> fill_view_large(TensorArg a, rc::Gen<uint64_t> bits) {
  return rc::gen::exec([a, bits] {
    TensorArg t = a;
    const auto pool = *rc::gen::container<std::vector<uint64_t>>(64, bits);
    uint64_t state = *rc::gen::arbitrary<uint64_t>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      state += 0x9e3779b97f4a7c15ull;  // splitmix64
      uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      t.set_bits_at(i, pool[(z ^ (z >> 31)) % pool.size()]);
    }
    return t;
  });
}

rc::Gen<Case> enlarged(rc::Gen<Case> valid, std::string output, int64_t min_elements,
                       int64_t max_elements) {
  return rc::gen::exec([valid, output, min_elements, max_elements] {
    Case c = *rc::gen::suchThat(valid, [&output](const Case &k) {
      const TensorArg *o = k.tensor(output);
      return k.aliases.empty() && o && o->present && o->numel() > 0 && o->shape.size() < 8;
    });
    const TensorArg out = *c.tensor(output);
    const int64_t target = *rc::gen::inRange(min_elements, max_elements + 1);
    const int64_t k = (target + out.numel() - 1) / out.numel();
    for (auto &[name, t] : c.tensors) {
      if (!t.present || t.shape.size() != out.shape.size()) continue;
      Shape s = t.shape;
      s.insert(s.begin(), k);
      const TensorArg old = t;
      t = name == output ? *gen::output(s, t.dtype) : *layout(s, t.dtype);
      if (name == output) continue;
      const int64_t n = old.numel();
      for (int64_t i = 0; i < t.numel(); ++i) t.set_bits_at(i, old.bits_at(i % n));
    }
    c.refresh_views();
    return c;
  });
}

BitsPairs overflow_threshold_pairs(DType dtype,
                                   const std::function<long double(long double)> &factor) {
  int m = 0, emax = 0;  // fraction bits and largest exponent
  if (dtype == DType::kFloat16)
    m = 10, emax = 15;
  else if (dtype == DType::kBFloat16)
    m = 7, emax = 127;
  else
    return {};
  const long double t = std::ldexp(2.0L - std::ldexp(1.0L, -(m + 1)), emax);
  const long double near = std::ldexp(1.0L, emax - m - 1), very_near = std::ldexp(1.0L, emax - 24);
  BitsPairs close, closest;
  for (uint64_t xb = 0; xb < 0x10000; ++xb) {
    const double x = aclnn_ref::decode(&xb, dtype);
    if (!std::isfinite(x)) continue;
    const long double f = factor(x);
    if (!std::isfinite(f) || f == 0) continue;
    const uint64_t d0 = bits_of(static_cast<double>(t / std::fabs(f)), dtype);
    for (int k = -1; k <= 1; ++k) {
      const uint64_t db = step_ulps(d0, dtype, k);
      const double dy = aclnn_ref::decode(&db, dtype);
      if (!std::isfinite(dy) || dy <= 0) continue;
      const long double gap = std::fabs(dy * std::fabs(f) - t);
      if (gap > near) continue;
      const uint64_t sign = uint64_t{1} << 15;
      for (uint64_t s : {uint64_t{0}, sign})
        (gap <= very_near ? closest : close).push_back({xb, db | s});
    }
  }
  // All of the closest, then at most 64 of the others, spread over the list.
  const size_t step = std::max<size_t>(1, close.size() / 64);
  for (size_t i = 0; i < close.size(); i += step) closest.push_back(close[i]);
  return closest;
}

rc::Gen<Case> sometimes_at_overflow_threshold(rc::Gen<Case> valid, std::string output,
                                              std::string x, std::string dy,
                                              std::function<const BitsPairs &(DType)> pairs,
                                              int one_in) {
  return rc::gen::exec([=] {
    Case c = *valid;
    if (*rc::gen::inRange(0, one_in) != 0) return c;
    const TensorArg *o = c.tensor(output), *a = c.tensor(x), *b = c.tensor(dy);
    if (!o || !a || !b || !o->present || !a->present || !b->present || o->numel() == 0 ||
        a->shape != o->shape || b->shape != o->shape || a->dtype != o->dtype ||
        b->dtype != o->dtype)
      return c;
    const BitsPairs &p = pairs(o->dtype);
    if (p.empty()) return c;
    const int64_t n = o->numel();
    const int k = *rc::gen::inRange(1, 5);
    for (int j = 0; j < k; ++j) {
      const int64_t at = *rc::gen::inRange<int64_t>(0, n);
      // Half of the draws from the closest pairs at the front of the list.
      const size_t pick = *rc::gen::arbitrary<bool>()
                              ? *rc::gen::inRange<size_t>(0, std::min<size_t>(p.size(), 4))
                              : *rc::gen::inRange<size_t>(0, p.size());
      c.tensor(x)->set_bits_at(at, p[pick].first);
      c.tensor(dy)->set_bits_at(at, p[pick].second);
    }
    c.refresh_views();
    return c;
  });
}

void make_in_place(Case &c, const std::string &output, const std::string &input, bool same_handle) {
  TensorArg *out = c.tensor(output), *in = c.tensor(input);
  TensorArg staged = *out;
  for (int64_t i = 0; i < staged.numel(); ++i) staged.set_bits_at(i, in->bits_at(i));
  *in = staged;
  *out = staged;
  c.aliases.push_back({output, input, same_handle});
  c.refresh_views();
}

rc::Gen<Case> sometimes_in_place(rc::Gen<Case> valid, std::string output,
                                 std::vector<std::string> inputs, int one_in) {
  return rc::gen::exec([valid, output, inputs, one_in] {
    Case c = *valid;
    if (*rc::gen::inRange(0, one_in) != 0) return c;
    const TensorArg *out = c.tensor(output);
    if (!out || !out->present) return c;
    std::vector<std::string> fit;
    for (const auto &name : inputs) {
      const TensorArg *in = c.tensor(name);
      if (in && in->present && in->dtype == out->dtype && in->shape == out->shape)
        fit.push_back(name);
    }
    if (fit.empty()) return c;
    const std::string input = *rc::gen::elementOf(fit);
    make_in_place(c, output, input, *rc::gen::arbitrary<bool>());
    return c;
  });
}

}  // namespace aclnn_conform::gen
