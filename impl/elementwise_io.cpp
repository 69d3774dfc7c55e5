#include "impl/elementwise_io.hpp"

#include <algorithm>
#include <cstring>

#include "impl/dtype.hpp"
#include "impl/exact_arith.hpp"
#include "impl/simd.hpp"

namespace aclnn_cpu::ew {

OutKind out_kind(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
      return OutKind::kF32;
    case ACL_FLOAT16:
      return OutKind::kF16;
    case ACL_BF16:
      return OutKind::kBF16;
    default:
      return OutKind::kF64;
  }
}

namespace {

// One element of dtype t as its exact value (int64: rounds like the integer itself, see
// int64_sticky), then rounded once to the computation dtype.
float load_one(const char *p, aclDataType t, aclDataType comp) {
  double v;
  if (t == ACL_INT64) {
    int64_t i;
    std::memcpy(&i, p, 8);
    v = int64_sticky(i);
  } else {
    v = load_as_double(p, t);
  }
  switch (comp) {
    case ACL_FLOAT16:
      return half_to_float(double_to_half(v));
    case ACL_BF16:
      return bf16_to_float(double_to_bf16(v));
    default:
      return static_cast<float>(v);
  }
}

}  // namespace

const float *load_comp(const char *p, int64_t stride, aclDataType src, aclDataType comp, int64_t n,
                       float *buf) {
  const auto es = static_cast<int64_t>(dtype_size(src));
  if (stride == es) {
    // A float dtype never promotes to a narrower computation dtype, so these are exact.
    if (src == ACL_FLOAT && comp == ACL_FLOAT) return reinterpret_cast<const float *>(p);
    if (src == ACL_FLOAT16 && comp != ACL_BF16) {
      simd::f16_to_f32(reinterpret_cast<const uint16_t *>(p), buf, static_cast<size_t>(n));
      return buf;
    }
    if (src == ACL_BF16 && comp != ACL_FLOAT16) {
      simd::bf16_to_f32(reinterpret_cast<const uint16_t *>(p), buf, static_cast<size_t>(n));
      return buf;
    }
  }
  if (stride == 0) {
    std::fill(buf, buf + n, load_one(p, src, comp));
    return buf;
  }
  // Strided runs of a float dtype that converts exactly: typed loops (no per-element switch).
  if (src == ACL_FLOAT && comp == ACL_FLOAT) {
    for (int64_t i = 0; i < n; ++i) std::memcpy(&buf[i], p + i * stride, 4);
    return buf;
  }
  if ((src == ACL_FLOAT16 && comp != ACL_BF16) || (src == ACL_BF16 && comp != ACL_FLOAT16)) {
    for (int64_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, p + i * stride, 2);
      buf[i] = src == ACL_FLOAT16 ? half_to_float(h) : bf16_to_float(h);
    }
    return buf;
  }
  for (int64_t i = 0; i < n; ++i) buf[i] = load_one(p + i * stride, src, comp);
  return buf;
}

BlockInputs load_pair(const char *pa, int64_t sa, aclDataType ta, const char *pb, int64_t sb,
                      aclDataType tb, aclDataType comp, int64_t n, float *buf_a, float *buf_b) {
  const auto es = static_cast<int64_t>(dtype_size(comp));
  if (ta == comp && tb == comp && sa == es && sb == es && comp != ACL_FLOAT)
    return {pa, pb, static_cast<int>(out_kind(comp))};
  return {load_comp(pa, sa, ta, comp, n, buf_a), load_comp(pb, sb, tb, comp, n, buf_b), 1};
}

void store_strided(char *p, int64_t stride, aclDataType t, int64_t n, const double *v) {
  // Rounded as a contiguous block by the vectorised conversions, then scattered.
  alignas(64) unsigned char tmp[kBlock * 4];
  for (int64_t done = 0; done < n; done += kBlock) {
    const int64_t m = std::min(kBlock, n - done);
    const auto count = static_cast<size_t>(m);
    size_t es = 2;
    if (t == ACL_FLOAT) {
      simd::f64_to_f32(v + done, reinterpret_cast<float *>(tmp), count);
      es = 4;
    } else if (t == ACL_FLOAT16) {
      simd::f64_to_f16(v + done, reinterpret_cast<uint16_t *>(tmp), count);
    } else if (t == ACL_BF16) {
      simd::f64_to_bf16(v + done, reinterpret_cast<uint16_t *>(tmp), count);
    } else {
      for (int64_t i = 0; i < m; ++i) store_from_double(p + (done + i) * stride, t, v[done + i]);
      continue;
    }
    for (int64_t i = 0; i < m; ++i) std::memcpy(p + (done + i) * stride, tmp + i * es, es);
  }
}

void store_strided(char *p, int64_t stride, int64_t n, const float *v) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(p + i * stride, &v[i], sizeof(float));
}

}  // namespace aclnn_cpu::ew
