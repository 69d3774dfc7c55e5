// The campaign's units one by one: the worker protocol and its one failure record, the accuracy
// merge, the worker pool (commands, a crash, a hang, first calls, output, leftovers, a stop), the
// corpus, the set-up selection, and
// the per-op hooks the shared code reads instead of naming ops.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "campaign/campaign.hpp"
#include "campaign/corpus.hpp"
#include "campaign/crash_shrink.hpp"
#include "campaign/docs.hpp"
#include "campaign/kit_policy.hpp"
#include "campaign/kit_tally.hpp"
#include "campaign/repro.hpp"
#include "campaign/selection.hpp"
#include "campaign/task.hpp"
#include "campaign/worker.hpp"
#include "campaign/worker_pool.hpp"
#include "campaign/worker_protocol.hpp"
#include "edge_cases/edge_case.hpp"
#include "properties/op.hpp"

namespace {
using namespace aclnn_conform;
namespace fs = std::filesystem;

// Generated cases of every op (valid, invalid and protocol ones, of several sizes).
std::vector<Case> some_cases(int n) {
  CampaignConfig cfg;
  cfg.seed = 7;
  std::vector<Case> cases;
  for (int k = 0; k < n; ++k) cases.push_back(task_case(generated_task(registry(), cfg, k), cfg));
  return cases;
}

Deviation full_deviation(const Case &c, int i) {
  Deviation d;
  d.op = c.op;
  d.clause = "CLAUSE-" + std::to_string(i);
  d.detail = "detail \"quoted\"\nline";
  d.all_failures = "A: x\nB: y\n";
  d.minimal = c;
  d.origin = "seed 0x7 index " + std::to_string(i);
  d.shrink_steps = i;
  d.kind = i % 2 ? "crash" : "deviation";
  d.variants = {"v1", "v2"};
  d.consistent_variants = {"v3"};
  d.expected_status = 161002;
  d.expected_clause = "X-1";
  d.got_status = -i;
  d.repro_file = "repros/r.cpp";
  d.corpus_file = "corpus/c.json";
  d.call = "aclnnXGetWorkspaceSize";
  d.found_at_seconds = 0.25 * i;
  d.found_at_case = 3 * i;
  d.case_id = "id-" + std::to_string(i);
  d.summary = c.describe();
  d.expected_variant = i % 3 ? "" : "v1";
  return d;
}

TEST(WorkerProtocol, AFailureRecordRoundTripsByteForByteThroughThePipeAndTheReport) {
  int i = 0;
  for (const Case &c : some_cases(24)) {
    const Deviation d = full_deviation(c, i++);
    const std::string sent = to_json(d).dump();
    // Through the pipe: one line among others.
    std::string buffer = encode_record(record_tag::kResult, {{"deviation", to_json(d)}}) + "R {";
    const auto line = take_line(buffer);
    ASSERT_TRUE(line.has_value());
    EXPECT_EQ(buffer, "R {");  // the incomplete line stays for later
    EXPECT_EQ(record_tag_of(*line), record_tag::kResult);
    const Deviation back = deviation_from_json(record_body(*line).at("deviation"));
    EXPECT_EQ(to_json(back).dump(), sent);
    // Through report.json: the same record.
    CampaignResult r;
    r.deviations = {d};
    const CampaignResult read = result_from_json(nlohmann::json::parse(report_json_text(r)));
    ASSERT_EQ(read.deviations.size(), 1u);
    EXPECT_EQ(to_json(r).at("deviations").at(0).dump(), sent);
    EXPECT_EQ(to_json(read.deviations[0]).dump(), sent);
  }
}

// The call that loads a suspect's kernel before its second run: the same op and dtypes, valid,
// not empty and small (a shrink of the case, or drawn at sizes 1-4); and the flag that asks for it
// crosses the pipe.
TEST(KernelLoad, TheLoadCallHasTheCasesKernelAndIsSmall) {
  const auto elements = [](const Case &c) {
    int64_t n = 0;
    for (const auto &[name, t] : c.tensors) {
      if (t.present && t.numel() == 0) return int64_t{0};
      n += t.present ? t.numel() : 0;
    }
    return n;
  };
  CampaignConfig cfg;
  cfg.seed = 7;
  int valid = 0, found = 0;
  for (int64_t k = 0; k < 200; ++k) {
    const Task t = generated_task(registry(), cfg, k);
    const Case c = task_case(t, cfg);
    if (!t.op->check(c, {}).ok() || elements(c) == 0) continue;
    ++valid;
    const auto load = kernel_load_case(t, task_case(t, cfg), cfg);
    if (!load) continue;
    ++found;
    EXPECT_EQ(kernel_signature(*t.op, *load), kernel_signature(*t.op, c)) << c.describe();
    EXPECT_TRUE(t.op->check(*load, {}).ok()) << load->describe();
    EXPECT_GT(elements(*load), 0) << load->describe();
    EXPECT_LE(elements(*load), std::max<int64_t>(elements(c), 4096)) << load->describe();
  }
  ASSERT_GT(valid, 80);
  // A suspect without one keeps the old rule (its kernel's load gets the whole case timeout).
  EXPECT_GE(found * 20, valid * 19) << found << " of " << valid;
  Task t = generated_task(registry(), cfg, 5);
  t.load_kernel_first = true;
  EXPECT_TRUE(task_from_json(to_json(t)).load_kernel_first);
  t.load_kernel_first = false;
  EXPECT_FALSE(task_from_json(to_json(t)).load_kernel_first);
}

// A deviation's shrink is bounded by its candidates' elements as well as their count, not by
// seconds (it used to stop after 20 s of wall time): the walk stops at the first candidate that
// takes the elements past the limit, and a walk within the limits goes on to its end.
TEST(ShrinkCase, StopsAfterItsCandidatesElementsNotAfterSeconds) {
  CampaignConfig cfg;
  cfg.seed = 11;
  WorkerContext ctx;
  ctx.cfg = &cfg;
  const auto elements = [](const Case &c) { return c.elements(); };
  // A generated case large enough to have many shrinks.
  Task t;
  Case c;
  for (int64_t k = 0; k < 400 && elements(c) < 2000; ++k) {
    t = generated_task(registry(), cfg, k);
    c = task_case(t, cfg);
  }
  ASSERT_GE(elements(c), 2000) << "no large generated case in 400 draws";
  // Never accepted: every candidate of the first level is tried until a limit is reached.
  std::vector<int64_t> seen;
  const auto never = [&](const Case &cand) {
    seen.push_back(elements(cand) + 1);
    return false;
  };
  int steps = 0;
  ShrinkLimits unbounded = ShrinkLimits::of(cfg);
  unbounded.elements = int64_t{1} << 40;
  shrink_case(t, c, never, ctx, unbounded, steps);
  const std::vector<int64_t> all = seen;
  ASSERT_GE(all.size(), 3u) << c.describe();
  EXPECT_EQ(steps, 0);
  // A limit that the first two candidates reach: exactly two are tried.
  seen.clear();
  ShrinkLimits two = ShrinkLimits::of(cfg);
  two.elements = all[0] + all[1];
  shrink_case(t, c, never, ctx, two, steps);
  EXPECT_EQ(seen.size(), 2u);
  // One element more: a third is tried.
  seen.clear();
  two.elements += 1;
  shrink_case(t, c, never, ctx, two, steps);
  EXPECT_EQ(seen.size(), 3u);
  // Slow candidates within the limits (a loaded machine): the walk is the same.
  seen.clear();
  const auto slow = [&](const Case &cand) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return never(cand);
  };
  shrink_case(t, c, slow, ctx, unbounded, steps);
  EXPECT_EQ(seen, all);
  // Always accepted: the walk reaches a smaller case, one step per kept candidate.
  const Case smallest = shrink_case(
      t, c, [](const Case &) { return true; }, ctx, unbounded, steps);
  EXPECT_GT(steps, 0);
  EXPECT_LT(elements(smallest), elements(c));
}

