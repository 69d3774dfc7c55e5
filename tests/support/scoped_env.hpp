// An environment variable set (or unset) for a scope, restored at its end, also when an assertion
// returns from the test early.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace aclnn_test {

class ScopedEnv {
 public:
  // value nullptr: the variable is unset for the scope.
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) old_ = old;
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_.c_str(), old_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace aclnn_test
