#include "campaign/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "campaign/report.hpp"
#include "reference/compare.hpp"

namespace aclnn_conform {

std::string histogram_svg(const AccuracyStats &a, bool decides) {
  constexpr int kBarW = 44, kGap = 6, kLeft = 8, kTop = 18, kPlotH = 120;
  constexpr int kW = kLeft * 2 + aclnn_ref::kBucketCount * (kBarW + kGap), kH = kTop + kPlotH + 34;
  int64_t max = 0;
  for (int64_t v : a.histogram) max = std::max(max, v);
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{}\">\n",
      kW, kH, kW, kH, html_escape("ULP error histogram of " + a.op + " " + a.dtype));
  s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>\n", kLeft,
                   kTop + kPlotH, kW - kLeft, kTop + kPlotH);
  for (int b = 0; b < aclnn_ref::kBucketCount; ++b) {
    const int64_t v = a.histogram[static_cast<size_t>(b)];
    // Log scale: counts span many decades.
    const double frac = max > 0 ? std::log10(1.0 + static_cast<double>(v)) /
                                      std::log10(1.0 + static_cast<double>(max))
                                : 0;
    const int bh = v > 0 ? std::max(1, static_cast<int>(std::lround(frac * kPlotH))) : 0;
    const int x = kLeft + b * (kBarW + kGap);
    const char *color = !decides                  ? "#9e9e9e"
                        : b == aclnn_ref::kBClass ? "#c0392b"
                        : b <= aclnn_ref::kB1     ? "#2e86c1"
                        : b <= aclnn_ref::kB4     ? "#f39c12"
                                                  : "#c0392b";
    s += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} ulps: {}"
        "</title></rect>\n",
        x, kTop + kPlotH - bh, kBarW, bh, color, html_escape(aclnn_ref::bucket_label(b)), v);
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x + kBarW / 2,
                     kTop + kPlotH - bh - 4, v);
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x + kBarW / 2,
                     kTop + kPlotH + 14, html_escape(aclnn_ref::bucket_label(b)));
  }
  s += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">ulps, ascending (bar height: log scale)"
      "</text>\n",
      kW / 2, kTop + kPlotH + 30);
  s += "</svg>";
  return s;
}

namespace {

// A monotone axis mapping data to [0, 1]: linear, log10, or symmetric log (sign * log10(1 + |v|))
// when values span decades on both sides of zero.
struct Axis {
  enum Kind { kLinear, kLog, kSymlog } kind = kLinear;
  double lo = 0, hi = 1;
  double f(double v) const {
    switch (kind) {
      case kLog:
        return std::log10(std::max(v, 1e-300));
      case kSymlog:
        return std::copysign(std::log10(1 + std::fabs(v)), v);
      case kLinear:
        break;
    }
    return v;
  }
  double at(double v) const { return hi > lo ? (f(v) - lo) / (hi - lo) : 0.5; }
};

Axis fit(double min, double max, Axis::Kind kind) {
  Axis a;
  a.kind = kind;
  a.lo = a.f(min);
  a.hi = a.f(max);
  if (a.hi <= a.lo) {
    a.lo -= 1;
    a.hi += 1;
  }
  return a;
}

std::string tick_label(double v) {
  if (v == 0) return "0";
  const double e = std::log10(std::fabs(v));
  if (std::fabs(e - std::round(e)) < 1e-9 && std::fabs(e) >= 3)
    return fmt::format("{}1e{}", v < 0 ? "-" : "", static_cast<int>(std::round(e)));
  return fmt::format("{:g}", v);
}

// Tick values: powers of ten for log axes (and their negatives for symlog), else five steps.
std::vector<double> ticks(const Axis &a, double min, double max) {
  std::vector<double> t;
  if (a.kind == Axis::kLinear) {
    for (int i = 0; i <= 4; ++i) t.push_back(min + (max - min) * i / 4);
    return t;
  }
  const int step_hint = 1;
  for (int e = -300; e <= 300; e += step_hint) {
    const double p = std::pow(10.0, e);
    if (a.kind == Axis::kLog && p >= min && p <= max) t.push_back(p);
    if (a.kind == Axis::kSymlog) {
      if (p >= 1 && p <= max) t.push_back(p);
      if (p >= 1 && -p >= min) t.push_back(-p);
    }
  }
  if (a.kind == Axis::kSymlog && min <= 0 && max >= 0) t.push_back(0);
  // At most about eight labels.
  std::sort(t.begin(), t.end());
  if (t.size() > 8) {
    std::vector<double> thin;
    const size_t every = (t.size() + 7) / 8;
    for (size_t i = 0; i < t.size(); i += every) thin.push_back(t[i]);
    t = thin;
  }
  return t;
}

}  // namespace