// A hang's shrink is bounded by how many candidates hung (each costs a kill and a restart), not by
// seconds: the same seed shrinks to the same case whatever the load. Candidates that return do
// not count.
TEST(CrashShrinker, StopsAfterItsHungCandidatesNotAfterSeconds) {
  CrashShrink hang;
  hang.task.op = find_op("LayerNormBackward");
  hang.task.seed = 42;
  hang.task.size = 100;
  hang.task.origin = "seed 0x2a index 0 valid size 100";
  hang.kind = "timeout";
  hang.call = "aclnnLayerNormBackward";
  hang.clause = "LN-VALUE-1";
  hang.clause_from_trace = true;
  CampaignConfig cfg;
  cfg.seed = 42;
  const auto far = CrashShrinker::Clock::now() + std::chrono::hours(1);
  CrashShrinker returns(hang, cfg, far);
  int returned = 0;
  while (returns.next()) {
    returns.report(CandidateDeath{});  // "ok": it returned
    ++returned;
  }
  EXPECT_GT(returned, CrashShrinker::kMaxHungCandidates);
  CrashShrinker hangs(hang, cfg, far);
  int hung = 0;
  while (hangs.next()) {
    hangs.report(CandidateDeath{"timeout", hang.call, hang.clause});
    ++hung;
  }
  EXPECT_EQ(hung, CrashShrinker::kMaxHungCandidates);
  EXPECT_EQ(hangs.steps(), hung);
}

