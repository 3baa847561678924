//===- CudaReleaser.h - Releases after GPU work, off-thread --*- C++ -*-===//
//-*-===//
//
// Internal to libdlrt. One background thread per process (started on first
// use) runs release callbacks once their completion test passes: for CUDA
// the test is an event query, so a borrowed tensor's owner is released after
// the kernels reading it finished, without the caller waiting. The mechanism
// is independent of CUDA so that unit tests can drive it with their own
// completion tests on machines without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_RUNTIME_CUDARELEASER_H
#define DLBRIDGE_LIB_RUNTIME_CUDARELEASER_H

#include "dlbridge/Runtime/dlrt.h"

#include <cstdint>

extern "C" {

/// Completion test of a deferred release: returns nonzero when the work
/// `token` stands for has finished (after which it must not be called again
/// for that token and owns no resources of it any more), 0 if not yet. With
/// `wait` nonzero it blocks until the work finished (or failed) and returns
/// nonzero. Runs on the releaser thread.
typedef int (*dlrt_internal_poll_fn)(void *context, void *token, int wait);

/// Queues `release(arg)` to run on the releaser thread once
/// `poll(context, token, 0)` returned nonzero; polls back off from 20 us to
/// 1 ms while nothing completes, and a new entry wakes the thread at once.
/// At process exit (or when libdlrt is unloaded) the thread finishes every
/// queued entry with `poll(context, token, 1)` and exits.
/// Returns DLRT_OK once queued; DLRT_ERR_UNSUPPORTED when the releaser has
/// shut down or its thread cannot start, DLRT_ERR_OUT_OF_MEMORY when the queue
/// cannot grow: then nothing was queued or called and the caller must finish
/// synchronously. Exported for the unit tests only; not part of the ABI.
/// Thread-safe; `release` may itself call this function.
DLRT_EXPORT int32_t dlrt_internal_defer_until(dlrt_internal_poll_fn poll,
                                              void *context, void *token,
                                              void (*release)(void *),
                                              void *arg);
}

namespace dlrt {
namespace cuda {

/// Like dlrt_internal_defer_until with a release that takes the context too
/// (freeing device memory needs the device's context).
int32_t deferUntil(dlrt_internal_poll_fn poll, void *context, void *token,
                   void (*release)(void *context, void *arg), void *arg);

} // namespace cuda
} // namespace dlrt

#endif // DLBRIDGE_LIB_RUNTIME_CUDARELEASER_H