std::string scatter_svg(const PrecisionStats &p, double bound_ulps) {
  if (p.axis.empty() || (p.samples.empty() && p.worst.empty())) return "";
  constexpr int kW = 460, kH = 230, kL = 56, kR = 12, kT = 14, kB = 40;
  constexpr int kPW = kW - kL - kR, kPH = kH - kT - kB;
  const bool cond = p.axis == "condition number";
  double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
  for (const auto *v : {&p.samples, &p.worst})
    for (const auto &s : *v) {
      xmin = std::min(xmin, s.x);
      xmax = std::max(xmax, s.x);
      ymax = std::max(ymax, s.ulps);
    }
  ymax = std::max({ymax, bound_ulps, 1.0});
  // The x range holds the middle 98% of the sample: a few inputs of 1e38 would otherwise squeeze
  // the region where the error lives; points beyond are drawn on the edge.
  bool clipped = false;
  if (!cond && p.samples.size() >= 50) {
    std::vector<double> xs;
    for (const auto &smp : p.samples) xs.push_back(smp.x);
    std::sort(xs.begin(), xs.end());
    const double lo = xs[xs.size() / 100], hi = xs[xs.size() - 1 - xs.size() / 100];
    if (hi > lo && (lo > xmin || hi < xmax)) {
      clipped = true;
      xmin = lo;
      xmax = hi;
    }
  }
  Axis::Kind xk = Axis::kLinear;
  if (cond)
    xk = Axis::kLog;
  else if (std::max(std::fabs(xmin), std::fabs(xmax)) > 16)
    xk = Axis::kSymlog;
  if (cond) xmin = std::max(xmin, 1e-300);
  const Axis xa = fit(xmin, xmax, xk);
  // y: symmetric log of ulps, so 0 stays on the chart.
  const Axis ya = fit(0, ymax, Axis::kSymlog);
  auto X = [&](double v) { return kL + std::clamp(xa.at(v), 0.0, 1.0) * kPW; };
  auto Y = [&](double v) { return kT + (1 - ya.at(v)) * kPH; };
  const std::string what = cond ? "condition number sum|terms| / |exact| (log scale)"
                                : p.axis.substr(p.axis.find(' ') + 1) + " (input value" +
                                      (xk == Axis::kSymlog ? ", symmetric log scale" : "") +
                                      (clipped ? "; outer 1% each side on the edges)" : ")");
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{}\">\n",
      kW, kH, kW, kH, html_escape("error in ulps against " + what + " of " + p.op + " " + p.dtype));
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" stroke=\"#bbb\"/>\n", kL,
      kT, kPW, kPH);
  for (double t : ticks(xa, xmin, xmax)) {
    const double x = X(t);
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#e3e3e3\"/>"
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
        x, kT, x, kT + kPH, x, kT + kPH + 13, html_escape(tick_label(t)));
  }
  for (double t : ticks(ya, 0, ymax)) {
    const double y = Y(t);
    s += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#e3e3e3\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        kL, y, kL + kPW, y, kL - 4, y + 3, html_escape(tick_label(t)));
  }
  if (bound_ulps > 0)
    s += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#c0392b\" "
        "stroke-dasharray=\"4 3\"><title>bound: {} ulps</title></line>\n",
        kL, Y(bound_ulps), kL + kPW, Y(bound_ulps), bound_ulps);
  s += "<g fill=\"#2e86c1\" fill-opacity=\"0.6\">";
  for (const auto &smp : p.samples)
    s += fmt::format("<circle cx=\"{:.0f}\" cy=\"{:.0f}\" r=\"2\"/>", X(smp.x), Y(smp.ulps));
  s += "</g>\n";
  for (const auto &smp : p.worst)
    s += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"#c0392b\"><title>x = {:.6g}, "
        "{:.4g} ulps</title></circle>\n",
        X(smp.x), Y(smp.ulps), smp.x, smp.ulps);
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", kL + kPW / 2,
                   kH - 6, html_escape(what));
  s += fmt::format(
      "<text x=\"12\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 12 {})\">"
      "ulps vs exact (symlog)</text>\n",
      kT + kPH / 2, kT + kPH / 2);
  s += "</svg>";
  return s;
}

}  // namespace aclnn_conform
