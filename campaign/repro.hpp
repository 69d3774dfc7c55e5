// Standalone repro programs: one C++17 file per counterexample, in the vendor's call-example style
// (acl/acl.h, the op's aclnnop header, CHECK_RET/LOG_PRINT, aclInit .. aclFinalize), using nothing
// but the vendor ABI. It embeds every tensor's storage bytes and the values of record, makes the
// call, and checks the status, the outputs, the inputs and the storage around every view.
// Exit status: 0 the SUT conforms on this case, 1 it deviates, 2 the runtime could not be set up.
// docs/report-format.md describes the layout and how to build and run one.
#pragma once

#include <string>
#include <vector>

#include "campaign/result.hpp"
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
  // The SUT the program links (its path and SHA-256, in the header and printed when it runs) and
  // the folder of the vendor headers; with a path the header's "// build: " line links that SUT
  // (otherwise the built-in library). file_name is the program's own file name.
  std::string sut_path, sut_sha256, include_dir, file_name;
  // A library split over several files (the vendor's libascendcl.so, libnnopbase.so,
  // libopapi.so): every file in load order, all of them linked; sut_path is the one holding the op.
  std::vector<std::string> sut_files;
  std::vector<std::string> sut_file_sha256s;  // each of sut_files' SHA-256, in the same order
  int device = 0;                             // the device the case ran on (aclrtSetDevice)
  // A protocol probe to make instead of the plain two-phase call: "ABI-TWOPHASE-2" (phase one
  // with workspaceSize NULL, then executor NULL), "ABI-TWOPHASE-3" (phase two with executor NULL,
  // workspace NULL, workspaceSize - 1), "ABI-TWOPHASE-4" (the executor run twice); "" for none.
  std::string probe;
};

// The program. expected_verdict is the oracle's op.check(c, variants); expected_values its
// op.values(c, variants) (ignored unless the verdict is a success).
std::string repro_program(const OpDescriptor &op, const Case &c,
                          const aclnn_ref::Verdict &expected_verdict,
                          const std::vector<aclnn_ref::ExpectedOutput> &expected_values,
                          const ReproOptions &options = {});

// The accepted interval [lo, hi] (as doubles) of one written output element under a tolerance:
// what the repro program embeds beside the value of record. The reference module computes it
// (aclnn_ref::accepted_interval, reference/compare.hpp); exposed here for tests.
struct AcceptedRange {
  double lo = 0, hi = 0;
};
AcceptedRange accepted_range(const aclnn_ref::ExpectedOutput &e, int64_t index,
                             const aclnn_ref::Tolerance &tol, double sum_unit_roundoff);

// The probe a deviation's repro must make (ReproOptions::probe) given the call it recorded and its
// clause: a protocol deviation or a death inside a two-phase probe step; "" otherwise.
std::string repro_probe(const std::string &call, const std::string &clause);

// The folder of the vendor headers a repro is compiled with (the source tree's include/, or the
// installed one beside the tool).
std::string repro_include_dir();

// Writes one repro program per deviation of r to <out_dir>/repros/, linked against the SUT the
// result names (its identity in the header), each making the call that deviated (a protocol probe's
// calls where the deviation came from one); sets Deviation::repro_file. base supplies the
// tolerance policy.
void write_repros(CampaignResult &r, const std::string &out_dir, const ReproOptions &base = {});

// A file name for a deviation's repro: "repro_<op>_<clause>_<n>.cpp" (clause sanitised).
std::string repro_file_name(const std::string &op, const std::string &clause, int n);

}  // namespace aclnn_conform
