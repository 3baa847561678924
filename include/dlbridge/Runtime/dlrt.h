/*===- dlrt.h - dlbridge runtime: call context, checks, results ---*- C -*-===*\
|*                                                                            *|
|* The C ABI shared by generated entry points, the JIT and the Python module. *|
|* libdlrt never links MLIR or LLVM; everything here is plain C.              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DLBRIDGE_RUNTIME_DLRT_H
#define DLBRIDGE_RUNTIME_DLRT_H

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DLRT_EXPORT __attribute__((visibility("default")))

/*===----------------------------------------------------------------------===*
 * Status codes
 *===----------------------------------------------------------------------===*/

/// Every fallible runtime function and every generated entry point returns
/// one of these (as int32_t); 0 is success. The values are ABI: never
/// renumber them. (The type is not called dlrt_status: that is the function
/// reading a context's status, which C would not let share the name.)
typedef enum dlrt_status_code {
  DLRT_OK = 0,
  DLRT_ERR_INVALID_ARGUMENT = 1, ///< NULL or malformed descriptor/context.
  DLRT_ERR_RANK = 2,             ///< ndim differs from the parameter's rank.
  DLRT_ERR_DTYPE = 3,            ///< code, bits or lanes differ.
  DLRT_ERR_SHAPE = 4,            ///< a static dimension differs (or < 0).
  DLRT_ERR_LAYOUT = 5,           ///< strides/offset the memref cannot express.
  DLRT_ERR_DEVICE = 6,           ///< device type or id differs from the call's.
  DLRT_ERR_ALIGNMENT = 7,        ///< byte_offset not a multiple of the element.
  DLRT_ERR_NULL_DATA = 8,        ///< data is NULL for a non-empty tensor.
  DLRT_ERR_OVERFLOW = 9,         ///< addressed extent overflows int64.
  DLRT_ERR_READ_ONLY = 10,       ///< READ_ONLY tensor for a written parameter.
  DLRT_ERR_OUT_OF_MEMORY = 11,
  DLRT_ERR_NO_CUDA_DRIVER = 12, ///< libcuda.so.1 could not be loaded.
  DLRT_ERR_CUDA = 13,           ///< a CUDA driver call failed.
  DLRT_ERR_UNSUPPORTED = 14,    ///< valid request this runtime cannot serve.
  DLRT_ERR_STREAM = 15,         ///< a DLPack stream value invalid for a device.
  DLRT_ERR_SHAPE_MISMATCH = 16, ///< shapes of arguments do not fit together
                                ///< (checked by generated code).
  DLRT_ERR_INDEX = 17,          ///< an index out of range for its dimension
                                ///< (checked by generated code).
} dlrt_status_code;

/// Returns a static, human-readable name for `status` ("rank mismatch", ...).
DLRT_EXPORT const char *dlrt_status_name(int32_t status);

/*===----------------------------------------------------------------------===*
 * Call context
 *===----------------------------------------------------------------------===*/

/// Allocation hooks for a call's buffers (host buffers of CPU calls, see
/// dlrt_call_begin). Both functions must be set. `alignment` is a power of
/// two, at least 64; `stream` is the call's stream (NULL on the CPU). `free`
/// also runs from result deleters, on any thread and at any later time, so
/// `user` must outlive every result of the calls that used the hooks.
typedef struct dlrt_allocator {
  void *(*alloc)(void *user, size_t bytes, size_t alignment, DLDevice device,
                 void *stream);
  void (*free)(void *user, void *ptr, DLDevice device, void *stream);
  void *user;
} dlrt_allocator;

#define DLRT_ERROR_CAPACITY 512

/// Everything one call of a generated entry point needs besides its tensors.
/// The caller owns the context; one context must not be used by two threads
/// at the same time. Initialise it with dlrt_call_ctx_init.
typedef struct dlrt_call_ctx {
  /// Device the call runs on; tensors must live where it can read them.
  DLDevice device;
  /// CUstream to run on (borrowed: never synchronised or destroyed by us);
  /// NULL on the CPU and for CUDA's legacy default stream.
  void *stream;
  /// Optional DLPACK_FLAG_BITMASK_* of each argument, indexed like `args`;
  /// NULL when the caller knows none (plain DLTensors carry no flags).
  const uint64_t *arg_flags;
  /// Optional allocation hooks; NULL uses the runtime's own. They serve the
  /// host buffers of CPU calls between dlrt_call_begin and dlrt_call_end.
  const dlrt_allocator *allocator;
  /// Status of the first failure in this call, DLRT_OK otherwise.
  int32_t status;
  /// NUL-terminated message of the first failure.
  char error[DLRT_ERROR_CAPACITY];
} dlrt_call_ctx;

