#include "properties/gen.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "properties/splitmix.hpp"
#include "reference/rounding.hpp"

namespace aclnn_conform::gen {

using aclnn_ref::dtype_size;

namespace {
int64_t product(const Shape &s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}
}  // namespace

bool is_prime(int64_t n) {
  if (n < 2) return false;
  for (int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

namespace {
// Primes a kernel's loops meet as awkward sizes: the small ones, and those nearest each power of
// two from 8 to 2^21 (on both sides).
const std::vector<int64_t> &primes() {
  static const std::vector<int64_t> list = [] {
    std::vector<int64_t> v;
    for (int64_t n = 2; n < 100; ++n)
      if (is_prime(n)) v.push_back(n);
    for (int e = 7; e <= 21; ++e) {
      int64_t below = (int64_t{1} << e) - 1, above = (int64_t{1} << e) + 1;
      while (!is_prime(below)) --below;
      while (!is_prime(above)) ++above;
      v.push_back(below);
      v.push_back(above);
    }
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }();
  return list;
}
}  // namespace

rc::Gen<bool> sometimes(int one_in) {
  return rc::gen::map(rc::gen::resize(100, rc::gen::inRange(0, std::max(one_in, 1))),
                      [one_in](int v) { return v == one_in - 1 && one_in > 1; });
}

rc::Gen<int> pick(int n) {
  return rc::gen::resize(100, rc::gen::inRange(0, std::max(n, 1)));
}

rc::Gen<int64_t> kernel_size(int64_t lo, int64_t hi, std::vector<int64_t> thresholds) {
  lo = std::max<int64_t>(lo, 0);
  hi = std::max(lo, hi);
  std::vector<int64_t> ts = {8, 16, 32, 64, 128, 256, 512, 1024, kThreadSplit};
  ts.insert(ts.end(), thresholds.begin(), thresholds.end());
  std::vector<int64_t> points, prime_sizes;
  for (int64_t t : ts)
    for (int64_t d = -1; d <= 1; ++d)
      if (t + d >= lo && t + d <= hi) points.push_back(t + d);
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  for (int64_t p : primes())
    if (p >= lo && p <= hi) prime_sizes.push_back(p);
  const rc::Gen<int64_t> pick = rc::gen::exec([lo, hi, points, prime_sizes] {
    const int how = *rc::gen::weightedElement<int>({{4, 0}, {1, 1}, {1, 2}, {2, 3}});
    if (how == 2 && !prime_sizes.empty()) return *rc::gen::elementOf(prime_sizes);
    if (how == 3 && !points.empty()) return *rc::gen::elementOf(points);
    if (how == 1 && hi >= 1 && (lo % 2 == 1 || lo + 1 <= hi)) {  // an odd size
      const int64_t first = lo % 2 == 1 ? lo : lo + 1;
      return first + 2 * *rc::gen::inRange<int64_t>(0, (hi - first) / 2 + 1);
    }
    // k*w + r: a vector width, a remainder (the edges 0, 1, w/2, w-1, or any), whole vectors.
    const int64_t w = *rc::gen::element<int64_t>(8, 16, 32, 64);
    // (Any remainder at every size: rapidcheck's inRange would narrow it at small sizes.)
    int64_t r = *rc::gen::weightedOneOf<int64_t>({
        {1, rc::gen::element<int64_t>(0, 1, w / 2, w - 1)},
        {1, rc::gen::resize(100, rc::gen::inRange<int64_t>(0, w))},
    });
    if (r > hi) r = hi % w;
    const int64_t kmin = lo > r ? (lo - r + w - 1) / w : 0, kmax = (hi - r) / w;
    if (kmin > kmax) return lo;
    return *rc::gen::inRange<int64_t>(kmin, kmax + 1) * w + r;
  });
  // Whatever the class, a counterexample's size shrinks towards lo.
  return [pick, lo](const rc::Random &random, int size) {
    return rc::shrinkable::shrinkRecur(pick(random, size).value(),
                                       [lo](int64_t n) { return rc::shrink::towards(n, lo); });
  };
}

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
    // One shape in four: a dim of a size class kernels tell apart (remainders modulo the vector
    // widths, odd, prime, thresholds), the innermost two times in three; the other dims are cut
    // down first so that it has room.
    if (rank > 0 && *sometimes(4)) {
      const size_t j = *rc::gen::weightedElement<bool>({{2, true}, {1, false}})
                           ? s.size() - 1
                           : static_cast<size_t>(*pick(static_cast<int>(s.size())));
      const int64_t room = std::max<int64_t>(1, limits.max_elements / 16);
      auto others = [&] {
        int64_t p = 1;
        for (size_t i = 0; i < s.size(); ++i)
          if (i != j) p *= std::max<int64_t>(s[i], 1);
        return p;
      };
      while (others() > room) {
        size_t big = j == 0 ? 1 : 0;
        for (size_t i = 0; i < s.size(); ++i)
          if (i != j && s[i] > s[big]) big = i;
        s[big] = std::max<int64_t>(1, s[big] / 2);
      }
      s[j] =
          *kernel_size(1, std::max<int64_t>(1, limits.max_elements / others()), limits.thresholds);
    }
    return s;
  });
}

