//===- HostAlloc.cpp - Aligned, free()-compatible host memory
//--------------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// Host buffers come from aligned_alloc so that whoever ends up owning them
// (a result deleter, generated code's free, a C user) may release them with
// plain free().
//
//===----------------------------------------------------------------------===//

#include "HostAlloc.h"

#include "dlbridge/Runtime/dlrt.h"

#include <cstdint>
#include <cstdlib>
#include <sys/mman.h>

void *dlrt::allocateHost(size_t bytes, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return nullptr;
  if (alignment < kHostAlignment)
    alignment = kHostAlignment;
  // aligned_alloc wants a multiple of the alignment, and 0 bytes may give
  // NULL; round up, refusing sizes whose rounding would wrap.
  if (bytes > SIZE_MAX - (alignment - 1))
    return nullptr;
  size_t rounded = (bytes + alignment - 1) & ~(alignment - 1);
  if (rounded == 0)
    rounded = alignment;
  if (rounded < kHugePageThreshold)
    return std::aligned_alloc(alignment, rounded);
  // Large buffers are fresh pages, faulted in one 4 KiB page at a time
  // unless transparent huge pages back them: align them to huge pages and
  // ask for them, as NumPy does (a no-op where THP is off).
  if (rounded > SIZE_MAX - (kHugePageBytes - 1))
    return nullptr;
  rounded = (rounded + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  void *memory = std::aligned_alloc(
      alignment > kHugePageBytes ? alignment : kHugePageBytes, rounded);
  if (memory)
    madvise(memory, rounded, MADV_HUGEPAGE);
  return memory;
}

extern "C" {

void *dlrt_host_alloc(size_t bytes) {
  void *memory = dlrt::allocateHost(bytes, dlrt::kHostAlignment);
  if (!memory)
    dlrt_set_error(nullptr, DLRT_ERR_OUT_OF_MEMORY,
                   "out of host memory allocating %zu bytes", bytes);
  return memory;
}

void dlrt_host_free(void *ptr) { std::free(ptr); }

} // extern "C"
