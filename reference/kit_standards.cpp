#include "reference/kit_standards.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "reference/host_tensor.hpp"
#include "reference/spec.hpp"

namespace aclnn_ref::kits {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The commits the rules were read at (docs/standards.md).
constexpr const char *kTtk = "hicann/ops-test-kit@367509326971";
constexpr const char *kMsprobe =
    "Ascend/mstt@99c2e0f990a1 (mirror xiaobingling93-pixel/Ascend-mstt)";

std::string src(const char *repo, const char *file) {
  return fmt::format("{} {}", repo, file);
}

bool is_half(DType t) {
  return t == DType::kFloat16;
}
bool is_bf16(DType t) {
  return t == DType::kBFloat16;
}
bool is_fp32(DType t) {
  return t == DType::kFloat32;
}
bool kit_dtype(DType t) {
  return is_half(t) || is_bf16(t) || is_fp32(t);
}

std::string g(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.4g}", v);
}

std::string pow2(double v) {
  return fmt::format("2^{}", static_cast<int>(std::lround(std::log2(v))));
}

StandardOutcome not_judged(std::string why) {
  StandardOutcome o;
  o.verdict = Verdict::kNotJudged;
  o.note = std::move(why);
  o.measured = "not judged: " + o.note;
  return o;
}

// ---------------------------------------------------------------------------------------------
// TTK (hicann/ops-test-kit, ttk/core_modules/comparison/*.py)

// TTK's golden. For cross_check TTK computes the golden from promoted inputs (golden_mode
// Promote: fp16/bf16 to fp32, fp32 to fp64; set by npu/op_api/profiling.py when a criterion is
// cross_check): the exact value, which such a golden approximates - finite where the exact value
// is, even beyond the output dtype's range. For the other criteria the golden is computed in the
// default golden mode and cast back to the output dtype: the value of record (the exact value
// rounded once) is the best such golden.
double ttk_promoted_golden(const KitOutput &o, size_t i) {
  return o.exact[i];
}
double ttk_golden(const KitOutput &o, size_t i) {
  return o.record[i];
}

// NaN/Inf positions that do not match (mix_tolerance.py, stat_rel_err.py): both NaN, or both inf
// of one sign, match; any other non-finite on either side does not.
bool nan_inf_mismatch(double a, double gl) {
  const bool special = std::isnan(a) || std::isnan(gl) || std::isinf(a) || std::isinf(gl);
  if (!special) return false;
  const bool same_nan = std::isnan(a) && std::isnan(gl);
  const bool same_inf = std::isinf(a) && std::isinf(gl) && std::signbit(a) == std::signbit(gl);
  return !same_nan && !same_inf;
}

StandardOutcome ttk_mixed(const KitOutput &o) {
  const MixedTolerance tol = ttk_mixed_tolerance(o.dtype);
  const size_t n = o.got.size();
  int64_t ok = 0;
  bool mismatch = false;
  double max_err = 0;
  int64_t worst = -1, max_at = -1;
  double worst_err = -1;
  for (size_t i = 0; i < n; ++i) {
    const double a = o.got[i], gl = ttk_golden(o, i);
    const bool same_nan = std::isnan(a) && std::isnan(gl);
    const bool same_inf = std::isinf(a) && std::isinf(gl) && std::signbit(a) == std::signbit(gl);
    const bool finite = std::isfinite(a) && std::isfinite(gl);
    const double err = std::fabs(a - gl);
    const bool elem_ok =
        same_nan || same_inf || (finite && err <= tol.atol + tol.rtol * std::fabs(gl));
    ok += elem_ok;
    if (nan_inf_mismatch(a, gl)) mismatch = true;
    if (finite && (err > max_err || max_at < 0)) {
      max_err = err;
      max_at = static_cast<int64_t>(i);
    }
    // The worst failing element: a NaN/inf mismatch first, then the largest error.
    const double weight = finite ? err : kInf;
    if (!elem_ok && weight > worst_err) {
      worst_err = weight;
      worst = static_cast<int64_t>(i);
    }
  }
  const double matched = static_cast<double>(ok) / static_cast<double>(n);
  const double max_abs = mismatch ? kInf : max_err;
  const bool pass = matched >= 0.99 && max_abs <= tol.max_abs_error_limit;
  StandardOutcome r;
  r.verdict = pass ? Verdict::kPass : Verdict::kFail;
  r.score = std::max((1 - matched) / 0.01, max_abs / tol.max_abs_error_limit);
  r.measured = fmt::format("matched_ratio {} ({} of {}), max_abs_error {}{}", g(matched), ok, n,
                           g(max_abs), mismatch ? " (NaN/Inf mismatch)" : "");
  // Every element within its bound and the case failing on the absolute limit: the element of
  // the largest error weighs most.
  if (!pass) r.worst_index = worst >= 0 ? worst : max_at;
  return r;
}

