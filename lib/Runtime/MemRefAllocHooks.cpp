//===- MemRefAllocHooks.cpp - memref.alloc/dealloc of generated code
//-------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// The generic allocation functions MLIR's finalize-memref-to-llvm emits with
// use-generic-functions=true. During a call on a CPU context with allocator
// hooks they allocate through the hooks, so that results (and temporaries)
// live in the caller's memory; otherwise in aligned, free()-able memory.
//
//===----------------------------------------------------------------------===//

#include "CallState.h"
#include "HostAlloc.h"

#include "dlbridge/Runtime/dlrt.h"

#include <cstdlib>

namespace {

void *allocateForGeneratedCode(size_t bytes, size_t alignment) {
  dlrt_call_ctx *call = dlrt_internal_current_call();
  const dlrt_allocator *hooks = dlrt_internal_call_allocator(call);
  void *memory = nullptr;
  if (!hooks)
    memory = dlrt::allocateHost(bytes, alignment);
  else if (alignment != 0 && (alignment & (alignment - 1)) == 0)
    memory = hooks->alloc(
        hooks->user, bytes,
        alignment < dlrt::kHostAlignment ? dlrt::kHostAlignment : alignment,
        call->device, call->stream);
  if (!memory)
    dlrt_set_error(call, DLRT_ERR_OUT_OF_MEMORY,
                   "cannot allocate %zu bytes aligned to %zu for a buffer",
                   bytes, alignment);
  dlrt_internal_note_call_buffer(memory);
  return memory;
}

} // namespace

extern "C" {

void *_mlir_memref_to_llvm_alloc(size_t size) {
  return allocateForGeneratedCode(size, dlrt::kHostAlignment);
}

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  return allocateForGeneratedCode(size, alignment);
}

void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  dlrt_call_ctx *call = dlrt_internal_current_call();
  dlrt_internal_release_call_buffer(ptr);
  if (const dlrt_allocator *hooks = dlrt_internal_call_allocator(call))
    hooks->free(hooks->user, ptr, call->device, call->stream);
  else
    std::free(ptr);
}

} // extern "C"
