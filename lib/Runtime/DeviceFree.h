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
/// Frees `ptr`, a result buffer generated code allocated on `device` (a
/// kDLCUDA device), in order on `stream` (the call's stream, NULL for the
/// legacy default one). Called from result deleters, so it may run on any
/// thread, must not block on the GPU and must not abort; failures go to the
/// thread's last error. Implemented by the CUDA half of libdlrt.
void dlrt_internal_free_device_buffer(DLDevice device, void *ptr, void *stream);
}

#endif // DLBRIDGE_LIB_RUNTIME_DEVICEFREE_H
