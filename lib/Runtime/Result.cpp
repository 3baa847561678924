//===- Result.cpp - Results handed to the caller as DLPack tensors
//---------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// A result is one allocation: the manager (what frees the buffer, and how),
// the DLManagedTensorVersioned handed out, and the shape and strides arrays
// the tensor points at. Its deleter frees buffer and allocation exactly once.
//
//===----------------------------------------------------------------------===//

#include "CallState.h"
#include "DeviceFree.h"
#include "LiveResults.h"

#include "dlbridge/Runtime/dlrt.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

/// Who owns a result buffer and how it is released.
struct BufferOwner {
  void *allocated;
  DLDevice device;
  /// The call's stream, for stream-ordered device frees.
  void *stream;
  /// The call's allocator hook when the buffer came from it, else NULL.
  void (*allocatorFree)(void *user, void *ptr, DLDevice device, void *stream);
  void *allocatorUser;
  /// Recorded after the call's work when its stream may go first (see
  /// dlrt_internal_record_result_event), else NULL.
  void *readyEvent = nullptr;
};

void releaseBuffer(const BufferOwner &owner) {
  if (!owner.allocated)
    return;
  if (owner.allocatorFree)
    owner.allocatorFree(owner.allocatorUser, owner.allocated, owner.device,
                        owner.stream);
  else if (owner.device.device_type == kDLCUDA)
    dlrt_internal_free_device_buffer(owner.device, owner.allocated,
                                     owner.stream, owner.readyEvent);
  else
    std::free(owner.allocated);
}

/// Whether results of calls on `device` can be freed (CPU results may come
/// from allocator hooks, which only CPU calls use).
bool ownsBuffersOn(DLDevice device) {
  return device.device_type == kDLCPU || device.device_type == kDLCUDA;
}

/// The single allocation behind a packed result; the shape and then the
/// strides arrays (rank int64 each) follow it in memory.
struct ManagedResult {
  dlrt::LiveResultLink link;
  DLManagedTensorVersioned managed;
  BufferOwner owner;

  int64_t *dims() { return reinterpret_cast<int64_t *>(this + 1); }
};
static_assert(alignof(ManagedResult) % alignof(int64_t) == 0,
              "the dims following a ManagedResult must be aligned");

void deleteResult(DLManagedTensorVersioned *self) {
  dlrt::LiveResultLink *link = dlrt::unregisterLiveResult(self);
  if (!link)
    return;
  auto *result = reinterpret_cast<ManagedResult *>(link);
  releaseBuffer(result->owner);
  result->~ManagedResult();
  std::free(result);
}

/// Releases the buffer and records "result '<name>': <detail>"; returns NULL.
__attribute__((format(printf, 5, 6))) DLManagedTensorVersioned *
failPacking(dlrt_call_ctx *ctx, const BufferOwner &owner, int32_t status,
            const dlrt_param_desc *desc, const char *format, ...) {
  releaseBuffer(owner);
  char detail[DLRT_ERROR_CAPACITY];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  if (desc && desc->name)
    dlrt_set_error(ctx, status, "result '%s': %s", desc->name, detail);
  else
    dlrt_set_error(ctx, status, "result: %s", detail);
  return nullptr;
}

} // namespace

