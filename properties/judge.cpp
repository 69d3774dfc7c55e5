#include "properties/judge.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>

#include "reference/kit_standards.hpp"

namespace aclnn_conform {

bool Judgement::pass() const {
  return std::all_of(results.begin(), results.end(), [](const auto &r) { return r.pass; });
}

std::string Judgement::failures() const {
  std::string s;
  for (const auto &r : results)
    if (!r.pass) s += r.clause + ": " + r.detail + "\n";
  return s;
}

void Judgement::add(const std::string &clause, bool pass, const std::string &detail) {
  for (auto &r : results) {
    if (r.clause != clause) continue;
    if (r.pass && !pass) {
      r.pass = false;
      r.detail = detail;
    }
    return;
  }
  results.push_back({clause, pass, pass ? "" : detail});
}

namespace {

std::string status_text(int32_t s) {
  switch (s) {
    case 0:
      return "0 (success)";
    case 161001:
      return "161001 (ACLNN_ERR_PARAM_NULLPTR)";
    case 161002:
      return "161002 (ACLNN_ERR_PARAM_INVALID)";
    case 361001:
      return "361001 (ACLNN_ERR_RUNTIME_ERROR)";
    default:
      return std::to_string(s);
  }
}

// Byte positions of the storage that the view's elements cover.
std::vector<bool> covered_bytes(const TensorArg &t) {
  const size_t es = aclnn_ref::dtype_size(t.dtype);
  std::vector<bool> covered(t.storage.size(), false);
  const int64_t n = t.numel();
  std::vector<int64_t> idx(t.shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t pos = t.offset;
    for (size_t d = 0; d < idx.size(); ++d) pos += idx[d] * t.strides[d];
    for (size_t b = 0; b < es; ++b) covered[static_cast<size_t>(pos) * es + b] = true;
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < t.shape[d]) break;
      idx[d] = 0;
    }
  }
  return covered;
}

bool is_output(const OpDescriptor &op, const std::string &name) {
  return std::find(op.outputs.begin(), op.outputs.end(), name) != op.outputs.end();
}

// ABI-INPUT-1 and the guards: inputs unchanged, storage around every output view unchanged,
// nothing written outside any storage. With written_outputs false, outputs must be untouched too.
void check_memory(const OpDescriptor &op, const Case &c, const Outcome &o, bool outputs_may_change,
                  const std::string &clause_for_outputs, Judgement &j) {
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    const auto &[name, t] = c.tensors[i];
    if (!t.present) continue;
    if (!o.guards_intact[i])
      j.add("ABI-INPUT-1", false, fmt::format("wrote outside the storage of {}", name));
    if (i < o.changed_after_return.size() && o.changed_after_return[i] >= 0)
      j.add("ABI-INPUT-1", false,
            fmt::format("{} changed after the call had returned (storage byte {} differs a moment "
                        "later): something the SUT left running writes into it",
                        name, o.changed_after_return[i]));
    if (i == 0 && !o.workspace_guards_intact)
      j.add("ABI-INPUT-1", false,
            fmt::format("wrote outside its workspace of {} bytes (the size phase one asked for)",
                        o.workspace_size));
    const auto &after = o.storage_after[i];
    if (after.size() != t.storage.size()) continue;
    // An input that an output aliases (in-place use) changes with that output: its storage is
    // judged as an output's (written inside the view only, and only on a valid call).
    const bool out = is_output(op, name) || c.alias_of(name, true);
    if (!out || !outputs_may_change) {
      if (after != t.storage) {
        size_t first = 0;
        while (first < after.size() && after[first] == t.storage[first]) ++first;
        j.add(out ? clause_for_outputs : "ABI-INPUT-1", false,
              fmt::format("{} {} was modified (first changed byte {})", out ? "output" : "input",
                          name, first));
      }
      continue;
    }
    const auto covered = covered_bytes(t);
    for (size_t b = 0; b < after.size(); ++b) {
      if (!covered[b] && after[b] != t.storage[b]) {
        j.add("ABI-INPUT-1", false,
              fmt::format("wrote storage byte {} of {} outside its view", b, name));
        break;
      }
    }
  }
  j.add("ABI-INPUT-1", true);
}

