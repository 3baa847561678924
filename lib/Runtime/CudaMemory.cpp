//===- CudaMemory.cpp - Stream-ordered device allocation and free ---------===//
//
// With memory pools (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED) buffers are
// allocated and freed in stream order, from dlbridge's own caching pool
// (cuMemAllocFromPoolAsync/cuMemFreeAsync).
// Without them cuMemAlloc is used, and since cuMemFree waits for the device,
// a free is deferred to the releaser thread behind an event recorded on the
// stream, so that result deleters never block their caller on the GPU.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "CudaReleaser.h"
#include "DeviceFree.h"

#include "dlbridge/Runtime/dlrt_cuda.h"

using namespace dlrt::cuda;

namespace {

CUdeviceptr toDevicePtr(void *ptr) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
}

/// Releaser callback: the synchronous free, on the releaser thread.
void freeNow(void *context, void *ptr) {
  auto *device = static_cast<Device *>(context);
  const DriverApi *api = peekDriver();
  if (makeCurrent(device) != DLRT_OK)
    return; // Recorded on the releaser thread; nothing else can be done.
  CUresult r = api->MemFree(toDevicePtr(ptr));
  if (r != CUDA_SUCCESS)
    fail(r, "cuMemFree");
}

} // namespace

int32_t dlrt::cuda::deviceAlloc(Device *device, size_t bytes, void *stream,
                                void **out) {
  *out = nullptr;
  const DriverApi *api = peekDriver();
  CUdeviceptr ptr = 0;
  CUresult r;
  const char *call;
  if (CUmemoryPool pool = resultPool(device)) {
    CUstream s = toDriverStream(stream);
    r = api->MemAllocFromPoolAsync(&ptr, bytes, pool, s);
    if (r == CUDA_ERROR_OUT_OF_MEMORY &&
        api->MemPoolTrimTo(pool, 0) == CUDA_SUCCESS)
      r = api->MemAllocFromPoolAsync(&ptr, bytes, pool, s);
    call = "cuMemAllocFromPoolAsync";
  } else if (supportsMemoryPools(device)) {
    r = api->MemAllocAsync(&ptr, bytes, toDriverStream(stream));
    call = "cuMemAllocAsync";
  } else {
    r = api->MemAlloc(&ptr, bytes);
    call = "cuMemAlloc";
  }
  if (r != CUDA_SUCCESS)
    return fail(r, call);
  *out = reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
  return DLRT_OK;
}

int32_t dlrt::cuda::deviceFree(Device *device, void *ptr, void *stream) {
  const DriverApi *api = peekDriver();
  if (supportsMemoryPools(device)) {
    CUresult r = api->MemFreeAsync(toDevicePtr(ptr), toDriverStream(stream));
    return r == CUDA_SUCCESS ? DLRT_OK : fail(r, "cuMemFreeAsync");
  }
  // No pools: free after the stream's work, off this thread.
  CUevent event = nullptr;
  if (acquireEvent(device, &event) == DLRT_OK) {
    CUresult r = api->EventRecord(event, toDriverStream(stream));
    if (r == CUDA_SUCCESS) {
      if (deferUntil(pollDeviceEvent, device, event, freeNow, ptr) == DLRT_OK)
        return DLRT_OK;
      pollDeviceEvent(device, event, 1);
    } else {
      releaseEvent(device, event);
    }
  }
  // cuMemFree waits for the device itself: correct, only slower.
  CUresult r = api->MemFree(toDevicePtr(ptr));
  return r == CUDA_SUCCESS ? DLRT_OK : fail(r, "cuMemFree");
}

extern "C" int32_t dlrt_cuda_alloc(DLDevice device, size_t bytes, void *stream,
                                   void **out) {
  if (!out)
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "dlrt_cuda_alloc: out is NULL");
  *out = nullptr;
  Device *dev = nullptr;
  if (int32_t status = activateCuda(device, &dev))
    return status;
  if (bytes == 0)
    return DLRT_OK;
  return deviceAlloc(dev, bytes, stream, out);
}

extern "C" void *dlrt_internal_record_result_event(DLDevice device,
                                                   void *stream) {
  if (!stream || stream == DLRT_STREAM_LEGACY ||
      stream == DLRT_STREAM_PER_THREAD || stream == DLRT_STREAM_NO_SYNC)
    return nullptr;
  Device *dev = nullptr;
  if (activateCuda(device, &dev) != DLRT_OK)
    return nullptr;
  const DriverApi *api = peekDriver();
  auto *cuStream = static_cast<CUstream>(stream);
  int capturing = 0;
  if (api->StreamIsCapturing(cuStream, &capturing) != CUDA_SUCCESS || capturing)
    return nullptr;
  CUevent event = nullptr;
  if (acquireEvent(dev, &event) != DLRT_OK)
    return nullptr;
  if (api->EventRecord(event, cuStream) != CUDA_SUCCESS) {
    releaseEvent(dev, event);
    return nullptr;
  }
  return event;
}

extern "C" void dlrt_internal_free_device_buffer(DLDevice device, void *ptr,
                                                 void *stream, void *event) {
  Device *dev = nullptr;
  if (activateCuda(device, &dev) != DLRT_OK)
    return; // The error is the thread's last error; the buffer leaks.
  if (event) {
    // The call's stream may be gone: the legacy one waits for its work.
    CUresult r = peekDriver()->StreamWaitEvent(CU_STREAM_LEGACY,
                                               static_cast<CUevent>(event), 0);
    releaseEvent(dev, static_cast<CUevent>(event));
    if (r != CUDA_SUCCESS) {
      fail(r, "cuStreamWaitEvent");
      return; // Freeing now could hand the memory out while still written.
    }
    stream = nullptr;
  }
  if (!ptr)
    return;
  if (forgetManagedAllocation(ptr)) {
    CUresult r = peekDriver()->MemFree(toDevicePtr(ptr));
    if (r != CUDA_SUCCESS)
      fail(r, "cuMemFree");
    return;
  }
  deviceFree(dev, ptr, stream);
}
