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

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "properties/case.hpp"
#include "reference/dtype.hpp"

namespace aclnn_conform {

// The request as a Case of the op (tensors and attributes in the op's signature order). Throws
// std::runtime_error naming the problem (unknown op, missing tensor, file size, ...).
Case golden_case(const nlohmann::json &request);

// Computes the oracle's verdict and outputs and writes <out_dir>/<name>.bin and <name>.npy per
// written output, and <out_dir>/golden.json, which it also returns:
//   {"op", "product", "variants", "status", "clause", "reason", "case",
//    "outputs": [{"name", "dtype", "shape", "written", "bin", "npy", "npy_descr", "note"?}]}
// An invalid call gives its status and deciding clause and no outputs.
nlohmann::json run_golden(const nlohmann::json &request, const std::string &out_dir);

// NumPy's descr of a dtype: "<f4", "<f2", "<f8", "|i1", "|u1", "|b1", "<i2", "<u2", "<i4", ...;
// bf16 has no NumPy dtype and is written as its raw bits, "<u2".
std::string npy_descr(aclnn_ref::DType dtype);
// The complete .npy v1.0 header (magic, version, length, dict padded to a multiple of 64).
std::string npy_header(aclnn_ref::DType dtype, const std::vector<int64_t> &shape);
void write_npy(const std::string &path, aclnn_ref::DType dtype, const std::vector<int64_t> &shape,
               std::span<const std::byte> bytes);
// A whole file, which must hold exactly expected_bytes bytes (else std::runtime_error).
std::vector<std::byte> read_bin(const std::string &path, size_t expected_bytes);
void write_bin(const std::string &path, std::span<const std::byte> bytes);

}  // namespace aclnn_conform
