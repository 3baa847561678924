//===- HostCopy.h - Host tensors owned by the extension ---------*- C++ -*-===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_HOSTCOPY_H
#define DLBRIDGE_PYTHON_HOSTCOPY_H

#include <dlpack/dlpack.h>

namespace dlbridge::python {

/// A new compact host tensor (64-byte aligned, uninitialised) whose deleter
/// frees it; NULL when out of memory or when its byte size would overflow
/// (also for negative dims). `shape` has `ndim` >= 0 entries.
DLManagedTensorVersioned *allocateHostTensor(DLDataType dtype, int32_t ndim,
                                             const int64_t *shape,
                                             uint64_t flags);

/// A compact host copy of `tensor` (any strides, host-readable memory,
/// accepted by dlrt_check_descriptor); NULL when out of memory.
DLManagedTensorVersioned *copyToHost(const DLTensor &tensor, uint64_t flags);

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_HOSTCOPY_H
