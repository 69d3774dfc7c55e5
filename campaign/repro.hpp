// Standalone repro programs: one C++17 file per counterexample, in the vendor's call-example style
// (acl/acl.h, the op's aclnnop header, CHECK_RET/LOG_PRINT, aclInit .. aclFinalize), using nothing
// but the vendor ABI. It embeds every tensor's storage bytes and the values of record, makes the
// call, and checks the status, the outputs, the inputs and the storage around every view.
// Exit status: 0 the SUT conforms on this case, 1 it deviates, 2 the runtime could not be set up.
// docs/report-format.md describes the layout and how to build and run one.
#pragma once

#include <string>
#include <vector>

#include "properties/case.hpp"
#include "properties/op.hpp"
#include "reference/compare.hpp"
#include "reference/spec.hpp"

namespace aclnn_conform {

struct ReproOptions {
  // How written outputs are judged, as the judge does (properties/judge.cpp):
  //  - kUlp (default): within tolerance.ulp_bound(dtype) ulps of the value of record (1 ulp
  //    fp16/bf16, 2 ulp fp32 unless max_ulps is set); outputs the oracle gives an error scale
  //    (sums: LN-VALUE-3, GBAG-VALUE-3) use VAL-TOL-1's condition-aware bound instead;
  //  - kExact: bit-identical to the value of record (all NaNs equal, +0 == -0);
  //  - kSum: the condition-aware bound where the oracle gives one, else exact;
  //  - kAscend: VAL-TOL-1 part 1 (MERE < T and MARE < 10 T per output, no class mismatch).
  aclnn_ref::Tolerance tolerance = aclnn_ref::Tolerance::ulp();
  double sum_unit_roundoff = 0x1p-24;  // u of the condition-aware bound (FLOAT accumulation)
  std::string title;                   // optional first comment line, e.g. the deviating clause
  int max_printed = 8;                 // mismatching elements printed per output
};

// The program. expected_verdict is the oracle's op.check(c, variants); expected_values its
// op.values(c, variants) (ignored unless the verdict is a success).
std::string repro_program(const OpDescriptor &op, const Case &c,
                          const aclnn_ref::Verdict &expected_verdict,
                          const std::vector<aclnn_ref::ExpectedOutput> &expected_values,
                          const ReproOptions &options = {});

// The accepted interval [lo, hi] (as doubles) of one written output element under a tolerance:
// what the repro program embeds beside the value of record. Exposed for tests.
struct AcceptedRange {
  double lo = 0, hi = 0;
};
AcceptedRange accepted_range(const aclnn_ref::ExpectedOutput &e, int64_t index,
                             const aclnn_ref::Tolerance &tol, double sum_unit_roundoff);

// A file name for a deviation's repro: "repro_<op>_<clause>_<n>.cpp" (clause sanitised).
std::string repro_file_name(const std::string &op, const std::string &clause, int n);

}  // namespace aclnn_conform
