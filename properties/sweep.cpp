// Value sweeps (properties/sweep.hpp).
#include "properties/sweep.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "properties/gen.hpp"
#include "properties/splitmix.hpp"
#include "reference/dtype.hpp"

namespace aclnn_conform {

namespace {

// A value of one of 2^(hi - lo) binades [2^e, 2^(e+1)), e in [lo, hi), with a random sign and 52
// random mantissa bits (the dtype's rounding keeps the top ones).
double in_binades(uint64_t r, int lo, int hi) {
  const int e = lo + static_cast<int>((r >> 1) % static_cast<uint64_t>(hi - lo));
  const double m = 1 + static_cast<double>(r >> 12) * 0x1p-52;
  return (r & 1 ? -1 : 1) * std::ldexp(m, e);
}

// Within 4096 ulps of a value of four mantissa bits in [1/16, 16) (1.25, 0.375, 6.5: the round
// numbers a window is written around); r draws the value, o the distance.
uint64_t near_round_number(uint64_t r, uint64_t o, DType t) {
  const uint64_t round =
      gen::bits_of(in_binades((r & 0xf000000000000000ull) | (r & 0xfff), -4, 4), t);
  return gen::moved_by_ulps(round, static_cast<int64_t>(o % 8193) - 4096, t).value_or(round);
}

// x in fp32 and wider: half in [1/16, 16) (where test data and thresholds usually lie), a quarter
// in 2^-24..2^24, an eighth any finite pattern of the dtype, an eighth within 4096 ulps of a value
// of four mantissa bits (1.25, 0.375, 6.5: the round numbers a window is written around).
uint64_t x_bits(std::mt19937_64 &rng, DType t) {
  const uint64_t r = rng(), pick = rng() % 8;
  if (pick < 4) return gen::bits_of(in_binades(r, -4, 4), t);
  if (pick < 6) return gen::bits_of(in_binades(r, -24, 24), t);
  if (pick < 7) {
    // A random pattern; one with the exponent field all ones (inf or NaN) loses its top exponent
    // bit, which keeps it finite.
    const int width = static_cast<int>(aclnn_ref::dtype_size(t)) * 8;
    const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    const uint64_t bits = r & mask;
    const uint64_t inf = gen::bits_of(INFINITY, t);
    return (bits & inf) == inf ? bits & ~(uint64_t{1} << (width - 2)) : bits;
  }
  return near_round_number(r, rng(), t);
}

// dy: three quarters in [1/4, 4), a quarter in 2^-20..2^20, either sign.
uint64_t dy_bits(std::mt19937_64 &rng, DType t) {
  const uint64_t r = rng();
  return gen::bits_of(rng() % 4 ? in_binades(r, -2, 2) : in_binades(r, -20, 20), t);
}

bool sixteen_bits(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16;
}

}  // namespace

bool has_elementwise_sweeps(const OpDescriptor &op) {
  return static_cast<bool>(op.range_limits.factor) && !op.outputs.empty();
}

bool has_value_sweeps(const OpDescriptor &op) {
  return has_elementwise_sweeps(op) || static_cast<bool>(op.gen_large);
}

Case value_sweep_case(const OpDescriptor &op, Product p, uint64_t seed) {
  if (!has_elementwise_sweeps(op))
    throw std::logic_error(op.name + " has no elementwise value sweeps");
  const OpDescriptor::RangeLimits &r = op.range_limits;
  std::mt19937_64 rng(seed);
  // FLOAT first in half the sweeps, each 16-bit dtype in a quarter: a 16-bit sweep holds every x
  // pattern, so a window there is in the first one of its dtype; a FLOAT window is in a few.
  std::vector<DType> dtypes = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};
  constexpr std::ptrdiff_t kFirstDtype[4] = {0, 0, 1, 2};
  std::rotate(dtypes.begin(), dtypes.begin() + kFirstDtype[rng() % 4], dtypes.end());
  // The attributes: one of the op's sweep sets, by the seed (LogitGrad's eps across its regimes:
  // each threshold then meets every 16-bit x pattern).
  const auto &attrs = r.sweep_attrs.empty() ? r.attrs : r.sweep_attrs[rng() % r.sweep_attrs.size()];
  // A quarter of the sweeps give dy and the output other float dtypes than x where the op accepts
  // such a call (a promotion path, with every 16-bit x pattern); the others one dtype.
  const bool mixed = rng() % 4 == 0;
  // The call with x in tx, dy in tdy, the output in tout (other tensors as x), n elements, values
  // not yet drawn.
  const auto call = [&](DType tx, DType tdy, DType tout, int64_t n) {
    Case c;
    c.op = op.name;
    c.product = p;
    for (const auto &name : r.tensors) {
      const bool out = name == op.outputs[0];
      TensorArg a = TensorArg::contiguous(out ? tout : name == r.dy ? tdy : tx, {n});
      if (out) std::fill(a.storage.begin(), a.storage.end(), kCanary);
      c.tensors.emplace_back(name, std::move(a));
    }
    for (const auto &[name, value] : attrs) c.attrs.emplace_back(name, value);
    if (!c.tensor(r.x) || !c.tensor(r.dy))
      throw std::logic_error(op.name + ": range_limits names a missing tensor");
    c.refresh_views();
    return c;
  };
  // The dtype triples to try, in order: mixed ones first where drawn, then one dtype each.
  std::vector<std::array<DType, 3>> tries;
  if (mixed)
    for (const DType t : dtypes)
      for (const DType u : dtypes)
        if (u != t)
          for (const DType o : {u, t, DType::kFloat32}) tries.push_back({t, u, o});
  for (const DType t : dtypes) tries.push_back({t, t, t});
  // The first the oracle accepts for p, else the first of one dtype (judged as the call it is).
  std::array<DType, 3> chosen = {dtypes[0], dtypes[0], dtypes[0]};
  for (const auto &k : tries)
    if (op.check(call(k[0], k[1], k[2], 1), {}).ok()) {
      chosen = k;
      break;
    }
  const auto [t, tdy, tout] = chosen;
  Case c = call(t, tdy, tout, kSweepElements);
  TensorArg *x = c.tensor(r.x), *dy = c.tensor(r.dy);
  // Half the fp32 x are drawn again (up to three times) where the factor is NaN, which marks
  // where the op's result is not dy times a finite factor (LogitGrad outside its eps range).
  for (int64_t i = 0; i < kSweepElements; ++i) {
    uint64_t xb = static_cast<uint64_t>(i);
    if (!sixteen_bits(t)) {
      xb = x_bits(rng, t);
      for (int again = (i & 1) * 3; again > 0; --again) {
        if (std::isfinite(r.factor(aclnn_ref::decode(&xb, t)))) break;
        xb = x_bits(rng, t);
      }
    }
    x->set_bits_at(i, xb);
    dy->set_bits_at(i, dy_bits(rng, tdy));
  }
  c.refresh_views();
  return c;
}

