//===- CudaDriver.h - Loading libcuda.so.1, devices, events --*- C++ -*-===//
//-*-===//
//
// Internal to libdlrt. The driver is dlopen'ed once per process on first use
// (DLRT_CUDA_DRIVER overrides the file name); each device's primary context is
// retained once; each device has a pool of reusable events. Every function
// here that returns int32_t returns a dlrt_status and, on failure, has
// written the thread's last error (dlrt_set_error with a NULL context).
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_RUNTIME_CUDADRIVER_H
#define DLBRIDGE_LIB_RUNTIME_CUDADRIVER_H

#include "CudaApi.h"

#include "dlbridge/Runtime/dlrt.h"

#include <cstdint>
#include <cstdlib>
#include <type_traits>

namespace dlrt {
namespace cuda {

/// A growable array of trivially copyable values on malloc/realloc whose
/// push reports allocation failure instead of terminating the process (the
/// runtime is built without exceptions and must not abort). Not thread-safe.
template <typename T> class PodVector {
  static_assert(std::is_trivially_copyable<T>::value, "");

public:
  PodVector() = default;
  PodVector(const PodVector &) = delete;
  PodVector &operator=(const PodVector &) = delete;
  ~PodVector() { std::free(items); }

  /// Appends `value`; false (and nothing changed) when out of memory.
  bool push(const T &value) {
    if (count == capacity) {
      size_t grown = capacity ? capacity * 2 : 8;
      void *p = std::realloc(items, grown * sizeof(T));
      if (!p)
        return false;
      items = static_cast<T *>(p);
      capacity = grown;
    }
    items[count++] = value;
    return true;
  }
  /// Removes element `i` by moving the last one into its place.
  void swapRemove(size_t i) { items[i] = items[--count]; }
  void pop() { --count; }
  void swap(PodVector &other) {
    T *i = items;
    size_t n = count, c = capacity;
    items = other.items, count = other.count, capacity = other.capacity;
    other.items = i, other.count = n, other.capacity = c;
  }
  void clear() { count = 0; }
  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  T &operator[](size_t i) { return items[i]; }
  const T &operator[](size_t i) const { return items[i]; }
  T &back() { return items[count - 1]; }

private:
  T *items = nullptr;
  size_t count = 0;
  size_t capacity = 0;
};

struct Device;

/// The loaded driver's entry points, or NULL after writing the load failure
/// (DLRT_ERR_NO_CUDA_DRIVER or DLRT_ERR_CUDA) to the last error and, when
/// `status` is non-NULL, to `*status`. Thread-safe; loads once.
const DriverApi *getDriver(int32_t *status);

/// Like getDriver but writes no error; for availability queries.
const DriverApi *peekDriver();

/// Number of devices of the loaded driver (0 if none or not loaded).
int32_t deviceCount();

/// Finds device `id`, retains its primary context on first use and makes it
/// current on the calling thread. Errors: NO_CUDA_DRIVER, DEVICE (id out of
/// range), CUDA. Thread-safe.
int32_t activate(int32_t id, Device **out);

/// The ordinal and driver handles of an activated device.
int32_t deviceId(const Device *device);
bool supportsMemoryPools(const Device *device);

/// dlbridge's stream-ordered pool on `device`, created on first use: freed
/// memory stays in it for the next allocation (as PyTorch's and CuPy's
/// caching allocators keep theirs) instead of going back to the OS at each
/// synchronisation. NULL without memory pools or if creating it failed.
/// Thread-safe.
CUmemoryPool resultPool(Device *device);

/// Makes `device`'s primary context current on the calling thread if it is
/// not already. Returns a dlrt_status.
int32_t makeCurrent(Device *device);

/// cuGetErrorString's text for `result` (never NULL).
const char *errorString(CUresult result);

/// Records DLRT_ERR_CUDA "<call> failed: <text> (CUDA error <n>)" (or
/// DLRT_ERR_OUT_OF_MEMORY for CUDA_ERROR_OUT_OF_MEMORY) and returns it.
int32_t fail(CUresult result, const char *call);

/// Takes an event from `device`'s pool, creating one without timing when the
/// pool is empty; `device` must be current. Thread-safe.
int32_t acquireEvent(Device *device, CUevent *out);
/// Returns an event to `device`'s pool (destroys it if the pool cannot grow).
/// Thread-safe.
void releaseEvent(Device *device, CUevent event);

/// A dlrt_internal_poll_fn for the releaser: `context` is a Device, `token`
/// an event of it recorded on a stream. Done when the event completed (it goes
/// back to the pool) or its query failed (a sticky error, or the driver
/// shutting down at exit: the work will never finish, so waiting longer would
/// only leak the owner).
int pollDeviceEvent(void *context, void *token, int wait);

/// Allocates `bytes` (> 0) on the current `device` ordered on `stream`: from
/// resultPool (trimmed and tried again when the device is out of memory),
/// else cuMemAllocAsync with memory pools, else cuMemAlloc. `*out` NULL on
/// error.
int32_t deviceAlloc(Device *device, size_t bytes, void *stream, void **out);

/// Frees `ptr` (non-NULL) from deviceAlloc on the current `device`, ordered on
/// `stream`: cuMemFreeAsync with memory pools, else cuMemFree (which waits
/// for the device). Returns a dlrt_status.
int32_t deviceFree(Device *device, void *ptr, void *stream);

/// If `ptr` is managed memory from mgpuMemAlloc(..., isHostShared = true),
/// forgets it and returns true: the caller then frees it with cuMemFree (not
/// in stream order). Implemented in MgpuRuntime.cpp. Thread-safe.
bool forgetManagedAllocation(void *ptr);

/// The calling thread's default device of the mgpu* ABI
/// (mgpuSetDefaultDevice; 0 until set). Implemented in MgpuRuntime.cpp.
int32_t defaultDeviceId();

/// A stream value from the C ABI as the driver takes it: NULL and
/// DLRT_STREAM_NO_SYNC become CU_STREAM_LEGACY, anything else is unchanged.
inline CUstream toDriverStream(void *stream) {
  if (!stream || stream == reinterpret_cast<void *>(intptr_t(-1)))
    return CU_STREAM_LEGACY;
  return static_cast<CUstream>(stream);
}

/// Checks that `device` is a CUDA device (kDLCUDA or kDLCUDAManaged) and
/// activates it. Errors as activate, plus DEVICE for other device types.
int32_t activateCuda(DLDevice device, Device **out);

} // namespace cuda
} // namespace dlrt

#endif // DLBRIDGE_LIB_RUNTIME_CUDADRIVER_H
