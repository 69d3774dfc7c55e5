// Seed mutation (campaign/coverage.hpp): generated indices that become value mutations of seeds,
// the cases that reached new edges, held until every index below their horizon has completed.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "campaign/corpus.hpp"
#include "campaign/coverage.hpp"
#include "properties/splitmix.hpp"
#include "reference/dtype.hpp"

namespace aclnn_conform {
namespace {

// Values that take a kernel down its special paths, as bits of the dtype: zeros of both signs,
// +-1, infinities, NaN, the largest finite, the smallest subnormal and normal (integers: 0, +-1,
// the extremes).
uint64_t special_bits(aclnn_ref::DType t, uint64_t pick) {
  using aclnn_ref::DType;
  static const uint64_t f32[] = {0x0,        0x80000000, 0x3f800000, 0xbf800000, 0x7f800000,
                                 0xff800000, 0x7fc00000, 0x7f7fffff, 0x1,        0x00800000};
  static const uint64_t f16[] = {0x0,    0x8000, 0x3c00, 0xbc00, 0x7c00,
                                 0xfc00, 0x7e00, 0x7bff, 0x1,    0x0400};
  static const uint64_t b16[] = {0x0,    0x8000, 0x3f80, 0xbf80, 0x7f80,
                                 0xff80, 0x7fc0, 0x7f7f, 0x1,    0x0080};
  static const uint64_t f64[] = {0x0,
                                 0x8000000000000000ULL,
                                 0x3ff0000000000000ULL,
                                 0xbff0000000000000ULL,
                                 0x7ff0000000000000ULL,
                                 0xfff0000000000000ULL,
                                 0x7ff8000000000000ULL,
                                 0x7fefffffffffffffULL,
                                 0x1,
                                 0x0010000000000000ULL};
  switch (t) {
    case DType::kFloat32:
      return f32[pick % 10];
    case DType::kFloat16:
      return f16[pick % 10];
    case DType::kBFloat16:
      return b16[pick % 10];
    case DType::kFloat64:
      return f64[pick % 10];
    case DType::kBool:
      return pick % 2;
    default:
      break;
  }
  const unsigned width = static_cast<unsigned>(aclnn_ref::bits_bytes(t)) * 8;
  const uint64_t mask = width >= 64 ? ~0ULL : (1ULL << width) - 1;
  const uint64_t top = 1ULL << (width - 1);
  const uint64_t ints[] = {0, 1, mask, top - 1, top};  // 0, 1, -1 (all ones), max, min
  return ints[pick % 5] & mask;
}

// 1-3 element mutations of c's tensors, drawn from seed: a special value, a step of 1-4 units in
// the last place (the bits' integer), or two elements of one tensor swapped.
void mutate(Case &c, uint64_t seed) {
  std::vector<TensorArg *> tensors;
  for (auto &[name, t] : c.tensors)
    if (t.present && t.numel() > 0 && !c.alias_of(name)) tensors.push_back(&t);
  if (tensors.empty()) return;
  uint64_t r = splitmix64(seed);
  const int count = 1 + static_cast<int>(r % 3);
  for (int i = 0; i < count; ++i) {
    r = splitmix64(r);
    TensorArg &t = *tensors[r % tensors.size()];
    const int64_t n = t.numel();
    const int64_t at = static_cast<int64_t>((r >> 8) % static_cast<uint64_t>(n));
    const unsigned width = static_cast<unsigned>(aclnn_ref::bits_bytes(t.dtype)) * 8;
    const uint64_t mask = width >= 64 ? ~0ULL : (1ULL << width) - 1;
    switch ((r >> 40) % 3) {
      case 0:
        t.set_bits_at(at, special_bits(t.dtype, r >> 44));
        break;
      case 1: {
        const uint64_t step = 1 + ((r >> 44) % 4);
        const uint64_t bits = t.bits_at(at);
        t.set_bits_at(at, ((r >> 50) & 1 ? bits + step : bits - step) & mask);
        break;
      }
      default: {
        const int64_t other = static_cast<int64_t>((r >> 44) % static_cast<uint64_t>(n));
        const uint64_t a = t.bits_at(at), b = t.bits_at(other);
        t.set_bits_at(at, b);
        t.set_bits_at(other, a);
      }
    }
  }
  // An in-place call's output is its input's memory: both descriptions keep the same storage.
  for (const auto &a : c.aliases) {
    TensorArg *out = c.tensor(a.output);
    const TensorArg *in = c.tensor(a.input);
    if (out && in) out->storage = in->storage;
  }
}

}  // namespace

bool CoverageTracker::mutates(const Task &t) const {
  if (!instrumented_ || !t.generated() || t.index < 0) return false;
  if (t.kind != Task::Kind::kValid && t.kind != Task::Kind::kInvalid) return false;
  const int64_t shards = std::max(1, cfg_->shard_count);
  if (t.index - kMutationLag * shards <= 0) return false;  // nothing below the horizon yet
  return splitmix64(static_cast<uint64_t>(t.index) ^ 0x5eedULL) % kMutationShare == 0;
}

void CoverageTracker::hold(Task t) {
  const int64_t horizon = t.index - kMutationLag * std::max(1, cfg_->shard_count);
  held_.hold(horizon, std::move(t));
}

void CoverageTracker::scan_seeds(int64_t horizon) {
  if (horizon <= scanned_to_) return;
  for (auto it = observed_.lower_bound(std::make_tuple(1, scanned_to_, std::string()));
       it != observed_.end() && std::get<1>(it->first) < horizon; ++it) {
    bool fresh = false;
    for (const uint32_t e : it->second.edges) fresh |= scanned_edges_.insert(e).second;
    if (fresh && it->second.task) mutation_seeds_.push_back(it->second.task);
  }
  scanned_to_ = horizon;
}

std::optional<Task> CoverageTracker::release(bool force) {
  if (held_.empty() || (!force && !held_.ready(frontier_))) return std::nullopt;
  Task t = held_.take();
  // The horizon of a forced release may not have completed: only what has is read (a crash that
  // is not recorded yet, at the end of a run).
  scan_seeds(
      std::min(t.index - kMutationLag * std::max(1, cfg_->shard_count), frontier_.lowest_open()));
  if (mutation_seeds_.empty()) {
    ++mutations_of_none_;
    return t;  // no seed yet: the index runs its own generated case
  }
  const Task &parent = *mutation_seeds_[splitmix64(t.seed) % mutation_seeds_.size()];
  Case c;
  try {
    c = task_case(parent, *cfg_);
  } catch (const std::exception &) {
    ++mutations_of_none_;
    return t;
  }
  mutate(c, t.seed);
  Task m;
  m.index = t.index;
  m.op = parent.op;
  m.kind = parent.kind == Task::Kind::kInvalid ? Task::Kind::kInvalid : Task::Kind::kValid;
  m.seed = t.seed;
  m.size = parent.size;
  m.large = parent.large;
  m.stored = std::make_shared<const Case>(std::move(c));
  m.origin = fmt::format("seed mutation at index {} of [{}]", t.index, parent.origin);
  return m;
}

int64_t CoverageTracker::store_seeds(const std::string &out_dir) {
  if (!instrumented_ || out_dir.empty()) return 0;
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(out_dir) / "corpus" / "seeds";
  std::set<uint32_t> reached;
  size_t written = 0;
  for (const auto &[key, o] : observed_) {
    bool fresh = false;
    for (const uint32_t e : o.edges) fresh |= reached.insert(e).second;
    // Stored cases are stored already; edge rows and probes run in every campaign.
    if (!fresh || !o.task || written >= kStoredSeeds) continue;
    nlohmann::json entry;
    try {
      entry = to_json(task_case(*o.task, *cfg_));
    } catch (const std::exception &) {
      continue;
    }
    const std::string text = entry.dump();
    uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, as the corpus names its entries
    for (const unsigned char ch : text) h = (h ^ ch) * 0x100000001b3ull;
    entry["kind"] = "seed";
    entry["origin"] = o.origin;
    fs::create_directories(dir);
    const fs::path file = dir / fmt::format("{}-seed-{:016x}.json", o.op, h);
    if (!fs::exists(file)) std::ofstream(file) << entry.dump(1) << "\n";
    ++written;
  }
  stored_ = static_cast<int64_t>(written);
  return stored_;
}

std::deque<Task> load_seeds(const std::string &out_dir, int64_t first_index, std::ostream &log) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(out_dir) / "corpus" / "seeds";
  if (!fs::is_directory(dir)) return {};
  std::deque<Task> seeds = load_corpus({dir.string()}, "", log);
  int64_t k = first_index;
  for (auto &t : seeds) {
    t.index = -1 - k++;
    t.origin = "seed " + t.origin.substr(t.origin.find(' ') + 1);  // "corpus <file>"
  }
  return seeds;
}

}  // namespace aclnn_conform
