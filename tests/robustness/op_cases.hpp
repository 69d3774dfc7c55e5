// Fixed, sizeable calls of every op through the ABI, for the concurrency and determinism
// tests: inputs are filled once from a seed; each run creates its own tensors over caller-chosen
// input and output buffers and returns the status of both phases.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace aclnn_robust {

using Bytes = std::vector<uint8_t>;

struct OpCase {
  std::string name;
  std::vector<Bytes> inputs;      // read-only
  std::vector<size_t> out_sizes;  // bytes of each output
  // Runs the op on `in` (same layout as inputs) into `out` (sized by out_sizes); returns 0 or the
  // first failing status, with the error text in `error`.
  std::function<int(const std::vector<Bytes> &in, std::vector<Bytes> &out, std::string &error)> run;

  std::vector<Bytes> fresh_outputs() const {
    std::vector<Bytes> out;
    for (size_t n : out_sizes) out.emplace_back(n, 0xCD);
    return out;
  }
};

// One call of each op (tests/lists/op_lists.json checks that none is missing; the reductions with
// all their outputs). Sizes are large enough that every op splits its work into several chunks
// with 8 threads.
std::vector<OpCase> all_op_cases();

}  // namespace aclnn_robust