StandardOutcome ttk_stat_rel_err(const KitOutput &o) {
  const double th = ttk_stat_rel_err_threshold(o.dtype);
  const size_t n = o.got.size();
  int64_t mismatches = 0, first_mismatch = -1, finite = 0, worst = -1;
  double sum = 0, mare = 0;
  for (size_t i = 0; i < n; ++i) {
    const double a = o.got[i], gl = ttk_golden(o, i);
    if (nan_inf_mismatch(a, gl)) {
      if (mismatches++ == 0) first_mismatch = static_cast<int64_t>(i);
      continue;
    }
    if (!std::isfinite(a) || !std::isfinite(gl)) continue;
    ++finite;
    const double rel = std::fabs(a - gl) / (std::fabs(gl) + 1e-7);
    sum += rel;
    if (rel > mare || worst < 0) {
      mare = std::max(mare, rel);
      worst = static_cast<int64_t>(i);
    }
  }
  StandardOutcome r;
  if (mismatches > 0) {  // "NaN/Inf 不一致：污染，不算 mere/mare"
    r.verdict = Verdict::kFail;
    r.score = kInf;
    r.measured = fmt::format("NaN/Inf mismatch at {} of {} elements (mere/mare not computed)",
                             mismatches, n);
    r.worst_index = first_mismatch;
    return r;
  }
  if (finite == 0) {
    r.verdict = Verdict::kPass;
    r.measured = "every element non-finite and matching";
    return r;
  }
  const double mere = sum / static_cast<double>(finite);
  const bool pass = mere < th && mare < 10 * th;
  r.verdict = pass ? Verdict::kPass : Verdict::kFail;
  r.score = std::max(mere / th, mare / (10 * th));
  r.measured = fmt::format("mere {}, mare {} over {} finite elements", g(mere), g(mare), finite);
  if (!pass) r.worst_index = worst;
  return r;
}

StandardOutcome ttk_close(const KitOutput &o) {
  // is_close.py: rtol and ptol 0.001 for float16/bfloat16, 0.0001 otherwise; atol 1e-8 (the CSV's
  // legacy precision_tolerances/absolute_precision can replace them; the report uses these).
  const bool low = is_half(o.dtype) || is_bf16(o.dtype);
  const double rtol = low ? 0.001 : 0.0001, ptol = rtol, atol = 1e-8;
  const size_t n = o.got.size();
  int64_t bad = 0, worst = -1;
  double worst_err = -1;
  for (size_t i = 0; i < n; ++i) {
    const double a = o.got[i], gl = ttk_golden(o, i);
    bool close;
    if (std::isnan(a) || std::isnan(gl))
      close = std::isnan(a) && std::isnan(gl);  // equal_nan=True
    else if (std::isinf(a) || std::isinf(gl))
      close = a == gl;
    else
      close = std::fabs(a - gl) <= atol + rtol * std::fabs(gl);
    if (close) continue;
    ++bad;
    const double err = std::isfinite(a) && std::isfinite(gl) ? std::fabs(a - gl) : kInf;
    if (err > worst_err) {
      worst_err = err;
      worst = static_cast<int64_t>(i);
    }
  }
  // As the kit computes it: precision = (n - mismatches) / n, pass iff (1 - precision) <= ptol,
  // in double (so one mismatch in 1000 elements is 1.0000000000000009e-3 > ptol: a fail).
  const double precision =
      static_cast<double>(static_cast<int64_t>(n) - bad) / static_cast<double>(n);
  const bool pass = (1 - precision) <= ptol;
  StandardOutcome r;
  r.verdict = pass ? Verdict::kPass : Verdict::kFail;
  r.score = (1 - precision) / ptol;
  r.measured = fmt::format("{} of {} elements not close (rtol {}, atol 1e-8): precision {}", bad, n,
                           g(rtol), fmt::format("{:.6g}", precision));
  if (!pass) r.worst_index = worst;
  return r;
}

StandardOutcome ttk_cosine(const KitOutput &o) {
  double dot = 0, na = 0, ng = 0;
  for (size_t i = 0; i < o.got.size(); ++i) {
    const double a = o.got[i], gl = ttk_golden(o, i);
    dot += a * gl;
    na += a * a;
    ng += gl * gl;
  }
  const double cos = dot / (std::sqrt(na) * std::sqrt(ng));
  const bool pass = (1 - cos) <= 0.01;  // NaN (a zero vector, inf or NaN) fails
  StandardOutcome r;
  r.verdict = pass ? Verdict::kPass : Verdict::kFail;
  r.score = std::isnan(cos) ? kInf : (1 - cos) / 0.01;
  r.measured =
      fmt::format("cosine {}", std::isnan(cos) ? std::string("nan") : fmt::format("{:.8g}", cos));
  return r;
}

// Bitwise equality as binary_equal.py: SHA-256 of the bytes, positions where both are NaN
// excused. For values of one dtype, equal bytes are equal values of equal sign (+0 != -0).
StandardOutcome ttk_binary(const KitOutput &o) {
  const size_t n = o.got.size();
  int64_t diff = 0, first = -1;
  for (size_t i = 0; i < n; ++i) {
    const double a = o.got[i], e = o.record[i];
    const bool same =
        (std::isnan(a) && std::isnan(e)) ||
        (!std::isnan(a) && !std::isnan(e) && a == e && std::signbit(a) == std::signbit(e));
    if (same) continue;
    if (diff++ == 0) first = static_cast<int64_t>(i);
  }
  StandardOutcome r;
  r.verdict = diff == 0 ? Verdict::kPass : Verdict::kFail;
  r.score = static_cast<double>(diff) / static_cast<double>(n);
  r.measured = fmt::format("{} of {} elements differ bitwise from the value of record", diff, n);
  r.worst_index = first;
  return r;
}

// cross_check.py's safe_div: the denominator clamped at the small-value threshold.
double safe_div(double num, double den, double err) {
  if (std::isnan(num) || std::isnan(den)) return kInf;
  if (std::isinf(num) && std::isinf(den)) return 1.0;
  if (std::isinf(num)) return kInf;
  if (num == 0 && den == 0) return 1.0;
  return num / std::max(den, err);
}

struct SmallValue {
  double small_value, atol;
};
SmallValue ttk_small_value(DType t) {
  if (is_half(t)) return {0x1p-11, 0x1p-16};
  if (is_bf16(t)) return {0x1p-8, 0x1p-16};
  return {0x1p-14, 0x1p-30};
}

