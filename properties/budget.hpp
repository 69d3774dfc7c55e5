// Per-property budgets for rapidcheck under GoogleTest. RapidCheck's configuration (RC_PARAMS) is
// process-global, so ACLNN_PROP gives each property its own case count, scaled by the environment
// variable ACLNN_PROP_SCALE (default 1; CI and `slow` runs raise it), while RC_PARAMS's seed and
// reproduce strings still apply. ACLNN_PROP_COVERING also fails when a run never produced a tag
// the property must reach (RC_TAG / RC_CLASSIFY), so a generator that silently stops reaching a
// clause branch is caught.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <set>
#include <string>

namespace aclnn_conform {

// Cases for a property of nominal budget `cases` under ACLNN_PROP_SCALE.
int scaled_cases(int cases);

class SilentListener : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription &) override {}
  void onShrinkTried(const rc::detail::CaseDescription &, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata &, const rc::detail::TestResult &) override {}
};

// Runs the property; on failure reports rapidcheck's message (shrunk counterexample and the
// reproduce string) as a GoogleTest failure. Returns the tag distribution of a successful run.
void report_result(const rc::detail::TestResult &result,
                   const std::set<std::string> &required_tags);

template <typename Testable>
void check_with_budget(Testable &&testable, int cases, const std::set<std::string> &required_tags) {
  const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
  rc::detail::TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  const auto &config = rc::detail::configuration();
  auto params = config.testParams;
  params.maxSuccess = scaled_cases(cases);
  SilentListener listener;
  const auto result =
      rc::detail::checkProperty(rc::detail::toProperty(std::forward<Testable>(testable)), metadata,
                                params, listener, config.reproduce);
  report_result(result, required_tags);
}

}  // namespace aclnn_conform

#define ACLNN_PROP_COVERING(Suite, Name, Cases, RequiredTags, ArgList)      \
  void aclnnProp_##Suite##_##Name ArgList;                                  \
  TEST(Suite, Name) {                                                       \
    ::aclnn_conform::check_with_budget(&aclnnProp_##Suite##_##Name, Cases,  \
                                       std::set<std::string> RequiredTags); \
  }                                                                         \
  void aclnnProp_##Suite##_##Name ArgList

#define ACLNN_PROP(Suite, Name, Cases, ArgList) ACLNN_PROP_COVERING(Suite, Name, Cases, {}, ArgList)
