/* aclnn-conform: the runtime status codes the vendor's acl_base.h passes through (the vendor's
 * acl/error_codes/rt_error_codes.h), as far as this CPU runtime returns them. */
#ifndef ACL_ERROR_CODES_RT_ERROR_CODES_H_
#define ACL_ERROR_CODES_RT_ERROR_CODES_H_

#define ACL_RT_SUCCESS 0
#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define ACL_ERROR_RT_CONTEXT_NULL 107002

#endif /* ACL_ERROR_CODES_RT_ERROR_CODES_H_ */