namespace {

// Elements [from, to) of every tensor of a one-dimensional contiguous case.
Case slice(const Case &c, int64_t from, int64_t to) {
  Case s = c;
  for (auto &[name, t] : s.tensors) {
    if (!t.present) continue;
    const TensorArg old = t;
    t = TensorArg::contiguous(old.dtype, {to - from});
    for (int64_t i = from; i < to; ++i) t.set_bits_at(i - from, old.bits_at(i));
  }
  s.refresh_views();
  return s;
}

int64_t length(const Case &c) {
  for (const auto &[name, t] : c.tensors)
    if (t.present) return t.numel();
  return 0;
}

}  // namespace

DType widest_float_input(const OpDescriptor &op, const Case &c) {
  DType t = DType::kInt8;
  int64_t most = -1;
  for (const auto &[name, a] : c.tensors) {
    const bool output = std::find(op.outputs.begin(), op.outputs.end(), name) != op.outputs.end();
    if (a.present && !output && aclnn_ref::is_floating(a.dtype) && a.numel() > most) {
      most = a.numel();
      t = a.dtype;
    }
  }
  return t;
}

void refill_values(const OpDescriptor &op, Case &c, uint64_t seed) {
  for (size_t k = 0; k < c.tensors.size(); ++k) {
    auto &[name, t] = c.tensors[k];
    const bool output = std::find(op.outputs.begin(), op.outputs.end(), name) != op.outputs.end();
    if (!t.present || output || !aclnn_ref::is_floating(t.dtype) || c.alias_of(name, true))
      continue;
    const int width = static_cast<int>(aclnn_ref::dtype_size(t.dtype)) * 8;
    const uint64_t sign = uint64_t{1} << (width - 1);
    for (int64_t i = 0; i < t.numel(); ++i) {
      // NaN and infinities too: a row or column holding one is judged by its special-value
      // clause, and a large call may hold one in most of them (specials are the large calls' own).
      const uint64_t old = t.bits_at(i);
      const uint64_t h = splitmix64(seed ^ splitmix64((k << 48) ^ static_cast<uint64_t>(i)));
      // No random pattern here: a row of values across the whole range is mostly overflow and
      // cancellation, which says little about one element's window.
      const uint64_t r = splitmix64(h), pick = h % 4;
      const uint64_t bits = pick < 2   ? gen::bits_of(in_binades(r, -4, 4), t.dtype)
                            : pick < 3 ? gen::bits_of(in_binades(r, -12, 12), t.dtype)
                                       : near_round_number(r, h >> 8, t.dtype);
      t.set_bits_at(i, (bits & ~sign) | (old & sign));
    }
  }
  c.refresh_views();
}