/// Resets `ctx` to run on `device` and `stream` with no flags, no allocator
/// and no error.
DLRT_EXPORT void dlrt_call_ctx_init(dlrt_call_ctx *ctx, DLDevice device,
                                    void *stream);

/// Records a failure in `ctx` and in the calling thread's last error;
/// returns `status`. printf-style; messages are truncated to
/// DLRT_ERROR_CAPACITY - 1 characters. Only the first failure of a call is
/// kept: once ctx->status is set, later failures (and status DLRT_OK) record
/// nothing. With ctx NULL only the thread's last error is written.
DLRT_EXPORT int32_t dlrt_set_error(dlrt_call_ctx *ctx, int32_t status,
                                   const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/// The context's status; what generated code returns after packing results.
DLRT_EXPORT int32_t dlrt_status(const dlrt_call_ctx *ctx);

/// The calling thread's most recently recorded failure ("" if none): after a
/// failed call, the message its context kept. Valid until the thread's next
/// failing runtime call.
DLRT_EXPORT const char *dlrt_last_error(void);

/*===----------------------------------------------------------------------===*
 * Parameter records (emitted as constants by --convert-dlpack-to-llvm)
 *===----------------------------------------------------------------------===*/

/// Marks a dynamic size, stride or offset; equal to MLIR's
/// ShapedType::kDynamic.
#define DLRT_DYNAMIC INT64_MIN

typedef enum dlrt_param_kind {
  DLRT_PARAM_TENSOR = 0,
  DLRT_PARAM_SCALAR = 1,
} dlrt_param_kind;

typedef enum dlrt_layout {
  /// Compact row-major; strides of size-1 dims and of tensors with a
  /// zero-size dim are not checked. Any byte_offset (data + byte_offset is
  /// the memref's aligned pointer).
  DLRT_LAYOUT_IDENTITY = 0,
  /// `strided<[...], offset: ...>`: any strides (0 and negative included),
  /// checked where static except for size-1 dims and empty tensors (which
  /// never address memory through them); a static offset must equal
  /// byte_offset / element size.
  DLRT_LAYOUT_STRIDED = 1,
} dlrt_layout;

typedef enum dlrt_access {
  DLRT_ACCESS_NONE = 0,
  DLRT_ACCESS_READ = 1,
  DLRT_ACCESS_WRITE = 2,
  DLRT_ACCESS_READ_WRITE = 3,
} dlrt_access;

/// One parameter or result of an entry point. The layout is ABI: generated
/// code emits it as `!llvm.struct<(ptr, i32, i32, i32, i32, i8, i8, i16, i32,
/// ptr, ptr, i64)>`; unittests check it against this declaration.
typedef struct dlrt_param_desc {
  const char *name;       ///< From `dlpack.name`, else "arg<i>"/"result<i>".
  int32_t kind;           ///< dlrt_param_kind
  int32_t layout;         ///< dlrt_layout (tensors)
  int32_t access;         ///< dlrt_access (tensors)
  int32_t rank;           ///< 0 for scalars
  DLDataType dtype;       ///< element dtype (lanes > 1 for vector elements)
  int32_t reserved;       ///< zero
  const int64_t *shape;   ///< `rank` sizes, DLRT_DYNAMIC where dynamic
                          ///< (may be NULL for rank 0)
  const int64_t *strides; ///< `rank` strides in elements (strided layout
                          ///< only, else NULL), DLRT_DYNAMIC where dynamic
  int64_t offset;         ///< element offset (strided), DLRT_DYNAMIC if dynamic
} dlrt_param_desc;

/// The record emitted next to each entry point as `<name>__dlpack_signature`.
typedef struct dlrt_signature {
  const char *name;    ///< the wrapped function's name
  int32_t device_type; ///< DLDeviceType the entry was built for
  int32_t num_args;
  int32_t num_results;
  int32_t reserved;               ///< zero
  const dlrt_param_desc *args;    ///< num_args records
  const dlrt_param_desc *results; ///< num_results records
} dlrt_signature;

/// Writes the dtype as DLPack/NumPy users name it ("float32", "uint8",
/// "complex64", "bool", "float8_e4m3fn", "float32x4") into `buf`; returns buf.
DLRT_EXPORT const char *dlrt_dtype_name(DLDataType dtype, char *buf,
                                        size_t size);

/// Checks that `tensor` can be viewed as parameter `index` described by
/// `desc` in a call on `ctx->device`. Each rule has its own status:
///  - INVALID_ARGUMENT: NULL ctx/desc/tensor, a non-tensor or unknown-layout
///    record, a negative index, shape NULL with ndim > 0;
///  - RANK: ndim != desc->rank; DTYPE: code, bits or lanes differ;
///  - UNSUPPORTED: sub-byte elements (bits * lanes not a multiple of 8);
///  - SHAPE: a negative dim, or a static dim that differs;
///  - DEVICE: a CPU call takes kDLCPU (device_id 0), kDLCUDAHost,
///    kDLCUDAManaged and kDLROCMHost tensors; a CUDA call takes kDLCUDA and
///    kDLCUDAManaged tensors of its own device_id; other calls their exact
///    device;
///  - ALIGNMENT: byte_offset not a multiple of the element size;
///  - NULL_DATA: data NULL although no dim is 0;
///  - OVERFLOW: byte_offset or the lowest/highest addressed byte (negative
///    strides included) does not fit int64;
///  - LAYOUT: strides (NULL = compact row-major) or offset the layout of
///    dlrt_layout refuses; for a written parameter (DLRT_ACCESS_WRITE), also
///    strides under which two elements may share an address (a zero stride
///    of a dim larger than 1, or dims that, sorted by |stride|, do not each
///    step past what the smaller ones reach): kernels update written
///    parameters in place;
///  - READ_ONLY: ctx->arg_flags[index] has DLPACK_FLAG_BITMASK_READ_ONLY and
///    desc->access has DLRT_ACCESS_WRITE.
/// Returns DLRT_OK, or records "argument <index> '<name>': expected <what>,
/// got <what>" in ctx and returns the failing rule's status. Never reads
/// tensor data; allocates and formats nothing when the tensor is accepted.
DLRT_EXPORT int32_t dlrt_check_tensor(dlrt_call_ctx *ctx, int32_t index,
                                      const DLTensor *tensor,
                                      const dlrt_param_desc *desc);

/// The rules of dlrt_check_tensor that hold for a tensor whatever parameter
/// takes it (not rank, dtype, static sizes, layout, device or READ_ONLY):
/// NULL tensor, negative ndim or shape NULL with ndim > 0; sub-byte
/// elements; negative dims; byte_offset not a multiple of the element size;
/// NULL data for a non-empty tensor; addressed bytes beyond int64. For
/// consumers other than entry points (imports, copies), so that both refuse
/// the same descriptors. Returns DLRT_OK, or the failing rule's status after
/// recording "expected <what>, got <what>" as the thread's last error.
DLRT_EXPORT int32_t dlrt_check_descriptor(const DLTensor *tensor);

/*===----------------------------------------------------------------------===*
 * Devices, layouts and copies: the one definition every layer uses
 *===----------------------------------------------------------------------===*/

/// The DLPack device type as users write it ("cpu", "cuda", "cuda_host",
/// "cuda_managed", "rocm", ...): a static string, or NULL for a type DLPack
/// does not define.
DLRT_EXPORT const char *dlrt_device_type_name(int32_t device_type);

/// Writes `device` as "cuda:1" into `buf` ("device_type 42:0" for a type
/// DLPack does not define); returns buf. Truncates to `size` - 1 characters.
DLRT_EXPORT const char *dlrt_device_name(DLDevice device, char *buf,
                                         size_t size);

/// The device type named `name` as dlrt_device_type_name spells it (exactly,
/// lower case) into `*device_type`. Returns DLRT_OK, or
/// DLRT_ERR_INVALID_ARGUMENT (NULL arguments, an unknown name) after
/// recording "unknown device type '<name>'" as the thread's last error.
DLRT_EXPORT int32_t dlrt_parse_device_type(const char *name,
                                           int32_t *device_type);

/// Whether host code can read and write memory of `device` directly: kDLCPU,
/// kDLCUDAHost, kDLCUDAManaged and kDLROCMHost (1), or not (0).
DLRT_EXPORT int32_t dlrt_host_accessible(DLDevice device);

/// Whether `tensor` is compact row-major (1) or not (0). The rule
/// DLRT_LAYOUT_IDENTITY checks: NULL strides are compact, the strides of
/// size-1 dims are ignored (any value), and a tensor with a zero-size dim is
/// compact whatever its strides; byte_offset and dtype do not matter.
/// Malformed tensors (NULL, negative ndim or dims, shape NULL with ndim > 0)
/// are not compact. Records nothing; never allocates.
DLRT_EXPORT int32_t dlrt_is_compact(const DLTensor *tensor);

/// Writes `tensor`'s element strides into `strides` (ndim entries): its own,
/// or when tensor->strides is NULL the compact row-major ones DLPack means
/// (each the product of the later dims' sizes; these wrap around only for
/// tensors with a zero-size dim, which address nothing). Returns DLRT_OK, or
/// DLRT_ERR_INVALID_ARGUMENT (recorded as the thread's last error) for a
/// NULL tensor, a negative ndim, or shape or `strides` NULL with ndim > 0.
DLRT_EXPORT int32_t dlrt_tensor_strides(const DLTensor *tensor,
                                        int64_t *strides);

/// Copies the elements of `source` into `target` (same ndim, shape and dtype;
/// any strides, negative and zero included, and byte_offsets), both in
/// host-accessible memory (dlrt_host_accessible). Whole contiguous runs are
/// copied at once. Neither tensor may overlap the other's written bytes; a
/// target with zero strides gets one of the elements copied to it.
/// Returns DLRT_OK, or records "<source|target>: expected <what>, got <what>"
/// as the thread's last error and returns: the status of
/// dlrt_check_descriptor for either tensor, DEVICE for memory the host
/// cannot access, RANK, SHAPE or DTYPE where the two differ. Thread-safe.
DLRT_EXPORT int32_t dlrt_copy_strided(const DLTensor *source,
                                      const DLTensor *target);

/*===----------------------------------------------------------------------===*
 * Results
 *===----------------------------------------------------------------------===*/

/// Hands a buffer allocated by generated code to the caller as a DLPack 1.3
/// managed tensor on ctx->device (flags 0, dtype and rank from `desc`).
/// `allocated` is what must be freed (the memref descriptor's allocated
/// pointer), `aligned + offset` elements is where the data starts (data =
/// aligned, byte_offset = offset * element size); `sizes` and `strides`
/// (elements) are copied into the tensor's own storage (NULL for rank 0).
/// The buffer is freed with ctx->allocator->free when it came from the hooks
/// (a CPU call in progress with ctx->allocator set, see dlrt_call_begin),
/// else with free() on the CPU and in order on ctx->stream for CUDA; calls on
/// other devices cannot own results (UNSUPPORTED).
/// Ownership of `allocated` moves to the runtime even on failure (with ctx
/// NULL, where its device is unknown, it is leaked). Returns the tensor, or
/// NULL after recording the failure in ctx.
///
/// The deleter frees buffer and tensor exactly once, from any thread, even
/// when several threads call it at the same time; it never dereferences its
/// argument before knowing the tensor is live, so a racing or repeated call
/// is harmless as long as the address was not reused by a newer result.
DLRT_EXPORT DLManagedTensorVersioned *
dlrt_pack_result(dlrt_call_ctx *ctx, void *allocated, void *aligned,
                 int64_t offset, const int64_t *sizes, const int64_t *strides,
                 const dlrt_param_desc *desc);

/// Calls `tensor`'s deleter if both are non-NULL. Like any deleter call, it
/// reads `tensor`, so it must not be called again once a deleter returned.
DLRT_EXPORT void dlrt_release_managed(DLManagedTensorVersioned *tensor);

/// Allocates `bytes` of host memory aligned to at least 64 bytes (never NULL
/// for 0 bytes); the memory may also be released with free(). NULL when out
/// of memory (recorded as the thread's last error). Thread-safe.
DLRT_EXPORT void *dlrt_host_alloc(size_t bytes);
/// Frees memory from dlrt_host_alloc (or malloc); NULL is ignored.
DLRT_EXPORT void dlrt_host_free(void *ptr);

/*===----------------------------------------------------------------------===*
 * Calls in progress and the allocation entry points of generated code
 *===----------------------------------------------------------------------===*/

/// Marks `ctx`'s call as in progress on the calling thread until
/// dlrt_call_end(ctx). Generated entry points bracket their body with the
/// pair. While a call on a CPU context with `ctx->allocator` set is in
/// progress, the host allocation entry points below allocate and free
/// through the allocator, and dlrt_pack_result hands results the allocator's
/// free; otherwise they use 64-byte-aligned, free()-compatible memory.
/// Calls do not nest on one thread: begin replaces the thread's call.
/// For a CUDA context (kDLCUDA, kDLCUDAManaged) begin also makes
/// ctx->device.device_id the thread's default device of the mgpu* launch ABI
/// (mgpuSetDefaultDevice, see dlrt_cuda.h) and drops launch failures left on
/// the thread by earlier work, so that the call's own are the ones reported.
DLRT_EXPORT void dlrt_call_begin(dlrt_call_ctx *ctx);
/// Ends the thread's call in progress if it is `ctx`'s. For a CUDA context,
/// the first failure of an mgpu* function during the call (a launch, an
/// allocation; see dlrt_cuda_take_launch_error) is recorded in `ctx`, so
/// generated entry points, which read dlrt_status after this, return it.
/// When the call failed, the host buffers generated code allocated during it
/// (through the functions below) and neither freed nor packed as a result
/// are freed: a failed check returns early, past their deallocations.
DLRT_EXPORT void dlrt_call_end(dlrt_call_ctx *ctx);

/// The stream of the call in progress on the calling thread (its context's
/// `stream`, borrowed), or NULL (CUDA's legacy default stream) when no call
/// is in progress. Code generated by --dlbridge-launch-on-context-stream
/// launches kernels and orders device allocations on it.
DLRT_EXPORT void *dlrt_call_stream(void);

/// What MLIR's `finalize-memref-to-llvm{use-generic-functions=true}` calls
/// for memref.alloc/dealloc. Memory is aligned to at least 64 bytes (at
/// least `alignment` for the aligned form, which must be a power of two);
/// `_mlir_memref_to_llvm_alloc(0)` is not NULL. NULL when out of memory,
/// recorded in the call's context when a call is in progress.
DLRT_EXPORT void *_mlir_memref_to_llvm_alloc(size_t size);
DLRT_EXPORT void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                     size_t size);
DLRT_EXPORT void _mlir_memref_to_llvm_free(void *ptr);

