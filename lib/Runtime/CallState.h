//===- CallState.h - The calling thread's call in progress -----*- C++ -*-===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_RUNTIME_CALLSTATE_H
#define DLBRIDGE_LIB_RUNTIME_CALLSTATE_H

#include "dlbridge/Runtime/dlrt.h"

extern "C" {
/// The context passed to dlrt_call_begin on this thread and not yet ended,
/// or NULL.
dlrt_call_ctx *dlrt_internal_current_call(void);

/// The allocator hooks that serve `ctx`'s buffers on this thread right now,
/// or NULL: ctx->allocator while ctx's call is in progress, for CPU calls.
/// (CUDA calls allocate through the mgpu* ABI, which does not use the hooks.)
/// Allocation entry points and dlrt_pack_result both ask this, so a buffer
/// is always freed by the allocator that made it.
const dlrt_allocator *dlrt_internal_call_allocator(const dlrt_call_ctx *ctx);

/// Records in `ctx` the first failure of an mgpu* function (a launch, an
/// allocation) on this thread since it was last taken, for CUDA contexts.
void dlrt_internal_take_device_error(dlrt_call_ctx *ctx);

/// Notes that generated code allocated `ptr` during the thread's call in
/// progress (nothing without one). A call that fails returns early from
/// generated code, past the frees of its temporaries: dlrt_call_end then
/// frees the buffers still noted, so that a failed call leaks nothing.
void dlrt_internal_note_call_buffer(void *ptr);
/// Forgets `ptr` (freed by generated code, or owned by a result now).
void dlrt_internal_release_call_buffer(void *ptr);
}

#endif // DLBRIDGE_LIB_RUNTIME_CALLSTATE_H
