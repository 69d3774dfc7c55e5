#include "campaign/campaign.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <stdexcept>

#include "properties/clauses.hpp"
#include "properties/op.hpp"
#include "properties/protocol.hpp"
#include "properties/runner.hpp"

namespace aclnn_conform {

std::string tier_name(Tier t) {
  switch (t) {
    case Tier::kSmoke:
      return "smoke";
    case Tier::kCi:
      return "ci";
    case Tier::kNightly:
      return "nightly";
  }
  return "ci";
}

int tier_max_size(Tier t) {
  switch (t) {
    case Tier::kSmoke:
      return 30;
    case Tier::kCi:
      return 70;
    case Tier::kNightly:
      return 100;
  }
  return 70;
}

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t fnv1a(const std::string &s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

struct Task {
  int64_t index = 0;  // global index in the seed space (or -1 - k for corpus entries)
  const OpDescriptor *op = nullptr;
  // kProtocol: a valid case on which the shared ABI rules are probed (properties/protocol.hpp).
  enum class Kind { kValid, kInvalid, kCorpus, kProtocol } kind = Kind::kValid;
  uint64_t seed = 0;
  int size = 0;
  std::shared_ptr<const Case> stored;  // corpus case
  std::string origin;
};

// Deterministic partition of the seed space: global index k runs op k mod n, valid or invalid by
// (k / n) mod 3, with its own seed and size; shard i of N takes the k with k mod N = i.
Task generated_task(const std::vector<const OpDescriptor *> &ops, const CampaignConfig &cfg,
                    int64_t k) {
  Task t;
  t.index = k;
  const int64_t n = static_cast<int64_t>(ops.size());
  t.op = ops[static_cast<size_t>(k % n)];
  // Per op: two valid cases to one invalid, and every 32nd round a protocol probe.
  t.kind = (k / n) % 32 == 31 ? Task::Kind::kProtocol
           : (k / n) % 3 == 2 ? Task::Kind::kInvalid
                              : Task::Kind::kValid;
  t.seed = splitmix64(cfg.seed ^ splitmix64(static_cast<uint64_t>(k)));
  const int max = tier_max_size(cfg.tier);
  t.size = static_cast<int>((k / n) % 10 + 1) * max / 10;
  t.origin = fmt::format("seed {:#x} index {} {} size {}", cfg.seed, k,
                         t.kind == Task::Kind::kInvalid    ? "invalid"
                         : t.kind == Task::Kind::kProtocol ? "protocol"
                                                           : "valid",
                         t.size);
  return t;
}

rc::Shrinkable<Case> task_shrinkable(const Task &t, Product product) {
  const auto gen =
      t.kind == Task::Kind::kValid ? t.op->gen_valid(product) : t.op->gen_invalid(product);
  return gen(rc::Random(t.seed), t.size);
}

Case task_case(const Task &t, Product product) {
  if (t.kind == Task::Kind::kCorpus) return *t.stored;
  return task_shrinkable(t, product).value();
}

bool is_skipped(const CampaignConfig &cfg, const std::string &entry) {
  return std::find(cfg.skips.begin(), cfg.skips.end(), entry) != cfg.skips.end();
}

// Takes the clauses the user skipped out of a judgement.
void drop_skipped(Judgement &j, const CampaignConfig &cfg) {
  std::erase_if(j.results, [&](const ClauseResult &r) { return is_skipped(cfg, r.clause); });
}

// Run and judge, with the skipped clauses taken out.
Judgement judged(const Sut &sut, const OpDescriptor &op, const Case &c, const CampaignConfig &cfg,
                 const JudgePolicy &policy, Outcome *outcome = nullptr) {
  const Outcome o = run_case(sut, op, c);
  Judgement j = judge(op, c, o, policy);
  drop_skipped(j, cfg);
  if (outcome) *outcome = o;
  return j;
}

std::string first_failure(const Judgement &j) {
  for (const auto &r : j.results)
    if (!r.pass) return r.clause;
  return "";
}

// Variants under which the case conforms, each single variant then all of the op's together:
// strictly (the campaign's policy) and loosely (the Ascend precision standard, which a variant's
// behaviour computed in working precision meets where it cannot meet a few ulps).
struct Fingerprint {
  std::vector<std::string> strict, consistent;
};
Fingerprint fingerprint(const OpDescriptor &op, const Case &c, const Outcome &o,
                        JudgePolicy::Accuracy accuracy) {
  Fingerprint f;
  auto conforms = [&](const aclnn_ref::VariantSet &vs, JudgePolicy::Accuracy a) {
    JudgePolicy p;
    p.variants = vs;
    p.accuracy = a;
    try {
      return judge(op, c, o, p).pass();
    } catch (const std::exception &) {
      return false;  // a variant the oracle cannot evaluate on this case does not match it
    }
  };
  auto consider = [&](const aclnn_ref::VariantSet &vs, const std::string &name) {
    if (conforms(vs, accuracy))
      f.strict.push_back(name);
    else if (conforms(vs, JudgePolicy::Accuracy::kAscend))
      f.consistent.push_back(name);
  };
  for (const auto &v : op.variants) consider(aclnn_ref::VariantSet{v}, v);
  if (f.strict.empty() && op.variants.size() > 1) {
    aclnn_ref::VariantSet all;
    for (const auto &v : op.variants) all.add(v);
    consider(all, fmt::format("{}", fmt::join(op.variants, "+")));
  }
  return f;
}

nlohmann::json comparison_json(const OpDescriptor &op, const aclnn_ref::Comparison &cmp) {
  nlohmann::json h = nlohmann::json::array();
  for (auto b : cmp.histogram) h.push_back(b);
  return {{"op", op.name},
          {"dtype", std::string(aclnn_ref::dtype_name(cmp.dtype))},
          {"count", cmp.count},
          {"histogram", h},
          {"max_ulps", json_number(cmp.max_ulps)},
          {"mere", json_number(cmp.ascend.mere)},
          {"mare", json_number(cmp.ascend.mare)}};
}

// The work of one task in a child process: run, judge, and for a deviation shrink, fingerprint
// and describe it. Returns one JSON line for the parent.
// mark(phase) tells the parent where the worker is: 'S' before the first call of the SUT, 'J'
// after it, so a death outside the SUT's calls is known to be the framework's own.
nlohmann::json run_task(const Task &t, const Sut &sut, const CampaignConfig &cfg,
                        const std::set<std::string> &saturated,
                        const std::function<void(char)> &mark) {
  JudgePolicy policy;
  policy.accuracy = cfg.accuracy;
  const OpDescriptor &op = *t.op;
  Case c = task_case(t, cfg.product);
  if (t.kind == Task::Kind::kProtocol) {
    nlohmann::json r{{"index", t.index}, {"op", op.name}, {"comparisons", nlohmann::json::array()}};
    r["results"] = nlohmann::json::array();
    if (!op.check(c, {}).ok()) return r;  // the probes need a valid call
    mark('S');
    const auto results = protocol_probe(sut, op, c);
    mark('J');
    for (const auto &cr : results)
      if (!is_skipped(cfg, cr.clause)) r["results"].push_back({cr.clause, cr.pass, cr.detail});
    return r;  // a protocol deviation is reported per clause; its case is in the origin
  }
  mark('S');
  Outcome o = run_case(sut, op, c);
  mark('J');
  Judgement j = judge(op, c, o, policy);
  drop_skipped(j, cfg);
  nlohmann::json r{{"index", t.index}, {"op", op.name}};
  r["results"] = nlohmann::json::array();
  for (const auto &cr : j.results) r["results"].push_back({cr.clause, cr.pass, cr.detail});
  r["comparisons"] = nlohmann::json::array();
  for (const auto &cmp : j.comparisons)
    if (!cmp.untouched_check && cmp.count > 0 && cmp.error.empty())
      r["comparisons"].push_back(comparison_json(op, cmp));
  if (j.pass()) return r;

  const std::string target = first_failure(j);
  int steps = 0;
  // Shrinking calls the SUT many times: from here on a death is the SUT's again.
  mark('S');
  if (t.kind != Task::Kind::kCorpus && !saturated.count(target)) {
    // Shrink: walk rapidcheck's shrink tree, keeping a candidate whenever it fails the same clause.
    auto current = task_shrinkable(t, cfg.product);
    int attempts = 0;
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    for (bool progress = true;
         progress && attempts < cfg.shrink_attempts && Clock::now() < deadline;) {
      progress = false;
      auto shrinks = current.shrinks();
      while (auto next = shrinks.next()) {
        if (++attempts > cfg.shrink_attempts || Clock::now() >= deadline) break;
        Case candidate = next->value();
        Outcome co;
        Judgement cj;
        try {
          cj = judged(sut, op, candidate, cfg, policy, &co);
        } catch (const std::exception &) {
          continue;  // the oracle cannot judge this candidate: not a smaller counterexample
        }
        if (!cj.pass() && first_failure(cj) == target) {
          current = *next;
          c = std::move(candidate);
          o = co;
          j = cj;
          ++steps;
          progress = true;
          break;
        }
      }
    }
  }
  mark('J');
  const auto verdict = op.check(c, policy.variants);
  std::string detail;
  for (const auto &cr : j.results)
    if (cr.clause == target) detail = cr.detail;
  const Fingerprint fp = fingerprint(op, c, o, cfg.accuracy);
  r["deviation"] = {{"clause", target},
                    {"detail", detail},
                    {"all_failures", j.failures()},
                    {"case", to_json(c)},
                    {"origin", t.origin},
                    {"shrink_steps", steps},
                    {"kind", "deviation"},
                    {"variants", fp.strict},
                    {"consistent_variants", fp.consistent},
                    {"expected_status", verdict.status},
                    {"expected_clause", verdict.ok() ? "" : verdict.clause},
                    {"got_status", o.status}};
  return r;
}

[[noreturn]] void child_main(int fd, const std::vector<Task> &batch, const Sut &sut,
                             const CampaignConfig &cfg, const std::set<std::string> &saturated) {
  FILE *out = fdopen(fd, "w");
  for (const auto &t : batch) {
    const auto mark = [&](char phase) {
      std::fprintf(out, "%c %lld\n", phase, static_cast<long long>(t.index));
      std::fflush(out);
    };
    mark('G');  // generating the case
    std::string line;
    try {
      line = "R " + run_task(t, sut, cfg, saturated, mark).dump();
    } catch (const std::exception &e) {
      line = "E " + nlohmann::json{{"index", t.index}, {"error", e.what()}}.dump();
    }
    std::fprintf(out, "%s\n", line.c_str());
    std::fflush(out);
  }
  std::fclose(out);
  _exit(0);
}

struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::vector<Task> batch;
  size_t done = 0;       // tasks with a result line
  bool started = false;  // the task at `done` has begun
  bool in_sut = false;   // ...and the worker is inside calls of the SUT
  Clock::time_point started_at;
  std::string buffer;
};

class Campaign {
 public:
  Campaign(const CampaignConfig &cfg, std::ostream &log) : cfg_(cfg), log_(log) {}

