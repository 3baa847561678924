//===- Matmul.cpp - f32/f64 contractions through an optimised BLAS --------===//
//
// Part of dlbridge. dlrt_matmul is what --dlbridge-contractions-to-blas
// calls for linalg.matmul, batch_matmul, matvec and vecmat on f32 and f64.
//
// Why a BLAS and not generated loops: measured on 1024^2 f64 on this
// project's 2-core x86 machine, the (i, k, j) loops LLVM vectorises run at
// 2.5x NumPy's time, and IREE/XLA-style tiling and packing would have to
// re-derive, per microarchitecture, the register blocking an optimised BLAS
// already ships with run-time CPU dispatch. Which BLAS: see Blas.cpp.
//
//===----------------------------------------------------------------------===//

#include "Blas.h"
#include "Layout.h"
#include "Parallel.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

using namespace dlrt::blas;

namespace {

/// A rows x cols matrix addressed through element strides.
struct Matrix {
  char *data;
  int64_t rows, cols, rowStride, colStride;

  Matrix transposed() const { return {data, cols, rows, colStride, rowStride}; }
};

/// The leading dimension with which `blas` reads `m` as a row-major matrix:
/// unit stride along rows (any stride for one column) and a positive row
/// stride of at least the number of columns (any for one row).
std::optional<int64_t> rowMajorLd(const Library &blas, const Matrix &m) {
  if (m.cols > 1 && m.colStride != 1)
    return std::nullopt;
  int64_t ld = m.rows > 1 ? m.rowStride : std::max<int64_t>(1, m.cols);
  if (ld < std::max<int64_t>(1, m.cols) || ld > blas.maxInt())
    return std::nullopt;
  return ld;
}

std::optional<int64_t> colMajorLd(const Library &blas, const Matrix &m) {
  return rowMajorLd(blas, m.transposed());
}

/// How BLAS reads an operand in `order`: as stored, or transposed.
struct Operand {
  Transpose trans;
  int64_t ld;
};

std::optional<Operand> asOperand(const Library &blas, const Matrix &m,
                                 Order order) {
  std::optional<int64_t> same =
      order == RowMajor ? rowMajorLd(blas, m) : colMajorLd(blas, m);
  if (same)
    return Operand{NoTrans, *same};
  std::optional<int64_t> other =
      order == RowMajor ? colMajorLd(blas, m) : rowMajorLd(blas, m);
  if (other)
    return Operand{Trans, *other};
  return std::nullopt;
}

/// The element stride of a vector of `size` elements BLAS takes: positive
/// (a negative increment means something else to BLAS), any for one element.
std::optional<int64_t> asIncrement(const Library &blas, int64_t size,
                                   int64_t stride) {
  if (size <= 1)
    return 1;
  if (stride <= 0 || stride > blas.maxInt())
    return std::nullopt;
  return stride;
}

template <typename T> T &at(const Matrix &m, int64_t i, int64_t j) {
  return reinterpret_cast<T *>(m.data)[i * m.rowStride + j * m.colStride];
}

/// C = A * B (+ C), in plain loops: for layouts and sizes BLAS cannot take
/// when there is no memory to pack them. (i, k, j) order, so rows of B and C
/// are walked in the inner loop.
template <typename T>
void multiplyInLoops(const Matrix &a, const Matrix &b, const Matrix &c,
                     bool accumulate) {
  for (int64_t i = 0; i < c.rows; ++i) {
    if (!accumulate)
      for (int64_t j = 0; j < c.cols; ++j)
        at<T>(c, i, j) = T(0);
    for (int64_t p = 0; p < a.cols; ++p) {
      T scale = at<T>(a, i, p);
      for (int64_t j = 0; j < c.cols; ++j)
        at<T>(c, i, j) += scale * at<T>(b, p, j);
    }
  }
}

/// y = op(M) x (+ y) through gemv, where C is one column (x is B's) or one
/// row (x is A's row, M is B transposed). Returns false where BLAS cannot
/// take the layout.
template <typename T>
bool multiplyAsVector(const Library &blas, const Matrix &a, const Matrix &b,
                      const Matrix &c, bool accumulate) {
  Matrix matrix = a, x = b, y = c;
  if (c.cols != 1) {
    // One row: c^T = b^T a^T.
    matrix = b.transposed();
    x = a.transposed();
    y = c.transposed();
  }
  std::optional<int64_t> incX = asIncrement(blas, x.rows, x.rowStride);
  std::optional<int64_t> incY = asIncrement(blas, y.rows, y.rowStride);
  if (!incX || !incY || matrix.rows > blas.maxInt() ||
      matrix.cols > blas.maxInt())
    return false;
  Order order = RowMajor;
  std::optional<int64_t> ld = rowMajorLd(blas, matrix);
  if (!ld) {
    order = ColMajor;
    ld = colMajorLd(blas, matrix);
  }
  if (!ld)
    return false;
  gemv<T>(blas, order, matrix.rows, matrix.cols,
          reinterpret_cast<const T *>(matrix.data), *ld,
          reinterpret_cast<const T *>(x.data), *incX, T(accumulate),
          reinterpret_cast<T *>(y.data), *incY);
  return true;
}

/// C = A * B (+ C) through gemm, in the order C's layout allows. Returns
/// false where BLAS cannot take a layout or a size.
template <typename T>
bool multiplyAsMatrix(const Library &blas, const Matrix &a, const Matrix &b,
                      const Matrix &c, bool accumulate) {
  if (c.rows > blas.maxInt() || c.cols > blas.maxInt() ||
      a.cols > blas.maxInt())
    return false;
  Order order = RowMajor;
  std::optional<int64_t> ldc = rowMajorLd(blas, c);
  if (!ldc) {
    order = ColMajor;
    ldc = colMajorLd(blas, c);
  }
  std::optional<Operand> opA = asOperand(blas, a, order);
  std::optional<Operand> opB = asOperand(blas, b, order);
  if (!ldc || !opA || !opB)
    return false;
  gemm<T>(blas, order, opA->trans, opB->trans, c.rows, c.cols, a.cols,
          reinterpret_cast<const T *>(a.data), opA->ld,
          reinterpret_cast<const T *>(b.data), opB->ld, T(accumulate),
          reinterpret_cast<T *>(c.data), *ldc);
  return true;
}

/// A compact row-major copy of `m` that lives as long as this object;
/// `matrix()` is `m` itself when no memory could be had.
template <typename T> class Packed {
public:
  Packed(const Matrix &m, bool copyIn) : original(m) {
    int64_t sizes[2] = {m.rows, m.cols};
    size_t bytes = static_cast<size_t>(m.rows * m.cols) * sizeof(T);
    buffer = static_cast<char *>(std::malloc(std::max<size_t>(bytes, 1)));
    if (buffer && copyIn) {
      int64_t from[2] = {m.rowStride, m.colStride};
      int64_t to[2] = {m.cols, 1};
      dlrt::copyElements(2, sizes, sizeof(T), m.data, from, buffer, to);
    }
  }
  Packed(const Packed &) = delete;
  Packed &operator=(const Packed &) = delete;
  ~Packed() { std::free(buffer); }

  bool ok() const { return buffer != nullptr; }
  Matrix matrix() const {
    return ok() ? Matrix{buffer, original.rows, original.cols, original.cols, 1}
                : original;
  }
  /// Writes the packed elements back into the original matrix.
  void copyOut() const {
    int64_t sizes[2] = {original.rows, original.cols};
    int64_t from[2] = {original.cols, 1};
    int64_t to[2] = {original.rowStride, original.colStride};
    dlrt::copyElements(2, sizes, sizeof(T), buffer, from, original.data, to);
  }

private:
  Matrix original;
  char *buffer = nullptr;
};

template <typename T>
void multiply(const Matrix &a, const Matrix &b, const Matrix &c,
              bool accumulate) {
  if (c.rows == 0 || c.cols == 0)
    return;
  const Library *blas = getLibrary();
  if (a.cols == 0 || !blas) {
    multiplyInLoops<T>(a, b, c, accumulate);
    return;
  }
  if ((c.cols == 1 || c.rows == 1) &&
      multiplyAsVector<T>(*blas, a, b, c, accumulate))
    return;
  if (multiplyAsMatrix<T>(*blas, a, b, c, accumulate))
    return;
  // Pack whatever BLAS cannot read as it is, into compact row-major copies.
  std::optional<Packed<T>> packedA, packedB, packedC;
  Matrix pa = a, pb = b, pc = c;
  if (!asOperand(*blas, a, RowMajor))
    pa = packedA.emplace(a, true).matrix();
  if (!asOperand(*blas, b, RowMajor))
    pb = packedB.emplace(b, true).matrix();
  if (!rowMajorLd(*blas, c) && !colMajorLd(*blas, c))
    pc = packedC.emplace(c, accumulate).matrix();
  if (!multiplyAsMatrix<T>(*blas, pa, pb, pc, accumulate)) {
    multiplyInLoops<T>(a, b, c, accumulate);
    return;
  }
  if (packedC && packedC->ok())
    packedC->copyOut();
}

} // namespace

