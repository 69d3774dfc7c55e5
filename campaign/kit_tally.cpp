#include "campaign/kit_tally.hpp"

#include <cmath>
#include <tuple>

#include "campaign/result.hpp"

namespace aclnn_conform {

namespace kits = aclnn_ref::kits;

namespace {

// Whether (failed, score, case) a is worse than b: failing first, larger score, smaller text.
bool worse(bool fa, double sa, const std::string &ca, bool fb, double sb, const std::string &cb) {
  if (fa != fb) return fa;
  const double xa = std::isnan(sa) ? INFINITY : sa, xb = std::isnan(sb) ? INFINITY : sb;
  if (xa != xb) return xa > xb;
  return ca < cb;
}

void keep_reason(std::string &into, const std::string &reason) {
  if (reason.empty()) return;
  if (into.empty() || reason < into) into = reason;
}

}  // namespace

void add_case(KitTally &t, const kits::StandardOutcome &o, const std::string &case_origin) {
  if (o.verdict == kits::Verdict::kNotJudged) {
    ++t.not_judged;
    keep_reason(t.not_judged_reason, o.note);
    return;
  }
  const bool failed = o.verdict == kits::Verdict::kFail;
  const bool first = t.judged == 0;
  ++t.judged;
  t.passed += !failed;
  t.warnings += failed && o.warning;
  if (first || worse(failed, o.score, case_origin, t.worst_failed, t.worst_score, t.worst_case)) {
    t.worst_failed = failed;
    t.worst_score = o.score;
    t.worst_case = case_origin;
    t.worst_measured = o.measured;
  }
}

void merge_tally(KitTally &into, const KitTally &from) {
  if (into.id.empty()) into.id = from.id;
  const bool take =
      from.judged > 0 &&
      (into.judged == 0 || worse(from.worst_failed, from.worst_score, from.worst_case,
                                 into.worst_failed, into.worst_score, into.worst_case));
  if (take) {
    into.worst_failed = from.worst_failed;
    into.worst_score = from.worst_score;
    into.worst_case = from.worst_case;
    into.worst_measured = from.worst_measured;
  }
  into.judged += from.judged;
  into.passed += from.passed;
  into.warnings += from.warnings;
  into.not_judged += from.not_judged;
  keep_reason(into.not_judged_reason, from.not_judged_reason);
}

void merge_tallies(std::vector<KitTally> &into, const std::vector<KitTally> &from) {
  for (const auto &f : from) {
    KitTally *t = nullptr;
    for (auto &x : into)
      if (x.id == f.id) t = &x;
    if (!t) {
      into.push_back(KitTally{});
      t = &into.back();
      t->id = f.id;
    }
    merge_tally(*t, f);
  }
}

kits::StandardOutcome combine_outputs(
    const std::vector<std::pair<std::string, kits::StandardOutcome>> &outputs) {
  kits::StandardOutcome r;
  bool any_fail = false, any_not = false, any = false;
  const kits::StandardOutcome *worst = nullptr;
  for (const auto &[name, o] : outputs) {
    any = true;
    if (o.verdict == kits::Verdict::kFail) any_fail = true;
    if (o.verdict == kits::Verdict::kNotJudged) {
      any_not = true;
      if (r.note.empty()) r.note = o.note;
      continue;
    }
    if (!worst || worse(o.verdict == kits::Verdict::kFail, o.score, "",
                        worst->verdict == kits::Verdict::kFail, worst->score, ""))
      worst = &o;
  }
  if (!any) {
    r.verdict = kits::Verdict::kNotJudged;
    r.note = "no outputs";
    return r;
  }
  r.verdict = any_fail  ? kits::Verdict::kFail
              : any_not ? kits::Verdict::kNotJudged
                        : kits::Verdict::kPass;
  if (worst) {
    r.score = worst->score;
    r.warning = worst->warning && any_fail;
    for (const auto &[name, o] : outputs)
      if (&o == worst) r.measured = outputs.size() > 1 ? name + ": " + o.measured : o.measured;
  }
  if (r.verdict == kits::Verdict::kNotJudged) r.measured = "not judged: " + r.note;
  return r;
}

nlohmann::json to_json(const KitTally &t) {
  nlohmann::json j = {{"id", t.id},
                      {"judged", t.judged},
                      {"passed", t.passed},
                      {"warnings", t.warnings},
                      {"not_judged", t.not_judged},
                      {"not_judged_reason", t.not_judged_reason},
                      {"worst_failed", t.worst_failed},
                      {"worst_case", t.worst_case},
                      {"worst_measured", t.worst_measured}};
  put_number(j, "worst_score", t.worst_score);
  return j;
}

KitTally kit_tally_from_json(const nlohmann::json &j) {
  KitTally t;
  t.id = j.at("id");
  t.judged = j.at("judged");
  t.passed = j.at("passed");
  t.warnings = j.at("warnings");
  t.not_judged = j.at("not_judged");
  t.not_judged_reason = j.at("not_judged_reason");
  t.worst_failed = j.at("worst_failed");
  t.worst_case = j.at("worst_case");
  t.worst_measured = j.at("worst_measured");
  t.worst_score = get_number(j, "worst_score");
  return t;
}

std::vector<std::string> policy_names() {
  std::vector<std::string> v = {"ulp", "ascend"};
  for (const auto &s : kits::standards()) v.push_back(s.id);
  return v;
}

bool is_kit_policy(const std::string &policy) {
  return kits::find_standard(policy) != nullptr;
}

}  // namespace aclnn_conform