/*===----------------------------------------------------------------------===*
 * Failed checks of generated code
 *===----------------------------------------------------------------------===*/

/// What a failing `dlpack.assert` calls before its function returns early:
/// records `status` (not DLRT_OK) and the message `format` in the context
/// of the call in progress on the calling thread (see dlrt_call_begin), and
/// as the thread's last error. In `format`, `{i}` (i < count) is replaced by
/// the decimal value of `values[i]`, `{{` and `}}` by a brace; anything else
/// is copied. Like dlrt_set_error, only a call's first failure is kept.
DLRT_EXPORT void dlrt_check_failed(int32_t status, const char *format,
                                   int32_t count, const int64_t *values);

/// The status of the call in progress on the calling thread: DLRT_OK, or its
/// first failure. DLRT_OK when no call is in progress. Generated code reads
/// it after calling a function that may have returned early.
DLRT_EXPORT int32_t dlrt_call_status(void);

/*===----------------------------------------------------------------------===*
 * Memref helpers generated code calls
 *===----------------------------------------------------------------------===*/

/// MLIR's unranked memref: a rank and a pointer to the ranked descriptor
/// (allocated, aligned, offset, sizes[rank], strides[rank]).
typedef struct dlrt_unranked_memref {
  int64_t rank;
  void *descriptor;
} dlrt_unranked_memref;

