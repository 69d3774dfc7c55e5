#include "impl/checks.hpp"

#include "impl/dtype.hpp"

namespace aclnn_cpu {

aclnnStatus check_phase_one_outputs(const char *op, const uint64_t *workspaceSize,
                                    aclOpExecutor *const *executor) {
  clear_error();
  if (workspaceSize == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, op, "workspaceSize is NULL");
  if (executor == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, op, "executor is NULL");
  return ACLNN_SUCCESS;
}

aclnnStatus check_soc(const char *op, Soc &soc) {
  const auto s = current_soc();
  if (!s)
    return fail(ACLNN_ERR_RUNTIME_ERROR, op,
                "ACLNN_CPU_SOC names no known product (ascend910b, ascend910_93, ascend910, "
                "ascend310p)");
  soc = *s;
  return ACLNN_SUCCESS;
}

aclnnStatus check_not_null(const char *op, const char *name, const void *p) {
  if (p == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, op, "{} is NULL", name);
  return ACLNN_SUCCESS;
}

aclnnStatus check_rank(const char *op, const char *name, const aclTensor &t, int lo, int hi) {
  const int r = rank(t);
  if (r < lo || r > hi)
    return fail(ACLNN_ERR_PARAM_INVALID, op, "{} has rank {} (shape {}); it must be {} to {}", name,
                r, shape_str(t.view_dims), lo, hi);
  return ACLNN_SUCCESS;
}

aclnnStatus check_data(const char *op, const char *name, const aclTensor &t) {
  if (numel(t) > 0 && t.data == nullptr)
    return fail(ACLNN_ERR_PARAM_NULLPTR, op, "{} has {} elements but its data is NULL", name,
                numel(t));
  return ACLNN_SUCCESS;
}

aclnnStatus check_output(const char *op, const char *name, const aclTensor &out,
                         std::initializer_list<std::pair<const char *, const aclTensor *>> others,
                         bool allow_inplace) {
  if (has_internal_overlap(out))
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "{} (shape {}, strides {}) maps distinct indices to one element; an output view "
                "must not overlap itself",
                name, shape_str(out.view_dims), shape_str(out.strides));
  for (auto [other_name, other] : others) {
    if (other == nullptr || !views_overlap(out, *other)) continue;
    if (allow_inplace && same_view(out, *other)) continue;
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "{} overlaps {} in memory{}", name, other_name,
                allow_inplace ? " without being exactly its view (in-place use needs the same view)"
                              : "; outputs must not share storage with inputs or other outputs");
  }
  return ACLNN_SUCCESS;
}

}  // namespace aclnn_cpu