rc::Shrinkable<Case> value_sweep_shrinkable(const OpDescriptor &op, Product p, uint64_t seed,
                                            int size) {
  if (has_elementwise_sweeps(op)) return halving_shrinkable(value_sweep_case(op, p, seed));
  if (!op.gen_large) throw std::logic_error(op.name + " has no value sweeps");
  // Half the row sweeps are of a FLOAT call (a third of the large calls are): a 16-bit window of a
  // few hundred ulps is in nearly every sweep of its dtype (tens of thousands of values over eight
  // binades of 1024 or 128), a FLOAT one in a few.
  rc::Gen<Case> large = op.gen_sweep ? op.gen_sweep(p) : op.gen_large(p);
  if (splitmix64(seed) & 1)
    large = rc::gen::suchThat(
        large, [&op](const Case &c) { return widest_float_input(op, c) == DType::kFloat32; });
  const auto gen = rc::gen::map(std::move(large), [&op, seed](Case c) {
    refill_values(op, c, seed);
    return c;
  });
  return gen(rc::Random(seed), size);
}

rc::Shrinkable<Case> halving_shrinkable(Case c) {
  return rc::shrinkable::shrinkRecur(std::move(c), [](const Case &k) {
    const int64_t n = length(k);
    if (n <= 1) return rc::Seq<Case>();
    return rc::seq::just(slice(k, 0, n / 2), slice(k, n / 2, n));
  });
}

Case element_copies(const OpDescriptor &op, const Case &c, int64_t e, int64_t n) {
  Case s = c;
  for (auto &[name, t] : s.tensors) {
    if (!t.present) continue;
    const bool output = std::find(op.outputs.begin(), op.outputs.end(), name) != op.outputs.end();
    const uint64_t bits = t.bits_at(e);
    t = TensorArg::contiguous(t.dtype, {n});
    if (output)
      std::fill(t.storage.begin(), t.storage.end(), kCanary);
    else
      for (int64_t i = 0; i < n; ++i) t.set_bits_at(i, bits);
  }
  s.refresh_views();
  return s;
}

}  // namespace aclnn_conform
