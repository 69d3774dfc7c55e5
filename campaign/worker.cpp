// What a worker does with one task (campaign/worker.hpp): runs it on the SUT, judges it with the
// user's expectations (skips, expected variants), shrinks a deviation within the worker,
// fingerprints it against the spec's variants, tallies precision; and a crash shrink's candidate,
// run unjudged. The worker's process: campaign/worker_process.cpp; its guard:
// campaign/process_guard.cpp.
#include "campaign/worker.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "campaign/climb.hpp"
#include "campaign/coverage.hpp"
#include "campaign/kit_policy.hpp"
#include "campaign/precision.hpp"
#include "campaign/task.hpp"
#include "campaign/worker_protocol.hpp"
#include "properties/call_trace.hpp"
#include "properties/judge.hpp"
#include "properties/protocol.hpp"
#include "properties/runner.hpp"
#include "properties/sweep.hpp"

namespace aclnn_conform {
namespace {

using Clock = WorkerClock;

std::string first_failure(const std::vector<ClauseResult> &rs) {
  for (const auto &r : rs)
    if (!r.pass) return r.clause;
  return "";
}

// The expected variants (--expect-variant) this op has.
aclnn_ref::VariantSet expected_variants(const OpDescriptor &op, const CampaignConfig &cfg) {
  aclnn_ref::VariantSet vs;
  for (const auto &v : cfg.expect_variants)
    if (std::find(op.variants.begin(), op.variants.end(), v) != op.variants.end()) vs.add(v);
  return vs;
}

// A judgement with the user's expectations applied: skipped clauses taken out, and clauses that
// fail under the record but conform under the expected variants marked as explained (they pass,
// and `explained` names the variants).
struct Judged {
  Judgement j;
  std::map<std::string, std::string> explained;
  std::string target;  // the first failing clause that no expected variant explains
};

Judged judge_task(const Task &t, const Case &c, const Outcome &o, const CampaignConfig &cfg,
                  const Sut *reference = nullptr) {
  const OpDescriptor &op = *t.op;
  JudgePolicy policy;
  policy.accuracy = cfg.accuracy;
  policy.kit = cfg.kit_standard;
  // A kit standard that compares with another device: the competitor's result on this case.
  const std::optional<Outcome> ref = kit_reference_outcome(cfg, reference, op, c, o);
  policy.reference = ref ? &*ref : nullptr;
  Judged r;
  r.j = judge(op, c, o, policy);
  // An edge row also states its result literally; the literals are checked on every SUT.
  if (t.row && c.tensors.size() == t.row->call.tensors.size())
    for (const auto &cr : edge_row_literals(*t.row, o)) r.j.add(cr.clause, cr.pass, cr.detail);
  std::erase_if(r.j.results, [&](const ClauseResult &cr) { return is_skipped(cfg, cr.clause); });
  const auto expected = expected_variants(op, cfg);
  if (!r.j.pass() && !expected.names().empty()) {
    JudgePolicy pv = policy;
    pv.variants = expected;
    try {
      const Judgement jv = judge(op, c, o, pv);
      for (auto &cr : r.j.results) {
        if (cr.pass) continue;
        const bool fails_under_variant =
            std::any_of(jv.results.begin(), jv.results.end(),
                        [&](const ClauseResult &v) { return v.clause == cr.clause && !v.pass; });
        if (fails_under_variant) continue;
        r.explained[cr.clause] = fmt::format("{}", fmt::join(expected.names(), "+"));
        cr.pass = true;
        cr.detail.clear();
      }
    } catch (const std::exception &) {
      // The oracle cannot evaluate the variant on this case: nothing is explained.
    }
  }
  r.target = first_failure(r.j.results);
  return r;
}

// Variants under which the case conforms, each single variant then all of the op's together:
// strictly (the campaign's policy) and loosely (the Ascend precision standard, which a variant's
// behaviour computed in working precision meets where it cannot meet a few ulps).
struct Fingerprint {
  std::vector<std::string> strict, consistent;
};
Fingerprint fingerprint(const OpDescriptor &op, const Case &c, const Outcome &o,
                        JudgePolicy::Accuracy accuracy, const std::string &kit = "") {
  Fingerprint f;
  auto conforms = [&](const aclnn_ref::VariantSet &vs, JudgePolicy::Accuracy a) {
    JudgePolicy p;
    p.variants = vs;
    p.accuracy = a;
    p.kit = kit;
    try {
      return judge(op, c, o, p).pass();
    } catch (const std::exception &) {
      return false;  // a variant the oracle cannot evaluate on this case does not match it
    }
  };
  auto consider = [&](const aclnn_ref::VariantSet &vs, const std::string &name) {
    if (conforms(vs, accuracy))
      f.strict.push_back(name);
    else if (conforms(vs, JudgePolicy::Accuracy::kAscend))
      f.consistent.push_back(name);
  };
  for (const auto &v : op.variants) consider(aclnn_ref::VariantSet{v}, v);
  if (f.strict.empty() && op.variants.size() > 1) {
    aclnn_ref::VariantSet all;
    for (const auto &v : op.variants) all.add(v);
    consider(all, fmt::format("{}", fmt::join(op.variants, "+")));
  }
  return f;
}

// The rule that judged a compared output (AccuracyStats::rules): integers are always exact.
std::string rule_of(const aclnn_ref::Comparison &cmp) {
  using Kind = aclnn_ref::Tolerance::Kind;
  if (!aclnn_ref::is_floating(cmp.dtype) || cmp.kind == Kind::kExact) return "exact";
  if (cmp.kind == Kind::kSum) return "sum";
  if (cmp.kind == Kind::kAscend) return "ascend";
  return "ulp";
}

nlohmann::json comparison_json(const OpDescriptor &op, const aclnn_ref::Comparison &cmp) {
  nlohmann::json h = nlohmann::json::array();
  for (auto b : cmp.histogram) h.push_back(b);
  return {{"op", op.name},
          {"rule", rule_of(cmp)},
          {"max_bound_ratio", json_number(cmp.max_bound_ratio)},
          {"dtype", std::string(aclnn_ref::dtype_name(cmp.dtype))},
          {"count", cmp.count},
          {"histogram", h},
          {"max_ulps", json_number(cmp.max_ulps)},
          {"mere", json_number(cmp.ascend.mere)},
          {"mare", json_number(cmp.ascend.mare)}};
}

// The failing probe results of a protocol task on case c ("" if all pass).
std::vector<ClauseResult> probe(const Task &t, const Case &c, const WorkerContext &ctx) {
  std::vector<ClauseResult> out;
  if (!t.op->check(c, {}).ok()) return out;  // the probes need a valid call
  for (auto &cr : protocol_probe(*ctx.sut, *t.op, c))
    if (!is_skipped(*ctx.cfg, cr.clause)) out.push_back(std::move(cr));
  return out;
}

}  // namespace

Case shrink_case(const Task &t, Case c, const std::function<bool(const Case &)> &still_fails,
                 const WorkerContext &ctx, const ShrinkLimits &limits, int &steps) {
  auto current = task_shrinkable(t, *ctx.cfg);
  int attempts = 0;
  int64_t work = 0;
  const auto spent = [&] {
    return attempts >= limits.attempts || work >= limits.elements || Clock::now() >= ctx.deadline;
  };
  for (bool progress = true; progress && !spent();) {
    progress = false;
    auto shrinks = current.shrinks();
    while (auto next = shrinks.next()) {
      if (spent()) break;
      ++attempts;
      Case candidate = next->value();
      work += candidate.elements() + 1;  // the elements its call and judgement touch
      bool fails = false;
      try {
        fails = still_fails(candidate);
      } catch (const std::exception &) {
        continue;  // the oracle cannot judge this candidate: not a smaller counterexample
      }
      if (fails) {
        current = *next;
        c = std::move(candidate);
        ++steps;
        progress = true;
        break;
      }
    }
  }
  return c;
}

namespace {

// A deviation's shrink: the configured attempts, the element bound.
Case shrink(const Task &t, Case c, const std::function<bool(const Case &)> &still_fails,
            const WorkerContext &ctx, int &steps) {
  return shrink_case(t, std::move(c), still_fails, ctx, ShrinkLimits::of(*ctx.cfg), steps);
}

std::string phase_call(const OpDescriptor &op, const Outcome &o) {
  return o.phase == 1 ? op.abi_name + "GetWorkspaceSize" : op.abi_name;
}

std::string status_clause(const aclnn_ref::Verdict &v) {
  return v.ok() ? "" : v.clause;
}

// The precision standards' tallies of a valid call the SUT ran (precision.hpp), with the
// competitor run on the same case. Reported only: an oracle failure here judges nothing.
nlohmann::json precision_json(const Task &t, const Case &c, const Outcome &o,
                              const WorkerContext &ctx, const Judgement &j) {
  nlohmann::json out = nlohmann::json::array();
  if (o.harness_error || o.status != 0 || !t.op->check(c, {}).ok()) return out;
  try {
    std::optional<Outcome> other;
    if (ctx.competitor) other = run_case(*ctx.competitor, *t.op, c);
    const uint64_t key = std::hash<std::string>{}(t.origin);
    // judge_task's first judgement is against the record (variants only explain failures).
    for (const auto &p : collect_precision(*t.op, c, o, other ? &*other : nullptr,
                                           ctx.cfg->competitor, key, t.origin, j.expected.get())) {
      auto j = to_json(p);
      j["op"] = p.op;
      j["dtype"] = p.dtype;
      out.push_back(std::move(j));
    }
  } catch (const std::exception &) {
    out = nlohmann::json::array();  // the oracle cannot evaluate this case: no tallies
  }
  return out;
}

// A climb task's local search (campaign/climb.hpp), each call run and judged as the task's own
// call is; c becomes the best case found, or the first that deviated.
nlohmann::json climb_task(const Task &t, Case &c, const WorkerContext &ctx,
                          const std::function<bool(const OpDescriptor &, const Case &)> &fresh) {
  const auto eval = [&](const Case &cand) {
    arm_late_write_check();
    Outcome o;
    {
      NewKernelScope scope(fresh(*t.op, cand));
      o = run_case(*ctx.sut, *t.op, cand);
    }
    const Judged jd = judge_task(t, cand, o, *ctx.cfg, ctx.competitor);
    ClimbEval e;
    e.deviates = !jd.target.empty();
    if (jd.j.expected) e.worst = worst_elements(*t.op, cand, o, *jd.j.expected);
    return e;
  };
  ClimbOutcome co = climb(*t.op, c, t.climb_dtype, t.seed ^ static_cast<uint64_t>(t.index),
                          kClimbCalls, eval, [&] { return Clock::now() >= ctx.deadline; });
  c = std::move(co.best);
  // The task's own call (below) runs the climbed case once more.
  return {{"calls", co.calls + 1},
          {"start_ulps", json_number(co.start_ulps)},
          {"best_ulps", json_number(co.best_ulps)},
          {"deviated", co.deviated}};
}

}  // namespace

std::string case_clause(const OpDescriptor &op, const Case &c) {
  const auto verdict = op.check(c, {});
  if (!verdict.ok()) return verdict.clause;
  std::vector<std::string> reached;
  try {
    reached = op.reached(c);
  } catch (const std::exception &) {
  }
  const auto has = [&](const std::string &suffix) -> std::string {
    for (const auto &r : reached)
      if (r.find(suffix) != std::string::npos && r.rfind("ABI-", 0) != 0) return r;
    return "";
  };
  if (auto e = has("-EMPTY-"); !e.empty()) return e;
  if (std::find(reached.begin(), reached.end(), "ABI-RANK-1") != reached.end()) {
    for (const auto &[name, t] : c.tensors)
      if (t.present && t.shape.size() == 8) return "ABI-RANK-1";
  }
  if (auto v = has("-VALUE-"); !v.empty()) return v;
  return op.clauses.empty() ? "ABI-TWOPHASE-1" : op.clauses.front();
}

namespace {
// Whether case c runs a kernel this worker has not run yet (recorded now). Only a call the op
// accepts reaches a kernel; a rejected one loads nothing. The check runs only while kernels are
// tracked, and once per case.
bool new_kernel(const WorkerContext &ctx, const OpDescriptor &op, const Case &c) {
  if (!ctx.kernels) return false;
  std::string signature = kernel_signature(op, c);
  if (ctx.kernels->count(signature) || !op.check(c, {}).ok()) return false;
  ctx.kernels->insert(std::move(signature));
  return true;
}
}  // namespace

nlohmann::json run_task(const Task &t, const WorkerContext &ctx) {
  const auto started = Clock::now();
  const CampaignConfig &cfg = *ctx.cfg;
  const OpDescriptor &op = *t.op;
  nlohmann::json r{{"results", nlohmann::json::array()}, {"comparisons", nlohmann::json::array()}};
  Case c = task_case(t, cfg);
  const auto seconds = [&] {
    return std::chrono::duration<double>(Clock::now() - started).count();
  };

  if (t.kind == Task::Kind::kProtocol) {
    arm_late_write_check();
    std::vector<ClauseResult> results;
    {
      NewKernelScope fresh(new_kernel(ctx, op, c));
      coverage_reset();  // the task's own call's edges (campaign/coverage.hpp)
      results = probe(t, c, ctx);
      if (coverage_snapshot()) {
        probe(t, c, ctx);
        coverage_confirm();
      }
    }
    for (const auto &cr : results) r["results"].push_back({cr.clause, cr.pass, cr.detail, ""});
    const std::string target = first_failure(results);
    if (target.empty()) {
      r["seconds"] = seconds();
      return r;
    }
    int steps = 0;
    if (t.generated() && !ctx.saturated.count(target))
      c = shrink(
          t, c,
          [&](const Case &cand) {
            const auto rs = probe(t, cand, ctx);
            return first_failure(rs) == target;
          },
          ctx, steps);
    results = steps > 0 ? probe(t, c, ctx) : results;
    std::string detail, all;
    for (const auto &cr : results) {
      if (cr.pass) continue;
      if (cr.clause == target && detail.empty()) detail = cr.detail;
      all += cr.clause + ": " + cr.detail + "\n";
    }
    Deviation d;
    d.op = op.name;
    d.clause = target;
    d.detail = detail;
    d.all_failures = all;
    d.minimal = c;
    d.origin = t.origin;
    d.shrink_steps = steps;
    d.kind = "deviation";
    d.call = "protocol probe " + target;
    r["deviation"] = to_json(d);
    r["seconds"] = seconds();
    return r;
  }

  nlohmann::json climbed;
  if (t.climb)
    climbed = climb_task(
        t, c, ctx, [&](const OpDescriptor &o2, const Case &c2) { return new_kernel(ctx, o2, c2); });
  arm_late_write_check();
  Outcome o;
  {
    NewKernelScope fresh(new_kernel(ctx, op, c));
    coverage_reset();  // the task's own call's edges, not its shrink's (campaign/coverage.hpp)
    o = run_case(*ctx.sut, op, c);
    if (coverage_snapshot()) {
      run_case(*ctx.sut, op, c);  // edges new to the worker: those a second call reaches too
      coverage_confirm();
    }
  }
  // A runtime call that failed the set-up or the copy back: the worker asks whether the device
  // is still there, or full, before this is judged as the op's (worker_process_main).
  if (o.harness_error && o.harness_status != 0)
    r["runtime_failure"] = {{"status", o.harness_status}, {"message", o.harness_message}};
  Judged jd = judge_task(t, c, o, cfg, ctx.competitor);
  for (const auto &cr : jd.j.results) {
    const auto e = jd.explained.find(cr.clause);
    r["results"].push_back(
        {cr.clause, cr.pass, cr.detail, e == jd.explained.end() ? "" : e->second});
  }
  for (const auto &cmp : jd.j.comparisons)
    if (!cmp.untouched_check && cmp.count > 0 && cmp.error.empty())
      r["comparisons"].push_back(comparison_json(op, cmp));
  r["precision"] = precision_json(t, c, o, ctx, jd.j);
  // The worst element per output dtype, for the worst-input table and the climbs' starts.
  if (t.kind == Task::Kind::kValid && jd.j.expected) {
    r["worst"] = nlohmann::json::array();
    try {
      for (auto &w : worst_elements(op, c, o, *jd.j.expected)) {
        if (t.climb) w.call = to_json(c);
        // A sweep's worst element as a climb's start (campaign/climb.hpp).
        if (t.sweep && w.element >= 0 && has_elementwise_sweeps(op))
          w.call = to_json(element_copies(op, c, w.element, kSweepStartElements));
        r["worst"].push_back(to_json(w));
      }
    } catch (const std::exception &) {
    }
    if (t.climb) r["climb"] = climbed;
    if (t.sweep) {
      // The element values it probed: its largest tensor's.
      int64_t n = 0;
      for (const auto &[name, x] : c.tensors) n = std::max(n, x.present ? x.numel() : 0);
      r["sweep_elements"] = n;
    }
  }
  if (jd.target.empty()) {
    r["seconds"] = seconds();
    return r;
  }

  const std::string target = jd.target;
  int steps = 0;
  // A climbed case has no shrink tree of its own: it is reported as it was found.
  if (t.generated() && !t.climb && !ctx.saturated.count(target)) {
    if (ctx.on_found) ctx.on_found(target);
    // The outcome of the last accepted candidate, which is the shrunk case: judged as it was seen
    // to fail, not re-run (a failure that depends on timing, such as a write after the call
    // returned, need not recur, and the record would name a clause without its detail).
    std::optional<Outcome> shrunk_outcome;
    c = shrink(
        t, c,
        [&](const Case &cand) {
          arm_late_write_check();
          Outcome co = run_case(*ctx.sut, op, cand);
          if (judge_task(t, cand, co, cfg, ctx.competitor).target != target) return false;
          shrunk_outcome = std::move(co);
          return true;
        },
        ctx, steps);
    if (steps > 0 && shrunk_outcome) {
      o = std::move(*shrunk_outcome);
      jd = judge_task(t, c, o, cfg, ctx.competitor);
    }
  }
  const auto verdict = op.check(c, {});
  std::string detail;
  for (const auto &cr : jd.j.results)
    if (cr.clause == target) detail = cr.detail;
  const Fingerprint fp = fingerprint(op, c, o, cfg.accuracy, cfg.kit_standard);
  Deviation d;
  d.op = op.name;
  d.clause = target;
  d.detail = detail;
  d.all_failures = jd.j.failures();
  d.minimal = c;
  d.origin = t.origin;
  d.shrink_steps = steps;
  d.kind = "deviation";
  d.call = phase_call(op, o);
  d.variants = fp.strict;
  d.consistent_variants = fp.consistent;
  d.expected_status = verdict.status;
  d.expected_clause = status_clause(verdict);
  d.got_status = o.status;
  r["deviation"] = to_json(d);
  r["seconds"] = seconds();
  return r;
}

void run_candidate(const Task &t, const Case &candidate, const WorkerContext &ctx) {
  NewKernelScope fresh(new_kernel(ctx, *t.op, candidate));
  if (t.kind == Task::Kind::kProtocol) {
    if (t.op->check(candidate, {}).ok()) protocol_probe(*ctx.sut, *t.op, candidate);
  } else {
    run_case(*ctx.sut, *t.op, candidate);
  }
}

}  // namespace aclnn_conform
