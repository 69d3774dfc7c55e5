// Repro programs of a campaign on the deliberately broken SUT reproduce against that SUT: each
// builds with the command in its own header (which links the failing library, not the built-in
// one), says which library it linked, and fails the same way - a crash dies of the signal, a hang
// does not return, a probe's crash is the probe's call, a wrong value deviates.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "broken_cases.hpp"
#include "campaign/campaign.hpp"
#include "campaign/repro.hpp"
#include "edge_cases/edge_case.hpp"

#ifndef ACLNN_TEST_BROKEN_LIBRARY
#error "ACLNN_TEST_BROKEN_LIBRARY must be defined"
#endif

namespace {
using namespace aclnn_conform;
namespace fs = std::filesystem;

struct Ran {
  int status = -1;  // the shell's $? (128 + signal for a death, 124 for a timeout)
  std::string output;
};

Ran shell(const std::string &command) {
  Ran r;
  FILE *p = popen(("(" + command + ") 2>&1; echo \"EXIT:$?\"").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  pclose(p);
  const auto at = r.output.rfind("EXIT:");
  if (at != std::string::npos) r.status = std::stoi(r.output.substr(at + 5));
  return r;
}

std::string build_line(const fs::path &repro) {
  std::ifstream in(repro);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("// build: ", 0) == 0) return line.substr(10);
  return "";
}

TEST(ReproOnBrokenSut, ReproducesAgainstTheLibraryThatFailed) {
  if (shell("command -v c++").status != 0) GTEST_SKIP() << "no system C++ compiler";
  const fs::path dir =
      fs::temp_directory_path() / ("aclnn-conform-test-repro-sut-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "cases");
  std::ofstream(dir / "cases" / "a-crash.json") << to_json(test::layer_norm_row(3)).dump();
  std::ofstream(dir / "cases" / "b-hang.json") << to_json(test::layer_norm_row(5)).dump();
  std::ostringstream log;
  CampaignConfig cfg;
  cfg.sut = ACLNN_TEST_BROKEN_LIBRARY;
  cfg.jobs = 2;
  cfg.case_timeout_seconds = 2;
  cfg.tier = Tier::kSmoke;
  cfg.out_dir = (dir / "replay").string();
  CampaignResult replayed = replay_cases(cfg, {(dir / "cases").string()}, log);
  // The probes find the crash of GroupedBiasAddGradV2 on executor == NULL; GELU's value.
  cfg.out_dir = (dir / "run").string();
  cfg.ops = {"GroupedBiasAddGradV2", "GeluBackward"};
  cfg.cases = 12;
  CampaignResult run = run_campaign(cfg, log);
  write_repros(replayed, (dir / "replay").string());
  write_repros(run, (dir / "run").string());

  const std::string sut = fs::canonical(ACLNN_TEST_BROKEN_LIBRARY).string();
  std::map<std::string, int> seen;  // kind (and probe) -> repros checked
  const auto check = [&](const CampaignResult &r, const fs::path &out) {
    std::set<std::string> kinds_done;
    for (const auto &d : r.deviations) {
      const std::string what =
          d.kind == "deviation" && d.call.rfind("protocol", 0) == 0
              ? "probe deviation"
              : d.kind + (d.call.find("executor = NULL") != std::string::npos ? " in a probe" : "");
      if (!kinds_done.insert(what).second) continue;  // one repro of each kind is enough
      const fs::path repro = out / d.repro_file;
      const std::string build = build_line(repro);
      ASSERT_FALSE(build.empty()) << repro;
      EXPECT_NE(build.find(sut), std::string::npos) << "links the SUT: " << build;
      EXPECT_EQ(build.find("aclnn_cpu"), std::string::npos) << build;
      const Ran b = shell("cd " + repro.parent_path().string() + " && " + build);
      ASSERT_EQ(b.status, 0) << b.output;
      const Ran x =
          shell("cd " + repro.parent_path().string() + " && timeout 5 ./" + repro.stem().string());
      EXPECT_NE(x.output.find("linked SUT: " + sut), std::string::npos) << x.output;
      if (d.kind == "crash")
        EXPECT_GT(x.status, 128) << what << " (" << d.call << ")\n" << x.output;
      else if (d.kind == "timeout")
        EXPECT_EQ(x.status, 124) << what << "\n" << x.output;
      else
        EXPECT_EQ(x.status, 1) << what << " " << d.clause << "\n" << x.output;
      ++seen[what];
    }
  };
  check(replayed, dir / "replay");
  check(run, dir / "run");
  EXPECT_EQ(seen["crash"], 1) << "the LayerNorm crash";
  EXPECT_EQ(seen["timeout"], 1) << "the LayerNorm hang";
  EXPECT_EQ(seen["crash in a probe"], 1) << "GroupedBiasAddGradV2 on executor == NULL";
  EXPECT_EQ(seen["deviation"], 1) << "GELU's tanh approximation";
  // The probe's crash is the probe's clause, not a value clause of a valid call.
  bool probe_crash = false;
  for (const auto &d : run.deviations)
    if (d.kind == "crash" && d.op == "GroupedBiasAddGradV2") {
      probe_crash = true;
      EXPECT_EQ(d.clause, "ABI-TWOPHASE-2") << d.call;
      EXPECT_NE(d.call.find("executor = NULL"), std::string::npos) << d.call;
    }
  EXPECT_TRUE(probe_crash);
  if (!HasFailure()) fs::remove_all(dir);
}

}  // namespace
