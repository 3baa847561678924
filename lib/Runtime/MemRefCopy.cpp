//===- MemRefCopy.cpp - memref.copy between arbitrary layouts -------------===//
//
// Part of dlbridge. `memref.copy` between non-contiguous memrefs lowers to a
// call to `memrefCopy`, which upstream ships in libmlir_c_runner_utils. The
// runtime must not depend on MLIR, so it provides the function itself, with
// the same ABI.
//
//===----------------------------------------------------------------------===//

#include "Layout.h"

namespace {
/// MLIR's ranked memref descriptor: allocated, aligned, offset, then `rank`
/// sizes and `rank` strides.
struct Descriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
};
} // namespace

extern "C" DLRT_EXPORT void memrefCopy(int64_t elementBytes,
                                       dlrt_unranked_memref *source,
                                       dlrt_unranked_memref *target) {
  const int64_t rank = source->rank;
  const auto *src = static_cast<const Descriptor *>(source->descriptor);
  const auto *dst = static_cast<const Descriptor *>(target->descriptor);
  dlrt::copyElements(
      static_cast<int32_t>(rank), src->sizesAndStrides, elementBytes,
      src->aligned + src->offset * elementBytes, src->sizesAndStrides + rank,
      dst->aligned + dst->offset * elementBytes, dst->sizesAndStrides + rank);
}
