/* aclnn-conform: entry header of the vendor's runtime, as the call examples include it. */
#ifndef ACL_ACL_H_
#define ACL_ACL_H_

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"

#endif /* ACL_ACL_H_ */
