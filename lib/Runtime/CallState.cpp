//===- CallState.cpp - Calls in progress per thread
//------------------------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//

#include "CallState.h"

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <cstdio>
#include <cstdlib>

namespace {
thread_local dlrt_call_ctx *currentCall = nullptr;

/// The buffers generated code allocated during the thread's call in progress
/// and has neither freed nor handed to a result. A plain array: the runtime
/// is built without exceptions, and a failure to grow it only means a
/// failed call may leak that buffer.
struct CallBuffers {
  void **items = nullptr;
  size_t size = 0, capacity = 0;

  void add(void *ptr) {
    if (size == capacity) {
      size_t grown = capacity ? 2 * capacity : 16;
      void *memory = std::realloc(items, grown * sizeof(void *));
      if (!memory)
        return;
      items = static_cast<void **>(memory);
      capacity = grown;
    }
    items[size++] = ptr;
  }
  /// Temporaries are mostly freed last-allocated first: search from the end.
  void remove(void *ptr) {
    for (size_t i = size; i-- > 0;) {
      if (items[i] == ptr) {
        items[i] = items[--size];
        return;
      }
    }
  }
  ~CallBuffers() { std::free(items); }
};
thread_local CallBuffers callBuffers;

/// Frees what generated code still owned when `ctx`'s call failed.
void freeCallBuffers(dlrt_call_ctx *ctx) {
  const dlrt_allocator *hooks = dlrt_internal_call_allocator(ctx);
  for (size_t i = 0; i < callBuffers.size; ++i) {
    if (hooks)
      hooks->free(hooks->user, callBuffers.items[i], ctx->device, ctx->stream);
    else
      std::free(callBuffers.items[i]);
  }
  callBuffers.size = 0;
}

bool isCudaCall(const dlrt_call_ctx *ctx) {
  return ctx && (ctx->device.device_type == kDLCUDA ||
                 ctx->device.device_type == kDLCUDAManaged);
}
} // namespace

extern "C" {

void dlrt_call_begin(dlrt_call_ctx *ctx) {
  currentCall = ctx;
  callBuffers.size = 0;
  if (isCudaCall(ctx)) {
    // mgpuMemAlloc and friends run on the thread's default device; a launch
    // failure noted before the call (say, by a module constructor run while
    // no driver was loaded) is not this call's.
    mgpuSetDefaultDevice(ctx->device.device_id);
    (void)dlrt_cuda_take_launch_error();
  }
}

void dlrt_call_end(dlrt_call_ctx *ctx) {
  if (currentCall == ctx)
    dlrt_internal_take_device_error(ctx);
  if (currentCall == ctx) {
    if (ctx->status != DLRT_OK)
      freeCallBuffers(ctx);
    callBuffers.size = 0;
    currentCall = nullptr;
  }
}

void *dlrt_call_stream(void) {
  return currentCall ? currentCall->stream : nullptr;
}

dlrt_call_ctx *dlrt_internal_current_call(void) { return currentCall; }

void dlrt_internal_take_device_error(dlrt_call_ctx *ctx) {
  if (!isCudaCall(ctx))
    return;
  if (int32_t status = dlrt_cuda_take_launch_error()) {
    char message[DLRT_ERROR_CAPACITY];
    std::snprintf(message, sizeof(message), "%s", dlrt_last_error());
    dlrt_set_error(ctx, status, "%s", message);
  }
}

void dlrt_internal_note_call_buffer(void *ptr) {
  if (currentCall && ptr)
    callBuffers.add(ptr);
}

void dlrt_internal_release_call_buffer(void *ptr) {
  if (currentCall && ptr)
    callBuffers.remove(ptr);
}

const dlrt_allocator *dlrt_internal_call_allocator(const dlrt_call_ctx *ctx) {
  if (!ctx || ctx != currentCall || ctx->device.device_type != kDLCPU)
    return nullptr;
  return ctx->allocator;
}

} // extern "C"