StandardOutcome ttk_cross_check(const KitOutput &o, int level) {
  if (!kit_dtype(o.dtype))
    return not_judged("cross_check supports float16, bfloat16, float32 only");
  if (o.reference.size() != o.got.size())
    return not_judged(
        "no reference device result (cross_check compares with a third party: --competitor)");
  const CrossCheckLevel lim = ttk_cross_check_level(level);
  const SmallValue sv = ttk_small_value(o.dtype);
  const size_t n = o.got.size();
  bool special_ok = true;
  int64_t special_bad = -1;
  int64_t large = 0;
  double max_t = 0, max_b = 0, sum_t = 0, sum_b = 0, sq_t = 0, sq_b = 0;
  int64_t small_t = 0, small_b = 0, worst = -1;
  double worst_rel = -1;
  const auto cls = [](double v) { return std::isnan(v) ? 1 : std::isinf(v) ? (v > 0 ? 2 : 3) : 0; };
  for (size_t i = 0; i < n; ++i) {
    const double t = o.got[i], gl = ttk_promoted_golden(o, i), b = o.reference[i];
    const bool special = !std::isfinite(t) || !std::isfinite(gl) || !std::isfinite(b);
    if (special) {
      // Path A: the target matches the third party (same class, or equal finite values), or the
      // golden is non-finite and the target matches it.
      const bool tb = cls(t) == cls(b) && (cls(t) != 0 || t == b);
      const bool tg = cls(t) == cls(gl) && (cls(t) != 0 || t == gl);
      if (!(tb || (!std::isfinite(gl) && tg))) {
        special_ok = false;
        if (special_bad < 0) special_bad = static_cast<int64_t>(i);
      }
      continue;
    }
    if (std::fabs(gl) >= sv.small_value) {
      ++large;
      const double rt = std::fabs(t - gl) / (std::fabs(gl) + 1e-7);
      const double rb = std::fabs(b - gl) / (std::fabs(gl) + 1e-7);
      max_t = std::max(max_t, rt);
      max_b = std::max(max_b, rb);
      sum_t += rt;
      sum_b += rb;
      sq_t += (t - gl) * (t - gl);
      sq_b += (b - gl) * (b - gl);
      if (rt > worst_rel) {
        worst_rel = rt;
        worst = static_cast<int64_t>(i);
      }
    } else {
      small_t += std::fabs(t - gl) > sv.atol;
      small_b += std::fabs(b - gl) > sv.atol;
    }
  }
  double mare = 0, mere = 0, rmse = 0;
  bool large_ok = true;
  if (large > 0) {
    const double k = static_cast<double>(large);
    mare = safe_div(max_t, max_b, sv.small_value);
    mere = safe_div(sum_t / k, sum_b / k, sv.small_value);
    rmse = safe_div(std::sqrt(sq_t / k), std::sqrt(sq_b / k), sv.small_value);
    large_ok = !(mare > lim.mare) && !(mere > lim.mere) && !(rmse > lim.rmse);
  }
  const double small_ratio =
      static_cast<double>(small_t) / static_cast<double>(std::max<int64_t>(small_b, 1));
  const bool small_ok = small_ratio <= 2.0;
  const bool pass = special_ok && large_ok && small_ok;
  StandardOutcome r;
  r.verdict = pass ? Verdict::kPass : Verdict::kFail;
  r.score = special_ok
                ? std::max({mare / lim.mare, mere / lim.mere, rmse / lim.rmse, small_ratio / 2.0})
                : kInf;
  r.measured = fmt::format(
      "{}mare_ratio {}, mere_ratio {}, rmse_ratio {} over {} large elements; small-value errors "
      "{} vs {} (ratio {})",
      special_ok ? "" : "NaN/Inf mismatch with the third party; ", g(mare), g(mere), g(rmse), large,
      small_t, small_b, g(small_ratio));
  if (!pass) r.worst_index = special_ok ? worst : special_bad;
  return r;
}

// ---------------------------------------------------------------------------------------------
// msprobe (debug/accuracy_tools/msprobe/pytorch/api_accuracy_checker/...)

// get_abs_bench_with_eps: eps of the bench's dtype (run_ut raises fp16 to fp32 and fp32 to fp64)
// or BFLOAT16_EPS = 2^-8 for bfloat16.
double bench_eps(DType t) {
  if (is_half(t)) return 0x1p-23;
  if (is_bf16(t)) return 0x1p-8;
  return 0x1p-52;
}

// The bench cast to the dtype msprobe compares in: the output dtype for fp16/fp32 (the value of
// record); for bf16 both sides were cast to float32 first (compare.py _compare_torch_tensor).
double bench_cast(const KitOutput &o, size_t i) {
  if (is_bf16(o.dtype)) return static_cast<double>(static_cast<float>(o.exact[i]));
  return o.record[i];
}

// StandardConfig._small_value and the small-value atol tables (standard_config.py).
double ms_small_value(DType t) {
  return is_half(t) || is_bf16(t) ? 0x1p-10 : 0x1p-20;
}
double ms_benchmark_atol(DType t) {
  return is_half(t) || is_bf16(t) ? 1e-16 : 0x1p-30;
}
double ms_threshold_atol(DType t) {
  return is_half(t) ? 0x1p-16 : is_bf16(t) ? 1e-16 : 0x1p-30;
}
double ms_rtol(DType t) {
  return is_half(t) ? 0x1p-10 : is_bf16(t) ? 0x1p-8 : 0x1p-20;
}
double ms_minimum_err(DType t) {  // _minmum_err: calc_ratio's floor of the denominator
  return is_half(t) ? 0x1p-11 : is_bf16(t) ? 0x1p-8 : 0x1p-14;
}
double calc_ratio(double x, double y, DType t) {
  return std::fabs(x) / std::max(std::fabs(y), ms_minimum_err(t));
}
// check_inf_or_nan: both inf of one sign, or both NaN, are consistent.
bool inf_nan_consistent(double x, double y) {
  if (std::isinf(x) || std::isinf(y)) return std::isinf(x) && std::isinf(y) && x == y;
  return std::isnan(x) && std::isnan(y);
}
bool inf_or_nan(double x) {
  return std::isnan(x) || std::isinf(x);
}

