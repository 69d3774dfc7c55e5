// Repro programs, the driver (campaign/repro.hpp): which probe a deviation's program makes, where
// the vendor headers are, the file names, write_repros, and the program assembled from its sections
// (campaign/repro_detail.hpp lists the files that write them). The accepted range of an output
// element is the reference module's (aclnn_ref::accepted_interval).
#include "campaign/repro.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

#include "campaign/repro_detail.hpp"

namespace aclnn_conform {

using namespace repro_detail;
namespace fs = std::filesystem;

AcceptedRange accepted_range(const aclnn_ref::ExpectedOutput &e, int64_t index,
                             const aclnn_ref::Tolerance &tol, double sum_unit_roundoff) {
  const aclnn_ref::AcceptedInterval r =
      aclnn_ref::accepted_interval(e, index, tol, sum_unit_roundoff);
  return {r.lo, r.hi};
}

std::string repro_probe(const std::string &call, const std::string &clause) {
  static const std::vector<std::string> kProbes = {"ABI-TWOPHASE-2", "ABI-TWOPHASE-3",
                                                   "ABI-TWOPHASE-4"};
  const std::string prefix = "protocol probe ";
  const std::string named = call.rfind(prefix, 0) == 0 ? call.substr(prefix.size()) : clause;
  if (std::find(kProbes.begin(), kProbes.end(), named) != kProbes.end()) return named;
  // A failing message check of a probe call belongs to the probe that made the call.
  if (named == "ABI-ERRMSG-1" && call.rfind(prefix, 0) == 0) return "ABI-TWOPHASE-2";
  return "";
}

std::string repro_include_dir() {
#ifdef ACLNN_SOURCE_INCLUDE_DIR
  if (fs::exists(fs::path(ACLNN_SOURCE_INCLUDE_DIR) / "acl" / "acl.h"))
    return ACLNN_SOURCE_INCLUDE_DIR;
#endif
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "include";
    if (fs::exists(installed / "acl" / "acl.h")) return installed.string();
  }
  return "<aclnn-conform>/include";
}

void write_repros(CampaignResult &r, const std::string &out_dir, const ReproOptions &base) {
  std::map<std::string, int> counts;
  for (auto &d : r.deviations) {
    const OpDescriptor *op = find_op(d.op);
    if (!op) continue;
    const auto verdict = op->check(d.minimal, {});
    std::vector<aclnn_ref::ExpectedOutput> values;
    if (verdict.ok()) values = op->values(d.minimal, {});
    const std::string name = "repros/" + repro_file_name(d.op, d.clause, ++counts[d.op + d.clause]);
    ReproOptions o = base;
    o.title = fmt::format("{} ({}{}): {}", d.clause, d.kind, d.call.empty() ? "" : " in " + d.call,
                          d.detail.substr(0, 200));
    o.sut_path = r.sut_identity.path.empty() ? r.sut : r.sut_identity.path;
    o.sut_sha256 = r.sut_identity.sha256;
    if (r.sut_files.size() > 1)
      for (const auto &f : r.sut_files) {
        o.sut_files.push_back(f.path);
        o.sut_file_sha256s.push_back(f.sha256);
      }
    o.device = std::max(d.device, 0);
    o.include_dir = repro_include_dir();
    o.file_name = fs::path(name).filename().string();
    o.probe = repro_probe(d.call, d.clause);
    fs::create_directories(fs::path(out_dir) / "repros");
    std::ofstream(fs::path(out_dir) / name) << repro_program(*op, d.minimal, verdict, values, o);
    d.repro_file = name;
  }
}

std::string repro_file_name(const std::string &op, const std::string &clause, int n) {
  std::string s = fmt::format("repro_{}_{}_{}.cpp", op, clause.empty() ? "case" : clause, n);
  for (char &ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-')
      ch = '_';
  return s;
}

namespace repro_detail {

ReproPlan::ReproPlan(const OpDescriptor &op_, const Case &c_, const aclnn_ref::Verdict &verdict,
                     const std::vector<aclnn_ref::ExpectedOutput> &values,
                     const ReproOptions &options_)
    : op(op_), c(c_), expected_verdict(verdict), expected_values(values), options(options_) {
  soc = std::string(product_name(c.product));
  expect_error = !expected_verdict.ok();
  any_status =
      expect_error &&
      std::find(op.caller_precondition_clauses.begin(), op.caller_precondition_clauses.end(),
                expected_verdict.clause) != op.caller_precondition_clauses.end();
  ascend = options.tolerance.kind == aclnn_ref::Tolerance::Kind::kAscend;
  policy = ascend                                                         ? "ascend"
           : options.tolerance.kind == aclnn_ref::Tolerance::Kind::kExact ? "exact"
           : options.tolerance.kind == aclnn_ref::Tolerance::Kind::kSum   ? "sum"
                                                                          : "ulp";
  for (const auto &[name, t] : c.tensors) {
    vars.push_back(var_name(name));
    phase_one_args.push_back(t.present ? vars.back() : "nullptr");
  }
  argvars = vars;
  for (size_t i = 0; i < c.tensors.size(); ++i)
    if (const Alias *a = c.alias_of(c.tensors[i].first)) argvars[i] = var_name(a->input);
}

}  // namespace repro_detail

std::string repro_program(const OpDescriptor &op, const Case &c,
                          const aclnn_ref::Verdict &expected_verdict,
                          const std::vector<aclnn_ref::ExpectedOutput> &expected_values,
                          const ReproOptions &options) {
  const ReproPlan p(op, c, expected_verdict, expected_values, options);
  std::string s = repro_file_header(p) + repro_main_prologue(p) + repro_staging(p);
  if (!options.probe.empty())
    s += probe_section(op, op.repro_phase_one(c, p.phase_one_args), options.probe);
  else
    s += repro_two_phase_call(p) + repro_checks(p);
  return s + repro_epilogue();
}

}  // namespace aclnn_conform
