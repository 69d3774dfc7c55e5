/* A C program using the installed headers and library: the ABI is usable from C. */
#include <stdio.h>

#include "acl/acl.h"

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
