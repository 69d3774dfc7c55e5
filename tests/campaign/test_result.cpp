// CampaignResult: the verdict (coverage is part of it), clause statuses, report.json round trip,
// merging, and the SUT's identity.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "campaign/result.hpp"
#include "properties/sut.hpp"

namespace {
using namespace aclnn_conform;
namespace fs = std::filesystem;

ClauseVerdict clause(const std::string &id, int64_t reached, int64_t deviations = 0) {
  ClauseVerdict c;
  c.id = id;
  c.op = "GeluBackward";
  c.reached = reached;
  c.deviations = deviations;
  return c;
}

Deviation deviation(const std::string &clause_id, std::vector<std::string> variants) {
  Deviation d;
  d.op = "GeluBackward";
  d.clause = clause_id;
  d.kind = "deviation";
  d.variants = std::move(variants);
  return d;
}

// Three clauses, every one reached often enough: CONFORMANT.
CampaignResult complete_result() {
  CampaignResult r;
  r.sut = "builtin";
  r.product = "ascend910b";
  r.tier = "ci";
  r.policy = "ulp";
  r.seed = 7;
  r.ops = {"GeluBackward"};
  for (const char *id : {"GELU-VALUE-1", "GELU-BCAST-1", "GELU-NULL-1"}) {
    r.clauses.push_back(clause(id, 20));
    r.clauses.back().min_cases = 10;
  }
  finalize_statuses(r);
  return r;
}

TEST(ResultVerdict, CompleteRunWithoutDeviationsIsConformant) {
  const CampaignResult r = complete_result();
  EXPECT_EQ(r.verdict(), Verdict::kConformant);
  EXPECT_EQ(verdict_name(r.verdict()), "CONFORMANT");
}

// The false green of issue 8: clauses no case reached made a CONFORMANT verdict.
TEST(ResultVerdict, UnreachedClauseMakesItIncomplete) {
  CampaignResult r = complete_result();
  r.clause("GELU-NULL-1")->reached = 0;
  finalize_statuses(r);
  EXPECT_EQ(r.clause("GELU-NULL-1")->status, ClauseStatus::kNotReached);
  EXPECT_EQ(r.verdict(), Verdict::kIncomplete);
  EXPECT_EQ(verdict_name(r.verdict()), "INCOMPLETE");
  EXPECT_TRUE(r.conformant());  // nothing deviates, yet the verdict is not CONFORMANT
  r.allow_incomplete = true;
  EXPECT_EQ(r.verdict(), Verdict::kConformant);
}

TEST(ResultVerdict, UnderTestedClauseMakesItIncomplete) {
  CampaignResult r = complete_result();
  r.clause("GELU-BCAST-1")->reached = 9;  // min_cases 10
  finalize_statuses(r);
  EXPECT_EQ(r.clause("GELU-BCAST-1")->status, ClauseStatus::kUnderTested);
  EXPECT_EQ(clause_status_name(ClauseStatus::kUnderTested), "under-tested");
  EXPECT_EQ(r.verdict(), Verdict::kIncomplete);
  r.clause("GELU-BCAST-1")->reached = 10;
  finalize_statuses(r);
  EXPECT_EQ(r.clause("GELU-BCAST-1")->status, ClauseStatus::kConforms);
  EXPECT_EQ(r.verdict(), Verdict::kConformant);
}

TEST(ResultVerdict, SkippedOrUnselectedClausesDoNotCount) {
  CampaignResult r = complete_result();
  r.clause("GELU-NULL-1")->reached = 0;
  r.skipped = {"GELU-NULL-1"};
  finalize_statuses(r);
  EXPECT_EQ(r.clause("GELU-NULL-1")->status, ClauseStatus::kSkipped);
  EXPECT_EQ(r.verdict(), Verdict::kConformant);

  r.skipped.clear();
  r.clause_pattern = "^GELU-(VALUE|BCAST)";
  finalize_statuses(r);
  EXPECT_EQ(r.clause("GELU-NULL-1")->status, ClauseStatus::kSkipped);
  EXPECT_EQ(r.clause("GELU-VALUE-1")->status, ClauseStatus::kConforms);
  EXPECT_EQ(r.verdict(), Verdict::kConformant);
  r.clause_pattern = "NULL";  // selects the unreached clause: incomplete again
  finalize_statuses(r);
  EXPECT_EQ(r.verdict(), Verdict::kIncomplete);
}

TEST(ResultVerdict, DeviationsBeatIncompleteAndInterruptedBeatsAll) {
  CampaignResult r = complete_result();
  r.clause("GELU-NULL-1")->reached = 0;
  r.clause("GELU-VALUE-1")->deviations = 2;
  r.deviations.push_back(deviation("GELU-VALUE-1", {}));
  finalize_statuses(r);
  EXPECT_EQ(r.clause("GELU-VALUE-1")->status, ClauseStatus::kDeviates);
  EXPECT_EQ(r.verdict(), Verdict::kDeviations);
  r.allow_incomplete = true;
  EXPECT_EQ(r.verdict(), Verdict::kDeviations);  // allowing incompleteness allows no deviation
  r.interrupted = true;
  EXPECT_EQ(r.verdict(), Verdict::kInterrupted);
  EXPECT_EQ(verdict_name(r.verdict()), "INTERRUPTED");
}

TEST(ResultVerdict, ExpectedFailureDoesNotDeviate) {
  CampaignResult r = complete_result();
  r.clause("GELU-VALUE-1")->deviations = 1;
  r.xfails = {"GELU-VALUE-1"};
  finalize_statuses(r);
  EXPECT_EQ(r.clause("GELU-VALUE-1")->status, ClauseStatus::kExpectedFailure);
  EXPECT_EQ(r.verdict(), Verdict::kConformant);
}

TEST(ResultVerdict, ExpectedVariantExplainsOnlyItsOwnDeviations) {
  CampaignResult r = complete_result();
  r.expected_variants = {"le-zero"};
  r.clause("GELU-VALUE-1")->deviations = 2;
  r.deviations.push_back(deviation("GELU-VALUE-1", {"le-zero"}));
  r.deviations.push_back(deviation("GELU-VALUE-1", {"le-zero", "tanh-approx"}));
  finalize_statuses(r);
  EXPECT_EQ(r.clause("GELU-VALUE-1")->status, ClauseStatus::kConformsToVariant);
  EXPECT_EQ(clause_status_name(ClauseStatus::kConformsToVariant), "conforms to variant");
  EXPECT_EQ(r.clause("GELU-VALUE-1")->expected_variants_matched,
            std::vector<std::string>{"le-zero"});
  EXPECT_EQ(r.deviations[0].expected_variant, "le-zero");
  EXPECT_EQ(r.verdict(), Verdict::kConformant);

  // One more counterexample that the variant does not explain: the clause deviates.
  r.clause("GELU-VALUE-1")->deviations = 3;
  r.deviations.push_back(deviation("GELU-VALUE-1", {"tanh-approx"}));
  finalize_statuses(r);
  EXPECT_EQ(r.clause("GELU-VALUE-1")->status, ClauseStatus::kDeviates);
  EXPECT_TRUE(r.clause("GELU-VALUE-1")->expected_variants_matched.empty());
  EXPECT_EQ(r.verdict(), Verdict::kDeviations);

  // A crash is never explained by a variant.
  r.deviations.pop_back();
  r.clause("GELU-BCAST-1")->deviations = 1;
  Deviation crash = deviation("GELU-BCAST-1", {});
  crash.kind = "crash";
  r.deviations.push_back(crash);
  finalize_statuses(r);
  EXPECT_EQ(r.clause("GELU-VALUE-1")->status, ClauseStatus::kConformsToVariant);
  EXPECT_EQ(r.clause("GELU-BCAST-1")->status, ClauseStatus::kDeviates);
  EXPECT_EQ(r.verdict(), Verdict::kDeviations);
}

CampaignResult full_result() {
  CampaignResult r = complete_result();
  r.tool_version = conform_version();
  r.sut_identity = {"/opt/lib/libvendor.so", "libvendor.so.1", 12345, std::string(64, 'a')};
  r.shard = "1/4";
  r.shard_source = "SLURM_ARRAY_TASK_ID";
  r.interrupted = true;
  r.allow_incomplete = true;
  r.expected_variants = {"le-zero"};
  r.clause_pattern = "GELU";
  r.cases = 99;
  r.seconds = 3.25;
  r.clause("GELU-VALUE-1")->seconds = 1.5;
  r.clause("GELU-VALUE-1")->deviations = 1;
  Deviation d = deviation("GELU-VALUE-1", {"le-zero"});
  d.expected_status = 161002;
  d.expected_clause = "GELU-BCAST-2";
  d.got_status = 0;
  d.call = "aclnnGeluBackwardGetWorkspaceSize";
  d.found_at_seconds = 0.75;
  d.found_at_case = 42;
  d.case_id = "GeluBackward-GELU-VALUE-1-abc123";
  d.summary = "GeluBackward fp16 dy=[1] x=[-0.75]";
  d.minimal.op = "GeluBackward";
  r.deviations.push_back(d);
  AccuracyStats a;
  a.op = "GeluBackward";
  a.dtype = "fp16";
  a.elements = 4;
  a.max_ulps = INFINITY;
  a.mere_weighted_sum = NAN;
  a.mare = 0.5;
  r.accuracy.push_back(a);
  finalize_statuses(r);
  return r;
}

TEST(ResultJson, RoundTripsEveryField) {
  const CampaignResult r = full_result();
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j.at("schema"), kSchemaVersion);
  EXPECT_EQ(j.at("verdict"), "INTERRUPTED");
  EXPECT_EQ(j.at("conformant"), false);
  EXPECT_TRUE(j.at("deviations")[0].at("expected_status").is_number_integer());
  EXPECT_TRUE(j.at("deviations")[0].at("got_status").is_number_integer());
  // Non-finite numbers: null plus a sibling string, never a string in a number's place.
  EXPECT_TRUE(j.at("accuracy")[0].at("max_ulps").is_null());
  EXPECT_EQ(j.at("accuracy")[0].at("max_ulps_nonfinite"), "inf");
  EXPECT_TRUE(j.at("accuracy")[0].at("mere").is_null());
  EXPECT_EQ(j.at("accuracy")[0].at("mere_nonfinite"), "nan");
  EXPECT_EQ(j.at("accuracy")[0].at("mare"), 0.5);
  EXPECT_FALSE(j.at("accuracy")[0].contains("mare_nonfinite"));

