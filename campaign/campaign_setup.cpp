// The campaign's set-up (campaign/campaign_run.hpp): the first worker says what the SUT exports and
// whether it emulates products, then every device is started once (one that cannot be is an error
// naming it); workers are started with their hello command, and starts that fail are counted
// against their device.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "campaign/campaign_run.hpp"
#include "campaign/kit_policy.hpp"
#include "campaign/product_emulation.hpp"
#include "campaign/selection.hpp"
#include "campaign/worker_protocol.hpp"

namespace aclnn_conform::campaign_detail {

Campaign::Campaign(const CampaignConfig &cfg, std::ostream &log)
    : cfg_(cfg), log_(log), devices_(cfg.devices) {
  // A python: SUT's adapter answers some clauses itself: they are skipped (in the workers too)
  // and reported as not applicable, never as conforming.
  if (is_python_sut(cfg_.sut))
    for (const auto &c : python_sut_not_applicable())
      if (std::find(cfg_.skips.begin(), cfg_.skips.end(), c) == cfg_.skips.end()) {
        cfg_.skips.push_back(c);
        result_.not_applicable.push_back(c);
        result_.not_applicable_reason = kPythonSutNotApplicableReason;
      }
}

// ---- Set-up: the first worker says what the SUT exports, then every device is started ----

void Campaign::setup() {
  // The python: adapter embeds one interpreter per worker with one module (named by the
  // environment): a second module as the competitor would replace the SUT's, and the run would
  // judge the competitor against itself.
  if (is_python_sut(cfg_.sut) && is_python_sut(cfg_.competitor) && cfg_.sut != cfg_.competitor)
    throw std::invalid_argument("--competitor " + cfg_.competitor +
                                ": a worker embeds one Python module, and --sut is " + cfg_.sut +
                                "; a python: competitor must be the SUT's own module, or a "
                                "library (builtin, a .so)");
  files_ = sut_files(cfg_.sut);
  if (!cfg_.competitor.empty()) {
    try {
      competitor_files_ = sut_files(cfg_.competitor);
    } catch (const std::runtime_error &e) {
      throw std::runtime_error(std::string("--competitor: ") + e.what());
    }
  }
  result_.sut = cfg_.sut;
  result_.competitor = cfg_.competitor;
  for (const auto &f : files_) result_.sut_files.push_back(identify_sut(f));
  result_.sut_identity = result_.sut_files.back();
  result_.tool_version = conform_version();
  ops_ = select_ops(cfg_.ops);
  check_expected_variants(ops_, cfg_.expect_variants);
  // The first worker: loads the library, starts its device, says which ops it exports.
  const auto first = devices_.next();
  const int first_id = start_worker(*first).id;
  wait_until([&] { return worker_ready(first_id) || !start_error_.empty(); });
  if (!start_error_.empty()) throw std::runtime_error(start_error_);
  if (!worker_ready(first_id)) {
    // Stopped by SIGINT/SIGTERM while the SUT started: an INTERRUPTED run of no case (exit 4,
    // its reports written), as a stop at any later moment is; the run loop sees the stop first.
    if (stop_requested()) {
      emulation_evidence_ = "not probed: the run was stopped before the SUT had started";
      describe_run();
      return;
    }
    throw std::runtime_error(
        fmt::format("the SUT had not started when the budget of {} s ran out (raise --budget, or "
                    "--first-call-timeout if its start is slow)",
                    cfg_.budget_seconds));
  }
  ops_ = exported_ops(ops_, exported_, cfg_.sut, result_.warnings);
  if (cfg_.product_emulation == ProductEmulation::kAuto) probe_emulation(first_id);
  emulation_evidence_ =
      cfg_.product_emulation == ProductEmulation::kOn
          ? (emulation_evidence_.empty() ? "--product-emulation on" : emulation_evidence_)
          : (emulation_evidence_.empty() ? "--product-emulation off" : emulation_evidence_);
  log_ << "product emulation: " << (cfg_.product_emulation == ProductEmulation::kOn ? "on" : "off")
       << " (" << emulation_evidence_ << ")\n";
  // Every other device is started once now: one that cannot be is an error naming it. Those
  // beyond --jobs end once started.
  std::vector<int> started;
  for (const auto &d : devices_.usage())
    if (d.workers == 0) started.push_back(start_worker(d.id).id);
  wait_until([&] {
    return !start_error_.empty() ||
           std::all_of(started.begin(), started.end(), [&](int id) { return worker_ready(id); });
  });
  if (!start_error_.empty()) throw std::runtime_error(start_error_);
  int extra = static_cast<int>(pool_.size()) - cfg_.jobs;
  for (auto &w : pool_.workers())
    if (extra > 0 && w.id != first_id && !w.closing) {
      pool_.close_commands(w);
      --extra;
    }
  setup_done_ = true;
  describe_run();
  if (ops_.empty()) throw std::runtime_error("the SUT exports none of the selected ops");
}

// What the report says of the run's configuration, whether or not its SUT started.
void Campaign::describe_run() {
  result_.product = std::string(product_name(cfg_.product));
  result_.tier = tier_name(cfg_.tier);
  result_.policy = policy_name(cfg_);
  result_.seed = cfg_.seed;
  result_.shard = fmt::format("{}/{}", cfg_.shard_index, cfg_.shard_count);
  result_.skipped = cfg_.skips;
  std::erase_if(result_.skipped, [&](const std::string &e) {
    return std::find(result_.not_applicable.begin(), result_.not_applicable.end(), e) !=
           result_.not_applicable.end();
  });
  result_.xfails = cfg_.xfails;
  result_.expected_variants = cfg_.expect_variants;
  result_.clause_pattern = cfg_.clause_pattern;
  result_.allow_incomplete = cfg_.allow_incomplete;
  result_.ops = selected_op_names(cfg_.ops);
  result_.clauses = selected_clauses(result_.ops, tier_min_cases(cfg_.tier));
  std::map<std::string, std::vector<std::string>> op_clauses;
  for (const auto &c : result_.clauses) op_clauses[c.op].push_back(c.id);
  const bool adaptive = cfg_.adaptive && cfg_.tier != Tier::kSmoke;
  schedule_.emplace(adaptive,
                    !cfg_.adaptive ? "--no-adaptive"
                                   : "the smoke tier: its shards merge to the single run's report",
                    cfg_.shard_count, cfg_.schedule_lag, std::move(op_clauses),
                    4 * int64_t{tier_min_cases(cfg_.tier)});
  for (auto &w : unmatched_entry_warnings(cfg_.skips, cfg_.xfails))
    result_.warnings.push_back(std::move(w));
}

bool Campaign::worker_ready(int id) const {
  for (const auto &w : pool_.workers())
    if (w.id == id) return w.ready;
  return false;
}

WorkerProcess *Campaign::find_worker(int id) {
  for (auto &w : pool_.workers())
    if (w.id == id) return &w;
  return nullptr;
}

// The product-emulation probe, on the first worker: a call gated by the product, as the
// campaign's product and as another (campaign/product_emulation.hpp).
void Campaign::probe_emulation(int worker_id) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto *op : ops_) ops.push_back(op->name);
  WorkerProcess *w = find_worker(worker_id);
  if (!w) return;
  emulation_answer_.reset();
  emulation_death_.clear();
  probing_worker_ = worker_id;
  pool_.send(*w, encode_command("emulation", {{"ops", ops}}));
  wait_until([&] { return emulation_answer_ || !emulation_death_.empty(); });
  probing_worker_ = -1;
  if (!emulation_answer_ && emulation_death_.empty()) {
    // No answer because the run was stopped (or its budget ran out): nothing was learnt.
    cfg_.product_emulation = ProductEmulation::kOff;
    emulation_evidence_ = "not probed: the run ended before the probe answered";
    return;
  }
  const EmulationProbe p = read_emulation_probe(
      emulation_answer_ ? &*emulation_answer_ : nullptr,
      emulation_death_.empty() ? "got no answer" : emulation_death_, cfg_.product);
  cfg_.product_emulation = p.emulates ? ProductEmulation::kOn : ProductEmulation::kOff;
  emulation_evidence_ = p.evidence;
}

