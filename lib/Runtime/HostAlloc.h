//===- HostAlloc.h - Aligned host memory (internal) ------------*- C++ -*-===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_RUNTIME_HOSTALLOC_H
#define DLBRIDGE_LIB_RUNTIME_HOSTALLOC_H

#include <cstddef>

namespace dlrt {
/// The alignment every host buffer of the runtime has at least.
constexpr size_t kHostAlignment = 64;
/// Buffers this large are aligned to, and advised as, transparent huge pages.
constexpr size_t kHugePageThreshold = size_t(4) << 20;
constexpr size_t kHugePageBytes = size_t(2) << 20;

/// free()-compatible memory of at least `bytes` (1 when 0) aligned to
/// max(`alignment`, kHostAlignment); `alignment` must be a power of two.
/// NULL when out of memory or `alignment` is not a power of two.
void *allocateHost(size_t bytes, size_t alignment);
} // namespace dlrt

#endif // DLBRIDGE_LIB_RUNTIME_HOSTALLOC_H
