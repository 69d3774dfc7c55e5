// The repro programs' prelude (campaign/repro/prelude.cpp) compiled on its own against the vendor
// headers, as every generated program compiles it: the includes a program has before it, then the
// text itself. Compiled by the test repro.prelude_compiles (tests/CMakeLists.txt, -fsyntax-only),
// so a mistake in the prelude fails the default test run, not only the tests that build repros.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "campaign/repro/prelude.cpp"  // NOLINT(bugprone-suspicious-include)

int main() {
  return 0;
}
