/* aclnn-conform: the vendor's aclnn_selu_backward.h, exact names and signatures (spec selu_backward.md). */
#ifndef OP_API_INC_SELU_BACKWARD_H_
#define OP_API_INC_SELU_BACKWARD_H_

#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSeluBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                          const aclTensor *result,
                                                          aclTensor *gradInput,
                                                          uint64_t *workspaceSize,
                                                          aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSeluBackward(void *workspace, uint64_t workspaceSize,
                                        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SELU_BACKWARD_H_ */
