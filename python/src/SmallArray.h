//===- SmallArray.h - Per-call arrays without heap traffic ------*- C++ -*-===//
//
// Part of dlbridge's Python extension. (The extension sees only dlbridge's
// public headers, so LLVM's SmallVector is not available here.)
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_SMALLARRAY_H
#define DLBRIDGE_PYTHON_SMALLARRAY_H

#include <array>
#include <cstddef>
#include <memory>

namespace dlbridge::python {

/// `count` value-initialised elements, inline when there are at most
/// `Inline` (the common case of a kernel call), on the heap otherwise.
template <typename T, size_t Inline = 8> class SmallArray {
public:
  explicit SmallArray(size_t count) : count(count) {
    if (count > Inline)
      heap = std::make_unique<T[]>(count);
  }
  T *data() { return heap ? heap.get() : local.data(); }
  const T *data() const { return heap ? heap.get() : local.data(); }
  T &operator[](size_t i) { return data()[i]; }
  const T &operator[](size_t i) const { return data()[i]; }
  size_t size() const { return count; }
  T *begin() { return data(); }
  T *end() { return data() + count; }

private:
  size_t count;
  std::array<T, Inline> local{};
  std::unique_ptr<T[]> heap;
};

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_SMALLARRAY_H
