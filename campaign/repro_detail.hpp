// The pieces a repro program is assembled from (campaign/repro.hpp), shared by the files that write
// them. Internal to aclnn::campaign:
//   repro.cpp          the driver: the plan, the program's assembly, write_repros and its names
//   repro_text.cpp     C++ text: literals, comments, byte arrays, variable names, indenting
//   repro_header.cpp   the file's header comment and includes, the prelude, main() up to Init
//   repro_call.cpp     staging the tensors, the two-phase call, a protocol probe's calls
//   repro_checks.cpp   the checks after the call, the epilogue
//   repro/prelude.cpp  the fixed part of every program (macros, tensor record, checks), compiled
//                      in as kPrelude (campaign/CMakeLists.txt) and compiled on its own by a test
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "campaign/repro.hpp"
#include "properties/case.hpp"
#include "properties/op.hpp"
#include "reference/compare.hpp"
#include "reference/dtype.hpp"
#include "reference/spec.hpp"

namespace aclnn_conform::repro_detail {

// The text of campaign/repro/prelude.cpp after its marker line (generated: repro_prelude_data.cpp).
extern const char *const kPrelude;

// ---- C++ text (repro_text.cpp) ----

const char *acl_dtype_enum(aclnn_ref::DType t);
// A double as a C++17 literal that reads back exactly.
std::string double_literal(double v);
// Text safe inside a /* */ or // comment (no "*/", no line breaks).
std::string comment_text(std::string s);
// A C string literal.
std::string c_string(const std::string &s);
std::string byte_array(const std::vector<std::byte> &bytes, const std::string &indent);
std::string var_name(const std::string &param);
const aclnn_ref::ExpectedOutput *find_expected(const std::vector<aclnn_ref::ExpectedOutput> &ev,
                                               const std::string &name);
// Indents every line of a statement block by `pad`.
std::string indented(const std::string &text, const std::string &pad);
std::string replaced(std::string text, const std::string &from, const std::string &to);

// ---- The plan ----

// What every step of a repro program reads: the call, what is expected of it, the policy, and the
// names of the tensors' variables.
struct ReproPlan {
  const OpDescriptor &op;
  const Case &c;
  const aclnn_ref::Verdict &expected_verdict;
  const std::vector<aclnn_ref::ExpectedOutput> &expected_values;
  const ReproOptions &options;
  std::string soc;
  bool expect_error = false;
  // A clause stating preconditions the caller must guarantee (OpDescriptor::
  // caller_precondition_clauses): any status is acceptable, but the SUT must not crash or write
  // outside its outputs (as properties/judge.cpp judges it).
  bool any_status = false;
  bool ascend = false;
  const char *policy = "ulp";
  std::vector<std::string> vars, phase_one_args;
  // In-place use: an aliased output has no storage of its own; it is the input's ReproTensor
  // (argvars), and that input may change within its view like an output.
  std::vector<std::string> argvars;

  ReproPlan(const OpDescriptor &op_, const Case &c_, const aclnn_ref::Verdict &verdict,
            const std::vector<aclnn_ref::ExpectedOutput> &values, const ReproOptions &options_);

  bool is_output(const std::string &name) const {
    return std::find(op.outputs.begin(), op.outputs.end(), name) != op.outputs.end() ||
           c.alias_of(name, true) != nullptr;
  }
};

// ---- The program's sections, in order ----

// The prologue, part one: how to build and run it, what it checks, its includes and helpers
// (repro_header.cpp).
std::string repro_file_header(const ReproPlan &p);
// The prologue, part two: main() up to an initialised runtime (the product, the linked SUT).
std::string repro_main_prologue(const ReproPlan &p);
// Staging: every tensor, then their device copies and handles (repro_call.cpp).
std::string repro_staging(const ReproPlan &p);
// The two-phase call and its status checks.
std::string repro_two_phase_call(const ReproPlan &p);
// The calls of one protocol probe (properties/protocol.cpp), each checked against its status.
std::string probe_section(const OpDescriptor &op, const std::string &phase_one,
                          const std::string &probe);
// The checks after the call: guards, unchanged inputs, then (valid calls) every output
// (repro_checks.cpp).
std::string repro_checks(const ReproPlan &p);
// The epilogue: releases everything and prints the result.
std::string repro_epilogue();

}  // namespace aclnn_conform::repro_detail
