#include "campaign/task.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "properties/splitmix.hpp"
#include "properties/sweep.hpp"

namespace aclnn_conform {
namespace {

const char *kind_name(Task::Kind k) {
  switch (k) {
    case Task::Kind::kValid:
      return "valid";
    case Task::Kind::kInvalid:
      return "invalid";
    case Task::Kind::kProtocol:
      return "protocol";
    case Task::Kind::kCorpus:
      return "corpus";
    case Task::Kind::kEdge:
      return "edge";
  }
  return "valid";
}

}  // namespace

nlohmann::json to_json(const Task &t) {
  nlohmann::json j{{"index", t.index},      {"op", t.op->name},         {"kind", kind_name(t.kind)},
                   {"seed", t.seed},        {"size", t.size},           {"large", t.large},
                   {"origin", t.origin},    {"corpus_id", t.corpus_id}, {"edge_row", t.edge_row},
                   {"teardown", t.teardown}};
  if (t.stored && !t.row) j["case"] = to_json(*t.stored);
  // An edge row travels whole: a worker that drew the tables itself would spend a tenth of a
  // second on them (the layout rows' base calls) before its first case.
  if (t.row) {
    nlohmann::json expected = nlohmann::json::array();
    // Values as their bits: JSON has no NaN or infinity, and a row states both.
    for (const auto &e : t.row->expected)
      expected.push_back({e.output, e.index, std::bit_cast<uint64_t>(e.value)});
    j["row"] = {{"clause", t.row->clause},
                {"title", t.row->title},
                {"call", to_json(t.row->call)},
                {"expected_status", t.row->expected_status},
                {"expected", expected},
                {"expected_workspace", t.row->expected_workspace},
                {"caller_precondition", t.row->caller_precondition}};
  }
  if (t.climb) j["climb"] = t.climb_dtype;
  if (t.sweep) j["sweep"] = true;
  if (t.load_kernel_first) j["load_kernel_first"] = true;
  return j;
}

Task task_from_json(const nlohmann::json &j) {
  Task t;
  t.index = j.at("index");
  t.op = find_op(j.at("op").get<std::string>());
  if (!t.op) throw std::runtime_error("a task of an unknown op: " + j.at("op").dump());
  const std::string kind = j.at("kind");
  for (auto k : {Task::Kind::kValid, Task::Kind::kInvalid, Task::Kind::kProtocol,
                 Task::Kind::kCorpus, Task::Kind::kEdge})
    if (kind == kind_name(k)) t.kind = k;
  t.seed = j.at("seed");
  t.size = j.at("size");
  t.large = j.at("large");
  t.origin = j.at("origin");
  t.corpus_id = j.at("corpus_id");
  t.edge_row = j.at("edge_row");
  t.teardown = j.at("teardown");
  if (j.contains("climb")) {
    t.climb = true;
    t.climb_dtype = j.at("climb");
  }
  t.sweep = j.value("sweep", false);
  t.load_kernel_first = j.value("load_kernel_first", false);
  if (t.edge_row >= 0) {
    // Edge rows always travel whole (to_json): a worker never draws the tables itself.
    if (!j.contains("row"))
      throw std::runtime_error("a task of edge row " + std::to_string(t.edge_row) +
                               " without the row (a campaign of another version?)");
    const nlohmann::json &r = j.at("row");
    EdgeCase row{
        r.at("clause"), r.at("title"), case_from_json(r.at("call")), r.at("expected_status"), {}};
    for (const auto &e : r.at("expected"))
      row.expected.push_back({e.at(0), e.at(1), std::bit_cast<double>(e.at(2).get<uint64_t>())});
    row.expected_workspace = r.at("expected_workspace");
    row.caller_precondition = r.at("caller_precondition");
    t.row = std::make_shared<const EdgeCase>(std::move(row));
    t.stored = std::make_shared<const Case>(t.row->call);
  } else if (j.contains("case")) {
    t.stored = std::make_shared<const Case>(case_from_json(j.at("case")));
  }
  return t;
}

std::optional<Case> fixed_valid_case(const OpDescriptor &op, Product product, int size) {
  for (uint64_t s = 1; s <= 64; ++s) {
    Case c = op.gen_valid(product)(rc::Random(s), size).value();
    if (!op.check(c, {}).ok()) continue;
    bool empty = false;
    for (const auto &[name, t] : c.tensors) empty |= t.present && t.numel() == 0;
    if (!empty) return c;
  }
  return std::nullopt;
}

std::optional<Task> warm_up_task(const OpDescriptor &op, const CampaignConfig &cfg) {
  auto c = fixed_valid_case(op, cfg.product, 8);
  if (!c) return std::nullopt;
  Task t;
  t.op = &op;
  t.kind = Task::Kind::kValid;
  const auto &ops = registry();
  t.index = -3000000 - (std::find(ops.begin(), ops.end(), &op) - ops.begin());
  t.stored = std::make_shared<const Case>(std::move(*c));
  t.origin = "warm-up call of " + op.name + " (its first call in a worker)";
  return t;
}

std::string kernel_signature(const OpDescriptor &op, const Case &c) {
  std::string s = op.name;
  for (const auto &[name, t] : c.tensors)
    s += " " + name + ":" + (t.present ? std::string(aclnn_ref::dtype_name(t.dtype)) : "null");
  return s;
}

std::optional<Case> kernel_load_case(const Task &t, const Case &c, const CampaignConfig &cfg) {
  constexpr int64_t kWalkedElements = 1 << 14;
  constexpr int kWalkedShrinks = 100;
  const OpDescriptor &op = *t.op;
  const std::string want = kernel_signature(op, c);
  std::optional<Case> best;
  std::pair<int64_t, size_t> best_size{};
  // Whether the drawn case runs the kernel (kept if it is the smallest so far: fewest elements,
  // then lowest rank). A draw the generator cannot make (a product filter's) runs nothing.
  const auto runs_it = [&](const auto &draw) {
    Case k;
    try {
      k = draw();
    } catch (const std::exception &) {
      return false;
    }
    if (kernel_signature(op, k) != want || !op.check(k, {}).ok()) return false;
    std::pair<int64_t, size_t> size{0, 0};
    for (const auto &[name, x] : k.tensors) {
      if (!x.present) continue;
      if (x.numel() == 0) return false;
      size = {size.first + x.numel(), std::max(size.second, x.shape.size())};
    }
    if (!best || size < best_size) {
      best = std::move(k);
      best_size = size;
    }
    return true;
  };
  // A generated case's own shrinks first: rapidcheck's shrinks keep most of its draws (its dtypes
  // and optional tensors among them) while its shapes get smaller. Each shrink draws its values
  // afresh, so only small cases are walked (a large one would take seconds).
  if (t.generated() && t.kind != Task::Kind::kInvalid && c.elements() <= kWalkedElements) {
    auto current = task_shrinkable(t, cfg);
    int attempts = 0;
    for (bool progress = true; progress && attempts < kWalkedShrinks;) {
      progress = false;
      auto shrinks = current.shrinks();
      while (auto next = shrinks.next()) {
        if (++attempts > kWalkedShrinks) break;
        if (runs_it([&] { return next->value(); })) {
          current = *next;
          progress = true;
          break;
        }
      }
    }
  }
  // Then a fixed sequence of small calls (256 draws at sizes 1-4: a few milliseconds).
  for (int size = 1; size <= 4; ++size)
    for (uint64_t s = 1; s <= 64; ++s)
      runs_it([&] {
        return op.gen_valid(cfg.product)(rc::Random(0x6b65726e656cull + s), size).value();
      });
  return best;
}

std::optional<Task> kernel_load_task(const Task &for_task, const CampaignConfig &cfg) {
  auto c = kernel_load_case(for_task, task_case(for_task, cfg), cfg);
  if (!c) return std::nullopt;
  Task t;
  t.op = for_task.op;
  t.kind = Task::Kind::kValid;
  const auto &ops = registry();
  t.index = -4000000 - (std::find(ops.begin(), ops.end(), for_task.op) - ops.begin());
  t.stored = std::make_shared<const Case>(std::move(*c));
  t.origin =
      "kernel load call of " + for_task.op->name + " before the second run of " + for_task.origin;
  return t;
}

bool is_skipped(const CampaignConfig &cfg, const std::string &entry) {
  return std::find(cfg.skips.begin(), cfg.skips.end(), entry) != cfg.skips.end();
}

std::string Task::property() const {
  return op->name + "/" + kind_name(kind);
}

Task generated_task(const std::vector<const OpDescriptor *> &ops, const CampaignConfig &cfg,
                    int64_t k) {
  Task t;
  t.index = k;
  // The op, kind and size of index k come from a hash of k (not of the seed, so that every seed
  // has the same mix): any shard count N, whose shards take k mod N, gets every op in proportion.
  const uint64_t h = splitmix64(static_cast<uint64_t>(k) ^ 0x6a09e667f3bcc909ull);
  t.op = ops[static_cast<size_t>(h % ops.size())];
  // Per op: two valid cases to one invalid, and one protocol probe in 32.
  const uint64_t kind = (h >> 16) % 96;
  t.kind = kind >= 93      ? Task::Kind::kProtocol
           : kind % 3 == 2 ? Task::Kind::kInvalid
                           : Task::Kind::kValid;
  // Large cases take a good fraction of a second each: not at the smoke tier.
  t.large = cfg.tier != Tier::kSmoke && t.kind == Task::Kind::kValid && t.op->gen_large &&
            (h >> 48) % 24 == 0;
  t.seed = splitmix64(cfg.seed ^ splitmix64(static_cast<uint64_t>(k)));
  const int max = tier_max_size(cfg.tier);
  t.size = static_cast<int>((h >> 32) % 10 + 1) * max / 10;
  // Climbs make many calls: on the smaller half of the sizes.
  const uint64_t hc = splitmix64(h);
  const int sweep_one_in = has_elementwise_sweeps(*t.op) ? kElementwiseSweepOneIn : kRowSweepOneIn;
  t.sweep = cfg.sweep && cfg.tier != Tier::kSmoke && t.kind == Task::Kind::kValid && !t.large &&
            has_value_sweeps(*t.op) && (hc >> 8) % sweep_one_in == 0;
  t.climb = cfg.climb && cfg.tier != Tier::kSmoke && t.kind == Task::Kind::kValid && !t.large &&
            !t.sweep && hc % 32 == 0;
  if (t.climb) t.size = std::max(1, t.size / 2);
  t.origin =
      fmt::format("seed {:#x} index {} {}{}{}{} size {}", cfg.seed, k, t.large ? "large " : "",
                  t.climb ? "climb " : "", t.sweep ? "sweep " : "", kind_name(t.kind), t.size);
  return t;
}

bool product_runs(const Case &c, const CampaignConfig &cfg) {
  return c.product == cfg.product || cfg.product_emulation == ProductEmulation::kOn;
}

rc::Shrinkable<Case> task_shrinkable(const Task &t, const CampaignConfig &cfg) {
  if (t.sweep) {
    // Drawn for the campaign's product whether or not the SUT emulates others.
    return value_sweep_shrinkable(*t.op, cfg.product, t.seed, t.size);
  }
  auto gen = t.kind == Task::Kind::kInvalid ? t.op->gen_invalid(cfg.product)
             : t.large                      ? t.op->gen_large(cfg.product)
                                            : t.op->gen_valid(cfg.product);
  // Invalid generators also break product gates by switching the product: on a SUT that runs as
  // one product those cases (and their shrinks) are filtered out.
  if (cfg.product_emulation != ProductEmulation::kOn)
    gen = rc::gen::suchThat(std::move(gen),
                            [p = cfg.product](const Case &c) { return c.product == p; });
  return gen(rc::Random(t.seed), t.size);
}

Case task_case(const Task &t, const CampaignConfig &cfg) {
  if (t.stored) return *t.stored;
  return task_shrinkable(t, cfg).value();
}

std::vector<Task> edge_tasks(const std::vector<const OpDescriptor *> &ops) {
  std::vector<Task> tasks;
  int64_t k = 0;
  for (const auto &row : all_edge_cases()) {
    ++k;
    const int64_t position = k - 1;
    const OpDescriptor *op = find_op(row.call.op);
    if (!op || std::find(ops.begin(), ops.end(), op) == ops.end()) continue;
    Task t;
    t.index = -1000000 - k;
    t.op = op;
    t.kind = Task::Kind::kEdge;
    t.row = std::make_shared<const EdgeCase>(row);
    t.stored = std::make_shared<const Case>(row.call);
    t.edge_row = position;
    t.origin = fmt::format("edge row {} {}: {}", position, row.clause, row.title);
    tasks.push_back(std::move(t));
  }
  return tasks;
}

std::vector<Task> fixed_probe_tasks(const std::vector<const OpDescriptor *> &ops,
                                    const CampaignConfig &cfg) {
  std::vector<Task> tasks;
  int64_t k = 0;
  // Per op, a small call (the two-phase rules) and a large one (determinism: a reduction whose
  // order changes from call to call shows in the bits only over many terms).
  // The small call's probe ends its worker with the call examples' teardown (Task::teardown),
  // so that every run checks it once per op, after that op ran.
  for (const int size : {8, tier_max_size(cfg.tier)})
    for (const auto *op : ops) {
      // The probes need a call the SUT should accept and run.
      auto c = fixed_valid_case(*op, cfg.product, size);
      if (!c) continue;
      Task t;
      t.index = -2000000 - k++;
      t.op = op;
      t.kind = Task::Kind::kProtocol;
      t.stored = std::make_shared<const Case>(std::move(*c));
      t.teardown = size == 8;
      t.origin = fmt::format("protocol probe of {} on a fixed valid call (size {}{})", op->name,
                             size, t.teardown ? ", then the teardown" : "");
      tasks.push_back(std::move(t));
    }
  // Large valid calls, generated (and shrunk) in the worker like any generated case.
  for (int j = 0; j < (cfg.tier == Tier::kSmoke ? 0 : 2); ++j)
    for (const auto *op : ops) {
      if (!op->gen_large) continue;
      Task t;
      t.index = -2000000 - k++;
      t.op = op;
      t.kind = Task::Kind::kValid;
      t.large = true;
      t.seed = splitmix64(cfg.seed ^ splitmix64(static_cast<uint64_t>(t.index)));
      t.size = tier_max_size(cfg.tier);
      t.origin = fmt::format("large valid call {} of {} (seed {:#x} index {})", j + 1, op->name,
                             cfg.seed, t.index);
      tasks.push_back(std::move(t));
    }
  return tasks;
}

}  // namespace aclnn_conform
