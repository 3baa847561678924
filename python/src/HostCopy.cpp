//===- HostCopy.cpp - Host tensors owned by the extension -----------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "HostCopy.h"

#include "dlbridge/Runtime/dlrt.h"

#include <cstdint>
#include <cstdlib>

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
  if (dlrt_copy_strided(&tensor, &copy->dl_tensor) != DLRT_OK) {
    copy->deleter(copy);
    return nullptr;
  }
  return copy;
}
