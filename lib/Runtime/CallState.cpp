//===- CallState.cpp - Calls in progress per thread ------------------------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//

#include "CallState.h"

namespace {
thread_local dlrt_call_ctx *currentCall = nullptr;
} // namespace

extern "C" {

void dlrt_call_begin(dlrt_call_ctx *ctx) { currentCall = ctx; }

void dlrt_call_end(dlrt_call_ctx *ctx) {
  if (currentCall == ctx)
    currentCall = nullptr;
}

dlrt_call_ctx *dlrt_internal_current_call(void) { return currentCall; }

const dlrt_allocator *dlrt_internal_call_allocator(const dlrt_call_ctx *ctx) {
  if (!ctx || ctx != currentCall || ctx->device.device_type != kDLCPU)
    return nullptr;
  return ctx->allocator;
}

} // extern "C"
