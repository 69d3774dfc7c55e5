// The fixed part of every repro program (campaign/repro.hpp): the vendor call examples' CHECK_RET
// and LOG_PRINT macros, the tensor record (ReproTensor, guards around every storage), the runtime's
// set-up, and the checks of guards, unchanged bytes and outputs against their values of record.
// A generated program includes <cmath>, <cstdint>, <cstdio>, <cstdlib>, <cstring>, <vector>,
// "acl/acl.h" and the op's header, then this text, then its main().
//
// Not compiled into the library: campaign/CMakeLists.txt embeds the text after the marker line
// below, byte for byte, as repro_detail::kPrelude; the test repro.prelude_compiles
// (tests/campaign/helpers/check_repro_prelude.cpp) compiles it against the vendor headers. The
// bytes are what every repro contains: not reformatted, and changed only on purpose.
// clang-format off
// ---- the prelude's text starts after this line ----
#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

namespace {

// Every storage sits between two guard regions filled with kCanary, so writes outside it show.
constexpr size_t kGuardBytes = 64;
constexpr unsigned char kCanary = 0xA5;

// One tensor argument: a view (shape, strides and offset in elements) over its own storage.
struct ReproTensor {
  const char *name;
  bool isOutput;
  aclDataType dataType;
  size_t elementSize;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int64_t offset;
  std::vector<unsigned char> storage;  // the storage's bytes before the call (little-endian)
  void *deviceAddr = nullptr;          // guard | storage | guard
  aclTensor *tensor = nullptr;
  std::vector<unsigned char> after;  // the storage's bytes after the call
  bool guardsIntact = true;
};

// A value of record and the interval of results accepted around it (NaN: any NaN).
struct Expected {
  uint64_t bits;
  double lo;
  double hi;
  double exact;  // the exact value nearest double (Ascend metrics)
};

int64_t GetShapeSize(const std::vector<int64_t> &shape) {
  int64_t shapeSize = 1;
  for (auto i : shape) {
    shapeSize *= i;
  }
  return shapeSize;
}

int Init(int32_t deviceId, aclrtStream *stream) {
  // 固定写法，资源初始化
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret);
            return ret);
  return 0;
}

// Copies the storage to the device (between guards) and creates the aclTensor over it.
// Returns 0, 1 if aclCreateTensor refused the view (a deviation, ABI-TENSOR-1), 2 on a runtime
// failure.
int CreateAclTensor(ReproTensor &t) {
  const size_t total = t.storage.size() + 2 * kGuardBytes;
  std::vector<unsigned char> host(total, kCanary);
  if (!t.storage.empty()) memcpy(host.data() + kGuardBytes, t.storage.data(), t.storage.size());
  // 调用aclrtMalloc申请device侧内存
  auto ret = aclrtMalloc(&t.deviceAddr, total, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return 2);
  // 调用aclrtMemcpy将host侧数据拷贝到device侧内存上
  ret = aclrtMemcpy(t.deviceAddr, total, host.data(), total, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return 2);
  // 调用aclCreateTensor接口创建aclTensor
  const int64_t storageDims[1] = {static_cast<int64_t>(t.storage.size() / t.elementSize)};
  t.tensor = aclCreateTensor(t.shape.data(), t.shape.size(), t.dataType, t.strides.data(),
                             t.offset, aclFormat::ACL_FORMAT_ND, storageDims, 1,
                             static_cast<unsigned char *>(t.deviceAddr) + kGuardBytes);
  CHECK_RET(t.tensor != nullptr,
            LOG_PRINT("DEVIATION (ABI-TENSOR-1): aclCreateTensor refused the valid view of %s\n",
                      t.name);
            return 1);
  return 0;
}

// Copies the storage back and checks the guards.
int ReadBack(ReproTensor &t) {
  const size_t total = t.storage.size() + 2 * kGuardBytes;
  std::vector<unsigned char> host(total, 0);
  auto ret = aclrtMemcpy(host.data(), total, t.deviceAddr, total, ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
            return 2);
  for (size_t i = 0; i < kGuardBytes; ++i) {
    if (host[i] != kCanary || host[total - 1 - i] != kCanary) t.guardsIntact = false;
  }
  t.after.assign(host.begin() + kGuardBytes, host.begin() + kGuardBytes + t.storage.size());
  return 0;
}

// Storage element of the row-major flat index of the view.
int64_t StorageIndex(const ReproTensor &t, int64_t flat) {
  int64_t pos = t.offset;
  for (size_t d = t.shape.size(); d-- > 0;) {
    pos += (flat % t.shape[d]) * t.strides[d];
    flat /= t.shape[d];
  }
  return pos;
}

// An element's bits; a complex128 element's real part only (no op computes on complex types).
uint64_t BitsAt(const ReproTensor &t, const std::vector<unsigned char> &storage, int64_t flat) {
  uint64_t bits = 0;
  memcpy(&bits, storage.data() + StorageIndex(t, flat) * t.elementSize,
         t.elementSize < sizeof bits ? t.elementSize : sizeof bits);
  return bits;
}

double Decode16(uint64_t h, int expBits) {
  const int mantBits = 15 - expBits;
  const int bias = (1 << (expBits - 1)) - 1;
  const int e = static_cast<int>(h >> mantBits) & ((1 << expBits) - 1);
  const int m = static_cast<int>(h) & ((1 << mantBits) - 1);
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (e == (1 << expBits) - 1) return m ? NAN : sign * HUGE_VAL;
  if (e == 0) return sign * std::ldexp(m, 1 - bias - mantBits);
  return sign * std::ldexp(m + (1 << mantBits), e - bias - mantBits);
}

