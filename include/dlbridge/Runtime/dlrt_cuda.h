/*===- dlrt_cuda.h - dlbridge runtime: CUDA, streams, keep-alive -*- C -*-===*\
|*                                                                            *|
|* The CUDA half of libdlrt's C ABI: driver availability, DLPack stream       *|
|* values, stream ordering with pooled events, deferred release of borrowed  *|
|* tensors, stream-ordered device allocation, contractions through            *|
|* cuBLASLt, and the error side channel of the mgpu* launch ABI that MLIR's   *|
|* gpu-to-llvm emits.                                                         *|
|*                                                                            *|
|* libdlrt never links CUDA: libcuda.so.1 is dlopen'ed on the first CUDA      *|
|* call. The environment variable DLRT_CUDA_DRIVER, read once at that first   *|
|* call, names another file to load instead (tests use it to simulate a       *|
|* machine without a driver). Without a loadable driver every CUDA function   *|
|* below returns DLRT_ERR_NO_CUDA_DRIVER with the message                     *|
|* "no CUDA driver: libcuda.so.1 not found (<dlerror>)"; CPU paths keep       *|
|* working. A failing driver call returns DLRT_ERR_CUDA with                  *|
|* "<call> failed: <cuGetErrorString> (CUDA error <n>)". Every failure is     *|
|* also written to the calling thread's last error (dlrt_last_error).         *|
|*                                                                            *|
|* Streams are CUstream values passed as void*; NULL is CUDA's legacy         *|
|* default stream. Streams handed in are borrowed: never synchronised or      *|
|* destroyed by the runtime. Each CUDA device is used through its primary     *|
|* context, retained once per process and made current on the calling        *|
|* thread by every function that needs it.                                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DLBRIDGE_RUNTIME_DLRT_CUDA_H
#define DLBRIDGE_RUNTIME_DLRT_CUDA_H

#include "dlbridge/Runtime/dlrt.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Driver
 *===----------------------------------------------------------------------===*/

/// 1 when a CUDA driver could be loaded and initialised and reports at least
/// one device, else 0. Loads the driver on first use. Never fails, never
/// writes the last error. Thread-safe.
DLRT_EXPORT int32_t dlrt_cuda_available(void);

/// Writes the number of CUDA devices into `*count` (0 when the driver reports
/// CUDA_ERROR_NO_DEVICE). Errors: DLRT_ERR_INVALID_ARGUMENT (`count` NULL),
/// DLRT_ERR_NO_CUDA_DRIVER, DLRT_ERR_CUDA (cuInit failed otherwise); `*count`
/// is set to 0 on every error. Thread-safe.
DLRT_EXPORT int32_t dlrt_cuda_device_count(int32_t *count);

/// Writes device `device`'s compute capability (9 and 0 for an H100) into
/// `*major` and `*minor`, activating the device's primary context. Errors:
/// DLRT_ERR_INVALID_ARGUMENT (NULL outputs), DLRT_ERR_NO_CUDA_DRIVER,
/// DLRT_ERR_DEVICE (bad id), DLRT_ERR_CUDA. Thread-safe.
DLRT_EXPORT int32_t dlrt_cuda_compute_capability(int32_t device, int32_t *major,
                                                 int32_t *minor);

/*===----------------------------------------------------------------------===*
 * DLPack stream values
 *===----------------------------------------------------------------------===*/

/// The stream value standing for "no synchronisation" (DLPack stream -1): the
/// consumer promises to order the work itself. dlrt_stream_wait treats it as
/// a no-op, dlrt_defer_release releases at once, and the mgpu* functions use
/// the legacy default stream in its place. Never a valid CUstream.
#define DLRT_STREAM_NO_SYNC ((void *)(intptr_t)-1)

/// CUDA's legacy default stream (CU_STREAM_LEGACY); NULL means the same.
#define DLRT_STREAM_LEGACY ((void *)(intptr_t)1)

/// CUDA's per-thread default stream (CU_STREAM_PER_THREAD).
#define DLRT_STREAM_PER_THREAD ((void *)(intptr_t)2)