  CampaignResult run(std::deque<Task> corpus, bool generate) {
    start_ = Clock::now();
    setup();
    pending_ = std::move(corpus);
    generate_ = generate;
    while (true) {
      while (static_cast<int>(children_.size()) < cfg_.jobs) {
        std::vector<Task> batch = next_batch();
        if (batch.empty()) break;
        spawn(std::move(batch));
      }
      if (children_.empty()) break;
      pump();
      progress();
    }
    if (cfg_.progress) std::fprintf(stderr, "\n");
    result_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    finalize_statuses(result_);
    return std::move(result_);
  }

 private:
  void setup() {
    if (cfg_.sut == "builtin") {
      sut_ = Sut::builtin();
      if (!sut_)
        throw std::runtime_error("cannot load the built-in library " + Sut::builtin_path());
    } else {
      std::string error;
      sut_ = Sut::load(cfg_.sut, error);
      if (!sut_) throw std::runtime_error(error);
    }
    if (cfg_.ops.empty()) {
      ops_ = registry();
    } else {
      for (const auto &name : cfg_.ops) {
        const OpDescriptor *op = find_op(name);
        if (!op)
          throw std::runtime_error("no op named '" + name + "' (see `aclnn-conform list ops`)");
        ops_.push_back(op);
      }
    }
    std::vector<const OpDescriptor *> available;
    for (const auto *op : ops_) {
      if (op->available(sut_->abi()))
        available.push_back(op);
      else
        result_.warnings.push_back(fmt::format("{} does not export {}: its clauses are not reached",
                                               sut_->name(), op->abi_name));
    }
    ops_ = available;
    result_.sut = cfg_.sut;
    result_.product = std::string(product_name(cfg_.product));
    result_.tier = tier_name(cfg_.tier);
    result_.policy = cfg_.accuracy == JudgePolicy::Accuracy::kAscend ? "ascend" : "ulp";
    result_.seed = cfg_.seed;
    result_.shard = fmt::format("{}/{}", cfg_.shard_index, cfg_.shard_count);
    result_.skipped = cfg_.skips;
    result_.xfails = cfg_.xfails;
    std::set<std::string> selected;
    for (const auto *op : registry())
      if (cfg_.ops.empty() || std::count(cfg_.ops.begin(), cfg_.ops.end(), op->name)) {
        selected.insert(op->name);
        result_.ops.push_back(op->name);
      }
    for (const auto &c : clause_catalog()) {
      // GBAG V2 shares the GroupedBiasAddGrad clauses.
      const bool mine = c.op == "common" || selected.count(c.op) ||
                        (c.op == "GroupedBiasAddGrad" && selected.count("GroupedBiasAddGradV2"));
      if (!mine) continue;
      ClauseVerdict v;
      v.id = c.id;
      v.op = c.op;
      result_.clauses.push_back(v);
    }
    // Entries that match nothing are reported, not silently ignored.
    auto known = [&](const std::string &e) {
      if (find_clause(e)) return true;
      for (const auto *op : registry())
        if (e == op->name + "/valid" || e == op->name + "/invalid" || e == op->name + "/protocol")
          return true;
      return false;
    };
    for (const auto &e : cfg_.skips)
      if (!known(e))
        result_.warnings.push_back("--skips entry '" + e + "' matches no clause or property");
    for (const auto &e : cfg_.xfails)
      if (!find_clause(e))
        result_.warnings.push_back("--xfails entry '" + e + "' matches no clause");
    if (ops_.empty()) throw std::runtime_error("the SUT exports none of the selected ops");
  }