/// What `memref.copy` between non-contiguous memrefs lowers to (the ABI of
/// MLIR's runner utils): copies `source`'s elements of `element_bytes` each
/// into `target`, which has the same sizes. Thread-safe; never fails.
DLRT_EXPORT void memrefCopy(int64_t element_bytes, dlrt_unranked_memref *source,
                            dlrt_unranked_memref *target);

/*===----------------------------------------------------------------------===*
 * Contractions (--dlbridge-contractions-to-blas)
 *===----------------------------------------------------------------------===*/

/// C[b] = A[b] * B[b] (+ C[b] when `accumulate` is nonzero) for each of
/// `batch` products of an m x k matrix A and a k x n matrix B into the m x n
/// matrix C, all of `element_bits` 32 (float) or 64 (double) bits, through
/// the BLAS of dlrt_blas_library. Each matrix is given by its first element
/// and element strides: between batches, rows and columns. Any strides
/// work: the strides of size-1 dims are ignored, layouts BLAS takes (one
/// unit stride) are passed as they are, the others (zero or negative
/// strides, no unit stride) are packed first. C must not overlap A or B.
/// Thread-safe; never fails (without a BLAS, or without memory to pack,
/// products run in plain loops). Other element sizes do nothing.
DLRT_EXPORT void dlrt_matmul(int32_t element_bits, int32_t accumulate,
                             int64_t batch, int64_t m, int64_t n, int64_t k,
                             const void *a, int64_t a_batch_stride,
                             int64_t a_row_stride, int64_t a_col_stride,
                             const void *b, int64_t b_batch_stride,
                             int64_t b_row_stride, int64_t b_col_stride,
                             void *c, int64_t c_batch_stride,
                             int64_t c_row_stride, int64_t c_col_stride);