// The value of an element's bits (exact for every dtype but 64-bit integers beyond 2^53).
double Decode(uint64_t bits, aclDataType dataType) {
  switch (dataType) {
    case ACL_FLOAT: {
      float f;
      uint32_t b = static_cast<uint32_t>(bits);
      memcpy(&f, &b, 4);
      return f;
    }
    case ACL_DOUBLE: {
      double d;
      memcpy(&d, &bits, 8);
      return d;
    }
    case ACL_FLOAT16:
      return Decode16(bits, 5);
    case ACL_BF16:
      return Decode16(bits, 8);
    case ACL_INT8:
      return static_cast<int8_t>(bits);
    case ACL_INT16:
      return static_cast<int16_t>(bits);
    case ACL_INT32:
      return static_cast<int32_t>(bits);
    case ACL_INT64:
      return static_cast<double>(static_cast<int64_t>(bits));
    case ACL_BOOL:
      return (bits & 0xff) != 0;
    default:
      return static_cast<double>(bits);
  }
}

// Checks that the bytes of t that the view does not cover (or all bytes, if wholeStorage) are
// as they were before the call.
int CheckUnchanged(const ReproTensor &t, bool wholeStorage) {
  std::vector<bool> covered(t.storage.size(), wholeStorage);
  const int64_t n = GetShapeSize(t.shape);
  for (int64_t i = 0; i < n && !wholeStorage; i++) {
    const size_t pos = static_cast<size_t>(StorageIndex(t, i)) * t.elementSize;
    for (size_t b = 0; b < t.elementSize; b++) covered[pos + b] = true;
  }
  for (size_t b = 0; b < t.storage.size(); b++) {
    if (!covered[b] == wholeStorage) continue;
    if (t.after[b] != t.storage[b]) {
      LOG_PRINT("DEVIATION (ABI-INPUT-1): %s %s was modified (first changed byte %zu)\n",
                t.isOutput ? "output" : "input", t.name, b);
      return 1;
    }
  }
  return 0;
}

void PrintElement(const char *what, uint64_t bits, double value, size_t elementSize) {
  LOG_PRINT("%s 0x%0*llx (%.9g)", what, static_cast<int>(elementSize * 2),
            static_cast<unsigned long long>(bits), value);
}

// Compares every element of an output view with its value of record. Returns 1 on a deviation.
[[maybe_unused]] int CheckOutput(const ReproTensor &t, const std::vector<Expected> &expected,
                                 bool ascend,
                double ascendT, int maxPrinted) {
  const int64_t n = GetShapeSize(t.shape);
  int64_t mismatches = 0;
  double relSum = 0;
  double mare = 0;
  for (int64_t i = 0; i < n; i++) {
    const Expected &e = expected[static_cast<size_t>(i)];
    const uint64_t gotBits = BitsAt(t, t.after, i);
    const double got = Decode(gotBits, t.dataType);
    const double want = Decode(e.bits, t.dataType);
    const bool classMismatch = std::isnan(want) != std::isnan(got) ||
                               (!std::isnan(want) && std::isinf(want) != std::isinf(got)) ||
                               (std::isinf(want) && std::isinf(got) && (want > 0) != (got > 0));
    bool bad = classMismatch;
    double rel = 0;
    if (classMismatch) {
      rel = HUGE_VAL;
    } else if (std::isfinite(want)) {
      rel = std::fabs(got - e.exact) / (std::fabs(e.exact) + 1e-7);
    }
    relSum += rel;
    if (rel > mare) mare = rel;
    if (!bad && std::isfinite(want)) {
      bad = ascend ? rel >= 10 * ascendT : !(e.lo <= got && got <= e.hi);
    }
    if (!bad) continue;
    if (mismatches++ < maxPrinted) {
      LOG_PRINT("%s[%lld]: ", t.name, static_cast<long long>(i));
      PrintElement("expected", e.bits, want, t.elementSize);
      PrintElement(", got", gotBits, got, t.elementSize);
      if (ascend) {
        LOG_PRINT(", rel %.6g >= 10T\n", rel);
      } else if (e.lo != e.hi && std::isfinite(want)) {
        LOG_PRINT(", accepted [%.9g, %.9g]\n", e.lo, e.hi);
      } else {
        LOG_PRINT("\n");
      }
    }
  }
  if (ascend) {
    const double mere = n > 0 ? relSum / static_cast<double>(n) : 0;
    LOG_PRINT("%s: MERE %.6g (T %.6g), MARE %.6g (10T %.6g)\n", t.name, mere, ascendT, mare,
              10 * ascendT);
    const bool classOk = mare != HUGE_VAL;
    if (mere < ascendT && mare < 10 * ascendT && classOk) return 0;
    LOG_PRINT("DEVIATION (VAL-TOL-1): %s fails the Ascend precision standard\n", t.name);
    return 1;
  }
  if (mismatches > 0) {
    LOG_PRINT("DEVIATION: %s has %lld of %lld elements outside the accepted range\n", t.name,
              static_cast<long long>(mismatches), static_cast<long long>(n));
    return 1;
  }
  return 0;
}

}  // namespace