TEST(WorkerProtocol, IncompleteLinesWaitAndBadBodiesThrow) {
  std::string buffer = "N {\"note\":";
  EXPECT_FALSE(take_line(buffer).has_value());
  EXPECT_EQ(buffer, "N {\"note\":");
  buffer += "\"x\"}\nE oops\n";
  const auto note = take_line(buffer);
  ASSERT_TRUE(note.has_value());
  EXPECT_EQ(record_tag_of(*note), record_tag::kNote);
  EXPECT_EQ(record_body(*note).at("note"), "x");
  const auto bad = take_line(buffer);
  ASSERT_TRUE(bad.has_value());
  EXPECT_THROW(record_body(*bad), nlohmann::json::parse_error);
  EXPECT_TRUE(buffer.empty());
}

// Edge rows travel to workers whole (a worker then never draws the tables): every row of every
// op arrives with its call, status, literals (NaN and infinities among them) and flags intact.
TEST(WorkerProtocol, EveryEdgeRowArrivesWhole) {
  const auto tasks = edge_tasks(registry());
  ASSERT_FALSE(tasks.empty());
  int infinities = 0;
  for (const Task &t : tasks) {
    const Task got = task_from_json(nlohmann::json::parse(to_json(t).dump()));
    ASSERT_TRUE(got.row) << t.origin;
    const EdgeCase &a = *t.row, &b = *got.row;
    EXPECT_EQ(b.clause, a.clause);
    EXPECT_EQ(b.title, a.title);
    EXPECT_EQ(to_json(b.call).dump(), to_json(a.call).dump()) << a.title;
    EXPECT_EQ(b.expected_status, a.expected_status) << a.title;
    EXPECT_EQ(b.expected_workspace, a.expected_workspace) << a.title;
    EXPECT_EQ(b.caller_precondition, a.caller_precondition) << a.title;
    ASSERT_EQ(b.expected.size(), a.expected.size()) << a.title;
    for (size_t i = 0; i < a.expected.size(); ++i) {
      EXPECT_EQ(b.expected[i].output, a.expected[i].output);
      EXPECT_EQ(b.expected[i].index, a.expected[i].index);
      EXPECT_EQ(std::bit_cast<uint64_t>(b.expected[i].value),
                std::bit_cast<uint64_t>(a.expected[i].value))
          << a.title;
      infinities += std::isinf(a.expected[i].value);
    }
    EXPECT_EQ(got.edge_row, t.edge_row);
  }
  EXPECT_GT(infinities, 0);  // the rows state infinite values, which plain JSON numbers lose
}