/// Makes dlrt_matmul call the CBLAS of the shared library at `path` (loaded
/// already or not): LP64 `cblas_sgemm`, `_dgemm`, `_sgemv`, `_dgemv`, or
/// OpenBLAS's ILP64 `cblas_sgemm64_` ..., or NumPy's `scipy_cblas_sgemm64_`
/// ... Python's dlbridge passes NumPy's, so that a process has one BLAS
/// thread pool. Without a call, the first product loads libopenblas.so.0,
/// else libcblas.so.3, else libblas.so.3. Returns DLRT_OK, or
/// DLRT_ERR_INVALID_ARGUMENT (recorded as the thread's last error) for NULL
/// or a library that does not load or lacks those functions, which leaves
/// the BLAS in use as it was. Thread-safe.
DLRT_EXPORT int32_t dlrt_set_blas(const char *path);

/// The path of the library dlrt_matmul calls (loading the default one if
/// none was set), or "" when there is none and products run in loops.
DLRT_EXPORT const char *dlrt_blas_library(void);

/*===----------------------------------------------------------------------===*
 * Threads of parallel loops
 *===----------------------------------------------------------------------===*/

/// The number of threads a kernel's parallel loop may use, the calling one
/// included: what dlrt_set_num_threads set; else DLBRIDGE_NUM_THREADS when
/// it is an integer from 1 to DLRT_MAX_THREADS (any other value is ignored,
/// with one line on stderr saying so); else the number of cores the process
/// may run on (sched_getaffinity). Thread-safe.
DLRT_EXPORT int32_t dlrt_get_num_threads(void);
/// Sets the number dlrt_get_num_threads returns, for the whole process;
/// DLRT_ERR_INVALID_ARGUMENT (and nothing changes) unless 1 <= `threads` <=
/// DLRT_MAX_THREADS. Regions already running keep their threads.
DLRT_EXPORT int32_t dlrt_set_num_threads(int32_t threads);
#define DLRT_MAX_THREADS 1024

/// What code generated by --dlbridge-parallelize-outer-loops calls before a
/// parallel region of `work` loop iterations (the iterations of the whole
/// nest, as far as they are known before it runs): the number of threads to
/// run it on, the calling one included. 1, claiming nothing, below the grain
/// where a second thread pays for itself; otherwise up to one thread per
/// grain of work and at most dlrt_get_num_threads(), of which the helpers
/// (all but the calling thread) are claimed from a process-wide budget of
/// dlrt_get_num_threads() - 1 helpers: regions running at once, from several
/// threads of the process, share the budget and together never claim more.
/// A region that finds the budget spent runs on fewer threads (1 at least).
/// Every result must be handed back with dlrt_parallel_release. Thread-safe.
DLRT_EXPORT int32_t dlrt_parallel_claim(int64_t work);
/// Returns the helpers of a region dlrt_parallel_claim gave `threads` to.
DLRT_EXPORT void dlrt_parallel_release(int32_t threads);

#ifdef __cplusplus
}
#endif

#endif /* DLBRIDGE_RUNTIME_DLRT_H */
