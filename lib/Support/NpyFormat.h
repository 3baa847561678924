//===- NpyFormat.h - The .npy layout, shared --------------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_SUPPORT_NPYFORMAT_H
#define DLBRIDGE_LIB_SUPPORT_NPYFORMAT_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dlbridge::npy {

/// Every `.npy` file starts with these bytes, then a major and minor version
/// byte, the header length (uint16 little-endian for 1.0, uint32 for 2.0 and
/// 3.0), then a Python dict literal with the keys 'descr', 'fortran_order'
/// and 'shape', padded with spaces and ended by '\n', then the raw data.
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

/// Number of elements of `shape`, or -1 on overflow (or a negative dim).
inline int64_t countElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t dim : shape)
    if (dim < 0 || __builtin_mul_overflow(n, dim, &n))
      return -1;
  return n;
}

/// Whether the bytes of `shape`'s non-zero dims overflow int64: NumPy
/// refuses such shapes even when a 0 dim makes them empty, and their
/// strides would overflow.
inline bool extentOverflows(const std::vector<int64_t> &shape,
                            int64_t elementBytes) {
  for (int64_t dim : shape)
    if (dim != 0 && __builtin_mul_overflow(elementBytes, dim, &elementBytes))
      return true;
  return false;
}

} // namespace dlbridge::npy

#endif // DLBRIDGE_LIB_SUPPORT_NPYFORMAT_H
