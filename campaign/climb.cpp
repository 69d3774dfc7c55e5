// Targeted search for accuracy (campaign/climb.hpp): the worst element of a call, the worker's
// local search, and the campaign's book of starts and worst inputs.
#include "campaign/climb.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "campaign/result.hpp"
#include "properties/gen.hpp"
#include "properties/splitmix.hpp"
#include "properties/sweep.hpp"
#include "reference/compare.hpp"
#include "reference/host_tensor.hpp"

namespace aclnn_conform {

using aclnn_ref::DType;

namespace {

struct Rng {
  uint64_t s;
  uint64_t next() { return s = splitmix64(s); }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
};

int float_bits(DType t) {
  switch (t) {
    case DType::kFloat16:
    case DType::kBFloat16:
      return 16;
    case DType::kFloat32:
      return 32;
    case DType::kFloat64:
      return 64;
    default:
      return 0;
  }
}

// A log-uniform distance with a random sign: 2^j plus a random part below 2^j, j in [0, jmax].
int64_t random_distance(Rng &rng, int jmax) {
  const int j = static_cast<int>(rng.below(static_cast<uint64_t>(jmax) + 1));
  const int64_t base = int64_t{1} << j;
  const int64_t d = base + static_cast<int64_t>(rng.below(static_cast<uint64_t>(base)));
  return rng.below(2) ? d : -d;
}

int max_exponent_step(DType t) {
  return float_bits(t) == 16 ? 10 : 23;
}

bool is_output(const OpDescriptor &op, const std::string &name) {
  return std::find(op.outputs.begin(), op.outputs.end(), name) != op.outputs.end();
}

const WorstInput *worst_of(const std::vector<WorstInput> &ws, const std::string &dtype) {
  const WorstInput *best = nullptr;
  for (const auto &w : ws)
    if ((dtype.empty() || w.dtype == dtype) && (!best || w.beats(*best))) best = &w;
  return best;
}

// The float inputs a climb may move: present, non-empty, not an output, not aliased.
std::vector<size_t> movable_inputs(const OpDescriptor &op, const Case &c) {
  std::vector<size_t> out;
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    const auto &[name, t] = c.tensors[i];
    if (!t.present || t.numel() == 0 || float_bits(t.dtype) == 0 || is_output(op, name)) continue;
    out.push_back(i);
  }
  return out;
}

}  // namespace

bool WorstInput::beats(const WorstInput &o) const {
  if (ulps != o.ulps) return ulps > o.ulps;
  if (rel != o.rel) return rel > o.rel;
  return index < o.index;
}

nlohmann::json to_json(const WorstInput &w) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto &i : w.inputs) {
    nlohmann::json e{{"name", i.name}, {"dtype", i.dtype}, {"bits", fmt::format("{:#x}", i.bits)}};
    put_number(e, "value", i.value);
    inputs.push_back(std::move(e));
  }
  nlohmann::json j{{"op", w.op},           {"dtype", w.dtype}, {"output", w.output},
                   {"element", w.element}, {"sum", w.sum},     {"inputs", inputs},
                   {"origin", w.origin},   {"index", w.index}, {"climbed", w.climbed}};
  put_number(j, "got", w.got);
  put_number(j, "exact", w.exact);
  put_number(j, "ulps", w.ulps);
  put_number(j, "rel", w.rel);
  if (!w.call.is_null()) j["case"] = w.call;
  return j;
}

WorstInput worst_input_from_json(const nlohmann::json &j) {
  WorstInput w;
  w.op = j.at("op");
  w.dtype = j.at("dtype");
  w.output = j.value("output", std::string());
  w.element = j.value("element", int64_t{-1});
  w.sum = j.value("sum", false);
  w.origin = j.value("origin", std::string());
  w.index = j.value("index", int64_t{0});
  w.climbed = j.value("climbed", false);
  w.got = get_number(j, "got");
  w.exact = get_number(j, "exact");
  w.ulps = get_number(j, "ulps");
  w.rel = get_number(j, "rel");
  for (const auto &e : j.value("inputs", nlohmann::json::array())) {
    WorstInputValue v;
    v.name = e.at("name");
    v.dtype = e.value("dtype", std::string());
    v.bits = std::stoull(e.at("bits").get<std::string>(), nullptr, 16);
    v.value = get_number(e, "value");
    w.inputs.push_back(std::move(v));
  }
  if (j.contains("case")) w.call = j.at("case");
  return w;
}

