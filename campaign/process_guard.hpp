// A worker's guard against what a SUT may do to its caller's process besides its results
// (campaign/process_guard.cpp), internal to aclnn::campaign: descriptors 0-2 and the pipes, the
// signal handlers the framework relies on, and a fatal signal under the memory limit. What can be
// put back is put back and noted for the report; a pipe the SUT closed or replaced cannot be, so
// the worker leaves the reason in its trace page and exits.
#pragma once

#include <string>
#include <vector>

#include "properties/call_trace.hpp"

namespace aclnn_conform {

// Takes the process's state as it is now (descriptors, pipes, handlers) and checks it after
// every return from the SUT (properties/runner.hpp's after-SUT hook). memory_limited: the worker
// runs under RLIMIT_DATA, and fatal signals record the data segment in the trace page first.
void install_process_guard(int result_fd, int command_fd, CallTrace *trace, bool memory_limited);

// The process's data segment in bytes (/proc/self/statm: what RLIMIT_DATA limits), -1 if
// unreadable. Async-signal-safe.
long long data_segment_bytes();

// The pipes are the worker's only way to hear and to report: without them, stop with the reason.
void check_result_pipe();

// The notes the guard collected since the last call (each only once per process), for the
// campaign's report.
std::vector<std::string> take_guard_notes();

}  // namespace aclnn_conform
