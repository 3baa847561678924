//===- Context.cpp - Call context, status names and errors
//-----------------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// A call keeps its first failure in its context; every kept failure is also
// copied to the calling thread's last error so callers without the context
// (the Python module, a C user after a NULL return) can still read it.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace {
/// The calling thread's most recent kept failure, for dlrt_last_error.
thread_local char threadLastError[DLRT_ERROR_CAPACITY];

void setThreadLastError(const char *message) {
  std::snprintf(threadLastError, sizeof(threadLastError), "%s", message);
}
} // namespace

extern "C" {

const char *dlrt_status_name(int32_t status) {
  switch (status) {
  case DLRT_OK:
    return "ok";
  case DLRT_ERR_INVALID_ARGUMENT:
    return "invalid argument";
  case DLRT_ERR_RANK:
    return "rank mismatch";
  case DLRT_ERR_DTYPE:
    return "dtype mismatch";
  case DLRT_ERR_SHAPE:
    return "shape mismatch";
  case DLRT_ERR_LAYOUT:
    return "unsupported layout";
  case DLRT_ERR_DEVICE:
    return "device mismatch";
  case DLRT_ERR_ALIGNMENT:
    return "misaligned byte_offset";
  case DLRT_ERR_NULL_DATA:
    return "null data";
  case DLRT_ERR_OVERFLOW:
    return "extent overflows int64";
  case DLRT_ERR_READ_ONLY:
    return "read-only tensor";
  case DLRT_ERR_OUT_OF_MEMORY:
    return "out of memory";
  case DLRT_ERR_NO_CUDA_DRIVER:
    return "no CUDA driver";
  case DLRT_ERR_CUDA:
    return "CUDA error";
  case DLRT_ERR_UNSUPPORTED:
    return "unsupported";
  case DLRT_ERR_STREAM:
    return "invalid stream";
  case DLRT_ERR_SHAPE_MISMATCH:
    return "incompatible shapes";
  case DLRT_ERR_INDEX:
    return "index out of range";
  default:
    return "unknown status";
  }
}

void dlrt_call_ctx_init(dlrt_call_ctx *ctx, DLDevice device, void *stream) {
  if (!ctx)
    return;
  // Called once per kernel call: the error text is only read when status is
  // set, so it is emptied rather than cleared byte by byte.
  ctx->device = device;
  ctx->stream = stream;
  ctx->arg_flags = nullptr;
  ctx->allocator = nullptr;
  ctx->status = DLRT_OK;
  ctx->error[0] = '\0';
}

int32_t dlrt_set_error(dlrt_call_ctx *ctx, int32_t status, const char *format,
                       ...) {
  if (status == DLRT_OK || (ctx && ctx->status != DLRT_OK))
    return status;
  char message[DLRT_ERROR_CAPACITY];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  if (ctx) {
    ctx->status = status;
    std::memcpy(ctx->error, message, sizeof(message));
  }
  setThreadLastError(message);
  return status;
}

int32_t dlrt_status(const dlrt_call_ctx *ctx) {
  return ctx ? ctx->status : DLRT_ERR_INVALID_ARGUMENT;
}

const char *dlrt_last_error(void) { return threadLastError; }

} // extern "C"
