/* aclnn-conform: shared macros of the aclnnop headers. */
#ifndef ACLNNOP_ACLNN_UTIL_H_
#define ACLNNOP_ACLNN_UTIL_H_

#include "acl/acl_base.h"

#define ACLNN_API ACL_FUNC_VISIBILITY

#endif /* ACLNNOP_ACLNN_UTIL_H_ */
