//===- CudaStream.cpp - DLPack stream values, stream ordering, keep-alive -===//
//
// dlrt_stream_from_dlpack, dlrt_stream_wait and dlrt_defer_release of
// dlrt_cuda.h.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "CudaReleaser.h"

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <cinttypes>

using namespace dlrt::cuda;

namespace {

bool isCuda(DLDevice device) {
  return device.device_type == kDLCUDA || device.device_type == kDLCUDAManaged;
}

bool isHost(DLDevice device) {
  return device.device_type == kDLCPU || device.device_type == kDLCUDAHost;
}

/// NULL and CU_STREAM_LEGACY name the same stream.
void *canonical(void *stream) { return stream ? stream : DLRT_STREAM_LEGACY; }

} // namespace

extern "C" int32_t dlrt_stream_from_dlpack(DLDevice device, int64_t value,
                                           int has_value, void **out_stream) {
  if (!out_stream)
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "dlrt_stream_from_dlpack: out_stream is NULL");
  if (isHost(device)) {
    if (has_value)
      return dlrt_set_error(nullptr, DLRT_ERR_STREAM,
                            "stream %" PRId64
                            " is invalid for a CPU device; only None is",
                            value);
    *out_stream = nullptr;
    return DLRT_OK;
  }
  if (!isCuda(device))
    return dlrt_set_error(nullptr, DLRT_ERR_UNSUPPORTED,
                          "DLPack streams of device type %d are not supported",
                          static_cast<int>(device.device_type));
  if (!has_value || value == 1) {
    *out_stream = DLRT_STREAM_LEGACY;
    return DLRT_OK;
  }
  if (value == -1) {
    *out_stream = DLRT_STREAM_NO_SYNC;
    return DLRT_OK;
  }
  if (value == 2) {
    *out_stream = DLRT_STREAM_PER_THREAD;
    return DLRT_OK;
  }
  if (value == 0)
    return dlrt_set_error(nullptr, DLRT_ERR_STREAM,
                          "stream 0 is ambiguous for CUDA; use 1 or 2");
  if (value < -1 || static_cast<uint64_t>(value) > UINTPTR_MAX)
    return dlrt_set_error(nullptr, DLRT_ERR_STREAM,
                          "stream %" PRId64 " is not a valid CUDA stream",
                          value);
  *out_stream = reinterpret_cast<void *>(static_cast<uintptr_t>(value));
  return DLRT_OK;
}

extern "C" int32_t dlrt_stream_wait(DLDevice device, void *waiter,
                                    void *signaller) {
  if (isHost(device)) {
    if (waiter || signaller)
      return dlrt_set_error(nullptr, DLRT_ERR_STREAM,
                            "dlrt_stream_wait: streams must be NULL on the "
                            "CPU");
    return DLRT_OK;
  }
  if (!isCuda(device))
    return dlrt_set_error(nullptr, DLRT_ERR_UNSUPPORTED,
                          "dlrt_stream_wait: device type %d has no streams",
                          static_cast<int>(device.device_type));
  Device *dev = nullptr;
  if (int32_t status = activateCuda(device, &dev))
    return status;
  if (waiter == DLRT_STREAM_NO_SYNC || signaller == DLRT_STREAM_NO_SYNC ||
      canonical(waiter) == canonical(signaller))
    return DLRT_OK;
  const DriverApi *api = peekDriver();
  CUevent event = nullptr;
  if (int32_t status = acquireEvent(dev, &event))
    return status;
  CUresult r = api->EventRecord(event, toDriverStream(signaller));
  if (r != CUDA_SUCCESS) {
    releaseEvent(dev, event);
    return fail(r, "cuEventRecord");
  }
  r = api->StreamWaitEvent(toDriverStream(waiter), event, 0);
  // The wait captured the event's recorded work; re-recording it later (the
  // pool hands it out again) does not change what this wait waits for.
  releaseEvent(dev, event);
  return r == CUDA_SUCCESS ? DLRT_OK : fail(r, "cuStreamWaitEvent");
}

extern "C" int32_t dlrt_defer_release(DLDevice device, void *stream,
                                      void (*release)(void *), void *arg) {
  if (!release)
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "dlrt_defer_release: release is NULL");
  if (isHost(device)) {
    if (stream)
      return dlrt_set_error(nullptr, DLRT_ERR_STREAM,
                            "dlrt_defer_release: the stream must be NULL on "
                            "the CPU");
    release(arg);
    return DLRT_OK;
  }
  if (!isCuda(device))
    return dlrt_set_error(nullptr, DLRT_ERR_UNSUPPORTED,
                          "dlrt_defer_release: device type %d is not "
                          "supported",
                          static_cast<int>(device.device_type));
  Device *dev = nullptr;
  if (int32_t status = activateCuda(device, &dev))
    return status;
  if (stream == DLRT_STREAM_NO_SYNC) {
    release(arg);
    return DLRT_OK;
  }
  const DriverApi *api = peekDriver();
  CUevent event = nullptr;
  if (int32_t status = acquireEvent(dev, &event))
    return status;
  CUresult r = api->EventRecord(event, toDriverStream(stream));
  if (r != CUDA_SUCCESS) {
    releaseEvent(dev, event);
    return fail(r, "cuEventRecord");
  }
  int32_t status =
      dlrt_internal_defer_until(pollDeviceEvent, dev, event, release, arg);
  if (status == DLRT_OK)
    return DLRT_OK;
  // The releaser is gone (exit) or out of memory: finish here.
  pollDeviceEvent(dev, event, 1);
  release(arg);
  return DLRT_OK;
}
