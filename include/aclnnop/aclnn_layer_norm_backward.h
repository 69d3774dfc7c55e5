/* aclnn-conform: the vendor's aclnn_layer_norm_backward.h, exact names and signatures (spec layer_norm_backward.md). */
#ifndef OP_API_INC_LAYER_NORM_BACKWARD_H_
#define OP_API_INC_LAYER_NORM_BACKWARD_H_

#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape,
    const aclTensor *mean, const aclTensor *rstd, const aclTensor *weightOptional,
    const aclTensor *biasOptional, const aclBoolArray *outputMask, aclTensor *gradInputOut,
    aclTensor *gradWeightOut, aclTensor *gradBiasOut, uint64_t *workspaceSize,
    aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnLayerNormBackward(void *workspace, uint64_t workspaceSize,
                                             aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LAYER_NORM_BACKWARD_H_ */