// The share of elements with rel_err_orign < thr (get_rel_err_ratio; a NaN is not below).
double rel_share_below(const KitOutput &o, double thr) {
  const size_t n = o.got.size();
  if (n == 0) return 1;
  int64_t k = 0;
  const double eps = bench_eps(o.dtype);
  for (size_t i = 0; i < n; ++i) {
    const double rel = std::fabs(std::fabs(o.got[i] - o.exact[i]) / (std::fabs(o.exact[i]) + eps));
    k += rel < thr;
  }
  return static_cast<double>(k) / static_cast<double>(n);
}

StandardOutcome ms_precheck(const KitOutput &o) {
  const size_t n = o.got.size();
  StandardOutcome r;
  // cosine_sim (algorithm.py)
  bool cos_ok;
  std::string cos_text;
  if (n == 1) {
    cos_ok = true;
    cos_text = "cosine not computed (one element)";
  } else {
    double nmax = 0, bmax = 0;
    bool nan_n = false, nan_b = false;
    for (size_t i = 0; i < n; ++i) {
      if (std::isnan(o.got[i])) nan_n = true;
      if (std::isnan(o.exact[i])) nan_b = true;
      nmax = std::max(nmax, std::fabs(o.got[i]));
      bmax = std::max(bmax, std::fabs(o.exact[i]));
    }
    if (nan_n) nmax = NAN;  // np.max propagates NaN
    if (nan_b) bmax = NAN;
    const double eps = std::numeric_limits<double>::epsilon();
    if (nmax <= eps && bmax <= eps) {
      cos_ok = true;
      cos_text = "cosine not computed (both all zero)";
    } else if (nmax <= eps) {
      cos_ok = false;
      cos_text = "device output all zero";
    } else if (bmax <= eps) {
      cos_ok = false;
      cos_text = "bench output all zero";
    } else {
      double dot = 0, nn = 0, bb = 0;
      for (size_t i = 0; i < n; ++i) {
        const double a = o.got[i] / nmax, b = o.exact[i] / bmax;
        dot += a * b;
        nn += a * a;
        bb += b * b;
      }
      double cos = dot / (std::sqrt(nn) * std::sqrt(bb));
      if (!std::isnan(cos)) cos = std::clamp(cos, -1.0, 1.0);
      cos_ok = cos > 0.99;
      cos_text = fmt::format("cosine {}",
                             std::isnan(cos) ? std::string("nan") : fmt::format("{:.8g}", cos));
    }
  }
  if (!cos_ok) {
    r.verdict = Verdict::kFail;
    r.score = 3;
    r.measured = cos_text + " (<= 0.99): ERROR";
    return r;
  }
  double max_abs = 0;
  int64_t worst = -1;
  for (size_t i = 0; i < n; ++i) {
    const double e = std::fabs(o.got[i] - o.exact[i]);
    if (std::isnan(e)) {
      max_abs = NAN;
      worst = static_cast<int64_t>(i);
      break;
    }
    if (e > max_abs || worst < 0) {
      max_abs = std::max(max_abs, e);
      worst = static_cast<int64_t>(i);
    }
  }
  if (max_abs < 0.001) {
    r.verdict = Verdict::kPass;
    r.score = 0;
    r.measured = fmt::format("{}, max abs error {} < 0.001: PASS", cos_text, g(max_abs));
    return r;
  }
  const double thousand = rel_share_below(o, 0.001);
  const auto finish = [&](int level, const std::string &text) {
    r.verdict = level == 0 ? Verdict::kPass : Verdict::kFail;
    r.warning = level == 1;
    r.score = level + (1 - thousand);
    r.measured = fmt::format("{}, max abs error {}, {}: {}", cos_text, g(max_abs), text,
                             level == 0   ? "PASS"
                             : level == 1 ? "WARNING"
                                          : "ERROR");
    if (level > 0) r.worst_index = worst;
    return r;
  };
  if (is_half(o.dtype) || is_bf16(o.dtype)) {
    const double hundred = rel_share_below(o, 0.01);
    const std::string text =
        fmt::format("rel err < 1e-2 share {}, < 1e-3 share {}", g(hundred), g(thousand));
    if (!(hundred > 1 - 0.01)) return finish(2, text);
    return finish(thousand > 1 - 0.001 ? 0 : 1, text);
  }
  const double ten_thousand = rel_share_below(o, 0.0001);
  const std::string text =
      fmt::format("rel err < 1e-3 share {}, < 1e-4 share {}", g(thousand), g(ten_thousand));
  if (!(thousand > 1 - 0.001)) return finish(2, text);
  return finish(ten_thousand > 1 - 0.0001 ? 0 : 1, text);
}

struct BenchmarkMetrics {
  double small_value_err_ratio = 0, rmse = 0, max_rel = 0, mean_rel = 0, eb = 0;
  int64_t worst = -1;
};