/// Maps the `stream` argument of `__dlpack__` (Python array API) for a
/// consumer on `device` to a stream value. `has_value` 0 means Python's None.
///   CUDA (kDLCUDA, kDLCUDAManaged): None -> DLRT_STREAM_LEGACY;
///     -1 -> DLRT_STREAM_NO_SYNC; 1 -> DLRT_STREAM_LEGACY;
///     2 -> DLRT_STREAM_PER_THREAD; 0 -> DLRT_ERR_STREAM ("stream 0 is
///     ambiguous for CUDA; use 1 or 2"); any other value -> that CUstream
///     handle; values below -1 -> DLRT_ERR_STREAM.
///   CPU (kDLCPU, kDLCUDAHost): None -> NULL; anything else DLRT_ERR_STREAM.
///   Other device types: DLRT_ERR_UNSUPPORTED.
/// Pure: needs no driver. `*out_stream` is written only on success.
/// Errors: DLRT_ERR_INVALID_ARGUMENT (`out_stream` NULL), DLRT_ERR_STREAM,
/// DLRT_ERR_UNSUPPORTED. Thread-safe.
DLRT_EXPORT int32_t dlrt_stream_from_dlpack(DLDevice device, int64_t value,
                                            int has_value, void **out_stream);

/*===----------------------------------------------------------------------===*
 * Stream ordering and keep-alive
 *===----------------------------------------------------------------------===*/

/// Makes `waiter` wait for the work enqueued on `signaller` so far: records a
/// pooled event (one pool per device, CU_EVENT_DISABLE_TIMING, events reused)
/// on `signaller` and enqueues cuStreamWaitEvent on `waiter`. Never blocks the
/// host. A no-op (after the driver check) when both name the same stream
/// (NULL and DLRT_STREAM_LEGACY are the same) or either is
/// DLRT_STREAM_NO_SYNC. On the CPU both must be NULL (else DLRT_ERR_STREAM)
/// and nothing happens. Both streams are borrowed.
/// Errors: DLRT_ERR_NO_CUDA_DRIVER, DLRT_ERR_DEVICE (bad device id),
/// DLRT_ERR_CUDA, DLRT_ERR_STREAM, DLRT_ERR_UNSUPPORTED (other device types).
/// Thread-safe.
DLRT_EXPORT int32_t dlrt_stream_wait(DLDevice device, void *waiter,
                                     void *signaller);

/// Calls `release(arg)` exactly once, after the work enqueued on `stream` so
/// far has finished, and never on the caller's critical path:
///   CPU (kDLCPU, kDLCUDAHost; `stream` must be NULL) and CUDA with
///   DLRT_STREAM_NO_SYNC: at once, on the calling thread.
///   CUDA: records a pooled event on `stream`; a background releaser thread
///   (one per process, started lazily) calls `release(arg)` once the event
///   completed. At process exit the thread waits for the pending events,
///   releases them and is joined. After that (late calls from other static
///   destructors) the call waits for the event itself and releases inline.
/// `release` must not be NULL; it may run on another thread than the caller's
/// and must not call dlrt_defer_release recursively in a way that waits.
/// On failure `release` has NOT been called and the caller keeps ownership.
/// Errors: DLRT_ERR_INVALID_ARGUMENT (`release` NULL), DLRT_ERR_STREAM,
/// DLRT_ERR_NO_CUDA_DRIVER, DLRT_ERR_DEVICE, DLRT_ERR_CUDA,
/// DLRT_ERR_UNSUPPORTED. Thread-safe.
DLRT_EXPORT int32_t dlrt_defer_release(DLDevice device, void *stream,
                                       void (*release)(void *), void *arg);

/*===----------------------------------------------------------------------===*
 * Device memory
 *===----------------------------------------------------------------------===*/

/// Allocates `bytes` of device memory on `device` (kDLCUDA) ordered on
/// `stream` (borrowed): cuMemAllocAsync when the device supports memory pools,
/// else cuMemAlloc. 0 bytes yields `*out` = NULL and DLRT_OK. The caller owns
/// the buffer; a result's deleter frees it in stream order. `*out` is NULL on
/// every error. Errors: DLRT_ERR_INVALID_ARGUMENT (`out` NULL),
/// DLRT_ERR_NO_CUDA_DRIVER, DLRT_ERR_DEVICE (not CUDA, bad id),
/// DLRT_ERR_OUT_OF_MEMORY, DLRT_ERR_CUDA. Thread-safe.
DLRT_EXPORT int32_t dlrt_cuda_alloc(DLDevice device, size_t bytes, void *stream,
                                    void **out);

/*===----------------------------------------------------------------------===*
 * Contractions through cuBLASLt
 *===----------------------------------------------------------------------===*/

