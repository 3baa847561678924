//===- HostCopy.cpp - Host tensors owned by the extension -----------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "HostCopy.h"

#include "dlbridge/Runtime/dlrt.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

using namespace dlbridge::python;

namespace {
/// The managed tensor and its shape in one allocation, the data in another.
struct HostTensor {
  DLManagedTensorVersioned managed;
  int64_t shape[];

  static void deleter(DLManagedTensorVersioned *self) {
    dlrt_host_free(self->dl_tensor.data);
    std::free(self);
  }
};

size_t elementBytes(DLDataType dtype) {
  return (size_t(dtype.bits) * dtype.lanes + 7) / 8;
}

/// Copies the elements of dims [dim, ndim) of `source` starting at `from`
/// into compact memory at `to`; returns the end of what was written.
char *copyDims(const DLTensor &source, int32_t dim, const char *from,
               char *to, size_t element) {
  if (dim == source.ndim) {
    std::memcpy(to, from, element);
    return to + element;
  }
  int64_t stride = 1;
  if (source.strides) {
    stride = source.strides[dim];
  } else {
    for (int32_t i = dim + 1; i < source.ndim; ++i)
      stride *= source.shape[i];
  }
  for (int64_t i = 0; i < source.shape[dim]; ++i)
    to = copyDims(source, dim + 1, from + i * stride * int64_t(element), to,
                  element);
  return to;
}
} // namespace

DLManagedTensorVersioned *
dlbridge::python::allocateHostTensor(DLDataType dtype, int32_t ndim,
                                     const int64_t *shape, uint64_t flags) {
  if (ndim < 0)
    return nullptr;
  size_t bytes = elementBytes(dtype);
  bool overflowed = false, empty = false;
  for (int32_t i = 0; i < ndim; ++i) {
    if (shape[i] < 0)
      return nullptr;
    empty |= shape[i] == 0;
    overflowed |=
        __builtin_mul_overflow(bytes, static_cast<uint64_t>(shape[i]), &bytes);
  }
  if (empty)
    bytes = 0;
  else if (overflowed)
    return nullptr;
  // No allocation addresses more than PTRDIFF_MAX bytes.
  if (bytes > static_cast<size_t>(PTRDIFF_MAX))
    return nullptr;
  auto *tensor = static_cast<HostTensor *>(
      std::calloc(1, sizeof(HostTensor) + sizeof(int64_t) * ndim));
  if (!tensor)
    return nullptr;
  for (int32_t i = 0; i < ndim; ++i)
    tensor->shape[i] = shape[i];
  void *data = dlrt_host_alloc(bytes);
  if (!data) {
    std::free(tensor);
    return nullptr;
  }
  DLManagedTensorVersioned &managed = tensor->managed;
  managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  managed.deleter = &HostTensor::deleter;
  managed.flags = flags;
  managed.dl_tensor.data = data;
  managed.dl_tensor.device = {kDLCPU, 0};
  managed.dl_tensor.ndim = ndim;
  managed.dl_tensor.dtype = dtype;
  managed.dl_tensor.shape = ndim ? tensor->shape : nullptr;
  return &managed;
}

DLManagedTensorVersioned *dlbridge::python::copyToHost(const DLTensor &tensor,
                                                       uint64_t flags) {
  DLManagedTensorVersioned *copy =
      allocateHostTensor(tensor.dtype, tensor.ndim, tensor.shape, flags);
  if (!copy)
    return nullptr;
  bool empty = false;
  for (int32_t i = 0; i < tensor.ndim; ++i)
    empty |= tensor.shape[i] == 0;
  if (!empty)
    copyDims(tensor, 0,
             static_cast<const char *>(tensor.data) + tensor.byte_offset,
             static_cast<char *>(copy->dl_tensor.data),
             elementBytes(tensor.dtype));
  return copy;
}