  bool time_left() const {
    if (cfg_.budget_seconds <= 0) return true;
    return std::chrono::duration<double>(Clock::now() - start_).count() < cfg_.budget_seconds;
  }

  std::vector<Task> next_batch() {
    std::vector<Task> batch;
    constexpr size_t kBatch = 8;
    while (batch.size() < kBatch && !pending_.empty()) {
      Task t = std::move(pending_.front());
      pending_.pop_front();
      // A stored case of an op the SUT lacks cannot run (its clauses stay "not reached").
      if (std::find(ops_.begin(), ops_.end(), t.op) == ops_.end()) continue;
      batch.push_back(std::move(t));
    }
    while (generate_ && batch.size() < kBatch && time_left() &&
           (cfg_.cases <= 0 || generated_ < cfg_.cases)) {
      const int64_t k = next_k_ * cfg_.shard_count + cfg_.shard_index;
      ++next_k_;
      Task t = generated_task(ops_, cfg_, k);
      const std::string property = t.op->name + (t.kind == Task::Kind::kInvalid    ? "/invalid"
                                                 : t.kind == Task::Kind::kProtocol ? "/protocol"
                                                                                   : "/valid");
      if (is_skipped(cfg_, property)) continue;
      ++generated_;
      batch.push_back(std::move(t));
    }
    return batch;
  }

