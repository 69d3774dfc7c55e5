#include "properties/budget.hpp"

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace aclnn_conform {

int scaled_cases(int cases) {
  double scale = 1.0;
  if (const char *s = std::getenv("ACLNN_PROP_SCALE")) scale = std::atof(s);
  if (!(scale > 0)) scale = 1.0;
  const double n = cases * scale;
  return n < 1 ? 1 : static_cast<int>(n);
}

void report_result(const rc::detail::TestResult &result,
                   const std::set<std::string> &required_tags) {
  if (!result.is<rc::detail::SuccessResult>()) {
    std::ostringstream ss;
    rc::detail::printResultMessage(result, ss);
    ADD_FAILURE() << ss.str();
    return;
  }
  const auto &success = result.get<rc::detail::SuccessResult>();
  std::set<std::string> seen;
  for (const auto &[tags, count] : success.distribution)
    for (const auto &t : tags) {
      // RC_CLASSIFY/RC_TAG store their arguments printed, so string tags arrive quoted.
      const bool quoted = t.size() >= 2 && t.front() == '"' && t.back() == '"';
      seen.insert(quoted ? t.substr(1, t.size() - 2) : t);
    }
  if (!success.distribution.empty()) {
    rc::detail::printResultMessage(result, std::cout);
    std::cout << std::endl;
  }
  for (const auto &t : required_tags)
    EXPECT_TRUE(seen.count(t)) << "the run of " << success.numSuccess << " cases never reached '"
                               << t << "': the generator no longer covers it";
}

}  // namespace aclnn_conform