// A worker judges by the configuration it is sent: every field a worker reads must survive the
// trip, the deciding policy above all (a kit policy once arrived as "ulp": the report said the
// kit standard decided while the workers judged by the ulp bound).
TEST(WorkerProtocol, TheWorkersConfigurationArrivesWholeForEveryPolicy) {
  for (const std::string &policy : policy_names()) {
    CampaignConfig cfg;
    set_policy(cfg, policy);
    cfg.product = Product::kAtlasA3;
    cfg.product_emulation = ProductEmulation::kOn;
    cfg.tier = Tier::kNightly;
    cfg.skips = {"GELU-BCAST-1", "SeluBackward/valid"};
    cfg.expect_variants = {"tanh-approx"};
    cfg.shrink_attempts = 17;
    cfg.competitor = "builtin";
    const CampaignConfig got =
        worker_config_from_json(nlohmann::json::parse(worker_config_json(cfg).dump()));
    EXPECT_EQ(policy_name(got), policy) << policy;
    EXPECT_EQ(got.accuracy, cfg.accuracy) << policy;
    EXPECT_EQ(got.kit_standard, cfg.kit_standard) << policy;
    EXPECT_EQ(got.product, cfg.product);
    EXPECT_EQ(got.product_emulation, cfg.product_emulation);
    EXPECT_EQ(got.tier, cfg.tier);
    EXPECT_EQ(got.skips, cfg.skips);
    EXPECT_EQ(got.expect_variants, cfg.expect_variants);
    EXPECT_EQ(got.shrink_attempts, cfg.shrink_attempts);
    EXPECT_EQ(got.competitor, cfg.competitor);
  }
}

nlohmann::json comparison(int64_t count, double max_ulps, double mere, const char *rule) {
  nlohmann::json h = nlohmann::json::array();
  for (int b = 0; b < aclnn_ref::kBucketCount; ++b) h.push_back(b == 1 ? count : 0);
  return {{"op", "GeluBackward"},
          {"dtype", "float32"},
          {"count", count},
          {"histogram", h},
          {"rule", rule},
          {"max_ulps", json_number(max_ulps)},
          {"mere", json_number(mere)},
          {"mare", json_number(mere * 4)},
          {"max_bound_ratio", json_number(0.5)}};
}

TEST(AccuracyMerge, WorkerRowsAndShardRowsMergeAlike) {
  std::vector<AccuracyStats> rows;
  for (const auto &cmp : {comparison(10, 1, 0.001, "ulp"), comparison(30, 3, 0.002, "sum")}) {
    const AccuracyStats a = accuracy_from_comparison(cmp);
    merge_accuracy(accuracy_row(rows, a.op, a.dtype), a);
  }
  ASSERT_EQ(rows.size(), 1u);
  const AccuracyStats &m = rows[0];
  EXPECT_EQ(m.elements, 40);
  EXPECT_EQ(m.histogram[1], 40);
  EXPECT_EQ(m.max_ulps, 3);
  EXPECT_DOUBLE_EQ(m.mere(), (10 * 0.001 + 30 * 0.002) / 40);
  EXPECT_DOUBLE_EQ(m.mare, 0.008);
  EXPECT_EQ(m.rules, (std::vector<std::string>{"ulp", "sum"}));
  // Two shards holding one comparison each merge into the same row.
  CampaignResult a, b;
  a.accuracy = {accuracy_from_comparison(comparison(10, 1, 0.001, "ulp"))};
  b.accuracy = {accuracy_from_comparison(comparison(30, 3, 0.002, "sum"))};
  b.shard = "1/2";
  const CampaignResult merged = merge_results({a, b});
  ASSERT_EQ(merged.accuracy.size(), 1u);
  EXPECT_EQ(to_json(merged).at("accuracy").dump(), [&] {
    CampaignResult r;
    r.accuracy = rows;
    return to_json(r).at("accuracy").dump();
  }());
}

