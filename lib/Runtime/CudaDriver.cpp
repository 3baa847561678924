//===- CudaDriver.cpp - Loading libcuda.so.1, devices, event pools --------===//
//
// The driver, the devices and their pools are created once and deliberately
// never destroyed: driver objects must outlive every static destructor that
// may still free device memory, and the driver tears itself down at exit.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

using namespace dlrt::cuda;

#if DLRT_HAVE_CUDA_H
// The fallback declarations of CudaApi.h must agree with the real header.
static_assert(CUDA_SUCCESS == abi::Success, "");
static_assert(CUDA_ERROR_OUT_OF_MEMORY == abi::ErrorOutOfMemory, "");
static_assert(CUDA_ERROR_NOT_INITIALIZED == abi::ErrorNotInitialized, "");
static_assert(CUDA_ERROR_DEINITIALIZED == abi::ErrorDeinitialized, "");
static_assert(CUDA_ERROR_STUB_LIBRARY == abi::ErrorStubLibrary, "");
static_assert(CUDA_ERROR_NO_DEVICE == abi::ErrorNoDevice, "");
static_assert(CUDA_ERROR_NOT_READY == abi::ErrorNotReady, "");
static_assert(CU_STREAM_NON_BLOCKING == abi::StreamNonBlocking, "");
static_assert(CU_EVENT_DISABLE_TIMING == abi::EventDisableTiming, "");
static_assert(CU_MEM_ATTACH_GLOBAL == abi::MemAttachGlobal, "");
static_assert(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED ==
                  abi::AttrMemoryPoolsSupported,
              "");
static_assert(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ==
                  abi::FuncAttrMaxDynamicSharedSizeBytes,
              "");
static_assert(CU_JIT_INFO_LOG_BUFFER == abi::JitInfoLogBuffer, "");
static_assert(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES ==
                  abi::JitInfoLogBufferSizeBytes,
              "");
static_assert(CU_JIT_ERROR_LOG_BUFFER == abi::JitErrorLogBuffer, "");
static_assert(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES ==
                  abi::JitErrorLogBufferSizeBytes,
              "");
static_assert(CU_JIT_OPTIMIZATION_LEVEL == abi::JitOptimizationLevel, "");
static_assert(CU_MEM_ALLOCATION_TYPE_PINNED == abi::MemAllocationTypePinned,
              "");
static_assert(CU_MEM_LOCATION_TYPE_DEVICE == abi::MemLocationTypeDevice, "");
static_assert(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD ==
                  abi::MemPoolAttrReleaseThreshold,
              "");
static_assert(sizeof(CUmemPoolProps) == 88, "the fallback's layout");
static_assert(sizeof(CUdeviceptr) == sizeof(void *), "");
#endif

namespace dlrt {
namespace cuda {

struct Device {
  int32_t id = 0;
  CUdevice handle = 0;
  std::once_flag retainOnce;
  CUcontext context = nullptr;
  /// Why retaining failed (CUDA_SUCCESS if it did not) and in which call.
  CUresult retainResult = CUDA_SUCCESS;
  const char *retainCall = "";
  bool memoryPools = false;
  std::once_flag poolOnce;
  /// dlbridge's own stream-ordered pool (NULL: the device's current pool).
  CUmemoryPool pool = nullptr;
  std::mutex eventMutex;
  PodVector<CUevent> events;
};

} // namespace cuda
} // namespace dlrt

namespace {

struct DriverState {
  DriverApi api{};
  /// The api usable (the driver loaded and cuInit succeeded or found no
  /// device)?
  bool loaded = false;
  int32_t status = DLRT_OK;
  char message[DLRT_ERROR_CAPACITY] = {};
  int32_t count = 0;
  Device *devices = nullptr;
};

std::once_flag loadOnce;
DriverState *state = nullptr;

template <typename Fn>
bool resolve(void *library, const char *name, Fn &fn, bool required,
             DriverState &s, const char *path) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (fn || !required)
    return true;
  s.status = DLRT_ERR_NO_CUDA_DRIVER;
  std::snprintf(s.message, sizeof(s.message),
                "no CUDA driver: %s lacks %s (driver too old?)", path, name);
  return false;
}