  void spawn(std::vector<Task> batch) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      close(fds[0]);
      child_main(fds[1], batch, *sut_, cfg_, saturated_);
    }
    close(fds[1]);
    Child c;
    c.pid = pid;
    c.fd = fds[0];
    c.batch = std::move(batch);
    children_.push_back(std::move(c));
  }

  void pump() {
    std::vector<pollfd> pfds;
    for (auto &c : children_) pfds.push_back({c.fd, POLLIN, 0});
    poll(pfds.data(), pfds.size(), 200);
    for (size_t i = 0; i < children_.size(); ++i) {
      Child &c = children_[i];
      if (pfds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[65536];
        const ssize_t n = read(c.fd, buf, sizeof buf);
        if (n > 0) {
          c.buffer.append(buf, static_cast<size_t>(n));
          consume_lines(c);
          continue;
        }
        // End of stream: the child finished or died.
        finish(c, false);
        continue;
      }
      if (c.in_sut && std::chrono::duration<double>(Clock::now() - c.started_at).count() >
                          cfg_.case_timeout_seconds) {
        kill(c.pid, SIGKILL);
        finish(c, true);
      }
    }
    std::erase_if(children_, [](const Child &c) { return c.pid < 0; });
  }

  void consume_lines(Child &c) {
    size_t nl;
    while ((nl = c.buffer.find('\n')) != std::string::npos) {
      const std::string line = c.buffer.substr(0, nl);
      c.buffer.erase(0, nl + 1);
      if (line.rfind("G ", 0) == 0) {
        c.started = true;
        c.in_sut = false;
        c.started_at = Clock::now();
      } else if (line.rfind("S ", 0) == 0) {
        c.in_sut = true;
        c.started_at = Clock::now();  // the per-case timeout counts the SUT's time only
      } else if (line.rfind("J ", 0) == 0) {
        c.in_sut = false;
      } else if (line.rfind("R ", 0) == 0) {
        record(c.batch[c.done], nlohmann::json::parse(line.substr(2)));
        ++c.done;
        c.started = c.in_sut = false;
      } else if (line.rfind("E ", 0) == 0) {
        const auto e = nlohmann::json::parse(line.substr(2));
        const Task &t = c.batch[c.done];
        result_.warnings.push_back(
            fmt::format("{} ({}): the framework could not judge the case: {}", t.op->name, t.origin,
                        e.at("error").get<std::string>()));
        ++c.done;
        c.started = false;
      }
    }
  }

  // A child is gone: reap it; if it stopped before finishing its batch, the task it was running
  // crashed or hung, and the rest of the batch goes back to the queue.
  void finish(Child &c, bool timed_out) {
    close(c.fd);
    int status = 0;
    waitpid(c.pid, &status, 0);
    c.pid = -1;
    if (c.done >= c.batch.size()) return;
    const Task &t = c.batch[c.done];
    std::string what;
    if (timed_out)
      what = fmt::format("no answer within {} s (killed)", cfg_.case_timeout_seconds);
    else if (WIFSIGNALED(status))
      what = fmt::format("the SUT crashed: signal {} ({})", WTERMSIG(status),
                         strsignal(WTERMSIG(status)));
    else
      what = fmt::format("the worker exited with status {}", WEXITSTATUS(status));
    record_failure(t, timed_out ? "timeout" : "crash", what);
    for (size_t i = c.done + 1; i < c.batch.size(); ++i) pending_.push_front(c.batch[i]);
  }

  void record_failure(const Task &t, const std::string &kind, const std::string &what) {
    ++result_.cases;
    const Case c = task_case(t, cfg_.product);
    const auto verdict = t.op->check(c, {});
    std::string clause = verdict.clause;
    if (verdict.ok()) {
      clause = t.op->clauses.empty() ? "ABI-TWOPHASE-1" : t.op->clauses.front();
      for (const auto &r : t.op->reached(c))
        if (r.find("-VALUE-") != std::string::npos) {
          clause = r;
          break;
        }
    }
    if (is_skipped(cfg_, clause)) return;
    tally(clause, false, what);
    Deviation d;
    d.op = t.op->name;
    d.clause = clause;
    d.kind = kind;
    d.detail = what;
    d.all_failures = clause + ": " + what + "\n";
    d.minimal = c;
    d.origin = t.origin;
    d.expected_status = verdict.status;
    d.expected_clause = verdict.ok() ? "" : verdict.clause;
    add_deviation(std::move(d));
  }

  void tally(const std::string &clause, bool pass, const std::string &detail) {
    ClauseVerdict *v = result_.clause(clause);
    if (!v) return;  // a clause of another op (or the harness): not part of this campaign
    ++v->reached;
    if (!pass) {
      ++v->deviations;
      if (v->first_detail.empty()) v->first_detail = detail;
    }
  }

  void record(const Task &t, const nlohmann::json &r) {
    ++result_.cases;
    for (const auto &cr : r.at("results")) tally(cr[0], cr[1], cr[2]);
    for (const auto &cmp : r.at("comparisons")) {
      const std::string op = cmp.at("op"), dtype = cmp.at("dtype");
      auto it = std::find_if(result_.accuracy.begin(), result_.accuracy.end(),
                             [&](const auto &a) { return a.op == op && a.dtype == dtype; });
      if (it == result_.accuracy.end()) {
        result_.accuracy.push_back({op, dtype});
        it = result_.accuracy.end() - 1;
      }
      const int64_t n = cmp.at("count");
      it->elements += n;
      for (size_t b = 0; b < it->histogram.size(); ++b)
        it->histogram[b] += cmp.at("histogram")[b].get<int64_t>();
      it->max_ulps = std::max(it->max_ulps, number_from_json(cmp.at("max_ulps")));
      it->mere_weighted_sum += number_from_json(cmp.at("mere")) * static_cast<double>(n);
      it->mare = std::max(it->mare, number_from_json(cmp.at("mare")));
    }
    if (!r.contains("deviation")) return;
    const auto &dj = r.at("deviation");
    Deviation d;
    d.op = t.op->name;
    d.clause = dj.at("clause");
    d.detail = dj.at("detail");
    d.all_failures = dj.at("all_failures");
    d.minimal = case_from_json(dj.at("case"));
    d.origin = t.kind == Task::Kind::kCorpus ? t.origin : dj.at("origin").get<std::string>();
    d.shrink_steps = dj.at("shrink_steps");
    d.kind = dj.at("kind");
    d.variants = dj.at("variants").get<std::vector<std::string>>();
    d.consistent_variants = dj.at("consistent_variants").get<std::vector<std::string>>();
    d.expected_status = dj.at("expected_status");
    d.expected_clause = dj.at("expected_clause");
    d.got_status = dj.at("got_status");
    add_deviation(std::move(d));  // finalize_statuses derives the clause's fingerprint
  }

  // Keeps at most deviations_per_clause counterexamples per clause and stores new ones in the
  // corpus; once a clause has enough, children stop shrinking for it.
  void add_deviation(Deviation d) {
    const int kept =
        static_cast<int>(std::count_if(result_.deviations.begin(), result_.deviations.end(),
                                       [&](const Deviation &x) { return x.clause == d.clause; }));
    if (kept + 1 >= cfg_.deviations_per_clause) saturated_.insert(d.clause);
    if (kept >= cfg_.deviations_per_clause) return;
    if (cfg_.use_corpus && d.origin.rfind("corpus ", 0) != 0) {
      const std::string text = to_json(d.minimal).dump(1);
      const fs::path dir = fs::path(cfg_.out_dir) / "corpus";
      fs::create_directories(dir);
      const fs::path file = dir / fmt::format("{}-{}-{:016x}.json", d.op, d.clause, fnv1a(text));
      if (!fs::exists(file)) std::ofstream(file) << text << "\n";
      d.corpus_file = fs::relative(file, cfg_.out_dir).string();
    }
    result_.deviations.push_back(std::move(d));
  }

  void progress() {
    if (!cfg_.progress) return;
    int reached = 0, deviating = 0;
    for (const auto &c : result_.clauses) {
      reached += c.reached > 0;
      deviating += c.deviations > 0;
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    std::string left =
        cfg_.budget_seconds > 0
            ? fmt::format("{:.0f}s left", std::max(0.0, cfg_.budget_seconds - elapsed))
            : fmt::format("{}/{} cases", generated_, cfg_.cases);
    std::fprintf(stderr,
                 "\r[aclnn-conform] cases %lld | clauses reached %d/%zu | deviating %d | %s   ",
                 static_cast<long long>(result_.cases), reached, result_.clauses.size(), deviating,
                 left.c_str());
    std::fflush(stderr);
  }

  const CampaignConfig &cfg_;
  std::ostream &log_;
  Clock::time_point start_;
  std::unique_ptr<Sut> sut_;
  std::vector<const OpDescriptor *> ops_;
  std::deque<Task> pending_;
  bool generate_ = true;
  int64_t next_k_ = 0;
  int64_t generated_ = 0;
  std::vector<Child> children_;
  std::set<std::string> saturated_;
  CampaignResult result_;
};

