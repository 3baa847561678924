//===- NpyArray.cpp - Arrays in aligned host buffers ----------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Support/Npy.h"

#include "NpyFormat.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace dlbridge::npy;

namespace {
void setError(std::string *error, std::string message) {
  if (error)
    *error = std::move(message);
}

/// Compact strides of `shape`, row-major or column-major.
std::vector<int64_t> compactStrides(const std::vector<int64_t> &shape,
                                    bool columnMajor) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    size_t i = columnMajor ? k : shape.size() - 1 - k;
    strides[i] = stride;
    stride *= std::max<int64_t>(shape[i], 1);
  }
  return strides;
}
} // namespace

void NpyArray::Free::operator()(void *p) const { std::free(p); }

int64_t NpyArray::numElements() const { return countElements(shape_); }

std::optional<NpyArray> NpyArray::allocate(DLDataType dtype,
                                           std::vector<int64_t> shape,
                                           bool fortranOrder,
                                           std::string *error) {
  if (dtype.lanes != 1 || dtype.bits == 0 || dtype.bits % 8 != 0) {
    setError(error, "unsupported dtype " + dtypeName(dtype));
    return std::nullopt;
  }
  int64_t count = countElements(shape);
  int64_t bytes;
  if (count < 0 || __builtin_mul_overflow(count, dtype.bits / 8, &bytes) ||
      bytes > INT64_MAX - static_cast<int64_t>(kAlignment) ||
      extentOverflows(shape, dtype.bits / 8)) {
    setError(error, "the array is too large (its size overflows int64)");
    return std::nullopt;
  }
  size_t rounded =
      (static_cast<size_t>(bytes) + kAlignment - 1) / kAlignment * kAlignment;
  void *data = std::aligned_alloc(kAlignment, std::max(rounded, kAlignment));
  if (!data) {
    setError(error,
             "out of memory allocating " + std::to_string(bytes) + " bytes");
    return std::nullopt;
  }
  NpyArray array;
  array.data_.reset(data);
  array.dtype_ = dtype;
  array.fortranOrder_ = fortranOrder;
  array.strides_ = compactStrides(shape, fortranOrder);
  array.shape_ = std::move(shape);
  array.byteSize_ = static_cast<size_t>(bytes);
  std::memset(data, 0, std::max(rounded, kAlignment));
  return array;
}

DLTensor NpyArray::tensor() {
  DLTensor t{};
  t.data = data();
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int32_t>(shape_.size());
  t.dtype = dtype_;
  t.shape = shape_.empty() ? nullptr : shape_.data();
  t.strides = strides_.empty() ? nullptr : strides_.data();
  t.byte_offset = 0;
  return t;
}