bool resolveAll(void *lib, DriverState &s, const char *path) {
  DriverApi &a = s.api;
#define DLRT_RESOLVE(member, name, required)                                   \
  if (!resolve(lib, name, a.member, required, s, path))                        \
    return false;
  DLRT_RESOLVE(Init, "cuInit", true)
  DLRT_RESOLVE(DriverGetVersion, "cuDriverGetVersion", true)
  DLRT_RESOLVE(GetErrorString, "cuGetErrorString", true)
  DLRT_RESOLVE(DeviceGetCount, "cuDeviceGetCount", true)
  DLRT_RESOLVE(DeviceGet, "cuDeviceGet", true)
  DLRT_RESOLVE(DeviceGetAttribute, "cuDeviceGetAttribute", true)
  DLRT_RESOLVE(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", true)
  DLRT_RESOLVE(CtxGetCurrent, "cuCtxGetCurrent", true)
  DLRT_RESOLVE(CtxSetCurrent, "cuCtxSetCurrent", true)
  DLRT_RESOLVE(MemAlloc, "cuMemAlloc_v2", true)
  DLRT_RESOLVE(MemFree, "cuMemFree_v2", true)
  DLRT_RESOLVE(MemAllocAsync, "cuMemAllocAsync", false)
  DLRT_RESOLVE(MemFreeAsync, "cuMemFreeAsync", false)
  DLRT_RESOLVE(MemPoolCreate, "cuMemPoolCreate", false)
  DLRT_RESOLVE(MemPoolSetAttribute, "cuMemPoolSetAttribute", false)
  DLRT_RESOLVE(MemPoolTrimTo, "cuMemPoolTrimTo", false)
  DLRT_RESOLVE(MemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", false)
  DLRT_RESOLVE(MemAllocManaged, "cuMemAllocManaged", true)
  DLRT_RESOLVE(MemcpyAsync, "cuMemcpyAsync", true)
  DLRT_RESOLVE(MemsetD8Async, "cuMemsetD8Async", true)
  DLRT_RESOLVE(MemsetD16Async, "cuMemsetD16Async", true)
  DLRT_RESOLVE(MemsetD32Async, "cuMemsetD32Async", true)
  DLRT_RESOLVE(StreamCreate, "cuStreamCreate", true)
  DLRT_RESOLVE(StreamSynchronize, "cuStreamSynchronize", true)
  DLRT_RESOLVE(StreamDestroy, "cuStreamDestroy_v2", true)
  DLRT_RESOLVE(StreamWaitEvent, "cuStreamWaitEvent", true)
  DLRT_RESOLVE(StreamIsCapturing, "cuStreamIsCapturing", true)
  DLRT_RESOLVE(EventCreate, "cuEventCreate", true)
  DLRT_RESOLVE(EventDestroy, "cuEventDestroy_v2", true)
  DLRT_RESOLVE(EventRecord, "cuEventRecord", true)
  DLRT_RESOLVE(EventQuery, "cuEventQuery", true)
  DLRT_RESOLVE(EventSynchronize, "cuEventSynchronize", true)
  DLRT_RESOLVE(ModuleLoadData, "cuModuleLoadData", true)
  DLRT_RESOLVE(ModuleLoadDataEx, "cuModuleLoadDataEx", true)
  DLRT_RESOLVE(ModuleUnload, "cuModuleUnload", true)
  DLRT_RESOLVE(ModuleGetFunction, "cuModuleGetFunction", true)
  DLRT_RESOLVE(LaunchKernel, "cuLaunchKernel", true)
  DLRT_RESOLVE(FuncSetAttribute, "cuFuncSetAttribute", true)
  DLRT_RESOLVE(FuncGetAttribute, "cuFuncGetAttribute", true)
#undef DLRT_RESOLVE
  return true;
}

const char *errorText(const DriverApi &api, CUresult result) {
  const char *text = nullptr;
  if (api.GetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "unrecognized error code";
  return text;
}

void load() {
  auto *s = new (std::nothrow) DriverState();
  if (!s)
    return; // state stays NULL: reported as out of memory by getDriver.
  const char *override = std::getenv("DLRT_CUDA_DRIVER");
  const char *path = override && *override ? override : "libcuda.so.1";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    s->status = DLRT_ERR_NO_CUDA_DRIVER;
    std::snprintf(s->message, sizeof(s->message),
                  "no CUDA driver: %s not found (%s)", path,
                  why ? why : "unknown dlopen error");
    state = s;
    return;
  }
  // The library stays loaded for the life of the process (never dlclose'd):
  // its functions may run from static destructors and the releaser thread.
  if (!resolveAll(lib, *s, path)) {
    state = s;
    return;
  }
  CUresult r = s->api.Init(0);
  if (r == CUDA_ERROR_STUB_LIBRARY) {
    s->status = DLRT_ERR_NO_CUDA_DRIVER;
    std::snprintf(s->message, sizeof(s->message),
                  "no CUDA driver: %s is the CUDA toolkit's stub library "
                  "(cuInit returned CUDA_ERROR_STUB_LIBRARY)",
                  path);
    state = s;
    return;
  }
  if (r == CUDA_ERROR_NO_DEVICE) {
    s->loaded = true; // A driver without devices: count 0, no error.
    state = s;
    return;
  }
  if (r != CUDA_SUCCESS) {
    s->status = DLRT_ERR_CUDA;
    std::snprintf(s->message, sizeof(s->message),
                  "cuInit failed: %s (CUDA error %d)", errorText(s->api, r),
                  static_cast<int>(r));
    state = s;
    return;
  }
  int count = 0;
  r = s->api.DeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    s->status = DLRT_ERR_CUDA;
    std::snprintf(s->message, sizeof(s->message),
                  "cuDeviceGetCount failed: %s (CUDA error %d)",
                  errorText(s->api, r), static_cast<int>(r));
    state = s;
    return;
  }
  if (count > 0) {
    s->devices = new (std::nothrow) Device[count];
    if (!s->devices) {
      s->status = DLRT_ERR_OUT_OF_MEMORY;
      std::snprintf(s->message, sizeof(s->message),
                    "out of memory recording %d CUDA devices", count);
      state = s;
      return;
    }
    for (int i = 0; i < count; ++i)
      s->devices[i].id = i;
  }
  s->count = count;
  s->loaded = true;
  state = s;
}

const DriverState *loadedState() {
  std::call_once(loadOnce, load);
  return state;
}

void retain(Device *d) {
  const DriverApi &api = state->api;
  CUresult r = api.DeviceGet(&d->handle, d->id);
  if (r != CUDA_SUCCESS) {
    d->retainResult = r;
    d->retainCall = "cuDeviceGet";
    return;
  }
  int pools = 0;
  if (api.MemAllocAsync && api.MemFreeAsync) {
    r = api.DeviceGetAttribute(
        &pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, d->handle);
    if (r != CUDA_SUCCESS)
      pools = 0; // An old driver may not know the attribute: no pools.
  }
  d->memoryPools = pools != 0;
  // Retained once per process and never released: results may be freed from
  // static destructors after any release point we could choose.
  r = api.DevicePrimaryCtxRetain(&d->context, d->handle);
  if (r != CUDA_SUCCESS) {
    d->retainResult = r;
    d->retainCall = "cuDevicePrimaryCtxRetain";
    d->context = nullptr;
  }
}

} // namespace

