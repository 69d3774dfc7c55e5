/* aclnn-conform: the vendor's aclnn_logit_grad.h, exact names and signatures (spec logit_grad.md). */
#ifndef OP_API_INC_LOGIT_GRAD_H_
#define OP_API_INC_LOGIT_GRAD_H_

#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `out` is declared const, as in the vendor header, but it is the output. */
ACLNN_API aclnnStatus aclnnLogitGradGetWorkspaceSize(const aclTensor *x, const aclTensor *dy,
                                                     double eps, const aclTensor *out,
                                                     uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnLogitGrad(void *workspace, uint64_t workspaceSize,
                                     aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LOGIT_GRAD_H_ */
