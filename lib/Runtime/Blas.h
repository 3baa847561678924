//===- Blas.h - The CBLAS functions dlrt_matmul calls (internal) -*- C++
//-*-===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_RUNTIME_BLAS_H
#define DLBRIDGE_LIB_RUNTIME_BLAS_H

#include <cstdint>

namespace dlrt::blas {

/// CBLAS's enumerations, passed as int by every ABI.
enum Order { RowMajor = 101, ColMajor = 102 };
enum Transpose { NoTrans = 111, Trans = 112 };

/// A loaded CBLAS: its gemm and gemv for f32 and f64, and the width of its
/// integers (LP64 libraries take int, ILP64 ones int64_t).
struct Library {
  void *sgemm, *dgemm, *sgemv, *dgemv;
  bool ilp64;
  /// The path it was loaded from.
  const char *path;
  /// The library loaded before this one: every library stays loaded and
  /// reachable, since calls in flight may still use one that was replaced.
  const Library *loadedBefore;

  /// The largest size, stride or leading dimension the library takes.
  int64_t maxInt() const;
};

/// The library dlrt_set_blas chose, else the first of the default ones that
/// loads (tried once), or null: products then run in plain loops.
const Library *getLibrary();

/// CBLAS's gemm and gemv on `T` (float or double) through `library`; every
/// integer must be at most library.maxInt().
template <typename T>
void gemm(const Library &library, Order order, Transpose transA,
          Transpose transB, int64_t m, int64_t n, int64_t k, const T *a,
          int64_t lda, const T *b, int64_t ldb, T beta, T *c, int64_t ldc);
template <typename T>
void gemv(const Library &library, Order order, int64_t m, int64_t n, const T *a,
          int64_t lda, const T *x, int64_t incX, T beta, T *y, int64_t incY);

} // namespace dlrt::blas

#endif // DLBRIDGE_LIB_RUNTIME_BLAS_H
