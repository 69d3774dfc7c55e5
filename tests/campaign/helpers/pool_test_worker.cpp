// pool_test_worker: a stand-in worker for the worker pool's tests (tests/campaign/
// test_campaign_units.cpp). It speaks the worker's descriptors (3 commands, 4 records, 5 the
// call-trace page) and does what its argument says:
//   record     writes one record {"n": 1} and exits 0
//   crash      enters "aclnnCrashGetWorkspaceSize" and dies of SIGSEGV
//   hang       enters "aclnnHang" and sleeps
//   first      enters "aclInit" as a first call and sleeps 1 s, then leaves and exits 0
//   print      prints to stdout and exits 0
//   sleep      sleeps
//   echo       answers every command line with a record echoing it, until end of file
//   leave      forks a child that leaves the group (setsid) and sleeps, then exits 0
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "properties/call_trace.hpp"

using aclnn_conform::CallTrace;

namespace {
CallTrace *trace() {
  void *p = mmap(nullptr, sizeof(CallTrace), PROT_READ | PROT_WRITE, MAP_SHARED, 5, 0);
  return p == MAP_FAILED ? nullptr : static_cast<CallTrace *>(p);
}
void enter(CallTrace *t, const char *call, bool first = false) {
  std::snprintf(t->call, sizeof t->call, "%s", call);
  t->first_call = first ? 1 : 0;
  t->entered_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count();
  __atomic_store_n(&t->in_sut, 1, __ATOMIC_SEQ_CST);
}
void put(const std::string &line) {
  if (write(4, line.data(), line.size()) < 0) _exit(3);
}
}  // namespace

int main(int argc, char **argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "record") {
    put("R {\"n\":1}\n");
  } else if (what == "crash") {
    enter(trace(), "aclnnCrashGetWorkspaceSize");
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  } else if (what == "hang") {
    enter(trace(), "aclnnHang");
    std::this_thread::sleep_for(std::chrono::seconds(60));
  } else if (what == "first") {
    CallTrace *t = trace();
    enter(t, "aclInit", true);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    __atomic_store_n(&t->in_sut, 0, __ATOMIC_SEQ_CST);
  } else if (what == "print") {
    std::printf("hello from the SUT");
  } else if (what == "sleep") {
    std::this_thread::sleep_for(std::chrono::seconds(60));
  } else if (what == "echo") {
    FILE *in = fdopen(3, "r");
    char *line = nullptr;
    size_t capacity = 0;
    ssize_t n;
    while (in && (n = getline(&line, &capacity, in)) > 0) {
      std::string body(line, static_cast<size_t>(n));
      if (body.back() == '\n') body.pop_back();
      put("R " + body + "\n");
    }
    // Freed so that LeakSanitizer, in the sanitizer build, has no leak to end the worker with.
    std::free(line);
    if (in) std::fclose(in);
  } else if (what == "leave") {
    if (fork() == 0) {
      setsid();
      std::this_thread::sleep_for(std::chrono::seconds(60));
      _exit(0);
    }
  }
  std::fflush(nullptr);
  return 0;
}
