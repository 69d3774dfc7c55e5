#include "campaign/product_emulation.hpp"

#include <fmt/format.h>

#include <optional>

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

nlohmann::json run_emulation_probe(const Sut &sut, const std::vector<const OpDescriptor *> &ops,
                                   Product product) {
  const auto call = find_gated_call(ops, product);
  if (!call) return {{"evidence", "no call of the selected ops is gated by the product"}};
  int code = 0;
  if (run_case(sut, *call->op, call->accepted).status != 0) code |= 1;
  if (run_case(sut, *call->op, call->rejected).status == 0) code |= 2;
  return {{"code", code},
          {"other", std::string(product_name(call->rejected.product))},
          {"what", fmt::format("{}, accepted on {} and rejected on {} by the oracle",
                               call->accepted.describe(), product_name(product),
                               product_name(call->rejected.product))}};
}

EmulationProbe read_emulation_probe(const nlohmann::json *answer, const std::string &death,
                                    Product product) {
  EmulationProbe r;
  if (!answer) {
    r.evidence = "the probe call " + death;
    return r;
  }
  if (answer->contains("evidence")) {
    r.evidence = answer->at("evidence");
    return r;
  }
  const int code = answer->at("code");
  const std::string what = answer->at("what");
  r.emulates = code == 0;
  r.evidence = code == 0  ? "the SUT followed ACLNN_CPU_SOC: " + what
               : code & 1 ? "the SUT rejected the call as " + std::string(product_name(product)) +
                                ": " + what
               : code & 2 ? "the SUT accepted the call as " +
                                answer->value("other", std::string("the other product")) + ": " +
                                what
                          : "the probe failed: " + what;
  return r;
}

}  // namespace aclnn_conform