/// Element types of dlrt_cuda_matmul's operands.
typedef enum dlrt_cuda_matmul_type {
  DLRT_CUDA_MATMUL_F16 = 0,
  DLRT_CUDA_MATMUL_BF16 = 1,
  DLRT_CUDA_MATMUL_F32 = 2,
  DLRT_CUDA_MATMUL_F64 = 3,
} dlrt_cuda_matmul_type;

/// Flags of dlrt_cuda_matmul.
enum {
  /// C += A B instead of C = A B.
  DLRT_CUDA_MATMUL_ACCUMULATE = 1,
  /// f32 products may round their inputs to TF32 on tensor cores
  /// (CUBLAS_COMPUTE_32F_FAST_TF32): about 8x the throughput, with 10-bit
  /// mantissas in the products. Without it f32 is exact
  /// (CUBLAS_COMPUTE_32F). Ignored for other types.
  DLRT_CUDA_MATMUL_ALLOW_TF32 = 2,
};

/// What dlrt_cuda_matmul returns, recording nothing, for a product it leaves
/// to the caller: cuBLASLt cannot read an operand's strides (see there) or
/// has no algorithm for the problem.
#define DLRT_CUDA_MATMUL_DECLINED (-1)

/// Enqueues C = A B (C += A B with DLRT_CUDA_MATMUL_ACCUMULATE) on `stream`
/// (borrowed; NULL and DLRT_STREAM_NO_SYNC are the legacy default stream),
/// for `batch` products of (m x k) A and (k x n) B into (m x n) C, on the
/// thread's default device of the mgpu* ABI (which dlrt_call_begin sets to
/// the call's device). What --dlbridge-contractions-to-blas{target=cuda}
/// calls for linalg.matmul, batch_matmul, matvec and vecmat.
///
/// Operands are device pointers to their first element; element (b, i, j)
/// of X is at x[b * x_batch_stride + i * x_row_stride + j * x_col_stride].
/// A and B have `input_type`, C `output_type`: both the same, or f16/bf16
/// inputs with f32 output. f16 and bf16 multiply on tensor cores and
/// accumulate in f32; f32 is exact unless DLRT_CUDA_MATMUL_ALLOW_TF32; f64
/// in f64.
///
/// cuBLASLt (libcublasLt.so.13, else .12, else libcublasLt.so; the
/// environment variable DLRT_CUBLASLT, read once at the first call, names
/// another file) is loaded on the first call and never unloaded; one handle
/// per device is kept. A call never synchronises: a workspace, when the
/// chosen algorithm needs one, is allocated and freed in stream order
/// (cuMemAllocAsync; devices without memory pools use algorithms without
/// one), so calls can be captured in CUDA graphs.
///
/// Returns DLRT_OK once the product is enqueued (or there is nothing to
/// compute); DLRT_CUDA_MATMUL_DECLINED, recording nothing, when a matrix is
/// not one cuBLASLt reads (unit stride along neither its rows nor its
/// columns, a leading dimension smaller than the matrix, negative or zero
/// strides), batch strides are negative (zero only for A and B), k is 0
/// without DLRT_CUDA_MATMUL_ACCUMULATE, the batch exceeds INT32_MAX, or
/// cuBLASLt finds no algorithm: generated code then runs its own kernel.
/// Otherwise a failure, recorded in the context of the call in progress
/// (dlrt_call_begin), if any, and as the thread's last error:
/// DLRT_ERR_INVALID_ARGUMENT (negative sizes, unknown types or flags, NULL
/// operands of a non-empty product), DLRT_ERR_UNSUPPORTED (a type pair
/// other than those above; "no cuBLASLt: ..." naming the files tried when
/// none loads, or the one that lacks a function), DLRT_ERR_NO_CUDA_DRIVER,
/// DLRT_ERR_DEVICE, DLRT_ERR_OUT_OF_MEMORY, DLRT_ERR_CUDA (a cuBLASLt or
/// driver call failed; the message names it). Arguments are checked before
/// cuBLASLt loads, and cuBLASLt loads before the driver. Thread-safe.
DLRT_EXPORT int32_t dlrt_cuda_matmul(
    void *stream, int32_t input_type, int32_t output_type, int32_t flags,
    int64_t batch, int64_t m, int64_t n, int64_t k, const void *a,
    int64_t a_batch_stride, int64_t a_row_stride, int64_t a_col_stride,
    const void *b, int64_t b_batch_stride, int64_t b_row_stride,
    int64_t b_col_stride, void *c, int64_t c_batch_stride, int64_t c_row_stride,
    int64_t c_col_stride);

/*===----------------------------------------------------------------------===*
 * mgpu* launch ABI: error side channel
 *===----------------------------------------------------------------------===*/

