#include "properties/transform.hpp"

#include "properties/gen.hpp"
#include "properties/shape_math.hpp"

namespace aclnn_conform {

TensorArg materialise(const TensorArg &a, const std::vector<int64_t> &to) {
  TensorArg m = TensorArg::contiguous(a.dtype, to);
  const int64_t n = m.numel();
  for (int64_t i = 0; i < n; ++i) m.set_bits_at(i, a.bits_at(broadcast_source(a.shape, to, i)));
  return m;
}

TensorArg map_values(const TensorArg &a, const std::function<double(double)> &f) {
  TensorArg m = a;
  const auto v = a.view();
  for (int64_t i = 0; i < a.numel(); ++i) m.set_bits_at(i, gen::bits_of(f(v.at(i)), a.dtype));
  return m;
}

std::vector<double> view_values(const TensorArg &layout, const std::vector<std::byte> &storage) {
  const aclnn_ref::TensorView v{layout.dtype, layout.shape, layout.strides, layout.offset,
                                storage.data()};
  std::vector<double> out(static_cast<size_t>(layout.numel()));
  for (int64_t i = 0; i < layout.numel(); ++i) out[static_cast<size_t>(i)] = v.at(i);
  return out;
}

}  // namespace aclnn_conform
