// A repro program's end (campaign/repro_detail.hpp): the checks after the call (guards, unchanged
// inputs, every output against its values of record and their accepted ranges), then the
// epilogue that releases everything and prints the result.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "campaign/repro_detail.hpp"

namespace aclnn_conform::repro_detail {

namespace {

// The checks of one output against its values of record (valid calls).
std::string repro_output_check(const ReproPlan &p, size_t i) {
  const Case &c = p.c;
  const std::vector<aclnn_ref::ExpectedOutput> &expected_values = p.expected_values;
  const ReproOptions &options = p.options;
  const std::vector<std::string> &vars = p.vars;
  const std::vector<std::string> &argvars = p.argvars;
  const bool ascend = p.ascend;
  std::string s;
  const auto &[name, t] = c.tensors[i];
  if (!t.present || !p.is_output(name)) return s;
  const auto *e = find_expected(expected_values, name);
  if (e == nullptr) return s;
  if (!e->written) {
    s += fmt::format(
        "    // {} must not be written (its value of record is \"untouched\").\n"
        "    if ({}Arg.after != {}Arg.storage) {{\n"
        "      LOG_PRINT(\"DEVIATION: {} must not be written but was modified\\n\");\n"
        "      deviations++;\n"
        "    }}\n",
        name, argvars[i], argvars[i], name);
    return s;
  }
  const int64_t n = e->values.numel();
  if (e->values.dtype != t.dtype || n != t.numel()) {
    s += fmt::format(
        "    // {}: the oracle's output ({} [{}]) does not match the tensor; "
        "not compared.\n",
        name, aclnn_ref::dtype_name(e->values.dtype), fmt::join(e->values.shape, ","));
    return s;
  }
  const bool have_exact = static_cast<int64_t>(e->exact_nearest.size()) == n;
  s += fmt::format(
      "    // Values of record of {} (row-major over its view): bits, accepted [lo, hi], "
      "exact.\n"
      "    static const std::vector<Expected> k{}Expected = {{\n",
      name, vars[i]);
  for (int64_t k = 0; k < n; ++k) {
    // The accepted range is the reference module's (reference/compare.hpp), as the judge's.
    const aclnn_ref::AcceptedInterval r =
        aclnn_ref::accepted_interval(*e, k, options.tolerance, options.sum_unit_roundoff);
    const double exact = have_exact ? e->exact_nearest[static_cast<size_t>(k)] : e->values.at(k);
    s += fmt::format("        {{0x{:x}, {}, {}, {}}},\n", e->values.bits(k), double_literal(r.lo),
                     double_literal(r.hi), double_literal(exact));
  }
  s += "    };\n";
  std::string checked = argvars[i] + "Arg";
  if (argvars[i] != vars[i]) {  // in-place: the input's storage, named as the output
    checked = vars[i] + "InPlace";
    s += fmt::format("    ReproTensor {} = {}Arg;  // {} is {}'s view\n    {}.name = {};\n",
                     checked, argvars[i], name, c.alias_of(name)->input, checked, c_string(name));
  }
  s += fmt::format("    deviations += CheckOutput({}, k{}Expected, {}, {}, {});\n", checked,
                   vars[i], ascend ? "true" : "false",
                   double_literal(aclnn_ref::ascend_threshold(t.dtype)), options.max_printed);
  return s;
}

}  // namespace

// The checks after the call: guards, unchanged inputs, then (valid calls) every output.
std::string repro_checks(const ReproPlan &p) {
  std::string s;
  // Values of record.
  s += "\n  // 5. Copy every storage back; check guards, inputs, outputs.\n";
  s +=
      "  for (ReproTensor *t : args) {\n"
      "    ret = ReadBack(*t);\n"
      "    CHECK_RET(ret == 0, return 2);\n"
      "    if (!t->guardsIntact) {\n"
      "      LOG_PRINT(\"DEVIATION (ABI-INPUT-1): wrote outside the storage of %s\\n\", t->name);\n"
      "      deviations++;\n"
      "    }\n"
      "    // Inputs never change; outputs only within their views, and only if the call ran.\n"
      "    deviations += CheckUnchanged(*t, !t->isOutput || !ran);\n"
      "  }\n";
  if (!p.expect_error) {
    s += "  if (ran) {\n";
    for (size_t i = 0; i < p.c.tensors.size(); ++i) s += repro_output_check(p, i);
    s += "  }\n";
  }
  return s;
}

// The epilogue: releases everything and prints the result.
std::string repro_epilogue() {
  std::string s;
  s += "\n  // 6. 释放aclTensor和device资源\n"
       "  for (ReproTensor *t : args) {\n"
       "    if (t->tensor != nullptr) {\n"
       "      aclDestroyTensor(t->tensor);\n"
       "    }\n"
       "    if (t->deviceAddr != nullptr) {\n"
       "      aclrtFree(t->deviceAddr);\n"
       "    }\n"
       "  }\n"
       "  aclrtDestroyStream(stream);\n"
       "  aclrtResetDevice(deviceId);\n"
       "  aclFinalize();\n";
  s += "  LOG_PRINT(\"%s\\n\", deviations == 0 ? \"RESULT: conforms\" : \"RESULT: deviates\");\n"
       "  return deviations == 0 ? 0 : 1;\n"
       "}\n";
  return s;
}

}  // namespace aclnn_conform::repro_detail
