/* A C program using the installed headers and library: the ABI is usable from C. */
#include <stdio.h>

#include "acl/acl.h"
/* The vendor's include forms: aclnn::cpu exports include/aclnnop, and acl_base.h has every
 * status name its examples use. */
#include "aclnn_selu_backward.h"
#include "aclnnop/aclnn_gelu_backward.h"

typedef char acl_error_failure_is_500001[ACL_ERROR_FAILURE == 500001 ? 1 : -1];

int main(void) {
  void *p = NULL;
  if (aclInit(NULL) != ACL_SUCCESS) return 1;
  if (aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 2;
  const int64_t dims[2] = {4, 4}, strides[2] = {4, 1};
  aclTensor *t = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, p);
  if (t == NULL) return 3;
  aclDestroyTensor(t);
  aclrtFree(p);
  aclFinalize();
  printf("installed package works\n");
  return 0;
}