/// The mgpu* functions (mgpuModuleLoad, mgpuLaunchKernel, ...; see
/// lib/Runtime/MgpuRuntime.cpp) return void or a handle, so they keep the
/// FIRST failure of any of them on the calling thread: its status here, its
/// message in dlrt_last_error(). Later failures are dropped until this is
/// called. Returns that status (DLRT_OK if none) and clears it. Thread-local.
DLRT_EXPORT int32_t dlrt_cuda_take_launch_error(void);

/// Blocks until the work enqueued so far on the stream of the call in
/// progress (dlrt_call_stream(), borrowed: it is only waited for) has
/// finished. Code generated by --dlbridge-report-kernel-checks calls it
/// before it reads what its kernels' checks found. Runs on the thread's
/// default device; a failure is recorded as the mgpu* functions' are (see
/// dlrt_cuda_take_launch_error), so the call's context gets it at
/// dlrt_call_end. Thread-safe.
DLRT_EXPORT void dlrt_call_synchronize(void);

/*===----------------------------------------------------------------------===*
 * mgpu* launch ABI (what MLIR 22's gpu-to-llvm emits calls to)
 *===----------------------------------------------------------------------===*/

/* Declared here so the JIT can register their addresses. Handles are CUDA
 * driver handles as void*. All run on the thread's default device
 * (mgpuSetDefaultDevice, 0 initially), except launches, which run in the
 * context of the function's module. Failures are recorded as described at
 * dlrt_cuda_take_launch_error; functions returning a handle return NULL then.
 * None of them aborts or prints. All are thread-safe. */

/// Loads (or finds in the cache, keyed by device, address, size and content
/// hash) a cubin/fatbin/PTX image; reference-counted: every successful load
/// needs one mgpuModuleUnload.
DLRT_EXPORT void *mgpuModuleLoad(void *data, size_t size);
/// Like mgpuModuleLoad for a NUL-terminated PTX image JIT-compiled at
/// `optLevel` (0-4); the JIT log lands in the error message.
DLRT_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel);
/// Drops one reference; the module and its cached functions go at zero.
DLRT_EXPORT void mgpuModuleUnload(void *module);
/// The kernel `name` of `module`, cached: repeated calls do no driver lookup.
DLRT_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);
/// Enqueues `function` on `stream` (borrowed; NULL = legacy default). Sizes
/// must fit in unsigned int; dynamic shared memory above 48 KiB is opted in.
DLRT_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                  intptr_t gridY, intptr_t gridZ,
                                  intptr_t blockX, intptr_t blockY,
                                  intptr_t blockZ, int32_t smem, void *stream,
                                  void **params, void **extra,
                                  size_t paramsCount);
/// A new non-blocking stream owned by the runtime's registry.
DLRT_EXPORT void *mgpuStreamCreate(void);
/// Synchronises a stream from mgpuStreamCreate; a no-op for any other stream.
DLRT_EXPORT void mgpuStreamSynchronize(void *stream);
/// Destroys a stream from mgpuStreamCreate; a no-op for any other stream.
DLRT_EXPORT void mgpuStreamDestroy(void *stream);
/// Makes `stream` wait for `event` (host does not block).
DLRT_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);
/// A new event without timing; the caller owns it (mgpuEventDestroy).
DLRT_EXPORT void *mgpuEventCreate(void);
DLRT_EXPORT void mgpuEventDestroy(void *event);
/// Blocks the calling thread until `event` completed.
DLRT_EXPORT void mgpuEventSynchronize(void *event);
DLRT_EXPORT void mgpuEventRecord(void *event, void *stream);
/// Device memory ordered on `stream` (as dlrt_cuda_alloc), or managed memory
/// when `isHostShared`; NULL for 0 bytes. Free with mgpuMemFree.
DLRT_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                               bool isHostShared);
/// Frees memory from mgpuMemAlloc in order on `stream`; NULL is a no-op.
DLRT_EXPORT void mgpuMemFree(void *ptr, void *stream);
/// Copies `sizeBytes` between any two unified addresses, ordered on `stream`.
DLRT_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                            void *stream);
DLRT_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                              void *stream);
DLRT_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                              void *stream);
/// Sets the calling thread's default device for the functions above.
DLRT_EXPORT void mgpuSetDefaultDevice(int32_t device);

#ifdef __cplusplus
}
#endif

#endif /* DLBRIDGE_RUNTIME_DLRT_CUDA_H */
