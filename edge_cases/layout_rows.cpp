// Legal views of every tensor of every op, inputs and outputs alike, as edge rows (ABI-TENSOR-2):
// a library that refuses a legal view, ignores an offset or a stride, or computes an address from
// a stride it never needs is wrong at once, not when the generators happen to draw that view.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>

#include "edge_cases/edge_case.hpp"
#include "properties/gen.hpp"
#include "properties/op.hpp"

namespace aclnn_conform {
namespace {

using gen::Shape;

struct Relayout {
  const char *what;
  int64_t min_numel;  // fewer elements would not tell a misplaced one from a right one
  // The new strides and offset for a view of this shape, or nothing where the layout does not
  // apply to it.
  std::function<std::optional<std::pair<std::vector<int64_t>, int64_t>>(const Shape &)> make;
};

std::vector<int64_t> row_major(const Shape &s) {
  std::vector<int64_t> st(s.size());
  int64_t extent = 1;
  for (size_t d = s.size(); d-- > 0;) {
    st[d] = extent;
    extent *= std::max<int64_t>(1, s[d]);
  }
  return st;
}

int first_dim(const Shape &s, const std::function<bool(int64_t)> &pred, int skip = -1) {
  for (size_t d = 0; d < s.size(); ++d)
    if (static_cast<int>(d) != skip && pred(s[d])) return static_cast<int>(d);
  return -1;
}

const std::vector<Relayout> &relayouts() {
  using R = std::optional<std::pair<std::vector<int64_t>, int64_t>>;
  static const std::vector<Relayout> all{
      {"offset 37 elements into its storage, row-major", 4,
       [](const Shape &s) -> R { return std::make_pair(row_major(s), int64_t{37}); }},
      {"every stride doubled (a view of every other element)", 4,
       [](const Shape &s) -> R {
         auto st = row_major(s);
         for (auto &x : st) x *= 2;
         return std::make_pair(st, int64_t{0});
       }},
      {"dims in reverse memory order (a transposed view)", 4,
       [](const Shape &s) -> R {
         if (std::count_if(s.begin(), s.end(), [](int64_t n) { return n >= 2; }) < 2) return {};
         Shape reversed(s.rbegin(), s.rend());
         auto st = row_major(reversed);
         std::reverse(st.begin(), st.end());
         return std::make_pair(st, int64_t{0});
       }},
      {"stride 0 on a dim of size 1 (never stepped over, so legal)", 2,
       [](const Shape &s) -> R {
         const int d = first_dim(s, [](int64_t n) { return n == 1; });
         if (d < 0) return {};
         auto st = row_major(s);
         st[d] = 0;
         return std::make_pair(st, int64_t{0});
       }},
      {"stride 2^31 + 5 on a dim of size 1 (never stepped over, so legal; no 32-bit address "
       "arithmetic may see it)",
       2,
       [](const Shape &s) -> R {
         const int d = first_dim(s, [](int64_t n) { return n == 1; });
         if (d < 0) return {};
         auto st = row_major(s);
         st[d] = (int64_t{1} << 31) + 5;
         return std::make_pair(st, int64_t{0});
       }},
      // gen::layout's interleaving: dims a (size A >= 2) and b (size >= 3) with strides (q+1)*E
      // and q*E, q = A: no element is met twice, yet neither dim nests inside the other.
      {"two dims interleaved (strides (A+1)E and AE: no element met twice, no dim nested)", 6,
       [](const Shape &s) -> R {
         const int b = first_dim(s, [](int64_t n) { return n >= 3; });
         const int a = b < 0 ? -1
                             : first_dim(
                                   s, [](int64_t n) { return n >= 2; }, b);
         if (a < 0) return {};
         std::vector<int64_t> st(s.size(), 0);
         int64_t extent = 1;
         for (size_t d = s.size(); d-- > 0;) {
           if (static_cast<int>(d) == a || static_cast<int>(d) == b) continue;
           st[d] = extent;
           extent *= std::max<int64_t>(1, s[d]);
         }
         const int64_t q = s[a];
         st[a] = (q + 1) * extent;
         st[b] = q * extent;
         return std::make_pair(st, int64_t{0});
       }},
  };
  return all;
}

// t in the new view, holding the same value at every index (an output: the canary).
TensorArg relaid(const TensorArg &t, std::vector<int64_t> strides, int64_t offset, bool output) {
  TensorArg n;
  n.dtype = t.dtype;
  n.shape = t.shape;
  n.strides = std::move(strides);
  n.offset = offset;
  int64_t reach = 0;
  for (size_t d = 0; d < n.shape.size(); ++d) reach += (n.shape[d] - 1) * n.strides[d];
  n.storage.assign(static_cast<size_t>(offset + reach + 1 + 3) * aclnn_ref::dtype_size(t.dtype),
                   output ? kCanary : std::byte{0});
  if (!output)
    for (int64_t i = 0; i < t.numel(); ++i) n.set_bits_at(i, t.bits_at(i));
  return n;
}

bool usable_base(const OpDescriptor &op, const Case &c) {
  if (!c.aliases.empty() || !op.check(c, {}).ok()) return false;
  for (const auto &[name, t] : c.tensors)
    if (t.present && t.numel() == 0) return false;
  return true;
}

std::vector<EdgeCase> build_rows(const OpDescriptor &op) {
  if (!op.gen_valid) return {};
  // Small valid calls of fixed seeds, drawn only while some (tensor, view) still lacks a call whose
  // shape allows it: every worker process builds the tables, so the rows must cost milliseconds.
  const size_t views = relayouts().size();
  std::vector<std::string> names;
  std::map<std::pair<size_t, size_t>, EdgeCase> found;  // (tensor, view) -> row
  const gen::NoRangeLimits no_range_tables;
  int since_new = 0;  // draws since one gave a (tensor, view) its call
  for (uint64_t seed = 1; seed <= 48; ++seed) {
    Case base = op.gen_valid(Product::kAtlasA2)(rc::Random(seed), 30).value();
    if (base.product != Product::kAtlasA2 || !usable_base(op, base)) continue;
    // Ordinary values in every float input: a row is about the view, and an unshrunk call full
    // of special values that fails also for another reason (a library following a variant's
    // formula) would hide that variant from the clause's fingerprint.
    for (auto &[name, t] : base.tensors)
      if (t.present && aclnn_ref::is_floating(t.dtype) &&
          std::find(op.outputs.begin(), op.outputs.end(), name) == op.outputs.end())
        t = gen::fill_view(t, gen::finite_bits(t.dtype, 0.25, 4.0))(rc::Random(seed + 1000), 0)
                .value();
    base.refresh_views();
    if (!usable_base(op, base)) continue;
    const size_t before = found.size();
    if (names.empty())
      for (const auto &[name, t] : base.tensors) names.push_back(name);
    for (size_t k = 0; k < names.size(); ++k) {
      const TensorArg *t = base.tensor(names[k]);
      if (!t || !t->present || t->shape.empty()) continue;
      const bool output =
          std::find(op.outputs.begin(), op.outputs.end(), names[k]) != op.outputs.end();
      for (size_t v = 0; v < views; ++v) {
        const Relayout &r = relayouts()[v];
        if (found.count({k, v}) || t->numel() < r.min_numel) continue;
        const auto view = r.make(t->shape);
        if (!view) continue;
        Case c = base;
        *c.tensor(names[k]) = relaid(*t, view->first, view->second, output);
        c.refresh_views();
        if (!op.check(c, {}).ok()) continue;  // (an op that ties a view to another's)
        found.emplace(
            std::make_pair(k, v),
            EdgeCase{"ABI-TENSOR-2",
                     fmt::format("{} {} {} of shape [{}]: {}", op.name, output ? "output" : "input",
                                 names[k], fmt::join(t->shape, ", "), r.what),
                     std::move(c),
                     0,
                     {}});
      }
    }
    if (!names.empty() && found.size() == names.size() * views) break;
    // The views no call has allowed in 12 more draws are taken as ones the op's shapes never
    // allow (a rank-1 groupIdx is never transposed).
    since_new = found.size() > before ? 0 : since_new + 1;
    if (since_new >= 16) break;
  }
  std::vector<EdgeCase> rows;  // in (tensor, view) order, whatever seed found them
  for (auto &[key, row] : found) rows.push_back(std::move(row));
  return rows;
}

}  // namespace

std::vector<EdgeCase> layout_rows(const OpDescriptor &op) {
  // Every worker reads the tables; the rows are drawn once per process.
  static std::mutex mutex;
  static std::map<std::string, std::vector<EdgeCase>> built;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = built.find(op.name);
  if (it == built.end()) it = built.emplace(op.name, build_rows(op)).first;
  return it->second;
}

}  // namespace aclnn_conform