// BenchmarkCompare._compute_metrics on one device's output (benchmark_compare.py, algorithm.py).
BenchmarkMetrics benchmark_metrics(const KitOutput &o, std::span<const double> dev) {
  BenchmarkMetrics m;
  const size_t n = dev.size();
  const double eps = bench_eps(o.dtype), sv = ms_small_value(o.dtype),
               atol = ms_benchmark_atol(o.dtype);
  int64_t small = 0, small_err = 0, masked = 0, larger = 0, smaller = 0, rel_n = 0;
  double sq = 0, rel_sum = 0, rel_max = -1;
  for (size_t i = 0; i < n; ++i) {
    const double d = dev[i], b = o.exact[i], bc = bench_cast(o, i);
    const bool both_finite = std::isfinite(d) && std::isfinite(bc);
    const double abs_err = std::fabs(d - b);
    const bool is_small = both_finite && std::fabs(b) <= sv;
    if (is_small) {
      ++small;
      small_err += abs_err > atol;
    }
    if (!both_finite || is_small) {
      ++masked;
    } else {
      sq += abs_err * abs_err;
      const double rel = abs_err / (std::fabs(b) + eps);
      rel_sum += rel;
      ++rel_n;
      if (rel > rel_max) {
        rel_max = rel;
        m.worst = static_cast<int64_t>(i);
      }
    }
    larger += d - bc > 0;
    smaller += d - bc < 0;
  }
  const double nn = static_cast<double>(n);
  m.small_value_err_ratio =
      small == 0 ? 0 : static_cast<double>(small_err) / static_cast<double>(small);
  // get_rmse: the mean over every element with the masked ones as 0, scaled back.
  double mse = sq / nn;
  mse = mse * (nn / (nn - static_cast<double>(masked) + 0.0001) + 0.0001);
  m.rmse = std::sqrt(mse);
  m.max_rel = rel_max >= 0 ? rel_max : 0;
  m.mean_rel = rel_n > 0 ? rel_sum / static_cast<double>(rel_n) : 0;
  m.eb = static_cast<double>(std::llabs(larger - smaller)) / nn;
  return m;
}

StandardOutcome ms_benchmark(const KitOutput &o) {
  if (!kit_dtype(o.dtype)) return not_judged("benchmark supports float16, bfloat16, float32 here");
  if (o.reference.size() != o.got.size())
    return not_judged(
        "no reference device result (benchmark compares NPU/bench with GPU/bench: --competitor)");
  const BenchmarkMetrics npu = benchmark_metrics(o, o.got), gpu = benchmark_metrics(o, o.reference);
  struct Metric {
    const char *name;
    double x, y, limit;
    bool counts;  // eb is computed but not part of the result
  };
  const Metric ms[] = {
      {"small_value_err_ratio", npu.small_value_err_ratio, gpu.small_value_err_ratio, 2, true},
      {"rmse_ratio", npu.rmse, gpu.rmse, 2, true},
      {"max_rel_err_ratio", npu.max_rel, gpu.max_rel, 10, true},
      {"mean_rel_err_ratio", npu.mean_rel, gpu.mean_rel, 2, true},
      {"eb_ratio", npu.eb, gpu.eb, 2, false}};
  bool pass = true;
  double score = 0;
  std::string text;
  for (const auto &m : ms) {
    std::string status;
    if (inf_or_nan(m.x) || inf_or_nan(m.y)) {
      const bool consistent = inf_nan_consistent(m.x, m.y);
      status = consistent ? "pass" : "ERROR";
      if (m.counts && !consistent) {
        pass = false;
        score = kInf;
      }
      text += fmt::format("{}{} {} / {}: {}", text.empty() ? "" : ", ", m.name, g(m.x), g(m.y),
                          consistent ? "inf/nan consistent" : "inf/nan inconsistent");
      continue;
    }
    const double ratio = calc_ratio(m.x, m.y, o.dtype);
    const bool error = !inf_or_nan(ratio) && ratio > m.limit;  // an inf/nan ratio passes
    if (m.counts) {
      if (error) pass = false;
      if (!inf_or_nan(ratio)) score = std::max(score, ratio / m.limit);
    }
    text += fmt::format("{}{} {}{}{}", text.empty() ? "" : ", ", m.name, g(ratio),
                        error ? " > " : "", error ? g(m.limit) : "");
    if (!m.counts) text += " (not counted)";
  }
  StandardOutcome r;
  r.verdict = pass ? Verdict::kPass : Verdict::kFail;
  r.score = score;
  r.measured = text;
  if (!pass) r.worst_index = npu.worst;
  return r;
}

StandardOutcome ms_absolute_threshold(const KitOutput &o) {
  if (!kit_dtype(o.dtype))
    return not_judged("absolute_threshold supports float16, bfloat16, float32 here");
  const size_t n = o.got.size();
  const double eps = bench_eps(o.dtype), rtol = ms_rtol(o.dtype), sv = ms_small_value(o.dtype),
               atol = ms_threshold_atol(o.dtype);
  const double dmax = is_half(o.dtype)   ? 65504.0
                      : is_bf16(o.dtype) ? 3.3895313892515355e+38
                                         : static_cast<double>(std::numeric_limits<float>::max());
  int64_t inf_nan = 0, inf_nan_bad = 0, normal = 0, normal_bad = 0, small = 0, small_bad = 0;
  int64_t worst = -1;
  for (size_t i = 0; i < n; ++i) {
    const double d = o.got[i], b = o.exact[i], bc = bench_cast(o, i);
    const double abs_err = std::fabs(d - b), abs_eps = std::fabs(b) + eps;
    const bool both_finite = std::isfinite(d) && std::isfinite(bc);
    bool bad = false;
    if (!both_finite) {
      ++inf_nan;
      // check_inf_nan_value: both sides clipped to the dtype's finite range, then the relative
      // error against |bench| + eps; two NaNs pass.
      const double cd = std::isnan(d) ? d : std::clamp(d, -dmax, dmax);
      const double cg = std::isnan(bc) ? bc : std::clamp(bc, -dmax, dmax);
      const double re = std::fabs(cd - cg) / abs_eps;
      const bool ok = re <= rtol || (std::isnan(d) && std::isnan(cg));
      bad = !ok;
      inf_nan_bad += bad;
    } else if (std::fabs(b) <= sv) {
      ++small;
      bad = abs_err > atol;
      small_bad += bad;
    } else {
      ++normal;
      bad = abs_err / abs_eps > rtol;
      normal_bad += bad;
    }
    if (bad && worst < 0) worst = static_cast<int64_t>(i);
  }
  const auto ratio = [](int64_t k, int64_t m) {
    return m == 0 ? 0.0 : static_cast<double>(k) / static_cast<double>(m);
  };
  const double r_inf = ratio(inf_nan_bad, inf_nan), r_rel = ratio(normal_bad, normal),
               r_abs = ratio(small_bad, small);
  const bool pass = r_inf == 0 && r_rel == 0 && r_abs == 0;
  StandardOutcome r;
  r.verdict = pass ? Verdict::kPass : Verdict::kFail;
  r.score = std::max({r_inf, r_rel, r_abs});
  r.measured = fmt::format(
      "inf_nan_error_ratio {} ({} of {}), rel_err_ratio {} ({} of {}), abs_err_ratio {} ({} of {})",
      g(r_inf), inf_nan_bad, inf_nan, g(r_rel), normal_bad, normal, g(r_abs), small_bad, small);
  if (!pass) r.worst_index = worst;
  return r;
}

