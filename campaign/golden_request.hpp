// Reading a `golden` request (campaign/golden.hpp) without the op registry: the JSON's fields and
// the .bin files its tensors name become a GoldenRequest with host tensors. Binding it to an op's
// signature (which tensors and attributes, of which kinds) and running the oracle is golden.cpp's.
// Kept apart so the parser can be fuzzed (fuzz/golden_request.cpp) without linking the oracle.
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

// Largest storage one request tensor may span (elements x element size). The oracle's memory is
// a few times this; a larger request is refused naming the tensor instead of allocating it.
constexpr int64_t kGoldenMaxStorageBytes = int64_t{1} << 30;

// Throws the error every refusal of a request makes: "golden request <source>: <what>".
[[noreturn]] void golden_request_error(const std::string &source, const std::string &what);

struct GoldenTensor {
  std::string name;
  TensorArg arg;          // arg.present == false: {"null": true}
  bool has_file = false;  // the data came from a .bin (else the storage is zeros)
};

struct GoldenRequest {
  std::string source;  // the request's file (or what the caller calls it), for messages
  std::string op;
  std::string product;  // as written; empty when absent
  std::vector<std::string> variants;
  std::vector<GoldenTensor> tensors;  // in the request's order
  nlohmann::json attrs;               // an object; its values are typed against the op's signature
};

// Every field checked for its type; every tensor's geometry checked (non-negative, the span it
// covers representable and at most max_storage_bytes); every "file" read (read_bin) and placed.
// Throws std::runtime_error "golden request <source>: <problem>" naming the tensor, field or file.
GoldenRequest parse_golden_request(const nlohmann::json &request, const std::string &source,
                                   int64_t max_storage_bytes = kGoldenMaxStorageBytes);

// An attribute's value of the kind `like` holds (double, int64, int list, bool list); null is
// std::monostate. Throws std::runtime_error naming the attribute and the expected kind.
AttrValue golden_attr_from_json(const std::string &source, const std::string &name,
                                const nlohmann::json &j, const AttrValue &like);
std::string golden_attr_kind(const AttrValue &a);

// NumPy's descr of a dtype: "<f4", "<f2", "<f8", "|i1", "|u1", "|b1", "<i2", "<u2", "<i4", ...;
// bf16 has no NumPy dtype and is written as its raw bits, "<u2".
std::string npy_descr(aclnn_ref::DType dtype);
// The complete .npy v1.0 header (magic, version, length, dict padded to a multiple of 64).
std::string npy_header(aclnn_ref::DType dtype, const std::vector<int64_t> &shape);
void write_npy(const std::string &path, aclnn_ref::DType dtype, const std::vector<int64_t> &shape,
               std::span<const std::byte> bytes);
// A whole regular file, which must hold exactly expected_bytes bytes (else std::runtime_error
// naming the file).
std::vector<std::byte> read_bin(const std::string &path, size_t expected_bytes);
void write_bin(const std::string &path, std::span<const std::byte> bytes);

}  // namespace aclnn_conform