const DriverApi *dlrt::cuda::getDriver(int32_t *status) {
  const DriverState *s = loadedState();
  int32_t code = DLRT_OK;
  if (!s)
    code = dlrt_set_error(nullptr, DLRT_ERR_OUT_OF_MEMORY,
                          "out of memory loading the CUDA driver");
  else if (!s->loaded)
    code = dlrt_set_error(nullptr, s->status, "%s", s->message);
  if (status)
    *status = code;
  return code == DLRT_OK ? &s->api : nullptr;
}

const DriverApi *dlrt::cuda::peekDriver() {
  const DriverState *s = loadedState();
  return s && s->loaded ? &s->api : nullptr;
}

int32_t dlrt::cuda::deviceCount() {
  const DriverState *s = loadedState();
  return s && s->loaded ? s->count : 0;
}

const char *dlrt::cuda::errorString(CUresult result) {
  const DriverState *s = loadedState();
  return s && s->loaded ? errorText(s->api, result) : "driver not loaded";
}

int32_t dlrt::cuda::fail(CUresult result, const char *call) {
  const char *text = errorString(result);
  int32_t code = result == CUDA_ERROR_OUT_OF_MEMORY ? DLRT_ERR_OUT_OF_MEMORY
                                                    : DLRT_ERR_CUDA;
  return dlrt_set_error(nullptr, code, "%s failed: %s (CUDA error %d)", call,
                        text, static_cast<int>(result));
}

int32_t dlrt::cuda::activate(int32_t id, Device **out) {
  *out = nullptr;
  int32_t status = DLRT_OK;
  if (!getDriver(&status))
    return status;
  if (id < 0 || id >= state->count)
    return dlrt_set_error(nullptr, DLRT_ERR_DEVICE,
                          "CUDA device %d not found: the driver reports %d "
                          "device(s)",
                          static_cast<int>(id), static_cast<int>(state->count));
  Device *d = &state->devices[id];
  std::call_once(d->retainOnce, retain, d);
  if (d->retainResult != CUDA_SUCCESS)
    return fail(d->retainResult, d->retainCall);
  status = makeCurrent(d);
  if (status == DLRT_OK)
    *out = d;
  return status;
}

int32_t dlrt::cuda::activateCuda(DLDevice device, Device **out) {
  *out = nullptr;
  if (device.device_type != kDLCUDA && device.device_type != kDLCUDAManaged)
    return dlrt_set_error(nullptr, DLRT_ERR_DEVICE,
                          "expected a CUDA device, got device type %d",
                          static_cast<int>(device.device_type));
  return activate(device.device_id, out);
}

