//===- Blas.cpp - Finding and calling a CBLAS at run time -----------------===//
//
// Part of dlbridge. The BLAS is loaded with dlopen, like libcuda, so that
// libdlrt depends on none and a process can use the one it already has:
// Python's dlbridge hands over NumPy's (dlrt_set_blas), and one BLAS thread
// pool per process is what keeps two pools from spinning against each other
// on the same cores (measured: a 1600^2 matvec took 4 ms instead of 0.2 ms
// right after a NumPy product when dlbridge linked a second OpenBLAS).
//
//===----------------------------------------------------------------------===//

#include "Blas.h"

#include "dlbridge/Runtime/dlrt.h"

#include <dlfcn.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

using namespace dlrt::blas;

namespace {

/// How a CBLAS names its functions: OpenBLAS's ILP64 builds add a suffix,
/// NumPy's wheels also a prefix.
struct Naming {
  const char *prefix;
  const char *suffix;
  bool ilp64;
};
constexpr Naming kNamings[] = {
    {"scipy_cblas_", "64_", true},
    {"cblas_", "64_", true},
    {"cblas_", "", false},
};

/// Libraries tried, in order, when no one called dlrt_set_blas.
constexpr const char *kDefaultLibraries[] = {"libopenblas.so.0",
                                             "libcblas.so.3", "libblas.so.3"};

/// Every library loaded, the last first (through Library::loadedBefore).
std::atomic<const Library *> lastLoaded{nullptr};

/// The library at `path`, or null when it does not load or has no CBLAS.
/// Never unloaded: calls in flight may still use it.
const Library *load(const char *path) {
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return nullptr;
  for (const Naming &naming : kNamings) {
    auto find = [&](const char *name) {
      std::string symbol = std::string(naming.prefix) + name + naming.suffix;
      return dlsym(handle, symbol.c_str());
    };
    Library found{find("sgemm"), find("dgemm"), find("sgemv"), find("dgemv"),
                  naming.ilp64,  strdup(path),  nullptr};
    if (!found.sgemm || !found.dgemm || !found.sgemv || !found.dgemv ||
        !found.path) {
      std::free(const_cast<char *>(found.path));
      continue;
    }
    auto *library = new (std::nothrow) Library(found);
    if (!library) {
      std::free(const_cast<char *>(found.path));
      break;
    }
    const Library *before = lastLoaded.load();
    do
      library->loadedBefore = before;
    while (!lastLoaded.compare_exchange_weak(before, library));
    return library;
  }
  dlclose(handle);
  return nullptr;
}

std::atomic<const Library *> current{nullptr};

template <typename Int, typename T>
using GemmFn = void (*)(int, int, int, Int, Int, Int, T, const T *, Int,
                        const T *, Int, T, T *, Int);
template <typename Int, typename T>
using GemvFn = void (*)(int, int, Int, Int, T, const T *, Int, const T *, Int,
                        T, T *, Int);

template <typename T> void *gemmOf(const Library &library);
template <> void *gemmOf<float>(const Library &library) {
  return library.sgemm;
}
template <> void *gemmOf<double>(const Library &library) {
  return library.dgemm;
}
template <typename T> void *gemvOf(const Library &library);
template <> void *gemvOf<float>(const Library &library) {
  return library.sgemv;
}
template <> void *gemvOf<double>(const Library &library) {
  return library.dgemv;
}

} // namespace

int64_t Library::maxInt() const { return ilp64 ? INT64_MAX : INT_MAX; }

const Library *dlrt::blas::getLibrary() {
  if (const Library *library = current.load(std::memory_order_acquire))
    return library;
  static std::once_flag once;
  std::call_once(once, [] {
    for (const char *path : kDefaultLibraries)
      if (const Library *library = load(path)) {
        const Library *none = nullptr;
        current.compare_exchange_strong(none, library);
        return;
      }
  });
  return current.load(std::memory_order_acquire);
}

template <typename T>
void dlrt::blas::gemm(const Library &library, Order order, Transpose transA,
                      Transpose transB, int64_t m, int64_t n, int64_t k,
                      const T *a, int64_t lda, const T *b, int64_t ldb, T beta,
                      T *c, int64_t ldc) {
  if (library.ilp64)
    reinterpret_cast<GemmFn<int64_t, T>>(gemmOf<T>(library))(
        order, transA, transB, m, n, k, T(1), a, lda, b, ldb, beta, c, ldc);
  else
    reinterpret_cast<GemmFn<int, T>>(gemmOf<T>(library))(
        order, transA, transB, int(m), int(n), int(k), T(1), a, int(lda), b,
        int(ldb), beta, c, int(ldc));
}

template <typename T>
void dlrt::blas::gemv(const Library &library, Order order, int64_t m, int64_t n,
                      const T *a, int64_t lda, const T *x, int64_t incX, T beta,
                      T *y, int64_t incY) {
  if (library.ilp64)
    reinterpret_cast<GemvFn<int64_t, T>>(gemvOf<T>(library))(
        order, NoTrans, m, n, T(1), a, lda, x, incX, beta, y, incY);
  else
    reinterpret_cast<GemvFn<int, T>>(gemvOf<T>(library))(
        order, NoTrans, int(m), int(n), T(1), a, int(lda), x, int(incX), beta,
        y, int(incY));
}

template void dlrt::blas::gemm<float>(const Library &, Order, Transpose,
                                      Transpose, int64_t, int64_t, int64_t,
                                      const float *, int64_t, const float *,
                                      int64_t, float, float *, int64_t);
template void dlrt::blas::gemm<double>(const Library &, Order, Transpose,
                                       Transpose, int64_t, int64_t, int64_t,
                                       const double *, int64_t, const double *,
                                       int64_t, double, double *, int64_t);
template void dlrt::blas::gemv<float>(const Library &, Order, int64_t, int64_t,
                                      const float *, int64_t, const float *,
                                      int64_t, float, float *, int64_t);
template void dlrt::blas::gemv<double>(const Library &, Order, int64_t, int64_t,
                                       const double *, int64_t, const double *,
                                       int64_t, double, double *, int64_t);

extern "C" int32_t dlrt_set_blas(const char *path) {
  if (!path)
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "expected the path of a BLAS library, got NULL");
  const Library *library = load(path);
  if (!library)
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "'%s' is not a loadable library with CBLAS's "
                          "sgemm, dgemm, sgemv and dgemv (LP64 or ILP64)",
                          path);
  current.store(library, std::memory_order_release);
  return DLRT_OK;
}

extern "C" const char *dlrt_blas_library(void) {
  const Library *library = getLibrary();
  return library ? library->path : "";
}