extern "C" {

DLManagedTensorVersioned *dlrt_pack_result(dlrt_call_ctx *ctx, void *allocated,
                                           void *aligned, int64_t offset,
                                           const int64_t *sizes,
                                           const int64_t *strides,
                                           const dlrt_param_desc *desc) {
  if (!ctx) {
    dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                   "result: no call context (its buffer is leaked)");
    return nullptr;
  }
  dlrt_internal_release_call_buffer(allocated);
  const dlrt_allocator *hooks = dlrt_internal_call_allocator(ctx);
  BufferOwner owner = {allocated, ctx->device, ctx->stream,
                       hooks ? hooks->free : nullptr,
                       hooks ? hooks->user : nullptr};

  if (!desc)
    return failPacking(ctx, owner, DLRT_ERR_INVALID_ARGUMENT, desc,
                       "expected a result descriptor, got NULL");
  if (desc->kind != DLRT_PARAM_TENSOR)
    return failPacking(ctx, owner, DLRT_ERR_INVALID_ARGUMENT, desc,
                       "expected a tensor result, got parameter kind %d",
                       desc->kind);
  const int32_t rank = desc->rank;
  if (rank < 0)
    return failPacking(ctx, owner, DLRT_ERR_INVALID_ARGUMENT, desc,
                       "expected a non-negative rank, got %d", rank);
  if (rank > 0 && (!sizes || !strides))
    return failPacking(ctx, owner, DLRT_ERR_INVALID_ARGUMENT, desc,
                       "expected sizes and strides for rank %d, got NULL",
                       rank);
  const int64_t elementBits = int64_t(desc->dtype.bits) * desc->dtype.lanes;
  if (elementBits == 0 || elementBits % 8 != 0) {
    char name[64];
    return failPacking(ctx, owner, DLRT_ERR_UNSUPPORTED, desc,
                       "expected a whole-byte element type, got %s",
                       dlrt_dtype_name(desc->dtype, name, sizeof(name)));
  }
  if (offset < 0)
    return failPacking(ctx, owner, DLRT_ERR_INVALID_ARGUMENT, desc,
                       "expected a non-negative offset, got %" PRId64, offset);
  int64_t byteOffset;
  if (__builtin_mul_overflow(offset, elementBits / 8, &byteOffset))
    return failPacking(
        ctx, owner, DLRT_ERR_OVERFLOW, desc,
        "expected a byte offset within int64, got offset %" PRId64 " elements",
        offset);
  for (int32_t dim = 0; dim < rank; ++dim)
    if (sizes[dim] < 0)
      return failPacking(ctx, owner, DLRT_ERR_SHAPE, desc,
                         "dim %d expected a non-negative size, got %" PRId64,
                         dim, sizes[dim]);
  if (!ownsBuffersOn(ctx->device))
    return failPacking(ctx, owner, DLRT_ERR_UNSUPPORTED, desc,
                       "expected a cpu or cuda call to own results, got "
                       "device type %d",
                       ctx->device.device_type);

  const size_t dimsBytes = 2 * sizeof(int64_t) * size_t(rank);
  void *memory = std::malloc(sizeof(ManagedResult) + dimsBytes);
  if (!memory)
    return failPacking(ctx, owner, DLRT_ERR_OUT_OF_MEMORY, desc,
                       "cannot allocate the managed tensor of rank %d", rank);
  auto *result = new (memory) ManagedResult();
  if (owner.device.device_type == kDLCUDA && !owner.allocatorFree)
    owner.readyEvent =
        dlrt_internal_record_result_event(owner.device, owner.stream);
  result->owner = owner;

  DLManagedTensorVersioned &managed = result->managed;
  managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  managed.manager_ctx = result;
  managed.deleter = deleteResult;
  managed.flags = 0;
  DLTensor &tensor = managed.dl_tensor;
  tensor.data = aligned;
  tensor.device = ctx->device;
  tensor.ndim = rank;
  tensor.dtype = desc->dtype;
  tensor.byte_offset = static_cast<uint64_t>(byteOffset);
  // DLPack lets 0-d tensors have NULL shape and strides; since 1.2 ranked
  // tensors must have strides.
  tensor.shape = rank ? result->dims() : nullptr;
  tensor.strides = rank ? result->dims() + rank : nullptr;
  if (rank) {
    std::memcpy(tensor.shape, sizes, sizeof(int64_t) * size_t(rank));
    std::memcpy(tensor.strides, strides, sizeof(int64_t) * size_t(rank));
  }

  result->link.key = &result->managed;
  dlrt::registerLiveResult(&result->link);
  return &result->managed;
}

void dlrt_release_managed(DLManagedTensorVersioned *tensor) {
  if (tensor && tensor->deleter)
    tensor->deleter(tensor);
}

} // extern "C"