int32_t dlrt::cuda::deviceId(const Device *device) { return device->id; }

bool dlrt::cuda::supportsMemoryPools(const Device *device) {
  return device->memoryPools;
}

namespace {

/// Creates `d`'s pool; on any failure `d->pool` stays NULL.
void createPool(Device *d) {
  const DriverApi &api = state->api;
  if (!api.MemPoolCreate || !api.MemPoolSetAttribute || !api.MemPoolTrimTo ||
      !api.MemAllocFromPoolAsync)
    return;
  CUmemPoolProps props;
  std::memset(&props, 0, sizeof(props));
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = d->id;
  CUmemoryPool pool = nullptr;
  if (api.MemPoolCreate(&pool, &props) != CUDA_SUCCESS)
    return;
  // Keep freed memory for reuse: with the default threshold (0) every
  // synchronisation hands it back to the OS and the next allocation of the
  // same size maps fresh pages, on the stream, before the kernel can start.
  uint64_t keep = UINT64_MAX;
  if (api.MemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep) ==
      CUDA_SUCCESS)
    d->pool = pool;
}

} // namespace

CUmemoryPool dlrt::cuda::resultPool(Device *device) {
  if (!device->memoryPools)
    return nullptr;
  std::call_once(device->poolOnce, createPool, device);
  return device->pool;
}

int32_t dlrt::cuda::makeCurrent(Device *device) {
  const DriverApi &api = state->api;
  CUcontext current = nullptr;
  CUresult r = api.CtxGetCurrent(&current);
  if (r != CUDA_SUCCESS)
    return fail(r, "cuCtxGetCurrent");
  if (current == device->context)
    return DLRT_OK;
  r = api.CtxSetCurrent(device->context);
  return r == CUDA_SUCCESS ? DLRT_OK : fail(r, "cuCtxSetCurrent");
}

int32_t dlrt::cuda::acquireEvent(Device *device, CUevent *out) {
  {
    std::lock_guard<std::mutex> lock(device->eventMutex);
    if (!device->events.empty()) {
      *out = device->events.back();
      device->events.pop();
      return DLRT_OK;
    }
  }
  CUresult r = state->api.EventCreate(out, CU_EVENT_DISABLE_TIMING);
  return r == CUDA_SUCCESS ? DLRT_OK : fail(r, "cuEventCreate");
}

void dlrt::cuda::releaseEvent(Device *device, CUevent event) {
  {
    std::lock_guard<std::mutex> lock(device->eventMutex);
    if (device->events.push(event))
      return;
  }
  state->api.EventDestroy(event); // Out of memory: do not pool it.
}

/// Completion test of a deferred CUDA release: `token` is an event of the
/// device `context`, returned to its pool once it completed. A failed query
/// (a sticky error, or the driver shutting down at exit) counts as completed:
/// the work will never finish and keeping the owner forever helps no one.
int dlrt::cuda::pollDeviceEvent(void *context, void *token, int wait) {
  const DriverApi *api = &state->api;
  auto *device = static_cast<Device *>(context);
  auto event = static_cast<CUevent>(token);
  CUresult r = wait ? api->EventSynchronize(event) : api->EventQuery(event);
  if (r == CUDA_ERROR_NOT_READY)
    return 0;
  if (r == CUDA_SUCCESS)
    releaseEvent(device, event);
  return 1;
}

//===----------------------------------------------------------------------===//
// Public: availability
//===----------------------------------------------------------------------===//

extern "C" int32_t dlrt_cuda_available(void) {
  return deviceCount() > 0 ? 1 : 0;
}

extern "C" int32_t dlrt_cuda_device_count(int32_t *count) {
  if (!count)
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "dlrt_cuda_device_count: count is NULL");
  *count = 0;
  int32_t status = DLRT_OK;
  if (!getDriver(&status))
    return status;
  *count = state->count;
  return DLRT_OK;
}

extern "C" int32_t dlrt_cuda_compute_capability(int32_t device, int32_t *major,
                                                int32_t *minor) {
  if (!major || !minor)
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "dlrt_cuda_compute_capability: major or minor is "
                          "NULL");
  Device *d = nullptr;
  if (int32_t status = activate(device, &d))
    return status;
  const DriverApi &api = *peekDriver();
  int values[2] = {0, 0};
  CUresult r = api.DeviceGetAttribute(
      &values[0], CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->handle);
  if (r == CUDA_SUCCESS)
    r = api.DeviceGetAttribute(
        &values[1], CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->handle);
  if (r != CUDA_SUCCESS)
    return fail(r, "cuDeviceGetAttribute");
  *major = values[0];
  *minor = values[1];
  return DLRT_OK;
}
