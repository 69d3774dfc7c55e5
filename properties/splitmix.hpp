// splitmix64's finaliser: the one hash the campaign derives its per-index choices and seeds from
// (task kinds and sizes, climb steps, seed mutations, sample keys), so that they agree everywhere.
#pragma once

#include <cstdint>

namespace aclnn_conform {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace aclnn_conform
