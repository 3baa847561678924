//===- MatmulTest.cpp - dlrt_matmul on every layout, and its BLAS ---------===//
//
// Part of dlbridge. dlrt_matmul against a plain triple loop over the same
// strided views: row- and column-major operands, transposed and sliced
// ones, zero and negative strides (which BLAS cannot take and are packed),
// single rows and columns (gemv), batches, accumulation and empty sizes.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// A strided view of `rows` x `cols` elements into a buffer, placed so that
/// negative strides stay inside it.
template <typename T> struct View {
  std::vector<T> storage;
  T *first;
  int64_t rows, cols, rowStride, colStride;

  View(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride)
      : rows(rows), cols(cols), rowStride(rowStride), colStride(colStride) {
    int64_t low = 0, high = 0;
    for (int64_t extent : {(rows - 1) * rowStride, (cols - 1) * colStride}) {
      if (rows == 0 || cols == 0)
        break;
      (extent < 0 ? low : high) += extent;
    }
    storage.assign(static_cast<size_t>(high - low + 1), T(-999));
    first = storage.data() - low;
  }
  T &at(int64_t i, int64_t j) { return first[i * rowStride + j * colStride]; }
  void fill(unsigned seed) {
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        at(i, j) = T(int((seed * 7919u + i * 31u + j * 17u) % 13u) - 6) / T(4);
  }
};

/// How a matrix is laid out, in terms of its own sizes.
enum class Layout { RowMajor, ColMajor, Padded, Strided, Reversed, Broadcast };

template <typename T> View<T> make(Layout layout, int64_t rows, int64_t cols) {
  switch (layout) {
  case Layout::RowMajor:
    return View<T>(rows, cols, cols, 1);
  case Layout::ColMajor:
    return View<T>(rows, cols, 1, rows);
  case Layout::Padded:
    return View<T>(rows, cols, cols + 3, 1);
  case Layout::Strided:
    return View<T>(rows, cols, 2 * cols * 3, 3);
  case Layout::Reversed:
    return View<T>(rows, cols, -cols, 1);
  case Layout::Broadcast:
    return View<T>(rows, cols, 0, 1);
  }
  return View<T>(rows, cols, cols, 1);
}

constexpr Layout kLayouts[] = {Layout::RowMajor, Layout::ColMajor,
                               Layout::Padded,   Layout::Strided,
                               Layout::Reversed, Layout::Broadcast};

template <typename T>
void expectProduct(Layout la, Layout lb, Layout lc, int64_t m, int64_t n,
                   int64_t k, bool accumulate) {
  View<T> a = make<T>(la, m, k), b = make<T>(lb, k, n);
  View<T> c = make<T>(lc == Layout::Broadcast ? Layout::RowMajor : lc, m, n);
  a.fill(1);
  b.fill(2);
  c.fill(3);
  std::vector<T> want(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T sum = accumulate ? c.at(i, j) : T(0);
      for (int64_t p = 0; p < k; ++p)
        sum += a.at(i, p) * b.at(p, j);
      want[i * n + j] = sum;
    }
  std::vector<T> aBefore = a.storage, bBefore = b.storage;
  dlrt_matmul(8 * sizeof(T), accumulate, 1, m, n, k, a.first, 0, a.rowStride,
              a.colStride, b.first, 0, b.rowStride, b.colStride, c.first, 0,
              c.rowStride, c.colStride);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      ASSERT_NEAR(c.at(i, j), want[i * n + j], 1e-3)
          << "at (" << i << ", " << j << ") of " << m << "x" << n << "x" << k
          << ", layouts " << int(la) << int(lb) << int(lc)
          << (accumulate ? ", accumulating" : "");
  EXPECT_EQ(a.storage, aBefore) << "A was written";
  EXPECT_EQ(b.storage, bBefore) << "B was written";
}

template <typename T> void everyLayout() {
  // Shapes: square, one row or column (gemv), one of each size, empty k.
  struct Shape {
    int64_t m, n, k;
  };
  const Shape shapes[] = {{7, 5, 6}, {1, 9, 4}, {8, 1, 5},
                          {1, 1, 3}, {4, 6, 1}, {3, 4, 0}};
  for (auto [m, n, k] : shapes)
    for (Layout la : kLayouts)
      for (Layout lb : kLayouts)
        for (Layout lc : {Layout::RowMajor, Layout::ColMajor, Layout::Strided})
          for (bool accumulate : {false, true})
            expectProduct<T>(la, lb, lc, m, n, k, accumulate);
}

TEST(MatmulTest, FloatOnEveryLayout) { everyLayout<float>(); }
TEST(MatmulTest, DoubleOnEveryLayout) { everyLayout<double>(); }

TEST(MatmulTest, BatchesUseTheirStrides) {
  const int64_t batch = 3, m = 4, n = 5, k = 6;
  std::vector<double> a(batch * m * k), b(k * n), c(batch * m * n, 7.0);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = double(i % 11) - 5;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = double(i % 7) - 3;
  // B is shared by every batch: batch stride 0.
  dlrt_matmul(64, 0, batch, m, n, k, a.data(), m * k, k, 1, b.data(), 0, n, 1,
              c.data(), m * n, n, 1);
  for (int64_t s = 0; s < batch; ++s)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t p = 0; p < k; ++p)
          want += a[s * m * k + i * k + p] * b[p * n + j];
        ASSERT_EQ(c[s * m * n + i * n + j], want) << s << " " << i << " " << j;
      }
}

TEST(MatmulTest, EmptyOutputWritesNothing) {
  float c = 42.0f, a = 1.0f, b = 1.0f;
  dlrt_matmul(32, 0, 1, 0, 1, 1, &a, 0, 1, 1, &b, 0, 1, 1, &c, 0, 1, 1);
  dlrt_matmul(32, 0, 0, 1, 1, 1, &a, 0, 1, 1, &b, 0, 1, 1, &c, 0, 1, 1);
  EXPECT_EQ(c, 42.0f);
}

TEST(MatmulTest, OtherElementSizesDoNothing) {
  int16_t a = 2, b = 3, c = 5;
  dlrt_matmul(16, 0, 1, 1, 1, 1, &a, 0, 1, 1, &b, 0, 1, 1, &c, 0, 1, 1);
  EXPECT_EQ(c, 5);
}

TEST(MatmulTest, SetBlasRefusesWhatItCannotCall) {
  std::string before = dlrt_blas_library();
  EXPECT_EQ(dlrt_set_blas(nullptr), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(dlrt_set_blas("/nonexistent/libopenblas.so"),
            DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(dlrt_last_error(), "/nonexistent/libopenblas.so"),
            nullptr)
      << dlrt_last_error();
  // Loads, but has no CBLAS.
  EXPECT_EQ(dlrt_set_blas("libz.so.1"), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(dlrt_blas_library()), before);
}

TEST(MatmulTest, UsesTheLibraryItWasGiven) {
  if (std::string(dlrt_blas_library()).empty())
    GTEST_SKIP() << "no BLAS on this machine (libopenblas0 is not installed)";
  ASSERT_EQ(dlrt_set_blas("libopenblas.so.0"), DLRT_OK) << dlrt_last_error();
  EXPECT_EQ(std::string(dlrt_blas_library()), "libopenblas.so.0");
  float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
  dlrt_matmul(32, 0, 1, 2, 2, 2, a, 0, 2, 1, b, 0, 2, 1, c, 0, 2, 1);
  EXPECT_EQ(c[0], 19.0f);
  EXPECT_EQ(c[1], 22.0f);
  EXPECT_EQ(c[2], 43.0f);
  EXPECT_EQ(c[3], 50.0f);
}

} // namespace