std::deque<Task> load_corpus(const std::vector<std::string> &paths, std::ostream &log) {
  std::deque<Task> tasks;
  std::vector<fs::path> files;
  for (const auto &p : paths) {
    if (fs::is_directory(p)) {
      for (const auto &e : fs::directory_iterator(p))
        if (e.path().extension() == ".json") files.push_back(e.path());
    } else if (fs::exists(p)) {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  int64_t k = 0;
  for (const auto &f : files) {
    try {
      std::ifstream in(f);
      auto c = std::make_shared<Case>(case_from_json(nlohmann::json::parse(in)));
      const OpDescriptor *op = find_op(c->op);
      if (!op) throw std::runtime_error("unknown op " + c->op);
      Task t;
      t.index = -1 - k++;
      t.op = op;
      t.kind = Task::Kind::kCorpus;
      t.stored = std::move(c);
      t.origin = "corpus " + f.filename().string();
      tasks.push_back(std::move(t));
    } catch (const std::exception &e) {
      log << "warning: skipping corpus file " << f << ": " << e.what() << "\n";
    }
  }
  return tasks;
}

void validate(const CampaignConfig &cfg) {
  if (cfg.jobs < 1) throw std::invalid_argument("--jobs must be at least 1");
  if (cfg.shard_count < 1 || cfg.shard_index < 0 || cfg.shard_index >= cfg.shard_count)
    throw std::invalid_argument("--shard I/N needs 0 <= I < N");
  if (cfg.budget_seconds <= 0 && cfg.cases <= 0)
    throw std::invalid_argument("give a --budget or a number of --cases");
}

}  // namespace

CampaignResult run_campaign(const CampaignConfig &cfg, std::ostream &log) {
  validate(cfg);
  std::deque<Task> corpus;
  if (cfg.use_corpus) corpus = load_corpus({(fs::path(cfg.out_dir) / "corpus").string()}, log);
  // Stored counterexamples of ops outside --ops are left for a run that selects them.
  if (!cfg.ops.empty())
    std::erase_if(corpus, [&](const Task &t) {
      return std::find(cfg.ops.begin(), cfg.ops.end(), t.op->name) == cfg.ops.end();
    });
  Campaign campaign(cfg, log);
  return campaign.run(std::move(corpus), true);
}

CampaignResult replay_cases(const CampaignConfig &cfg, const std::vector<std::string> &paths,
                            std::ostream &log) {
  CampaignConfig c = cfg;
  c.use_corpus = false;
  std::deque<Task> tasks = load_corpus(paths, log);
  if (tasks.empty()) throw std::invalid_argument("no stored counterexamples found to replay");
  Campaign campaign(c, log);
  return campaign.run(std::move(tasks), false);
}

}  // namespace aclnn_conform