struct UlpStats {
  double mean = 0, proportion = 0;
  int64_t worst = -1;
};
UlpStats ulp_stats(const KitOutput &o, std::span<const double> dev) {
  // get_ulp_err: (device - bench) * 2^(-eb + mantissa bits), eb = floor(log2 |bench|) clamped to
  // the smallest normal exponent; the error proportion counts |ulp| above 32 (fp32) or 1.
  const int min_eb = is_half(o.dtype) ? -14 : -126;
  const int mant = is_half(o.dtype) ? 10 : is_bf16(o.dtype) ? 7 : 23;
  const double thr = is_fp32(o.dtype) ? 32 : 1;
  UlpStats s;
  double sum = 0, worst = -1;
  int64_t over = 0;
  const size_t n = dev.size();
  for (size_t i = 0; i < n; ++i) {
    const double b = o.exact[i];
    double eb = b == 0 ? 0 : std::floor(std::log2(std::fabs(b)));
    eb = std::max(eb, static_cast<double>(min_eb));
    const double u = std::fabs((dev[i] - b) * std::exp2(-eb + mant));
    sum += u;  // a NaN or inf makes the mean NaN or inf, as np.mean does
    over += u > thr;
    const double weight = std::isnan(u) ? kInf : u;
    if (weight > worst) {
      worst = weight;
      s.worst = static_cast<int64_t>(i);
    }
  }
  s.mean = sum / static_cast<double>(n);
  s.proportion = static_cast<double>(over) / static_cast<double>(n);
  return s;
}

StandardOutcome ms_ulp_compare(const KitOutput &o) {
  if (!kit_dtype(o.dtype)) return not_judged("ulp_compare supports float16, bfloat16, float32");
  const UlpStats npu = ulp_stats(o, o.got);
  const bool have_ref = o.reference.size() == o.got.size();
  const bool fp32 = is_fp32(o.dtype);
  const double prop_limit = fp32 ? 0.05 : 0.001;
  StandardOutcome r;
  r.worst_index = npu.worst;
  std::string text = fmt::format("mean ulp error {}, share above {} ulp {}", g(npu.mean),
                                 fp32 ? 32 : 1, g(npu.proportion));
  if (inf_or_nan(npu.mean)) {
    if (!have_ref)
      return not_judged("mean ulp error " + g(npu.mean) +
                        ": msprobe checks it against the reference device's (--competitor)");
    const UlpStats gpu = ulp_stats(o, o.reference);
    if (!inf_nan_consistent(npu.mean, gpu.mean)) {
      r.verdict = Verdict::kFail;
      r.score = kInf;
      r.measured = text + fmt::format("; reference mean {}: inf/nan inconsistent", g(gpu.mean));
      return r;
    }
  }
  // Passes on its own measures first (either of them suffices).
  const double own =
      fp32 ? std::min(npu.mean / 64, npu.proportion / prop_limit) : npu.proportion / prop_limit;
  const bool own_pass = (fp32 && npu.mean < 64) || npu.proportion < prop_limit;
  if (own_pass) {
    r.verdict = Verdict::kPass;
    r.score = std::isnan(own) ? npu.proportion / prop_limit : own;
    r.measured = text;
    r.worst_index = -1;
    return r;
  }
  if (!have_ref)
    return not_judged(text +
                      "; beyond its own limits msprobe compares the share with the reference "
                      "device's (--competitor)");
  const UlpStats gpu = ulp_stats(o, o.reference);
  const double ratio = calc_ratio(npu.proportion, gpu.proportion, o.dtype);
  const bool pass = ratio < 1;
  r.verdict = pass ? Verdict::kPass : Verdict::kFail;
  r.score = std::min(std::isnan(own) ? kInf : own, ratio);
  r.measured =
      text + fmt::format("; share ratio to the reference {} ({})", g(ratio), pass ? "< 1" : ">= 1");
  if (pass) r.worst_index = -1;
  return r;
}

StandardOutcome ms_binary_consistency(const KitOutput &o) {
  // compare_bool_tensor: error_rate = mean(bench != device); NaN != NaN counts, +0 == -0.
  const size_t n = o.got.size();
  int64_t diff = 0, first = -1;
  for (size_t i = 0; i < n; ++i)
    if (o.record[i] != o.got[i] && diff++ == 0) first = static_cast<int64_t>(i);
  StandardOutcome r;
  const double rate = static_cast<double>(diff) / static_cast<double>(n);
  r.verdict = diff == 0 ? Verdict::kPass : Verdict::kFail;
  r.score = rate;
  r.measured =
      fmt::format("error_rate {} ({} of {} differ from the value of record)", g(rate), diff, n);
  r.worst_index = first;
  return r;
}

