//===- SmallArray.h - Per-call arrays without heap traffic ------*- C++ -*-===//
//
// Part of dlbridge's Python extension. (The extension sees only dlbridge's
// public headers, so LLVM's SmallVector is not available here.)
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_SMALLARRAY_H
#define DLBRIDGE_PYTHON_SMALLARRAY_H

#include <cstddef>
#include <memory>
#include <new>

namespace dlbridge::python {

/// `count` value-initialised elements, inline when there are at most
/// `Inline` (the common case of a kernel call), on the heap otherwise. Only
/// the `count` elements are constructed: a call pays for its arguments, not
/// for the inline capacity.
template <typename T, size_t Inline = 8> class SmallArray {
public:
  explicit SmallArray(size_t count) : count(count) {
    if (count > Inline)
      heap = std::make_unique<T[]>(count);
    else
      for (size_t i = 0; i < count; ++i)
        new (&local()[i]) T();
  }
  SmallArray(const SmallArray &) = delete;
  SmallArray &operator=(const SmallArray &) = delete;
  ~SmallArray() {
    if (!heap)
      for (size_t i = 0; i < count; ++i)
        local()[i].~T();
  }
  T *data() { return heap ? heap.get() : local(); }
  const T *data() const {
    return heap ? heap.get() : const_cast<SmallArray *>(this)->local();
  }
  T &operator[](size_t i) { return data()[i]; }
  const T &operator[](size_t i) const { return data()[i]; }
  size_t size() const { return count; }
  T *begin() { return data(); }
  T *end() { return data() + count; }

private:
  T *local() { return std::launder(reinterpret_cast<T *>(storage)); }

  size_t count;
  alignas(T) unsigned char storage[Inline * sizeof(T)];
  std::unique_ptr<T[]> heap;
};

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_SMALLARRAY_H
