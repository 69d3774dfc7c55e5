// tensor_storage_unchecked: aclCreateTensor does not check that the view fits its storage; such
// a tensor is made (with the storage taken as large as the view needs).
#include <vector>

#include "mutants/shim.hpp"

namespace mutant {
aclTensor *on_create_tensor(const View &v, aclTensor *made) {
  if (made || !v.data) return made;
  int64_t extent = v.offset + 1;
  for (size_t i = 0; i < v.dims.size(); ++i) {
    if (v.dims[i] < 0 || v.strides[i] < 0) return made;
    if (v.dims[i] == 0) return made;
    extent += (v.dims[i] - 1) * v.strides[i];
  }
  if (v.offset < 0 || v.dims.size() > 8) return made;
  return real_tensor(v.dims, v.strides, v.offset, v.dtype, {extent}, v.data);
}
}  // namespace mutant
