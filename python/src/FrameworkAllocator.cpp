//===- FrameworkAllocator.cpp - Device results from the caller's framework ===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "FrameworkAllocator.h"

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace {

/// The hooks of one exchange API and the tensors behind the buffers they
/// handed out (NULL for one the runtime allocated instead).
struct FrameworkAllocator {
  dlrt_allocator hooks;
  const DLPackExchangeAPI *api;
  std::mutex mutex;
  std::unordered_map<void *, DLManagedTensorVersioned *> live;
};

/// The framework's error, kept for the call's message: no Python error is
/// set, since the hooks run without the GIL.
void keepError(void *context, const char *kind, const char *message) {
  std::snprintf(static_cast<char *>(context), DLRT_ERROR_CAPACITY, "%s: %s",
                kind ? kind : "error", message ? message : "");
}

void *allocate(void *user, size_t bytes, size_t alignment, DLDevice device,
               void *stream) {
  auto *self = static_cast<FrameworkAllocator *>(user);
  int64_t shape[1] = {static_cast<int64_t>(bytes)};
  int64_t strides[1] = {1};
  DLTensor prototype{};
  prototype.device = device;
  prototype.ndim = 1;
  prototype.dtype = {kDLUInt, 8, 1};
  prototype.shape = shape;
  prototype.strides = strides;
  DLManagedTensorVersioned *tensor = nullptr;
  char error[DLRT_ERROR_CAPACITY] = "";
  void *data = nullptr;
  if (self->api->managed_tensor_allocator(&prototype, &tensor, error,
                                          keepError) == 0 &&
      tensor) {
    data = static_cast<char *>(tensor->dl_tensor.data) +
           tensor->dl_tensor.byte_offset;
    if (reinterpret_cast<uintptr_t>(data) % alignment != 0) {
      tensor->deleter(tensor);
      tensor = nullptr;
      data = nullptr;
    }
  } else {
    tensor = nullptr;
  }
  // What the framework cannot give (another device type, an alignment
  // short of the kernels' vectors) the runtime allocates itself.
  if (!data && dlrt_cuda_alloc(device, bytes, stream, &data) != DLRT_OK)
    return nullptr;
  std::lock_guard<std::mutex> lock(self->mutex);
  self->live.emplace(data, tensor);
  return data;
}

void release(void *user, void *ptr, DLDevice device, void *stream) {
  auto *self = static_cast<FrameworkAllocator *>(user);
  DLManagedTensorVersioned *tensor;
  {
    std::lock_guard<std::mutex> lock(self->mutex);
    auto it = self->live.find(ptr);
    if (it == self->live.end())
      return; // Not ours: freeing it could free another's memory.
    tensor = it->second;
    self->live.erase(it);
  }
  if (tensor) {
    if (tensor->deleter)
      tensor->deleter(tensor);
  } else {
    dlrt_cuda_free(device, ptr, stream);
  }
}

} // namespace

const dlrt_allocator *
dlbridge::python::getFrameworkAllocator(const DLPackExchangeAPI *api) {
  if (!api || !api->managed_tensor_allocator)
    return nullptr;
  // Never freed: results may be released after the module is gone.
  static auto *allocators =
      new std::unordered_map<const DLPackExchangeAPI *, FrameworkAllocator *>();
  FrameworkAllocator *&allocator = (*allocators)[api];
  if (!allocator) {
    allocator = new FrameworkAllocator();
    allocator->api = api;
    allocator->hooks = {allocate, release, allocator};
  }
  return &allocator->hooks;
}