  // Through text, as a report.json file travels.
  const CampaignResult b = result_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(to_json(b), j);
  EXPECT_EQ(b.sut_identity.soname, "libvendor.so.1");
  EXPECT_EQ(b.sut_identity.size, 12345);
  EXPECT_EQ(b.tool_version, conform_version());
  EXPECT_EQ(b.shard_source, "SLURM_ARRAY_TASK_ID");
  EXPECT_TRUE(b.interrupted);
  EXPECT_TRUE(b.allow_incomplete);
  EXPECT_EQ(b.clause("GELU-VALUE-1")->seconds, 1.5);
  EXPECT_EQ(b.clause("GELU-VALUE-1")->min_cases, 10);
  const Deviation &d = b.deviations.at(0);
  EXPECT_EQ(d.expected_status, 161002);
  EXPECT_EQ(d.expected_clause, "GELU-BCAST-2");
  EXPECT_EQ(d.call, "aclnnGeluBackwardGetWorkspaceSize");
  EXPECT_EQ(d.found_at_case, 42);
  EXPECT_EQ(d.found_at_seconds, 0.75);
  EXPECT_EQ(d.case_id, "GeluBackward-GELU-VALUE-1-abc123");
  EXPECT_EQ(d.summary, "GeluBackward fp16 dy=[1] x=[-0.75]");
  EXPECT_EQ(d.expected_variant, "le-zero");
  EXPECT_TRUE(std::isinf(b.accuracy.at(0).max_ulps));
  EXPECT_TRUE(std::isnan(b.accuracy.at(0).mere()));
}