nlohmann::json to_json(const ClimbUsage &u) {
  return {{"enabled", u.enabled},
          {"tasks", u.tasks},
          {"calls", u.calls},
          {"improved", u.improved},
          {"records", u.records},
          {"sweeps", u.sweeps},
          {"sweep_elements", u.sweep_elements}};
}

ClimbUsage climb_usage_from_json(const nlohmann::json &j) {
  ClimbUsage u;
  u.enabled = j.value("enabled", false);
  u.tasks = j.value("tasks", int64_t{0});
  u.calls = j.value("calls", int64_t{0});
  u.improved = j.value("improved", int64_t{0});
  u.records = j.value("records", int64_t{0});
  u.sweeps = j.value("sweeps", int64_t{0});
  u.sweep_elements = j.value("sweep_elements", int64_t{0});
  return u;
}

void merge_worst(std::vector<WorstInput> &into, const std::vector<WorstInput> &from) {
  for (const auto &w : from) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&](const WorstInput &x) { return x.op == w.op && x.dtype == w.dtype; });
    if (it == into.end())
      into.push_back(w);
    else if (w.beats(*it))
      *it = w;
  }
  std::sort(into.begin(), into.end(), [](const WorstInput &a, const WorstInput &b) {
    return std::tie(a.op, a.dtype) < std::tie(b.op, b.dtype);
  });
}

void merge_climb(CampaignResult &merged, const std::vector<CampaignResult> &shards) {
  std::vector<WorstInput> worst;
  ClimbUsage sum;
  bool any = false;
  for (const auto &s : shards) {
    if (s.worst_inputs.is_array()) {
      any = true;
      std::vector<WorstInput> w;
      for (const auto &j : s.worst_inputs) w.push_back(worst_input_from_json(j));
      merge_worst(worst, w);
    }
    if (s.climb.is_object()) {
      const ClimbUsage u = climb_usage_from_json(s.climb);
      sum.enabled = sum.enabled || u.enabled;
      sum.tasks += u.tasks;
      sum.calls += u.calls;
      sum.improved += u.improved;
      sum.records += u.records;
      sum.sweeps += u.sweeps;
      sum.sweep_elements += u.sweep_elements;
    }
  }
  merged.worst_inputs = nullptr;
  merged.climb = nullptr;
  if (!any) return;
  merged.worst_inputs = nlohmann::json::array();
  for (const auto &w : worst) merged.worst_inputs.push_back(to_json(w));
  merged.climb = to_json(sum);
}

std::vector<WorstInput> worst_elements(const OpDescriptor &op, const Case &c, const Outcome &o,
                                       const std::vector<aclnn_ref::ExpectedOutput> &expected) {
  std::map<DType, WorstInput> rows;
  if (o.harness_error || o.status != 0) return {};
  for (const auto &exp : expected) {
    if (!exp.written || !aclnn_ref::is_floating(exp.values.dtype)) continue;
    size_t i = 0;
    while (i < c.tensors.size() && c.tensors[i].first != exp.name) ++i;
    if (i == c.tensors.size() || !c.tensors[i].second.present || i >= o.storage_after.size())
      continue;
    const TensorArg &t = c.tensors[i].second;
    const int64_t n = exp.values.numel();
    const aclnn_ref::TensorView view{t.dtype, t.shape, t.strides, t.offset,
                                     o.storage_after[i].data()};
    if (view.numel() != n || t.dtype != exp.values.dtype) continue;
    const bool have_exact = static_cast<int64_t>(exp.exact_nearest.size()) == n;
    const bool sum = static_cast<int64_t>(exp.error_scale.size()) == n;
    std::optional<WorstInput> best;
    for (int64_t k = 0; k < n; ++k) {
      const double exact =
          have_exact ? exp.exact_nearest[static_cast<size_t>(k)] : exp.values.at(k);
      const double g = view.at(k);
      if (!std::isfinite(exact) || !std::isfinite(g)) continue;  // classes: judged elsewhere
      const double err = std::fabs(g - exact);
      const double scale = sum ? exp.error_scale[static_cast<size_t>(k)] : exact;
      const double ulps = err / aclnn_ref::ulp_at(scale, t.dtype);
      const double rel = err / (std::fabs(exact) + 1e-7);
      if (!std::isfinite(ulps)) continue;
      if (best && !(ulps > best->ulps || (ulps == best->ulps && rel > best->rel))) continue;
      best = WorstInput{};
      best->op = op.name;
      best->dtype = aclnn_ref::dtype_name(t.dtype);
      best->output = exp.name;
      best->element = k;
      best->got = g;
      best->exact = exact;
      best->ulps = ulps;
      best->rel = rel;
      best->sum = sum;
    }
    if (!best) continue;
    // The inputs of the element, where an input has the output's shape (elementwise reading).
    for (const auto &[name, in] : c.tensors) {
      if (!in.present || is_output(op, name) || in.shape != t.shape || in.numel() != n) continue;
      WorstInputValue v;
      v.name = name;
      v.dtype = aclnn_ref::dtype_name(in.dtype);
      v.bits = in.bits_at(best->element);
      v.value = in.view().at(best->element);
      best->inputs.push_back(std::move(v));
    }
    auto [it, added] = rows.try_emplace(t.dtype, *best);
    if (!added && best->beats(it->second)) it->second = *best;
  }
  std::vector<WorstInput> out;
  for (auto &[d, w] : rows) out.push_back(std::move(w));
  return out;
}

