//===- Layout.h - Compact strides and strided copies (internal) -*- C++ -*-===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_RUNTIME_LAYOUT_H
#define DLBRIDGE_LIB_RUNTIME_LAYOUT_H

#include "dlbridge/Runtime/dlrt.h"

namespace dlrt {
/// Where a tensor's strides leave compact row-major (dlrt_is_compact's rule).
struct CompactMismatch {
  /// The first offending dim, innermost first; -1 when the tensor is compact.
  int32_t dim = -1;
  /// The compact stride `dim` should have; meaningless when `overflow`.
  int64_t expected = 0;
  /// Whether the compact stride of `dim` does not fit int64.
  bool overflow = false;
};

/// Compares the strides of a well-formed tensor (non-negative ndim and dims,
/// a shape unless rank 0) with compact row-major ones.
CompactMismatch findCompactMismatch(const DLTensor &tensor);

/// Whether two elements of a non-empty, well-formed tensor whose extent was
/// checked may share an address: sorted by |stride|, each dim must step past
/// everything the smaller ones reach. Conservative: an interleaving that
/// never collides but breaks that order (only as_strided makes one) counts.
/// Zero strides of dims larger than 1 always overlap.
bool mayOverlapItself(const DLTensor &tensor);

/// Copies a `rank`-dimensional box of `sizes` elements of `elementBytes`
/// each from `source` to `target`, addressed through element strides; runs
/// contiguous in both are copied at once. Copies nothing when a size is 0.
void copyElements(int32_t rank, const int64_t *sizes, int64_t elementBytes,
                  const char *source, const int64_t *sourceStrides,
                  char *target, const int64_t *targetStrides);
} // namespace dlrt

#endif // DLBRIDGE_LIB_RUNTIME_LAYOUT_H
