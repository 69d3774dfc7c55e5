// The core of `aclnn-conform golden`: the oracle's outputs for one call described in JSON, written
// in the vendor test flow's formats (raw little-endian .bin) and as NumPy .npy files.
//
// Request (docs/report-format.md, "Golden outputs"):
//   {"op": "GeluBackward", "product": "ascend910b", "variants": ["tanh-approx"],
//    "attrs": {"eps": 1e-6, "normalizedShape": [4], "outputMask": [true, true, true]},
//    "tensors": [{"name": "gradOutput", "dtype": "fp32", "shape": [2, 3], "file": "dy.bin"},
//                {"name": "self", "dtype": "fp32", "shape": [2, 3], "strides": [1, 2],
//                 "offset": 0, "file": "x.bin"},
//                {"name": "gradInput", "dtype": "fp32", "shape": [2, 3]},
//                {"name": "weightOptional", "null": true}]}
// A .bin holds the view's elements in row-major order (numpy's tofile()); strides and offset only
// place them in the storage the call sees. Relative paths are taken from "base_dir" if the
// request has one, else the working directory. Outputs need no file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "campaign/golden_request.hpp"  // the parsing, .bin reading and .npy/.bin writing
#include "properties/case.hpp"

namespace aclnn_conform {

// The request as a Case of the op (tensors and attributes in the op's signature order). Throws
// std::runtime_error "golden request <source>: <problem>" (unknown op, missing tensor, file
// size, ...); source names the request file in messages (empty: not named).
Case golden_case(const nlohmann::json &request, const std::string &source = "");
// The same for a request built in memory (the Python module's goldens, python/): binds it to the
// op's signature exactly as golden_case and run_golden do; consumes its tensors.
Case golden_case_of(GoldenRequest &request);

// Computes the oracle's verdict and outputs and writes <out_dir>/<name>.bin and <name>.npy per
// written output, and <out_dir>/golden.json, which it also returns:
//   {"op", "product", "variants", "status", "clause", "reason", "case",
//    "outputs": [{"name", "dtype", "shape", "written", "bin", "npy", "npy_descr", "note"?}]}
// An invalid call gives its status and deciding clause and no outputs.
nlohmann::json run_golden(const nlohmann::json &request, const std::string &out_dir,
                          const std::string &source = "");

}  // namespace aclnn_conform
