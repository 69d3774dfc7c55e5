/* aclnn-conform: the vendor's aclnn_grouped_bias_add_grad.h, exact names and signatures (spec grouped_bias_add_grad.md). */
#ifndef OP_API_INC_GROUPED_BIAS_ADD_GRAD_H_
#define OP_API_INC_GROUPED_BIAS_ADD_GRAD_H_

#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupedBiasAddGradGetWorkspaceSize(const aclTensor *gradY,
                                                                const aclTensor *groupIdxOptional,
                                                                aclTensor *out,
                                                                uint64_t *workspaceSize,
                                                                aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGroupedBiasAddGrad(void *workspace, uint64_t workspaceSize,
                                              aclOpExecutor *executor, aclrtStream stream);

/* V1 is V2 with groupIdxType = 0 (0: end offsets, 1: group sizes). */
ACLNN_API aclnnStatus aclnnGroupedBiasAddGradV2GetWorkspaceSize(const aclTensor *gradY,
                                                                  const aclTensor *groupIdxOptional,
                                                                  int64_t groupIdxType,
                                                                  aclTensor *out,
                                                                  uint64_t *workspaceSize,
                                                                  aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGroupedBiasAddGradV2(void *workspace, uint64_t workspaceSize,
                                                aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_GROUPED_BIAS_ADD_GRAD_H_ */