// Whether text contains word as an identifier ("x" in "x is NULL", not in "index").
bool contains_word(const std::string &text, const std::string &word) {
  const auto ident = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !ident(text[at - 1]);
    const bool right = at + word.size() == text.size() || !ident(text[at + word.size()]);
    if (left && right) return true;
  }
  return false;
}

// The parameter names (tensors and attributes of the call) that the oracle's reason mentions.
std::vector<std::string> named_parameters(const Case &c, const std::string &reason) {
  std::vector<std::string> names;
  auto consider = [&](const std::string &name) {
    // "groupIdxOptional" is "groupIdx" in texts; either spelling counts.
    std::string plain = name;
    if (plain.size() > 8 && plain.ends_with("Optional")) plain.resize(plain.size() - 8);
    if (contains_word(reason, plain) || contains_word(reason, name)) names.push_back(plain);
  };
  for (const auto &[name, t] : c.tensors) consider(name);
  for (const auto &[name, a] : c.attrs) consider(name);
  return names;
}

// The words by which a message names the kind of rule a clause is, from the rule token of its ID
// (GELU-RANK-1 -> RANK): any one of them, case-insensitive. Empty: no word is required (a rule
// kind with no common vocabulary, e.g. LOGIT-EPS-GT1-1, is judged by the parameter alone).
std::vector<std::string> rule_words(const std::string &clause) {
  const size_t a = clause.find('-');
  const size_t b = a == std::string::npos ? a : clause.find('-', a + 1);
  const std::string token = b == std::string::npos ? "" : clause.substr(a + 1, b - a - 1);
  if (token == "NULL") return {"null", "nullptr"};
  if (token == "DTYPE" || token == "PROMOTE")
    return {"type", "float", "int", "bf16", "fp16", "half", "double", "bool", "complex"};
  if (token == "RANK") return {"rank", "dim"};
  if (token == "INPUT") return {"overlap", "stride", "alias", "memory"};
  if (token == "SHAPE" || token == "BCAST")
    return {"shape", "broadcast", "size", "dim", "[", "element", "numel"};
  return {};
}

bool contains_any_folded(const std::string &text, const std::vector<std::string> &words) {
  std::string folded = text;
  for (char &ch : folded) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return std::any_of(words.begin(), words.end(),
                     [&](const std::string &w) { return folded.find(w) != std::string::npos; });
}

// ABI-ERRMSG-1, per call: after this failing call the message is non-empty, and it is this call's
// own: it names the parameter the broken rule is about (a message left by an earlier call, read
// and so made stale before this one, names another). Empty string: the message conforms.
std::string error_message_problem(const Case &c, const aclnn_ref::Verdict &verdict,
                                  const Outcome &o) {
  if (o.message.empty()) return "aclGetRecentErrMsg() is empty after a failing call";
  // "...names the parameter and the rule broken": the kind of rule, in words (or a dtype or shape).
  const auto words = rule_words(verdict.clause);
  if (!words.empty() && !contains_any_folded(o.message, words))
    return fmt::format(
        "aclGetRecentErrMsg() after the failing call does not say which rule ({}: {}) was "
        "broken, by any of \"{}\": \"{}\"",
        verdict.clause, verdict.reason, fmt::join(words, "\", \""), o.message);
  const auto names = named_parameters(c, verdict.reason);
  if (names.empty()) return "";  // the rule concerns no single parameter (e.g. a product gate)
  for (const auto &n : names)
    if (contains_word(o.message, n) || contains_word(o.message, n + "Optional")) return "";
  const bool stale = !o.message_before.empty() && o.message == o.message_before;
  // A call may break one rule in several ways (two wrong dtypes under one clause), and which one
  // a library names first is its own: a fresh message naming another parameter of this call is
  // its own message too.
  if (!stale) {
    std::vector<std::string> all = named_parameters(c, o.message);
    if (!all.empty()) return "";
  }
  return fmt::format(
      "{}aclGetRecentErrMsg() after the failing call does not name {} (rule: {}): "
      "\"{}\"",
      stale ? "stale message (the same text as before the call): " : "", fmt::join(names, " or "),
      verdict.reason, o.message);
}

}  // namespace

