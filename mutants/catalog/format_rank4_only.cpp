// format_rank4_only: aclCreateTensor refuses NCHW and NHWC tensors whose rank is not 4 (the
// format is checked, against ABI-FORMAT-1).
#include "mutants/shim.hpp"

namespace mutant {
aclTensor *on_create_tensor(const View &v, aclTensor *made) {
  static auto destroy = real<decltype(&aclDestroyTensor)>("aclDestroyTensor");
  if (made && (v.format == ACL_FORMAT_NCHW || v.format == ACL_FORMAT_NHWC) && v.dims.size() != 4) {
    destroy(made);
    return nullptr;
  }
  return made;
}
}  // namespace mutant