// A worker pool test process (tests/campaign/helpers/pool_test_worker.cpp) doing `what`.
WorkerLaunch test_worker(const std::string &what) {
  return WorkerLaunch{ACLNN_TEST_POOL_WORKER, {what}, {}};
}

// Pumps until the pool is empty (at most 20 s); every call gets timeout_s, first calls 5 s.
void drain(WorkerPool &pool, double timeout_s, std::vector<std::string> &lines,
           std::vector<WorkerExit> &exits) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!pool.empty() && std::chrono::steady_clock::now() < until)
    pool.pump(
        50,
        [&](const WorkerProcess &, const CallTrace &t) { return t.first_call ? 5.0 : timeout_s; },
        [&](WorkerProcess &, const std::string &l) { lines.push_back(l); },
        [&](WorkerProcess &, const WorkerExit &e) { exits.push_back(e); });
}

TEST(WorkerPool, RecordsArriveAndACleanExitIsAnExit) {
  WorkerPool pool;
  pool.spawn(test_worker("record"));
  std::vector<std::string> lines;
  std::vector<WorkerExit> exits;
  drain(pool, 30, lines, exits);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(record_body(lines[0]).at("n"), 1);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_FALSE(exits[0].timed_out);
  EXPECT_TRUE(WIFEXITED(exits[0].status) && WEXITSTATUS(exits[0].status) == 0);
}

TEST(WorkerPool, CommandsReachTheWorkerInOrderAndClosingEndsIt) {
  WorkerPool pool;
  WorkerProcess &w = pool.spawn(test_worker("echo"));
  // More than a pipe holds: what does not fit is written as the worker reads.
  const std::string big(100000, 'x');
  pool.send(w, encode_command("first", {{"pad", big}}));
  pool.send(w, encode_command("second"));
  pool.close_commands(w);
  std::vector<std::string> lines;
  std::vector<WorkerExit> exits;
  drain(pool, 30, lines, exits);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(record_body(lines[0]).at("cmd"), "first");
  EXPECT_EQ(record_body(lines[0]).at("pad").get<std::string>().size(), big.size());
  EXPECT_EQ(record_body(lines[1]).at("cmd"), "second");
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_TRUE(WIFEXITED(exits[0].status) && WEXITSTATUS(exits[0].status) == 0);
}