ClimbOutcome climb(const OpDescriptor &op, Case start, const std::string &dtype, uint64_t seed,
                   int calls, const std::function<ClimbEval(const Case &)> &eval,
                   const std::function<bool()> &stop) {
  ClimbOutcome out;
  Rng rng{splitmix64(seed ^ 0x636c696d62ull)};
  out.best = std::move(start);
  ClimbEval best = eval(out.best);
  out.calls = 1;
  if (best.deviates) {
    out.deviated = true;
    return out;
  }
  const WorstInput *w = worst_of(best.worst, dtype);
  if (!w) return out;  // nothing finite to climb on
  out.start_ulps = out.best_ulps = w->ulps;
  const std::vector<size_t> inputs = movable_inputs(op, out.best);
  // An in-place call's output is its input's memory: moving the input would break the alias.
  if (inputs.empty() || !out.best.aliases.empty()) return out;
  WorstInput current = *w;
  while (out.calls < calls && !stop()) {
    Case cand = out.best;
    const auto &out_shape = cand.tensor(current.output)->shape;
    const bool elementwise =
        std::all_of(inputs.begin(), inputs.end(),
                    [&](size_t i) { return cand.tensors[i].second.shape == out_shape; }) &&
        current.element >= 0;
    if (elementwise) {
      // Every element a probe around the worst one, which stays as it is (the objective of the
      // mutant is never below the current one's).
      const int64_t n = cand.tensors[inputs.front()].second.numel();
      std::vector<uint64_t> center;
      for (size_t i : inputs) center.push_back(cand.tensors[i].second.bits_at(current.element));
      for (int64_t e = 0; e < n; ++e) {
        if (e == current.element) continue;
        // One input moved in most probes; sometimes all of them.
        const bool all = rng.below(4) == 0;
        const size_t one = rng.below(inputs.size());
        for (size_t m = 0; m < inputs.size(); ++m) {
          TensorArg &t = cand.tensors[inputs[m]].second;
          uint64_t bits = center[m];
          if (all || m == one)
            if (auto s = gen::moved_by_ulps(bits, random_distance(rng, max_exponent_step(t.dtype)),
                                            t.dtype))
              bits = *s;
          t.set_bits_at(e, bits);
        }
      }
    } else {
      // 1-3 elements of the float inputs moved by +-2^j ulps.
      const int moves = 1 + static_cast<int>(rng.below(3));
      for (int m = 0; m < moves; ++m) {
        TensorArg &t = cand.tensors[inputs[rng.below(inputs.size())]].second;
        const int64_t e = static_cast<int64_t>(rng.below(static_cast<uint64_t>(t.numel())));
        const int j =
            static_cast<int>(rng.below(static_cast<uint64_t>(max_exponent_step(t.dtype))));
        const int64_t d = int64_t{1} << j;
        if (auto s = gen::moved_by_ulps(t.bits_at(e), rng.below(2) ? d : -d, t.dtype))
          t.set_bits_at(e, *s);
      }
    }
    cand.refresh_views();
    ClimbEval ev;
    try {
      ev = eval(cand);
    } catch (const std::exception &) {
      ++out.calls;
      continue;  // the oracle cannot judge this mutant: not a step
    }
    ++out.calls;
    if (ev.deviates) {
      out.best = std::move(cand);
      out.deviated = true;
      return out;
    }
    const WorstInput *cw = worst_of(ev.worst, dtype);
    if (!cw || !(cw->ulps > current.ulps || (cw->ulps == current.ulps && cw->rel > current.rel)))
      continue;
    current = *cw;
    out.best = std::move(cand);
    out.best_ulps = current.ulps;
  }
  return out;
}

// ---- The campaign's book ----

