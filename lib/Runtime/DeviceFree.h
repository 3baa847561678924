//===- DeviceFree.h - Freeing device results (internal) --------*- C++ -*-===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// The seam between the core's result deleter and the CUDA half of libdlrt.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_RUNTIME_DEVICEFREE_H
#define DLBRIDGE_LIB_RUNTIME_DEVICEFREE_H

#include <dlpack/dlpack.h>

extern "C" {
/// Called when a result is packed, on the calling thread: for a call on a
/// stream that may be destroyed before its results are (any stream but the
/// legacy and per-thread default ones, a framework's `with stream:` say),
/// records a pooled event after the work that writes the result and
/// returns it; NULL otherwise, and while the stream is being captured into
/// a CUDA graph (the free is then ordered on the stream itself).
void *dlrt_internal_record_result_event(DLDevice device, void *stream);

/// Frees `ptr`, a result buffer generated code allocated on `device` (a
/// kDLCUDA device): after `event` on the legacy default stream when there is
/// one (the event goes back to its pool), else in order on `stream` (the
/// call's stream, NULL for the legacy default one). Called from result
/// deleters, so it may run on any thread, must not block on the GPU and
/// must not abort; failures go to the thread's last error. Implemented by
/// the CUDA half of libdlrt.
void dlrt_internal_free_device_buffer(DLDevice device, void *ptr, void *stream,
                                      void *event);
}

#endif // DLBRIDGE_LIB_RUNTIME_DEVICEFREE_H