Judgement judge(const OpDescriptor &op, const Case &c, const Outcome &o,
                const JudgePolicy &policy) {
  Judgement j;
  const aclnn_ref::Verdict verdict = op.check(c, policy.variants);

  if (o.harness_error) {
    // Only a refused valid view is the SUT's fault; a set-up failure is reported as such.
    const bool tensor_refused = o.harness_message.find("aclCreateTensor") != std::string::npos;
    j.add(tensor_refused ? "ABI-TENSOR-1" : "harness", false, o.harness_message);
    return j;
  }

  if (!verdict.ok()) {
    // A precondition the caller must guarantee (the op's hook, e.g. GBAG-IDX-1): a SUT may return
    // anything but must not crash (we are here) or write outside its outputs.
    const auto &preconditions = op.caller_precondition_clauses;
    if (std::find(preconditions.begin(), preconditions.end(), verdict.clause) !=
        preconditions.end()) {
      j.add(verdict.clause, true);
      check_memory(op, c, o, true, verdict.clause, j);
      return j;
    }
    const bool status_ok = o.status == verdict.status;
    // The op's clause first: a deviation is keyed by its first failing clause.
    j.add(verdict.clause, status_ok,
          fmt::format("expected {} ({}), got {}{}", status_text(verdict.status), verdict.reason,
                      status_text(o.status), o.message.empty() ? "" : ": " + o.message));
    j.add("ABI-STATUS-1", status_ok, "status code differs from the vendor's for this rule");
    if (status_ok) {
      j.add("ABI-TWOPHASE-1", o.phase == 1,
            fmt::format("{} came from the second call; every check belongs to the first",
                        status_text(o.status)));
      const std::string why = error_message_problem(c, verdict, o);
      j.add("ABI-ERRMSG-1", why.empty(), why);
    }
    // Outputs untouched on any rejected call (and, if the SUT accepted the call, still untouched:
    // the spec says it must not run).
    check_memory(op, c, o, false, verdict.clause, j);
    return j;
  }

  // A valid call: the clauses it exercises (only meaningful for valid calls).
  const std::vector<std::string> reached = op.reached(c);
  if (o.status != 0) {
    const std::string detail =
        fmt::format("a valid call was rejected with {} in phase {}{}", status_text(o.status),
                    o.phase, o.message.empty() ? "" : ": " + o.message);
    // Every clause the case relies on for its acceptance is in doubt; the report lists them all.
    for (const auto &clause : reached) j.add(clause, false, detail);
    if (reached.empty()) j.add("ABI-TWOPHASE-1", false, detail);
    check_memory(op, c, o, false, "ABI-INPUT-1", j);
    return j;
  }
  for (const auto &clause : reached) j.add(clause, true);
  j.add("ABI-DTYPE-1", true);  // the call's dtype enum values were understood

  j.expected =
      std::make_shared<const std::vector<aclnn_ref::ExpectedOutput>>(op.values(c, policy.variants));
  for (const auto &e : *j.expected) {
    size_t i = 0;
    while (i < c.tensors.size() && c.tensors[i].first != e.name) ++i;
    if (i == c.tensors.size() || !c.tensors[i].second.present) continue;
    const TensorArg &t = c.tensors[i].second;
    const auto &after = o.storage_after[i];
    if (!e.written) {
      auto cmp = aclnn_ref::compare_untouched(e, t.storage, after);
      if (!cmp.pass)
        j.add(op.value_clause(c, e.name, -1), false,
              e.name + " must not be written: " + cmp.summary());
      j.comparisons.push_back(std::move(cmp));
      continue;
    }
    const aclnn_ref::TensorView got{t.dtype, t.shape, t.strides, t.offset, after.data()};
    aclnn_ref::Tolerance tol;
    if (policy.accuracy == JudgePolicy::Accuracy::kAscend)
      tol = aclnn_ref::Tolerance::ascend();
    else if (!e.error_scale.empty())
      tol = aclnn_ref::Tolerance::sum(policy.sum_unit_roundoff);
    else
      tol = aclnn_ref::Tolerance::ulp();
    // A kit standard's verdict on this output, when it decides and can judge it.
    std::optional<aclnn_ref::kits::StandardOutcome> kit;
    if (policy.accuracy == JudgePolicy::Accuracy::kKit && !policy.kit.empty() &&
        aclnn_ref::is_floating(e.values.dtype) && e.values.numel() == got.numel()) {
      const Outcome *ref = policy.reference;
      const bool have_ref = ref && !ref->harness_error && ref->status == 0 &&
                            i < ref->storage_after.size() &&
                            ref->storage_after[i].size() == after.size();
      const aclnn_ref::TensorView ref_view{t.dtype, t.shape, t.strides, t.offset,
                                           have_ref ? ref->storage_after[i].data() : nullptr};
      const auto values = aclnn_ref::kits::kit_values(e, got, have_ref ? &ref_view : nullptr);
      auto k = aclnn_ref::kits::evaluate(policy.kit, values.view());
      if (k.verdict != aclnn_ref::kits::Verdict::kNotJudged) kit = std::move(k);
    }
    // Under a kit standard the comparison of record checks value classes only (no finite value
    // is outside an infinite ulp bound); the kit decides the numbers.
    auto cmp = aclnn_ref::compare_output(e, got, kit ? aclnn_ref::Tolerance::ulp(INFINITY) : tol);
    if (kit && kit->verdict == aclnn_ref::kits::Verdict::kFail) cmp.pass = false;
    // The shared value rules this output exercises: IEEE specials, zeros, overflow.
    bool special = false, zero = false, overflow = false;
    for (int64_t k = 0; k < e.values.numel(); ++k) {
      const double v = e.values.at(k);
      special |= !std::isfinite(v);
      zero |= v == 0;
      overflow |= std::isinf(v);
    }
    const std::string kit_text =
        kit ? fmt::format("{} {}: {}", policy.kit, aclnn_ref::kits::verdict_name(kit->verdict),
                          kit->measured)
            : "";
    const std::string summary =
        kit ? fmt::format("{} {} n={}: {} class mismatches (value classes judged exactly); {}",
                          e.name, aclnn_ref::dtype_name(e.values.dtype), cmp.count,
                          cmp.class_mismatches, kit_text)
            : cmp.summary();
    if (special) j.add("VAL-IEEE-1", cmp.pass, e.name + ": " + summary);
    if (zero) j.add("VAL-ZERO-1", cmp.pass, e.name + ": " + summary);
    if (overflow) j.add("VAL-OVERFLOW-1", cmp.pass, e.name + ": " + summary);
    if (!cmp.pass) {
      std::set<std::string> attributed;
      const auto attribute = [&](const aclnn_ref::ElementMismatch &m, const std::string &suffix) {
        const std::string clause = op.value_clause(c, e.name, m.index);
        if (!attributed.insert(clause).second) return;
        j.add(clause, false,
              fmt::format("{}[{}]: expected {:#x} ({:.9g}), got {:#x} ({:.9g}), {} ulps{}{}",
                          e.name, m.index, m.expected_bits, m.expected, m.got_bits, m.got, m.ulps,
                          m.why.empty() ? "" : " - " + m.why, suffix));
      };
      // Value classes first: they fail under any policy.
      for (const auto &m : cmp.mismatches) attribute(m, "");
      if (kit && kit->verdict == aclnn_ref::kits::Verdict::kFail) {
        // The clause the ulp judge names for this output, else the one of the kit's worst element.
        const std::string suffix = " (" + kit_text + ")";
        const auto ulp_cmp = aclnn_ref::compare_output(e, got, tol);
        for (const auto &m : ulp_cmp.mismatches) attribute(m, suffix);
        if (ulp_cmp.mismatches.empty()) {
          const int64_t w = kit->worst_index >= 0 ? kit->worst_index : 0;
          const std::string clause = op.value_clause(c, e.name, w);
          if (attributed.insert(clause).second)
            j.add(clause, false,
                  fmt::format("{}[{}]: expected {:.9g}, got {:.9g} (exact {:.9g}) - {}", e.name, w,
                              e.values.at(w), got.at(w),
                              static_cast<int64_t>(e.exact_nearest.size()) > w
                                  ? e.exact_nearest[static_cast<size_t>(w)]
                                  : e.values.at(w),
                              kit_text));
        }
      }
      if (!cmp.error.empty()) j.add(op.value_clause(c, e.name, 0), false, cmp.error);
      j.add("VAL-TOL-1", false, summary);
    } else {
      j.add("VAL-TOL-1", true);
    }
    j.comparisons.push_back(std::move(cmp));
  }
  check_memory(op, c, o, true, "ABI-INPUT-1", j);
  return j;
}

}  // namespace aclnn_conform