WorkerProcess &Campaign::start_worker(int device) {
  WorkerLaunch launch;
  launch.executable = worker_executable();
  WorkerProcess &w = pool_.spawn(launch);
  w.device = device;
  ++devices_.at(device).workers;
  nlohmann::json no_warm_up = nlohmann::json::array();
  for (const auto &op : no_warm_up_) no_warm_up.push_back(op);
  pool_.send(w, encode_command("hello", {{"sut", files_},
                                         {"competitor", competitor_files_},
                                         {"device", device},
                                         {"config", worker_config_json(cfg_)},
                                         {"no_warm_up", no_warm_up}}));
  return w;
}

// A worker that did not start: at set-up an error that names its device; later, the device
// is retired after three starts in a row fail.
void Campaign::start_failed(const WorkerProcess &w, const std::string &why) {
  DeviceUsage &d = devices_.at(w.device);
  const std::string text = fmt::format("device {}: {}", w.device, why);
  if (!setup_done_) {
    if (start_error_.empty()) start_error_ = text;
    return;
  }
  add_warning("a worker could not start on " + text);
  if (++start_failures_[w.device] >= 3) {
    devices_.retire(w.device, "three workers in a row could not start: " + why);
    add_warning(fmt::format("device {} was retired: {}", w.device, d.note));
  }
}

}  // namespace aclnn_conform::campaign_detail
