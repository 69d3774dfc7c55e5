// Inline SVG charts for the HTML report: no scripts, no external resources, text escaped.
#pragma once

#include <string>

#include "campaign/result.hpp"

namespace aclnn_conform {

// The ULP-error histogram of an accuracy row, bins in ascending order of error (0, <=0.5, 1, 2,
// 3-4, 5-16, 17-256, >256, then class mismatches). decides=false draws grey bars: the row's
// ulps are information only (sums, --policy ascend).
std::string histogram_svg(const AccuracyStats &a, bool decides);

// Error (ulps against the exact value, log scale) against PrecisionStats::axis: the input value
// for elementwise ops, the condition number (log scale) for sums. Sampled points in blue, the
// largest errors in red, the ulp bound as a dashed line (bound_ulps <= 0: none). "" when the
// row has no samples or no axis.
std::string scatter_svg(const PrecisionStats &p, double bound_ulps);

}  // namespace aclnn_conform
