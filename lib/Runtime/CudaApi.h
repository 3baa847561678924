//===- CudaApi.h - CUDA driver types for the dlopen'ed driver ---*- C++ -*-===//
//
// The CUDA driver types and constants libdlrt uses, and the table of driver
// entry points it resolves from libcuda.so.1 at run time.
//
// With the toolkit's cuda.h available at configure time (DLRT_HAVE_CUDA_H),
// the types come from there (the header is used for types only: nothing of
// CUDA is linked). Without it, the few types and constants needed are
// declared below with the driver ABI's values, so the runtime always builds;
// when cuda.h is present, CudaDriver.cpp static_asserts that these fallback
// values match it, so the fallback is checked by every toolkit build.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_RUNTIME_CUDAAPI_H
#define DLBRIDGE_LIB_RUNTIME_CUDAAPI_H

#include <cstddef>
#include <cstdint>

namespace dlrt {
namespace cuda {
/// The driver ABI values libdlrt relies on, independent of cuda.h.
namespace abi {
constexpr int Success = 0;
constexpr int ErrorOutOfMemory = 2;
constexpr int ErrorNotInitialized = 3;
constexpr int ErrorDeinitialized = 4;
constexpr int ErrorStubLibrary = 34;
constexpr int ErrorNoDevice = 100;
constexpr int ErrorNotReady = 600;
constexpr unsigned StreamNonBlocking = 0x1;
constexpr unsigned EventDisableTiming = 0x2;
constexpr unsigned MemAttachGlobal = 0x1;
constexpr int AttrMemoryPoolsSupported = 115;
constexpr int FuncAttrMaxDynamicSharedSizeBytes = 8;
constexpr int JitErrorLogBuffer = 5;
constexpr int JitErrorLogBufferSizeBytes = 6;
constexpr int JitOptimizationLevel = 7;
constexpr int JitInfoLogBuffer = 3;
constexpr int JitInfoLogBufferSizeBytes = 4;
constexpr int MemAllocationTypePinned = 1;
constexpr int MemLocationTypeDevice = 1;
constexpr int MemPoolAttrReleaseThreshold = 4;
} // namespace abi
} // namespace cuda
} // namespace dlrt

#if DLRT_HAVE_CUDA_H
#include <cuda.h>
#else
extern "C" {
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUdevice_attribute;
typedef int CUfunction_attribute;
typedef int CUjit_option;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef int CUmemPool_attribute;
typedef struct CUmemPoolProps_st {
  int allocType;
  int handleTypes;
  struct {
    int type;
    int id;
  } location;
  void *win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
} CUmemPoolProps;
}
#define CUDA_SUCCESS 0
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_DEINITIALIZED 4
#define CUDA_ERROR_STUB_LIBRARY 34
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_NOT_READY 600
#define CU_STREAM_LEGACY ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)
#define CU_STREAM_NON_BLOCKING 0x1
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_MEM_ATTACH_GLOBAL 0x1
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED 115
#define CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES 1
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define CU_JIT_INFO_LOG_BUFFER 3
#define CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES 4
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
#define CU_JIT_OPTIMIZATION_LEVEL 7
#define CU_MEM_ALLOCATION_TYPE_PINNED 1
#define CU_MEM_LOCATION_TYPE_DEVICE 1
#define CU_MEMPOOL_ATTR_RELEASE_THRESHOLD 4
#endif

namespace dlrt {
namespace cuda {

/// Driver entry points, resolved with dlsym under the versioned names cuda.h
/// maps them to (cuMemAlloc_v2, ...). Calls go through the non-_ptsz entry
/// points, so a NULL stream is the legacy default stream. Members marked
/// optional may be NULL (older drivers); every other member is non-NULL once
/// the driver loaded.
struct DriverApi {
  CUresult (*Init)(unsigned flags);
  CUresult (*DriverGetVersion)(int *version);
  CUresult (*GetErrorString)(CUresult error, const char **str);
  CUresult (*DeviceGetCount)(int *count);
  CUresult (*DeviceGet)(CUdevice *device, int ordinal);
  CUresult (*DeviceGetAttribute)(int *value, CUdevice_attribute attribute,
                                 CUdevice device);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice device);
  CUresult (*CtxGetCurrent)(CUcontext *ctx);
  CUresult (*CtxSetCurrent)(CUcontext ctx);
  CUresult (*MemAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*MemFree)(CUdeviceptr ptr);
  CUresult (*MemAllocAsync)(CUdeviceptr *ptr, size_t bytes,
                            CUstream stream);                 // optional
  CUresult (*MemFreeAsync)(CUdeviceptr ptr, CUstream stream); // optional
  CUresult (*MemPoolCreate)(CUmemoryPool *pool,
                            const CUmemPoolProps *props); // optional
  CUresult (*MemPoolSetAttribute)(CUmemoryPool pool, CUmemPool_attribute attr,
                                  void *value);              // optional
  CUresult (*MemPoolTrimTo)(CUmemoryPool pool, size_t keep); // optional
  CUresult (*MemAllocFromPoolAsync)(CUdeviceptr *ptr, size_t bytes,
                                    CUmemoryPool pool,
                                    CUstream stream); // optional
  CUresult (*MemAllocManaged)(CUdeviceptr *ptr, size_t bytes, unsigned flags);
  CUresult (*MemcpyAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                          CUstream stream);
  CUresult (*MemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t n,
                            CUstream stream);
  CUresult (*MemsetD16Async)(CUdeviceptr dst, unsigned short value, size_t n,
                             CUstream stream);
  CUresult (*MemsetD32Async)(CUdeviceptr dst, unsigned int value, size_t n,
                             CUstream stream);
  CUresult (*StreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*StreamSynchronize)(CUstream stream);
  CUresult (*StreamDestroy)(CUstream stream);
  CUresult (*StreamWaitEvent)(CUstream stream, CUevent event, unsigned flags);
  /// `status`: a CUstreamCaptureStatus (0: not capturing).
  CUresult (*StreamIsCapturing)(CUstream stream, int *status);
  CUresult (*EventCreate)(CUevent *event, unsigned flags);
  CUresult (*EventDestroy)(CUevent event);
  CUresult (*EventRecord)(CUevent event, CUstream stream);
  CUresult (*EventQuery)(CUevent event);
  CUresult (*EventSynchronize)(CUevent event);
  CUresult (*ModuleLoadData)(CUmodule *module, const void *image);
  CUresult (*ModuleLoadDataEx)(CUmodule *module, const void *image,
                               unsigned numOptions, CUjit_option *options,
                               void **values);
  CUresult (*ModuleUnload)(CUmodule module);
  CUresult (*ModuleGetFunction)(CUfunction *function, CUmodule module,
                                const char *name);
  CUresult (*LaunchKernel)(CUfunction f, unsigned gridX, unsigned gridY,
                           unsigned gridZ, unsigned blockX, unsigned blockY,
                           unsigned blockZ, unsigned smem, CUstream stream,
                           void **params, void **extra);
  CUresult (*FuncSetAttribute)(CUfunction f, CUfunction_attribute attribute,
                               int value);
  CUresult (*FuncGetAttribute)(int *value, CUfunction_attribute attribute,
                               CUfunction f);
};

} // namespace cuda
} // namespace dlrt

#endif // DLBRIDGE_LIB_RUNTIME_CUDAAPI_H
