#include "campaign/product_emulation.hpp"

#include <fmt/format.h>

#include <chrono>
#include <optional>

#include "properties/child_process.hpp"
#include "properties/runner.hpp"

namespace aclnn_conform {
namespace {

struct GatedCall {
  const OpDescriptor *op = nullptr;
  Case accepted;  // valid under the campaign's product
  Case rejected;  // the same call under a product whose gates reject it
};

// The first small valid call of a fixed seed sequence that another product's gates reject.
std::optional<GatedCall> find_gated_call(const std::vector<const OpDescriptor *> &ops,
                                         Product product) {
  const Product all[] = {Product::kAtlasA2, Product::kAtlasA3, Product::kAtlasTraining,
                         Product::kAtlasInference};
  for (const auto *op : ops)
    for (uint64_t seed = 1; seed <= 64; ++seed) {
      Case c = op->gen_valid(product)(rc::Random(seed), 8).value();
      if (!op->check(c, {}).ok()) continue;
      for (const Product other : all) {
        if (other == product) continue;
        Case o = c;
        o.product = other;
        if (!op->check(o, {}).ok()) return GatedCall{op, c, o};
      }
    }
  return std::nullopt;
}

}  // namespace

EmulationProbe probe_product_emulation(const Sut &sut, const std::vector<const OpDescriptor *> &ops,
                                       Product product, double timeout_seconds) {
  EmulationProbe r;
  const auto call = find_gated_call(ops, product);
  if (!call) {
    r.evidence = "no call of the selected ops is gated by the product";
    return r;
  }
  const std::string what =
      fmt::format("{}, accepted on {} and rejected on {} by the oracle", call->accepted.describe(),
                  product_name(product), product_name(call->rejected.product));
  // The child's exit code: bit 0 set if the call failed as `product`, bit 1 if it succeeded as
  // the other product (4: the harness threw).
  const ChildOutcome o = run_quiet_child(
      [&] {
        int code = 0;
        if (run_case(sut, *call->op, call->accepted).status != 0) code |= 1;
        if (run_case(sut, *call->op, call->rejected).status == 0) code |= 2;
        return code;
      },
      std::chrono::steady_clock::now() +
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
              std::chrono::duration<double>(timeout_seconds)));
  switch (o.kind) {
    case ChildOutcome::Kind::kNotRun:
      r.evidence = "the probe child could not be run or waited for: " + what;
      return r;
    case ChildOutcome::Kind::kTimedOut:
      r.evidence = "the probe call hung: " + what;
      return r;
    case ChildOutcome::Kind::kSignalled:
      r.evidence = "the probe call crashed: " + what;
      return r;
    case ChildOutcome::Kind::kExited:
      break;
  }
  const int code = o.code;
  r.emulates = code == 0;
  r.evidence = code == 0  ? "the SUT followed ACLNN_CPU_SOC: " + what
               : code & 1 ? "the SUT rejected the call as " + std::string(product_name(product)) +
                                ": " + what
               : code & 2 ? "the SUT accepted the call as " +
                                std::string(product_name(call->rejected.product)) + ": " + what
                          : "the probe failed: " + what;
  return r;
}

}  // namespace aclnn_conform
