// The core's clock under load, for bench_impl's Clock/* cases: a chain of dependent integer adds
// (one cycle each on every x86 core) issued beside independent FMAs of one width, so that the
// chain's time is kClockProbeAdds cycles at the clock the core runs that width at. Some Intel
// server cores lower their clock while 512-bit FMAs run (the AVX-512 "license"), which makes a
// loop bound by its arithmetic slower per element in 512-bit vectors than the lane count predicts;
// perf_report.py turns the times into GHz so that a report can name that limit.
#pragma once

#include <cstdint>

namespace aclnn_bench {

// Adds per probe call (bench_impl's context `clock_probe_adds`, which perf_report.py reads).
inline constexpr int64_t kClockProbeAdds = 200'000'000;

// Whether this CPU can run the probe of `width` (0: the add chain alone, 256 or 512: with FMAs of
// that many bits).
bool clock_probe_supported(int width);

// Runs the probe of `width` once; returns the chain's final value (so that it is not elided).
int64_t clock_probe(int width);

}  // namespace aclnn_bench
