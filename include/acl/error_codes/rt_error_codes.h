/* aclnn-conform: the runtime status codes the vendor's acl_base.h passes through (the vendor's
 * acl/error_codes/rt_error_codes.h, values as in hicann/runtime
 * include/external/acl/error_codes/rt_error_codes.h), as far as this CPU runtime or the device
 * emulation (tests/device/, docs/device-emulation.md) returns them. */
#ifndef ACL_ERROR_CODES_RT_ERROR_CODES_H_
#define ACL_ERROR_CODES_RT_ERROR_CODES_H_

#define ACL_RT_SUCCESS 0
#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#define ACL_ERROR_RT_STREAM_CONTEXT 107003     /* stream not in current context */
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001  /* out of device memory */
#define ACL_ERROR_RT_LOST_HEARTBEAT 507010     /* the device stopped answering (dead device) */
#define ACL_ERROR_RT_AICORE_EXCEPTION 507015   /* a kernel faulted (e.g. an address it can't reach) */
#define ACL_ERROR_RT_DRV_INTERNAL_ERROR 507899 /* driver error (e.g. a forked child's calls) */

#endif /* ACL_ERROR_CODES_RT_ERROR_CODES_H_ */