TEST(ResultJson, RejectsAnotherSchemaAndABadNonfiniteValue) {
  nlohmann::json j = to_json(full_result());
  j["schema"] = 1;
  EXPECT_THROW(result_from_json(j), std::runtime_error);
  j = to_json(full_result());
  j["accuracy"][0]["max_ulps_nonfinite"] = "huge";
  EXPECT_THROW(result_from_json(j), std::runtime_error);
}

// A SUT's error message may hold any bytes: report.json is still written, as valid UTF-8.
TEST(ResultJson, InvalidUtf8BecomesReplacementCharacters) {
  CampaignResult r = full_result();
  r.deviations[0].detail = "got \xff\xfe from the SUT";
  std::string text;
  ASSERT_NO_THROW(text = report_json_text(r));
  EXPECT_EQ(result_from_json(nlohmann::json::parse(text)).deviations[0].detail,
            "got \xef\xbf\xbd\xef\xbf\xbd from the SUT");
}

TEST(ResultMerge, AddsCountsAndTimesAndRefusesAnotherBuild) {
  CampaignResult a = complete_result(), b = complete_result();
  a.shard = "0/2";
  b.shard = "1/2";
  a.clause("GELU-NULL-1")->reached = 4;  // each shard under-tested, together enough
  b.clause("GELU-NULL-1")->reached = 6;
  a.clause("GELU-NULL-1")->seconds = 0.5;
  b.clause("GELU-NULL-1")->seconds = 0.25;
  finalize_statuses(a);
  finalize_statuses(b);
  EXPECT_EQ(a.verdict(), Verdict::kIncomplete);
  const CampaignResult m = merge_results({a, b});
  EXPECT_EQ(m.clause("GELU-NULL-1")->status, ClauseStatus::kConforms);
  EXPECT_DOUBLE_EQ(m.clause("GELU-NULL-1")->seconds, 0.75);
  EXPECT_EQ(m.verdict(), Verdict::kConformant);
  b.interrupted = true;
  EXPECT_EQ(merge_results({a, b}).verdict(), Verdict::kInterrupted);
  b.sut_identity.sha256 = std::string(64, 'b');
  EXPECT_THROW(merge_results({a, b}), std::runtime_error);
}

TEST(SutIdentity, BuiltinLibraryHasItsRealPathSonameSizeAndHash) {
  const SutIdentity id = identify_sut("builtin");
  EXPECT_EQ(id.path, fs::canonical(Sut::builtin_path()).string());
  EXPECT_EQ(id.size, static_cast<int64_t>(fs::file_size(id.path)));
  EXPECT_EQ(id.soname, "libaclnn_cpu.so.0");  // SOVERSION = project major version
  ASSERT_EQ(id.sha256.size(), 64u);
  EXPECT_EQ(id.sha256.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(SutIdentity, HashIsSha256OfTheFileAndNonElfHasNoSoname) {
  const fs::path p = fs::temp_directory_path() / ("aclnn_sut_id_" + std::to_string(::getpid()));
  std::ofstream(p) << "abc";
  const SutIdentity id = identify_sut(p.string());
  // FIPS 180-2 test vector for "abc".
  EXPECT_EQ(id.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(id.size, 3);
  EXPECT_EQ(id.soname, "");
  fs::remove(p);
  EXPECT_THROW(identify_sut(p.string()), std::runtime_error);
}

}  // namespace