extern "C" DLRT_EXPORT void
dlrt_matmul(int32_t element_bits, int32_t accumulate, int64_t batch, int64_t m,
            int64_t n, int64_t k, const void *a, int64_t a_batch_stride,
            int64_t a_row_stride, int64_t a_col_stride, const void *b,
            int64_t b_batch_stride, int64_t b_row_stride, int64_t b_col_stride,
            void *c, int64_t c_batch_stride, int64_t c_row_stride,
            int64_t c_col_stride) {
  if (element_bits != 32 && element_bits != 64)
    return;
  const int64_t bytes = element_bits / 8;
  dlrt::enterBlas();
  for (int64_t i = 0; i < batch; ++i) {
    Matrix ma{const_cast<char *>(static_cast<const char *>(a)) +
                  i * a_batch_stride * bytes,
              m, k, a_row_stride, a_col_stride};
    Matrix mb{const_cast<char *>(static_cast<const char *>(b)) +
                  i * b_batch_stride * bytes,
              k, n, b_row_stride, b_col_stride};
    Matrix mc{static_cast<char *>(c) + i * c_batch_stride * bytes, m, n,
              c_row_stride, c_col_stride};
    if (element_bits == 32)
      multiply<float>(ma, mb, mc, accumulate != 0);
    else
      multiply<double>(ma, mb, mc, accumulate != 0);
  }
}
