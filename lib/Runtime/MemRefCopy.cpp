//===- MemRefCopy.cpp - memref.copy between arbitrary layouts -------------===//
//
// Part of dlbridge. `memref.copy` between non-contiguous memrefs lowers to a
// call to `memrefCopy`, which upstream ships in libmlir_c_runner_utils. The
// runtime must not depend on MLIR, so it provides the function itself, with
// the same ABI.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <cstring>

namespace {
/// MLIR's ranked memref descriptor: allocated, aligned, offset, then `rank`
/// sizes and `rank` strides.
struct Descriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
};

void copyDims(int64_t rank, int64_t dim, const int64_t *sizes,
              const int64_t *srcStrides, const int64_t *dstStrides,
              const char *src, char *dst, int64_t elementBytes) {
  if (dim == rank) {
    std::memcpy(dst, src, elementBytes);
    return;
  }
  for (int64_t i = 0; i < sizes[dim]; ++i)
    copyDims(rank, dim + 1, sizes, srcStrides, dstStrides,
             src + i * srcStrides[dim] * elementBytes,
             dst + i * dstStrides[dim] * elementBytes, elementBytes);
}
} // namespace

extern "C" DLRT_EXPORT void memrefCopy(int64_t elementBytes,
                                       dlrt_unranked_memref *source,
                                       dlrt_unranked_memref *target) {
  const int64_t rank = source->rank;
  const auto *src = static_cast<const Descriptor *>(source->descriptor);
  const auto *dst = static_cast<const Descriptor *>(target->descriptor);
  const int64_t *sizes = src->sizesAndStrides;
  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0)
      return;
  copyDims(rank, 0, sizes, src->sizesAndStrides + rank,
           dst->sizesAndStrides + rank,
           src->aligned + src->offset * elementBytes,
           dst->aligned + dst->offset * elementBytes, elementBytes);
}