TEST(WorkerPool, AWorkerIsStartedFreshNotForked) {
  // A library's state in this process must not reach a worker: workers are exec'd, so
  // /proc/<pid>/exe is the worker executable, and its environment carries the pool's mark.
  // The exe link changes inside execve before the new image's environment is in place (an
  // empty /proc/<pid>/environ for a moment, seen once under ASan), so both are polled until the
  // exec has completed, or 5 s.
  WorkerPool pool;
  const WorkerProcess &w = pool.spawn(test_worker("sleep"));
  const std::string proc = "/proc/" + std::to_string(w.pid);
  std::error_code ec;
  fs::path exe;
  std::string environment;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while ((exe != fs::canonical(ACLNN_TEST_POOL_WORKER) ||
          environment.find("ACLNN_CONFORM_RUN=") == std::string::npos) &&
         std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    exe = fs::read_symlink(proc + "/exe", ec);
    std::ifstream in(proc + "/environ", std::ios::binary);
    environment.assign(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_EQ(exe, fs::canonical(ACLNN_TEST_POOL_WORKER)) << ec.message();
  EXPECT_NE(environment.find("ACLNN_CONFORM_RUN="), std::string::npos);
  pool.stop_all();
}

TEST(WorkerPool, ACrashInsideTheSutIsReportedWithItsSignalAndCall) {
  WorkerPool pool;
  pool.spawn(test_worker("crash"));
  std::vector<std::string> lines;
  std::vector<WorkerExit> exits;
  drain(pool, 30, lines, exits);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_FALSE(exits[0].timed_out);
  ASSERT_TRUE(WIFSIGNALED(exits[0].status));
  EXPECT_EQ(WTERMSIG(exits[0].status), SIGSEGV);
  EXPECT_EQ(exits[0].trace.in_sut, 1);
  EXPECT_STREQ(exits[0].trace.call, "aclnnCrashGetWorkspaceSize");
  EXPECT_TRUE(lines.empty());
}

TEST(WorkerPool, AHangInsideTheSutIsKilledAtTheCaseTimeout) {
  WorkerPool pool;
  pool.spawn(test_worker("hang"));
  std::vector<std::string> lines;
  std::vector<WorkerExit> exits;
  const auto start = std::chrono::steady_clock::now();
  drain(pool, 0.3, lines, exits);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_TRUE(exits[0].timed_out);
  EXPECT_STREQ(exits[0].trace.call, "aclnnHang");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
}

TEST(WorkerPool, AFirstCallGetsItsOwnAllowance) {
  // One second inside a first call: past the 0.3 s case timeout, within the 5 s first-call one.
  WorkerPool pool;
  pool.spawn(test_worker("first"));
  std::vector<std::string> lines;
  std::vector<WorkerExit> exits;
  drain(pool, 0.3, lines, exits);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_FALSE(exits[0].timed_out);
  EXPECT_TRUE(WIFEXITED(exits[0].status) && WEXITSTATUS(exits[0].status) == 0);
}

TEST(WorkerPool, WhatTheSutPrintsIsCapturedNotShown) {
  WorkerPool pool;
  pool.spawn(test_worker("print"));
  std::vector<std::string> lines;
  std::vector<WorkerExit> exits;
  drain(pool, 30, lines, exits);
  EXPECT_EQ(pool.output(), "hello from the SUT");
  EXPECT_EQ(pool.output_bytes(), 18);
}

TEST(WorkerPool, AnExecutableThatCannotRunIsAWorkerThatEndsSayingWhy) {
  WorkerPool pool;
  pool.spawn(WorkerLaunch{"/no/such/aclnn-conform-worker", {}, {}});
  std::vector<std::string> lines;
  std::vector<WorkerExit> exits;
  drain(pool, 30, lines, exits);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_TRUE(WIFEXITED(exits[0].status) && WEXITSTATUS(exits[0].status) == 127);
  EXPECT_NE(pool.output().find("cannot run the worker /no/such/aclnn-conform-worker"),
            std::string::npos)
      << pool.output();
}

TEST(WorkerPool, AProcessTheSutLeavesBehindIsEndedAndNamed) {
  WorkerPool pool;
  pool.spawn(test_worker("leave"));
  std::vector<std::string> lines;
  std::vector<WorkerExit> exits;
  drain(pool, 30, lines, exits);
  ASSERT_EQ(exits.size(), 1u);
  ASSERT_EQ(pool.leftovers().size(), 1u);
  EXPECT_NE(pool.leftovers()[0].find("(pool_test_worke"), std::string::npos)  // comm: 15 chars
      << pool.leftovers()[0];
  const pid_t left = std::stoi(pool.leftovers()[0].substr(4));
  // Ended: gone, or a zombie waiting for init to reap it.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::string state = "?";
  while (std::chrono::steady_clock::now() < until) {
    std::ifstream stat("/proc/" + std::to_string(left) + "/stat");
    if (!stat) break;
    std::string line;
    std::getline(stat, line);
    state = line.substr(line.rfind(')') + 2, 1);
    if (state == "Z") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(!fs::exists("/proc/" + std::to_string(left)) || state == "Z") << state;
}

TEST(WorkerPool, StopAllKillsAndCountsWorkersWithAnswersOutstanding) {
  WorkerPool pool;
  for (int i = 0; i < 2; ++i) {
    WorkerProcess &w = pool.spawn(test_worker("sleep"));
    if (i == 0) w.outstanding.emplace_back();  // one answer outstanding
  }
  const pid_t first = pool.workers().front().pid;
  EXPECT_EQ(pool.stop_all(), 1);
  EXPECT_TRUE(pool.empty());
  EXPECT_NE(kill(first, 0), 0);  // reaped: no such process
}

// A stop (SIGINT/SIGTERM) that comes while the SUT starts is an interrupted run of no case, with
// its configuration described, as a stop at any later moment is: not a set-up error (that was
// exit 2 and no report). The product-emulation probe never answered: nothing is concluded from it.
TEST(CampaignStop, AStopBeforeTheSutStartedIsAnInterruptedRunNotAnError) {
  std::ostringstream log;
  CampaignConfig cfg;
  cfg.cases = 60;
  cfg.tier = Tier::kSmoke;
  cfg.out_dir =
      (fs::temp_directory_path() / ("aclnn-conform-test-early-stop-" + std::to_string(::getpid())))
          .string();
  static volatile std::sig_atomic_t stop = 1;
  cfg.stop_requested = &stop;
  CampaignResult r;
  ASSERT_NO_THROW(r = run_campaign(cfg, log));
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.verdict(), Verdict::kInterrupted);
  EXPECT_EQ(r.cases, 0);
  EXPECT_TRUE(r.deviations.empty());
  EXPECT_EQ(r.policy, "ulp");
  EXPECT_FALSE(r.clauses.empty());
  for (const auto &w : r.warnings)
    EXPECT_EQ(w.find("does not take the product"), std::string::npos) << w;
}

// Two python: modules cannot share a worker's one embedded module: refused as a usage error, not
// run with the competitor's module standing in for the SUT's.
TEST(CampaignSetUp, TwoPythonModulesAsSutAndCompetitorAreRefused) {
  std::ostringstream log;
  CampaignConfig cfg;
  cfg.cases = 1;
  cfg.sut = "python:numpy_ops";
  cfg.competitor = "python:numpy_ops_faulty";
  cfg.out_dir =
      (fs::temp_directory_path() / ("aclnn-conform-test-two-modules-" + std::to_string(::getpid())))
          .string();
  EXPECT_THROW(run_campaign(cfg, log), std::invalid_argument);
}

TEST(Corpus, AStoredCounterexampleIsReplayedAsItWas) {
  const fs::path dir = fs::temp_directory_path() / ("aclnn-corpus-" + std::to_string(getpid()));
  fs::remove_all(dir);
  const Case c = some_cases(3).back();
  Deviation d;
  d.op = c.op;
  d.clause = "SOME-CLAUSE-1";
  d.kind = "deviation";
  d.minimal = c;
  CampaignResult run;
  run.product = "ascend910b";
  store_in_corpus(d, run, dir.string());
  EXPECT_EQ(d.case_id.rfind(c.op + "-SOME-CLAUSE-1-", 0), 0u) << d.case_id;
  EXPECT_EQ(d.corpus_file, "corpus/" + d.case_id + ".json");
  ASSERT_TRUE(fs::is_regular_file(dir / d.corpus_file));
  Deviation again = d;
  again.case_id.clear();
  store_in_corpus(again, run, dir.string());
  EXPECT_EQ(again.case_id, d.case_id);  // the id is the content's
  std::ofstream(dir / "corpus" / "broken.json") << "{ not json";
  std::ostringstream log;
  const auto tasks = load_corpus({(dir / "corpus").string()}, "", log);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_NE(log.str().find("broken.json"), std::string::npos);
  EXPECT_EQ(tasks[0].kind, Task::Kind::kCorpus);
  EXPECT_EQ(tasks[0].corpus_id, d.case_id);
  EXPECT_LT(tasks[0].index, 0);
  ASSERT_TRUE(tasks[0].stored);
  EXPECT_EQ(to_json(*tasks[0].stored).dump(), to_json(c).dump());
  EXPECT_EQ(load_corpus({(dir / "corpus").string()}, d.case_id, log).size(), 1u);
  EXPECT_THROW(load_corpus({(dir / "corpus").string()}, "no-such-id", log), std::invalid_argument);
  EXPECT_THROW(corpus_files({(dir / "missing").string()}), std::invalid_argument);
  fs::remove_all(dir);
}

TEST(Selection, OpsClausesAndUnmatchedEntries) {
  EXPECT_EQ(select_ops({}), registry());
  EXPECT_THROW(select_ops({"NoSuchOp"}), std::invalid_argument);
  const auto ops = select_ops({"SeluBackward", "GeluBackward"});
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0]->name, "SeluBackward");
  EXPECT_THROW(check_expected_variants(ops, {"no-such-variant"}), std::invalid_argument);
  EXPECT_EQ(selected_op_names({"SeluBackward", "GeluBackward"}),
            (std::vector<std::string>{"GeluBackward", "SeluBackward"}));  // registry order
  const auto clauses = selected_clauses({"GeluBackward"}, 5);
  bool gelu = false, common = false;
  for (const auto &c : clauses) {
    EXPECT_TRUE(c.op == "GeluBackward" || c.op == "common") << c.id << " of " << c.op;
    gelu = gelu || c.op == "GeluBackward";
    common = common || c.op == "common";
    EXPECT_EQ(c.min_cases, 5);
  }
  EXPECT_TRUE(gelu && common);
  const auto warnings = unmatched_entry_warnings({"GeluBackward/valid", "NOPE-1"}, {"NOPE-2"});
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("NOPE-1"), std::string::npos);
  EXPECT_NE(warnings[1].find("NOPE-2"), std::string::npos);
  std::vector<std::string> exported_warnings;
  const auto exported = exported_ops(registry(), {"SeluBackward"}, "lib.so", exported_warnings);
  ASSERT_EQ(exported.size(), 1u);
  EXPECT_EQ(exported[0]->name, "SeluBackward");
  EXPECT_EQ(exported_warnings.size(), registry().size() - 1);
}

