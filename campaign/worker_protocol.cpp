#include "campaign/worker_protocol.hpp"

#include <stdexcept>

#include "campaign/kit_policy.hpp"

namespace aclnn_conform {

std::string encode_record(char tag, const nlohmann::json &body) {
  return std::string(1, tag) + " " + body.dump() + "\n";
}

std::string encode_command(const std::string &cmd, nlohmann::json body) {
  body["cmd"] = cmd;
  return body.dump() + "\n";
}

nlohmann::json worker_config_json(const CampaignConfig &cfg) {
  return {{"product", std::string(product_name(cfg.product))},
          {"product_emulation", cfg.product_emulation == ProductEmulation::kOn},
          {"tier", tier_name(cfg.tier)},
          // The deciding policy by name ("ulp", "ascend" or a kit standard's id): a worker judges
          // every case by it, so it must arrive whole (kit_policy.hpp).
          {"policy", policy_name(cfg)},
          {"skips", cfg.skips},
          {"expect_variants", cfg.expect_variants},
          {"shrink_attempts", cfg.shrink_attempts},
          {"competitor", cfg.competitor}};
}

CampaignConfig worker_config_from_json(const nlohmann::json &j) {
  CampaignConfig cfg;
  const auto product = product_from_name(j.at("product").get<std::string>());
  if (!product) throw std::runtime_error("unknown product " + j.at("product").dump());
  cfg.product = *product;
  cfg.product_emulation =
      j.at("product_emulation").get<bool>() ? ProductEmulation::kOn : ProductEmulation::kOff;
  const std::string tier = j.at("tier");
  cfg.tier = tier == "smoke" ? Tier::kSmoke : tier == "nightly" ? Tier::kNightly : Tier::kCi;
  set_policy(cfg, j.at("policy").get<std::string>());
  cfg.skips = j.at("skips").get<std::vector<std::string>>();
  cfg.expect_variants = j.at("expect_variants").get<std::vector<std::string>>();
  cfg.shrink_attempts = j.at("shrink_attempts");
  cfg.competitor = j.at("competitor");
  return cfg;
}

std::optional<std::string> take_line(std::string &buffer) {
  const size_t nl = buffer.find('\n');
  if (nl == std::string::npos) return std::nullopt;
  std::string line = buffer.substr(0, nl);
  buffer.erase(0, nl + 1);
  return line;
}

char record_tag_of(const std::string &line) {
  return line.empty() ? '\0' : line[0];
}

nlohmann::json record_body(const std::string &line) {
  return nlohmann::json::parse(line.size() < 2 ? std::string() : line.substr(2));
}

AccuracyStats accuracy_from_comparison(const nlohmann::json &cmp) {
  AccuracyStats a;
  a.op = cmp.at("op");
  a.dtype = cmp.at("dtype");
  const int64_t n = cmp.at("count");
  a.elements = n;
  for (size_t b = 0; b < a.histogram.size(); ++b)
    a.histogram[b] = cmp.at("histogram")[b].get<int64_t>();
  a.max_ulps = number_from_json(cmp.at("max_ulps"));
  // Stored as a weighted sum so that rows merge exactly (AccuracyStats::mere()).
  a.mere_weighted_sum = number_from_json(cmp.at("mere")) * static_cast<double>(n);
  a.mare = number_from_json(cmp.at("mare"));
  a.rules = {cmp.value("rule", std::string("ulp"))};
  if (cmp.contains("max_bound_ratio"))
    a.max_bound_ratio = number_from_json(cmp.at("max_bound_ratio"));
  return a;
}

AccuracyStats accuracy_from_precision(const nlohmann::json &pj) {
  AccuracyStats a;
  a.op = pj.at("op");
  a.dtype = pj.at("dtype");
  a.precision = precision_from_json(pj);
  a.precision.op = a.op;
  a.precision.dtype = a.dtype;
  return a;
}

}  // namespace aclnn_conform