rc::Gen<Shape> misshaped(Shape s, int max_rank) {
  return rc::gen::exec([s, max_rank] {
    const size_t r = s.size();
    std::vector<Shape> same;  // the same element count, another shape
    if (r >= 2 && Shape(s.rbegin(), s.rend()) != s) same.emplace_back(s.rbegin(), s.rend());
    for (size_t i = 0; i + 1 < r; ++i) {
      if (s[i] != s[i + 1]) {  // two dims swapped
        Shape t = s;
        std::swap(t[i], t[i + 1]);
        same.push_back(t);
      }
      Shape m = s;  // two dims merged
      m[i] *= m[i + 1];
      m.erase(m.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      same.push_back(m);
    }
    for (size_t i = 0; i < r && static_cast<int>(r) < max_rank; ++i)
      for (int64_t f = 2; f * f <= s[i]; ++f)
        if (s[i] % f == 0) {  // one dim split in two
          Shape t = s;
          t[i] = s[i] / f;
          t.insert(t.begin() + static_cast<std::ptrdiff_t>(i), f);
          same.push_back(t);
          break;
        }
    if (static_cast<int>(r) < max_rank && r > 0) {  // a 1 added (a broadcastable shape is wrong
      Shape t = s;                                  // where shapes must be equal)
      t.insert(t.begin(), 1);
      same.push_back(t);
      t = s;
      t.push_back(1);
      same.push_back(t);
    }
    for (size_t i = 0; i < r && r >= 2; ++i)
      if (s[i] == 1) {  // a 1 removed
        Shape t = s;
        t.erase(t.begin() + static_cast<std::ptrdiff_t>(i));
        same.push_back(t);
        break;
      }
    if (!same.empty() && *rc::gen::arbitrary<bool>()) return *rc::gen::elementOf(same);
    if (r == 0) return Shape{*rc::gen::inRange<int64_t>(2, 4)};
    Shape t = s;
    if (static_cast<int>(r) < max_rank && *rc::gen::weightedElement<bool>({{3, false}, {1, true}}))
      t.insert(t.begin(), 2);
    else
      t[static_cast<size_t>(*pick(static_cast<int>(r)))] += 1 + *pick(2);
    return t;
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
    // Interleaved dims (one layout in eight that has two dims of size >= 2): dim ia gets stride
    // p*E and ib q*E with q >= shape[ia] and p = q + 1 coprime with it, so i*p + j*q never
    // repeats, though for shape[ib] >= 3 neither dim nests inside the other. Storage for the
    // pair: (shape[ia] - 1) * p + (shape[ib] - 1) * q + 1 elements.
    int ia = -1, ib = -1;
    int64_t q = 0;
    if (options.allow_interleave && r >= 2 && *sometimes(8)) {
      std::vector<int> wide;
      for (int d = 0; d < r; ++d)
        if (shape[d] >= 2 && !expanded[d]) wide.push_back(d);
      if (wide.size() >= 2) {
        ia = *rc::gen::elementOf(wide);
        wide.erase(std::find(wide.begin(), wide.end(), ia));
        ib = *rc::gen::elementOf(wide);
        // The smaller dim takes p: the pair spans about 2 * shape[ia] * shape[ib] elements (the
        // larger one would span its square).
        if (shape[ia] > shape[ib]) std::swap(ia, ib);
        q = shape[ia] + *rc::gen::inRange<int64_t>(0, 3);
      }
    }
    // Now and then far into a larger storage (past a 4 KiB page of FLOAT).
    const bool far = options.allow_offset && *sometimes(16);
    const int64_t offset = !options.allow_offset ? 0
                           : far                 ? *rc::gen::inRange<int64_t>(1025, 4100)
                           : *rc::gen::weightedElement<bool>({{3, false}, {1, true}})
                               ? *rc::gen::inRange<int64_t>(1, 9)
                               : 0;
    // Innermost memory dim first: stride = running extent * step.
    int64_t extent = 1;
    for (int k = r - 1; k >= 0; --k) {
      const int d = order[k];
      if (expanded[d] || d == ib) continue;  // ib is placed with ia
      if (d == ia) {
        const int64_t p = q + 1;
        a.strides[ia] = p * extent;
        a.strides[ib] = q * extent;
        extent *= (shape[ia] - 1) * p + (shape[ib] - 1) * q + 1;
        continue;
      }
      a.strides[d] = extent * step[d];
      extent *= std::max<int64_t>(1, shape[d]) * step[d];
    }
    // A dim of size 1 is never stepped over: any stride is legal there, zero included.
    if (options.allow_unit_dim_strides)
      for (int d = 0; d < r; ++d)
        if (shape[d] == 1 && *sometimes(3))
          a.strides[d] =
              *rc::gen::element<int64_t>(0, 1, 2, 3, 4097, extent + 1, (int64_t{1} << 31) + 5);
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

std::optional<uint64_t> moved_by_ulps(uint64_t bits, int64_t k, DType dtype) {
  const int width = static_cast<int>(dtype_size(dtype)) * 8;
  const uint64_t sign = uint64_t{1} << (width - 1);
  // Sign-magnitude to a monotonic integer (-0 and +0 both map to 0).
  __int128 v = (bits & sign) ? -static_cast<__int128>(bits & (sign - 1))
                             : static_cast<__int128>(bits & (sign - 1));
  v += k;
  const auto mag = static_cast<uint64_t>(v < 0 ? -v : v);
  const uint64_t inf = bits_of(std::numeric_limits<double>::infinity(), dtype);
  if (mag >= inf) return std::nullopt;
  return (v < 0 ? sign : 0) | mag;
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

std::vector<uint64_t> boundary_neighbours(double v, DType dtype) {
  std::vector<uint64_t> out;
  if (!aclnn_ref::is_floating(dtype) || !std::isfinite(v)) return out;
  for (const DType f : {DType::kFloat16, DType::kBFloat16, DType::kFloat32}) {
    if (f == dtype) continue;
    const uint64_t n0 = bits_of(v, f);
    std::vector<double> points;
    double prev = NAN;
    for (int k = -1; k <= 1; ++k) {
      const uint64_t nb = step_ulps(n0, f, k);
      const double nv = aclnn_ref::decode(&nb, f);
      if (!std::isfinite(nv)) {
        prev = NAN;
        continue;
      }
      points.push_back(nv);
      if (std::isfinite(prev)) points.push_back(prev / 2 + nv / 2);  // where rounding to f flips
      prev = nv;
    }
    for (double pv : points) {
      const uint64_t b = bits_of(pv, dtype);
      for (int k = -1; k <= 1; ++k) {
        const uint64_t nb = step_ulps(b, dtype, k);
        if (std::isfinite(aclnn_ref::decode(&nb, dtype))) out.push_back(nb);
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

rc::Gen<uint64_t> value_bits(DType dtype, std::vector<double> hot) {
  std::vector<uint64_t> special_bits;
  for (double v : specials(dtype)) special_bits.push_back(bits_of(v, dtype));
  std::vector<uint64_t> hot_base, hot_bits, narrow_bits;
  for (double v : hot) {
    const uint64_t b = bits_of(v, dtype);
    hot_base.push_back(b);
    for (int k = -2; k <= 2; ++k) hot_bits.push_back(step_ulps(b, dtype, k));
    for (uint64_t n : boundary_neighbours(v, dtype)) narrow_bits.push_back(n);
  }
  if (hot_bits.empty()) hot_bits = special_bits;
  if (hot_base.empty()) hot_base = special_bits;
  const bool floating = aclnn_ref::is_floating(dtype);
  // Near a hot value: 3 to 64 ulps either side (where a kernel's error is still largest).
  auto near = rc::gen::apply(
      [dtype](uint64_t b, bool up, int k) { return step_ulps(b, dtype, up ? k : -k); },
      rc::gen::elementOf(hot_base), rc::gen::arbitrary<bool>(), rc::gen::inRange(3, 65));
  return rc::gen::weightedOneOf<uint64_t>({
      {6, ordinary_bits(dtype)},
      {2, rc::gen::elementOf(special_bits)},
      {2, rc::gen::elementOf(hot_bits)},
      {floating ? 1u : 0u, near},
      {narrow_bits.empty() ? 0u : 1u,
       rc::gen::elementOf(narrow_bits.empty() ? hot_bits : narrow_bits)},
      {1, any_bits(dtype)},
  });
}

namespace {
int binade_of(double magnitude) {
  return static_cast<int>(std::floor(std::log2(magnitude)));
}
uint64_t finite_value_bits(DType dtype, double min_magnitude, double max_magnitude, bool neg, int e,
                           uint32_t frac) {
  double v = std::ldexp(1.0 + frac / 4294967296.0, e);
  v = std::clamp(v, min_magnitude, max_magnitude);
  return bits_of(neg ? -v : v, dtype);
}
}  // namespace

rc::Gen<uint64_t> finite_bits(DType dtype, double min_magnitude, double max_magnitude) {
  return rc::gen::apply(
      [dtype, min_magnitude, max_magnitude](bool neg, int e, uint32_t frac) {
        return finite_value_bits(dtype, min_magnitude, max_magnitude, neg, e, frac);
      },
      rc::gen::arbitrary<bool>(),
      rc::gen::inRange(binade_of(min_magnitude), binade_of(max_magnitude) + 1),
      rc::gen::arbitrary<uint32_t>());
}

uint64_t finite_bits_from(uint64_t word, DType dtype, double min_magnitude, double max_magnitude) {
  const int lo = binade_of(min_magnitude), hi = binade_of(max_magnitude);
  const int e = lo + static_cast<int>((word >> 33) % static_cast<uint64_t>(hi - lo + 1));
  return finite_value_bits(dtype, min_magnitude, max_magnitude, (word >> 32) & 1, e,
                           static_cast<uint32_t>(word));
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
    for (int64_t i = 0; i < t.numel(); ++i, state += 0x9e3779b97f4a7c15ull)
      t.set_bits_at(i, pool[splitmix64(state) % pool.size()]);
    return t;
  });
}

rc::Gen<int64_t> stretch_factor(int64_t n0, int64_t min_elements, int64_t max_elements) {
  n0 = std::max<int64_t>(n0, 1);
  const int64_t kmin = std::max<int64_t>(1, (min_elements + n0 - 1) / n0),
                kmax = std::max<int64_t>(kmin, max_elements / n0);
  // Multiples of the thread split in range: the count lands at or just above one.
  std::vector<int64_t> splits;
  for (int64_t t = kThreadSplit; t <= max_elements + n0; t += kThreadSplit)
    if (t >= min_elements) splits.push_back(t);
  return rc::gen::exec([=] {
    switch (*rc::gen::weightedElement<int>({{2, 0}, {1, 1}, {splits.empty() ? 0u : 2u, 2}})) {
      case 1:  // of a kernel size class (with an odd count, the output's count follows it)
        return *kernel_size(kmin, kmax);
      case 2: {
        const int64_t t =
            *rc::gen::arbitrary<bool>() ? splits.front() : *rc::gen::elementOf(splits);
        return std::max<int64_t>(1, t / n0 + (*rc::gen::arbitrary<bool>() ? 1 : 0));
      }
      default:
        return (*rc::gen::inRange(min_elements, max_elements + 1) + n0 - 1) / n0;
    }
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
    const int64_t n0 = out.numel();
    const int64_t k = *stretch_factor(n0, min_elements, max_elements);
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

RangeLimitTable::RangeLimitTable(std::function<long double(long double)> factor)
    : factor_(std::move(factor)) {}

const RangeLimitPairs &RangeLimitTable::operator()(DType dtype) const {
  const int i = dtype == DType::kFloat16    ? 0
                : dtype == DType::kBFloat16 ? 1
                : dtype == DType::kFloat32  ? 2
                                            : -1;
  if (i < 0) return none_;
  const std::lock_guard lock(mutex_);
  if (!built_[i]) pairs_[i] = range_limit_pairs(dtype, factor_);
  built_[i] = true;
  return pairs_[i];
}

RangeLimitPairs range_limit_pairs(DType dtype,
                                  const std::function<long double(long double)> &factor,
                                  int x_stride) {
  int m = 0, emax = 0, emin = 0;  // fraction bits, largest and smallest normal exponents
  if (dtype == DType::kFloat16)
    m = 10, emax = 15, emin = -14;
  else if (dtype == DType::kBFloat16)
    m = 7, emax = 127, emin = -126;
  else if (dtype == DType::kFloat32)
    m = 23, emax = 127, emin = -126;
  else
    return {};
  const int width = static_cast<int>(dtype_size(dtype)) * 8;
  const uint64_t sign = uint64_t{1} << (width - 1);
  // Within half a float ulp of the limit (fp32: 2^-34 relative), a float result rounded again
  // or truncated lands on the wrong side.
  const int very = dtype == DType::kFloat32 ? 34 : 25;
  struct Limit {
    long double t, near, very_near;
    BitsPairs close, closest;
  };
  const auto limit = [&](long double t, long double spacing) {
    return Limit{t, spacing, std::ldexp(1.0L, std::ilogb(t) - very), {}, {}};
  };
  Limit limits[3] = {
      // overflow threshold T: half an ulp of the top binade either side
      limit(std::ldexp(2.0L - std::ldexp(1.0L, -(m + 1)), emax), std::ldexp(1.0L, emax - m - 1)),
      // smallest normal: half the (subnormal) spacing either side
      limit(std::ldexp(1.0L, emin), std::ldexp(1.0L, emin - m - 1)),
      // half the smallest subnormal: a quarter of the spacing either side
      limit(std::ldexp(1.0L, emin - m - 1), std::ldexp(1.0L, emin - m - 2)),
  };
  const auto try_x = [&](uint64_t xb) {
    const double x = aclnn_ref::decode(&xb, dtype);
    if (!std::isfinite(x)) return;
    const long double f = factor(x);
    if (!std::isfinite(f) || f == 0) return;
    for (Limit &l : limits) {
      const uint64_t d0 = bits_of(static_cast<double>(l.t / std::fabs(f)), dtype);
      for (int k = -1; k <= 1; ++k) {
        const uint64_t db = step_ulps(d0, dtype, k);
        const double dy = aclnn_ref::decode(&db, dtype);
        if (!std::isfinite(dy) || dy <= 0) continue;
        const long double gap = std::fabs(dy * std::fabs(f) - l.t);
        if (gap > l.near) continue;
        (gap <= l.very_near ? l.closest : l.close).push_back({xb, db});
      }
    }
  };
  const uint64_t stride = static_cast<uint64_t>(std::max(1, x_stride));
  for (uint64_t j = 0; j < 0x10000 / stride; ++j) {
    uint64_t z = (j + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
    const uint64_t i = j * stride + (z >> 32) % stride;  // one of each stride values
    if (width == 16)
      try_x(i);
    else  // every sign and exponent, scattered fractions
      try_x((i << 16) | ((z >> 40) & 0xffff));
  }
  // Per limit: the closest (at most 256, spread over the list), then at most 64 of the others,
  // each with both signs of dy.
  const auto assemble = [sign](Limit &l) {
    BitsPairs out;
    const auto take = [&](const BitsPairs &from, size_t most) {
      const size_t step = std::max<size_t>(1, from.size() / most);
      for (size_t i = 0; i < from.size(); i += step) {
        out.push_back(from[i]);
        out.push_back({from[i].first, from[i].second | sign});
      }
    };
    take(l.closest, 256);
    take(l.close, 64);
    return out;
  };
  return {assemble(limits[0]), assemble(limits[1]), assemble(limits[2])};
}

namespace {
thread_local bool no_range_limits = false;
}  // namespace

NoRangeLimits::NoRangeLimits() : saved_(no_range_limits) {
  no_range_limits = true;
}
NoRangeLimits::~NoRangeLimits() {
  no_range_limits = saved_;
}

rc::Gen<Case> sometimes_at_range_limits(rc::Gen<Case> valid, std::string output, std::string x,
                                        std::string dy,
                                        std::function<const RangeLimitPairs &(DType)> pairs,
                                        int one_in) {
  return rc::gen::exec([=] {
    Case c = *valid;
    if (no_range_limits || !*sometimes(one_in)) return c;
    const TensorArg *o = c.tensor(output), *a = c.tensor(x), *b = c.tensor(dy);
    if (!o || !a || !b || !o->present || !a->present || !b->present || o->numel() == 0 ||
        a->shape != o->shape || b->shape != o->shape || a->dtype != o->dtype ||
        b->dtype != o->dtype)
      return c;
    const RangeLimitPairs &all = pairs(o->dtype);
    // One limit per case: the overflow threshold half of the time (where a result rounded twice
    // or truncated turns finite or infinite), the two subnormal limits the other half.
    const int which = *rc::gen::weightedElement<int>({{2, 0}, {1, 1}, {1, 2}});
    const BitsPairs *lists[3] = {&all.overflow, &all.min_normal, &all.underflow};
    const BitsPairs &p = !lists[which]->empty()    ? *lists[which]
                         : !all.overflow.empty()   ? all.overflow
                         : !all.min_normal.empty() ? all.min_normal
                                                   : all.underflow;
    if (p.empty()) return c;
    const int64_t n = o->numel();
    const int k = *rc::gen::inRange(1, 5);
    for (int j = 0; j < k; ++j) {
      const int64_t at = *rc::gen::resize(100, rc::gen::inRange<int64_t>(0, n));
      // Half of the draws from the closest pairs at the front of the list.
      const size_t which_pair =
          *rc::gen::arbitrary<bool>()
              ? static_cast<size_t>(*pick(static_cast<int>(std::min<size_t>(p.size(), 4))))
              : static_cast<size_t>(*pick(static_cast<int>(p.size())));
      c.tensor(x)->set_bits_at(at, p[which_pair].first);
      c.tensor(dy)->set_bits_at(at, p[which_pair].second);
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
    if (!*sometimes(one_in)) return c;
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