StandardOutcome ms_thousandth(const KitOutput &o) {
  const double share = rel_share_below(o, 0.001);
  const bool pass = share >= 0.999;  // THOUSANDTH_PASS_VALUE; the documents say "> 0.999"
  StandardOutcome r;
  r.verdict = pass ? Verdict::kPass : Verdict::kFail;
  r.score = (1 - share) / 0.001;
  r.measured = fmt::format("rel_err_thousandth {} (share of elements with rel err < 1e-3)",
                           fmt::format("{:.6g}", share));
  if (!pass) {
    double worst = -1;
    const double eps = bench_eps(o.dtype);
    for (size_t i = 0; i < o.got.size(); ++i) {
      double rel = std::fabs(o.got[i] - o.exact[i]) / (std::fabs(o.exact[i]) + eps);
      if (std::isnan(rel)) rel = kInf;
      if (rel > worst) {
        worst = rel;
        r.worst_index = static_cast<int64_t>(i);
      }
    }
  }
  return r;
}

}  // namespace

const char *verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "fail";
    case Verdict::kNotJudged:
      return "not judged";
  }
  return "not judged";
}

MixedTolerance ttk_mixed_tolerance(DType t) {
  // resolve.py MIX_TOLERANCE: "1e-X or 32*ULP" resolved as the larger, ULP taken at 1.0 (eps).
  if (is_half(t)) return {0x1p-9, 0x1p-9, std::max(1e-1, 32 * 0x1p-10)};
  if (is_bf16(t)) return {0x1p-6, 0x1p-6, std::max(1e-0, 32 * 0x1p-7)};
  return {0x1p-10, 0x1p-16, std::max(1e-2, 32 * 0x1p-23)};  // float32, and any other float
}

double ttk_stat_rel_err_threshold(DType t) {
  return is_half(t) ? 0x1p-10 : is_bf16(t) ? 0x1p-7 : 0x1p-13;
}

CrossCheckLevel ttk_cross_check_level(int level) {
  switch (level) {
    case 0:
      return {10.0, 2.0, 2.0};
    case 1:
      return {5.0, 1.5, 1.5};
    default:
      return {2.0, 1.2, 1.2};
  }
}

const std::vector<StandardInfo> &standards() {
  static const std::vector<StandardInfo> all = {
      {"ttk-mixed", "TTK", "mixed (mix_tolerance)", false, false,
       src(kTtk, "ttk/core_modules/comparison/mix_tolerance.py, resolve.py MIX_TOLERANCE")},
      {"ttk-stat_rel_err", "TTK", "stat_rel_err", false, false,
       src(kTtk, "ttk/core_modules/comparison/stat_rel_err.py, resolve.py THRESHOLDS")},
      {"ttk-close", "TTK", "close (isclose)", false, false,
       src(kTtk, "ttk/core_modules/comparison/is_close.py")},
      {"ttk-cosine", "TTK", "cosine", false, false,
       src(kTtk, "ttk/core_modules/comparison/cosine_similarity.py")},
      {"ttk-binary", "TTK", "binary (binary_equal)", false, false,
       src(kTtk, "ttk/core_modules/comparison/binary_equal.py")},
      {"ttk-cross_check-L0", "TTK", "cross_check level L0", true, true,
       src(kTtk, "ttk/core_modules/comparison/cross_check.py, resolve.py LEVEL_PRESETS")},
      {"ttk-cross_check-L1", "TTK", "cross_check level L1 (default)", true, true,
       src(kTtk, "ttk/core_modules/comparison/cross_check.py, resolve.py LEVEL_PRESETS")},
      {"ttk-cross_check-L2", "TTK", "cross_check level L2", true, true,
       src(kTtk, "ttk/core_modules/comparison/cross_check.py, resolve.py LEVEL_PRESETS")},
      {"msprobe-benchmark", "msprobe", "benchmark (标杆比对法)", true, true,
       src(kMsprobe,
           "msprobe/pytorch/api_accuracy_checker/precision_standard/benchmark_compare.py")},
      {"msprobe-absolute_threshold", "msprobe", "absolute_threshold (绝对阈值法)", false, false,
       src(kMsprobe,
           "msprobe/pytorch/api_accuracy_checker/precision_standard/absolute_threshold.py")},
      {"msprobe-ulp_compare", "msprobe", "ulp_compare (ULP误差比对法)", false, true,
       src(kMsprobe, "msprobe/pytorch/api_accuracy_checker/precision_standard/ulp_compare.py")},
      {"msprobe-binary_consistency", "msprobe", "binary_consistency (二进制一致法)", false, false,
       src(kMsprobe,
           "msprobe/pytorch/api_accuracy_checker/precision_standard/binary_consistency.py")},
      {"msprobe-thousandth_threshold", "msprobe", "thousandth_threshold (双千指标法)", false, false,
       src(kMsprobe,
           "msprobe/pytorch/api_accuracy_checker/precision_standard/thousandth_standard.py")},
      {"msprobe-precheck", "msprobe",
       "run_ut pre-check (cosine, max abs error, double hundredth/"
       "thousandth/ten-thousandth)",
       false, false,
       src(kMsprobe,
           "msprobe/pytorch/api_accuracy_checker/compare/compare.py _compare_float_tensor")},
  };
  return all;
}

const StandardInfo *find_standard(std::string_view id) {
  for (const auto &s : standards())
    if (s.id == id) return &s;
  return nullptr;
}

