// Expectations on the ABI's answers that every op's tests share: the recent error text, and what a
// failing call must leave behind (a status, a message naming the parameter and the clause, and
// the caller's memory as it was).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "aclnn/aclnn_base.h"

extern "C" const char *aclGetRecentErrMsg(void);

namespace aclnn_test {

// aclGetRecentErrMsg() as a string ("" for NULL).
inline std::string errmsg() {
  const char *m = aclGetRecentErrMsg();
  return m ? m : "";
}

// A failed call: status `got` is `code`, the recent error is not empty and names `param` and, when
// not empty, `clause`; `untouched`: the caller's output storage is unchanged.
inline void expect_failure(aclnnStatus got, aclnnStatus code, const std::string &param,
                           const std::string &clause, bool untouched) {
  EXPECT_EQ(got, code);
  const std::string m = errmsg();
  EXPECT_FALSE(m.empty());
  EXPECT_NE(m.find(param), std::string::npos) << "message: " << m << "\nexpected: " << param;
  if (!clause.empty()) EXPECT_NE(m.find(clause), std::string::npos) << m;
  EXPECT_TRUE(untouched) << "output storage changed by a failing call";
}

// The same, with the output storage compared byte for byte with its canary copy; clause may be
// null.
template <class Bytes>
void expect_failure(aclnnStatus got, aclnnStatus code, const std::string &param, const char *clause,
                    const Bytes &canary, const Bytes &storage) {
  expect_failure(got, code, param, clause ? clause : "", canary == storage);
}

}  // namespace aclnn_test