TEST(OpHooks, TheV2FormIsDocumentedOnItsOpsPage) {
  const OpDescriptor *v2 = find_op("GroupedBiasAddGradV2");
  ASSERT_NE(v2, nullptr);
  EXPECT_EQ(v2->docs_page_op, "GroupedBiasAddGrad");
  const auto docs = generated_docs();
  const auto page = docs.find("ops/GroupedBiasAddGrad.md");
  ASSERT_NE(page, docs.end());
  EXPECT_NE(page->second.find("`aclnnGroupedBiasAddGradV2GetWorkspaceSize`"), std::string::npos);
  EXPECT_NE(page->second.find("`aclnnGroupedBiasAddGradGetWorkspaceSize`"), std::string::npos);
  EXPECT_EQ(docs.count("ops/GroupedBiasAddGradV2.md"), 0u);
}

TEST(OpHooks, ACallerPreconditionClauseAcceptsAnyStatusInTheRepro) {
  for (const char *name : {"GroupedBiasAddGrad", "GroupedBiasAddGradV2"}) {
    const OpDescriptor *op = find_op(name);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->caller_precondition_clauses, (std::vector<std::string>{"GBAG-IDX-1"}));
    CampaignConfig cfg;
    cfg.ops = {name};
    Case c;
    for (int64_t k = 0;; ++k) {  // a GroupedBiasAddGrad case
      const Task t = generated_task({op}, cfg, k);
      c = task_case(t, cfg);
      if (t.kind == Task::Kind::kInvalid) break;
    }
    const std::string any = "Any status is acceptable here";
    EXPECT_NE(repro_program(*op, c, {161002, "GBAG-IDX-1", "indices"}, {}).find(any),
              std::string::npos);
    EXPECT_EQ(repro_program(*op, c, {161002, "GBAG-SHAPE-1", "shape"}, {}).find(any),
              std::string::npos);
  }
  EXPECT_TRUE(find_op("GeluBackward")->caller_precondition_clauses.empty());
}

}  // namespace