void ClimbBook::hold(Task t) {
  const int64_t horizon = t.index - kClimbLag * shards_;
  held_.hold(horizon, std::move(t));
}

std::optional<Task> ClimbBook::release(bool force) {
  if (held_.empty() || (!force && !held_.ready(frontier_))) return std::nullopt;
  Task t = held_.take();
  const int64_t horizon = t.index - kClimbLag * shards_;
  // The op's dtypes with a record below the horizon, in name order; the hash picks one, or (one
  // in four) the task's own generated case, so new regions keep being entered.
  std::vector<std::pair<std::string, const Record *>> starts;
  for (const auto &[key, recs] : records_) {
    if (key.first != t.op->name) continue;
    auto it = recs.lower_bound(horizon);
    if (it == recs.begin()) continue;
    starts.emplace_back(key.second, &std::prev(it)->second);
  }
  const uint64_t h = splitmix64(t.seed ^ 0x7374617274ull);
  if (starts.empty() || h % 4 == 0) {
    t.origin += " (climb from its own case)";
    return t;
  }
  const auto &[dtype, rec] = starts[(h >> 8) % starts.size()];
  const Task &s = rec->start;
  t.climb_dtype = dtype;
  t.seed = s.seed;
  t.size = s.size;
  t.large = s.large;
  t.stored = s.stored;
  t.origin += fmt::format(" (climb in {} from {}: {:.3g} ulp)", dtype,
                          rec->climbed ? "a climbed case" : s.origin, rec->ulps);
  return t;
}

void ClimbBook::offer_record(const std::string &op, const std::string &dtype, int64_t index,
                             Record r) {
  auto &recs = records_[{op, dtype}];
  const auto better = [](const Record &a, const Record &b) {
    return a.ulps > b.ulps || (a.ulps == b.ulps && a.rel > b.rel);
  };
  auto it = recs.lower_bound(index);
  // A prefix maximum only if it beats every record of a lower index (the last one before it).
  if (it != recs.begin() && !better(r, std::prev(it)->second)) return;
  // Later records it is not beaten by are no longer prefix maxima.
  while (it != recs.end() && !better(it->second, r)) it = recs.erase(it);
  recs.emplace(index, std::move(r));
}

void ClimbBook::on_result(const Task &t, const nlohmann::json &r) {
  if (t.index >= 0) frontier_.completed(t.index);
  if (t.climb && r.contains("climb")) {
    const auto &c = r.at("climb");
    ++usage_.tasks;
    usage_.calls += c.value("calls", int64_t{0});
    if (number_from_json(c.at("best_ulps")) > number_from_json(c.at("start_ulps")))
      ++usage_.improved;
  }
  if (t.sweep) {
    ++usage_.sweeps;
    usage_.sweep_elements += r.value("sweep_elements", int64_t{0});
  }
  if (!r.contains("worst")) return;
  for (const auto &wj : r.at("worst")) {
    WorstInput w = worst_input_from_json(wj);
    w.origin = t.origin;
    w.index = t.index;
    w.climbed = t.climb;
    // A sweep's call is its start (copies of the element), not the case the row names.
    nlohmann::json start_call = std::move(w.call);
    w.call = t.climb ? start_call : nlohmann::json();
    auto [it, added] = worst_.try_emplace({w.op, w.dtype}, w);
    if (!added && w.beats(it->second)) it->second = w;
    // Starts: generated valid cases that are cheap to run again, climbed cases, and the worst
    // elements of sweeps.
    if (!enabled_ || t.index < 0 || t.large || t.kind != Task::Kind::kValid) continue;
    Record rec{w.ulps, w.rel, t, t.climb};
    rec.start.climb = rec.start.sweep = false;
    if (t.climb || t.sweep) {
      if (start_call.is_null()) continue;
      try {
        rec.start.stored = std::make_shared<const Case>(case_from_json(start_call));
      } catch (const std::exception &) {
        continue;  // not a case this build can read back: no start
      }
      rec.start.origin = t.sweep ? fmt::format("element {} of {}", w.element, t.origin) : t.origin;
    }
    offer_record(w.op, w.dtype, t.index, std::move(rec));
  }
}

ClimbUsage ClimbBook::usage() const {
  ClimbUsage u = usage_;
  for (const auto &[key, recs] : records_) u.records += static_cast<int64_t>(recs.size());
  return u;
}

std::vector<WorstInput> ClimbBook::worst() const {
  std::vector<WorstInput> out;
  for (const auto &[key, w] : worst_) out.push_back(w);
  return out;
}

}  // namespace aclnn_conform
