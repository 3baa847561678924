//===- CallState.cpp - Calls in progress per thread ------------------------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//

#include "CallState.h"

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <cstdio>

namespace {
thread_local dlrt_call_ctx *currentCall = nullptr;

bool isCudaCall(const dlrt_call_ctx *ctx) {
  return ctx && (ctx->device.device_type == kDLCUDA ||
                 ctx->device.device_type == kDLCUDAManaged);
}
} // namespace

extern "C" {

void dlrt_call_begin(dlrt_call_ctx *ctx) {
  currentCall = ctx;
  if (isCudaCall(ctx)) {
    // mgpuMemAlloc and friends run on the thread's default device; a launch
    // failure noted before the call (say, by a module constructor run while
    // no driver was loaded) is not this call's.
    mgpuSetDefaultDevice(ctx->device.device_id);
    (void)dlrt_cuda_take_launch_error();
  }
}

void dlrt_call_end(dlrt_call_ctx *ctx) {
  if (isCudaCall(ctx) && currentCall == ctx) {
    if (int32_t status = dlrt_cuda_take_launch_error()) {
      char message[DLRT_ERROR_CAPACITY];
      std::snprintf(message, sizeof(message), "%s", dlrt_last_error());
      dlrt_set_error(ctx, status, "%s", message);
    }
  }
  if (currentCall == ctx)
    currentCall = nullptr;
}

void *dlrt_call_stream(void) {
  return currentCall ? currentCall->stream : nullptr;
}

dlrt_call_ctx *dlrt_internal_current_call(void) { return currentCall; }

const dlrt_allocator *dlrt_internal_call_allocator(const dlrt_call_ctx *ctx) {
  if (!ctx || ctx != currentCall || ctx->device.device_type != kDLCPU)
    return nullptr;
  return ctx->allocator;
}

} // extern "C"