std::string thresholds(std::string_view id, DType t) {
  const bool low = is_half(t) || is_bf16(t);
  if (id == "ttk-mixed") {
    const auto m = ttk_mixed_tolerance(t);
    return fmt::format(
        "element ok: |a-g| <= {} + {} |g| (both NaN, or inf of one sign, ok); pass: "
        ">= 99% ok and max |a-g| <= {} (a NaN/Inf mismatch is unbounded)",
        pow2(m.atol), pow2(m.rtol), g(m.max_abs_error_limit));
  }
  if (id == "ttk-stat_rel_err") {
    const double th = ttk_stat_rel_err_threshold(t);
    return fmt::format(
        "rel = |a-g|/(|g|+1e-7); MERE < {} and MARE < 10x that; any NaN/Inf mismatch fails",
        pow2(th));
  }
  if (id == "ttk-close")
    return fmt::format("|a-g| <= 1e-8 + {} |g| (isclose, equal_nan); fail share <= {}",
                       low ? "1e-3" : "1e-4", low ? "1e-3" : "1e-4");
  if (id == "ttk-cosine") return "1 - cos(a, g) <= 0.01 (NaN, inf or a zero vector fails)";
  if (id == "ttk-binary") return "bitwise equal to the value of record (both NaN excused)";
  if (id.rfind("ttk-cross_check-L", 0) == 0) {
    const auto l = ttk_cross_check_level(id.back() - '0');
    const auto sv = ttk_small_value(t);
    return fmt::format(
        "against the reference device: mare/mere/rmse ratios <= {}/{}/{} for |g| >= {} "
        "(denominators >= {}); small-value errors (|err| > {}) <= 2x; NaN/Inf as the "
        "reference or the golden",
        g(l.mare), g(l.mere), g(l.rmse), pow2(sv.small_value), pow2(sv.small_value), pow2(sv.atol));
  }
  if (id == "msprobe-benchmark")
    return fmt::format(
        "SUT/reference ratios (denominator >= {}): small-value error share <= 2 (|bench| <= {}, "
        "|err| > {}), RMSE <= 2, max rel <= 10, mean rel <= 2 (EB not counted)",
        pow2(ms_minimum_err(t)), pow2(ms_small_value(t)), g(ms_benchmark_atol(t)));
  if (id == "msprobe-absolute_threshold")
    return fmt::format(
        "no element off: rel err > {} where |bench| > {}, |err| > {} where |bench| <= {}, "
        "inf/NaN clipped to the dtype's range and judged by rel err",
        pow2(ms_rtol(t)), pow2(ms_small_value(t)), g(ms_threshold_atol(t)),
        pow2(ms_small_value(t)));
  if (id == "msprobe-ulp_compare")
    return is_fp32(t) ? "mean ulp error < 64, or share above 32 ulp < 0.05, or that share < the "
                        "reference's"
                      : "share above 1 ulp < 0.001, or that share < the reference's";
  if (id == "msprobe-binary_consistency")
    return "every element equal to the value of record (NaN never equal)";
  if (id == "msprobe-thousandth_threshold") return "share of elements with rel err < 1e-3 >= 0.999";
  if (id == "msprobe-precheck")
    return low ? "cosine > 0.99; then max |err| < 0.001 passes; else rel err < 1e-2 share > 0.99 "
                 "(else "
                 "ERROR), < 1e-3 share > 0.999 (else WARNING)"
               : "cosine > 0.99; then max |err| < 0.001 passes; else rel err < 1e-3 share > 0.999 "
                 "(else "
                 "ERROR), < 1e-4 share > 0.9999 (else WARNING)";
  return "";
}

StandardOutcome evaluate(std::string_view id, const KitOutput &o) {
  if (!find_standard(id))
    throw std::invalid_argument("no kit standard named '" + std::string(id) + "'");
  if (o.got.empty()) return not_judged("no elements");
  if (id == "ttk-mixed") return ttk_mixed(o);
  if (id == "ttk-stat_rel_err") return ttk_stat_rel_err(o);
  if (id == "ttk-close") return ttk_close(o);
  if (id == "ttk-cosine") return ttk_cosine(o);
  if (id == "ttk-binary") return ttk_binary(o);
  if (id == "ttk-cross_check-L0") return ttk_cross_check(o, 0);
  if (id == "ttk-cross_check-L1") return ttk_cross_check(o, 1);
  if (id == "ttk-cross_check-L2") return ttk_cross_check(o, 2);
  if (id == "msprobe-benchmark") return ms_benchmark(o);
  if (id == "msprobe-absolute_threshold") return ms_absolute_threshold(o);
  if (id == "msprobe-ulp_compare") return ms_ulp_compare(o);
  if (id == "msprobe-binary_consistency") return ms_binary_consistency(o);
  if (id == "msprobe-thousandth_threshold") return ms_thousandth(o);
  return ms_precheck(o);
}

KitValues kit_values(const ExpectedOutput &e, const TensorView &got, const TensorView *reference) {
  KitValues v;
  v.dtype = e.values.dtype;
  const int64_t n = e.values.numel();
  const bool have_exact = static_cast<int64_t>(e.exact_nearest.size()) == n;
  v.got.resize(static_cast<size_t>(n));
  v.exact.resize(static_cast<size_t>(n));
  v.record.resize(static_cast<size_t>(n));
  if (reference) v.reference.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const auto i = static_cast<size_t>(k);
    v.record[i] = e.values.at(k);
    v.exact[i] = have_exact ? e.exact_nearest[i] : v.record[i];
    v.got[i] = got.at(k);
    if (reference) v.reference[i] = reference->at(k);
  }
  return v;
}

}  // namespace aclnn_ref::kits
