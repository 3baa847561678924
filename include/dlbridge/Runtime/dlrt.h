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
  DLRT_ERR_SHAPE = 4,            ///< a static dimension differs.
  DLRT_ERR_LAYOUT = 5,           ///< strides/offset the memref cannot express.
  DLRT_ERR_DEVICE = 6,           ///< device type or id differs from the call's.
  DLRT_ERR_ALIGNMENT = 7,        ///< byte_offset not a multiple of the element.
  DLRT_ERR_NULL_DATA = 8,        ///< data is NULL for a non-empty tensor.
  DLRT_ERR_OVERFLOW = 9,         ///< addressed extent overflows int64.
  DLRT_ERR_READ_ONLY = 10,       ///< READ_ONLY tensor for a written parameter.
  DLRT_ERR_OUT_OF_MEMORY = 11,
  DLRT_ERR_NO_CUDA_DRIVER = 12,  ///< libcuda.so.1 could not be loaded.
  DLRT_ERR_CUDA = 13,            ///< a CUDA driver call failed.
  DLRT_ERR_UNSUPPORTED = 14,     ///< valid request this runtime cannot serve.
  DLRT_ERR_STREAM = 15,          ///< a DLPack stream value invalid for a device.
} dlrt_status_code;

/// Returns a static, human-readable name for `status` ("rank mismatch", ...).
DLRT_EXPORT const char *dlrt_status_name(int32_t status);

/*===----------------------------------------------------------------------===*
 * Call context
 *===----------------------------------------------------------------------===*/

/// Optional allocation hooks for results. Both functions must be set or
/// neither. `stream` is the call's stream (NULL on the CPU).
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
  /// Optional allocation hooks for results; NULL uses the runtime's own.
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

/// Records a failure in `ctx` (only the first failure of a call is kept) and
/// in the calling thread's last error; returns `status`. printf-style.
DLRT_EXPORT int32_t dlrt_set_error(dlrt_call_ctx *ctx, int32_t status,
                                   const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/// The context's status; what generated code returns after packing results.
DLRT_EXPORT int32_t dlrt_status(const dlrt_call_ctx *ctx);

/// The calling thread's most recent error message ("" if none). Valid until
/// the thread's next failing runtime call.
DLRT_EXPORT const char *dlrt_last_error(void);

/*===----------------------------------------------------------------------===*
 * Parameter records (emitted as constants by --convert-dlpack-to-llvm)
 *===----------------------------------------------------------------------===*/

/// Marks a dynamic size, stride or offset; equal to MLIR's ShapedType::kDynamic.
#define DLRT_DYNAMIC INT64_MIN

typedef enum dlrt_param_kind {
  DLRT_PARAM_TENSOR = 0,
  DLRT_PARAM_SCALAR = 1,
} dlrt_param_kind;

typedef enum dlrt_layout {
  /// Compact row-major; strides of size-1 and empty dims are not checked.
  DLRT_LAYOUT_IDENTITY = 0,
  /// `strided<[...], offset: ...>`: any strides, checked where static.
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
  const int64_t *strides; ///< `rank` strides in elements (strided layout
                          ///< only, else NULL), DLRT_DYNAMIC where dynamic
  int64_t offset;         ///< element offset (strided), DLRT_DYNAMIC if dynamic
} dlrt_param_desc;

/// The record emitted next to each entry point as `<name>__dlpack_signature`.
typedef struct dlrt_signature {
  const char *name;               ///< the wrapped function's name
  int32_t device_type;            ///< DLDeviceType the entry was built for
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
/// `desc` in a call on `ctx->device`: rank, dtype, static dims, layout,
/// device type and id, byte_offset alignment, data NULL only when empty,
/// int64 overflow of the addressed extent, and READ_ONLY (from
/// ctx->arg_flags) against written parameters. Returns DLRT_OK, or records
/// "argument <index> '<name>': expected <what>, got <what>" in ctx and
/// returns the failing check's status. Never reads tensor data.
DLRT_EXPORT int32_t dlrt_check_tensor(dlrt_call_ctx *ctx, int32_t index,
                                      const DLTensor *tensor,
                                      const dlrt_param_desc *desc);

/*===----------------------------------------------------------------------===*
 * Results
 *===----------------------------------------------------------------------===*/

/// Hands a buffer allocated by generated code to the caller as a DLPack 1.3
/// managed tensor on ctx->device. `allocated` is what must be freed (the
/// memref descriptor's allocated pointer), `aligned + offset` elements is
/// where the data starts; `sizes` and `strides` (elements) are copied.
/// Ownership of `allocated` moves to the runtime even on failure. Returns the
/// tensor, whose deleter frees buffer and tensor exactly once from any
/// thread, or NULL after recording the failure in ctx.
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
DLRT_EXPORT void dlrt_call_begin(dlrt_call_ctx *ctx);
/// Ends the thread's call in progress if it is `ctx`'s.
DLRT_EXPORT void dlrt_call_end(dlrt_call_ctx *ctx);

/// What MLIR's `finalize-memref-to-llvm{use-generic-functions=true}` calls
/// for memref.alloc/dealloc. Memory is aligned to at least 64 bytes (at
/// least `alignment` for the aligned form, which must be a power of two);
/// `_mlir_memref_to_llvm_alloc(0)` is not NULL. NULL when out of memory,
/// recorded in the call's context when a call is in progress.
DLRT_EXPORT void *_mlir_memref_to_llvm_alloc(size_t size);
DLRT_EXPORT void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                     size_t size);
DLRT_EXPORT void _mlir_memref_to_llvm_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* DLBRIDGE_RUNTIME_DLRT_H */
