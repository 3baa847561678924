//===- FrameworkAllocator.h - Device results from the caller's framework -===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//
//
// A CUDA call on a framework's tensors allocates its device buffers (results
// and temporaries) through the framework's DLPack exchange API
// (`managed_tensor_allocator`), so they come from the framework's own
// allocator: PyTorch's caching allocator serves them without a driver call,
// counts them in torch.cuda.memory_allocated(), and hands out the private
// pool of a CUDA graph being captured (which torch.compile's
// mode="reduce-overhead" checks its outputs against).
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_FRAMEWORKALLOCATOR_H
#define DLBRIDGE_PYTHON_FRAMEWORKALLOCATOR_H

#include "dlbridge/Runtime/dlrt.h"

#include <dlpack/dlpack.h>

namespace dlbridge::python {

/// Allocation hooks (for dlrt_call_ctx::allocator) through `api`'s
/// managed_tensor_allocator, or NULL when it has none. A buffer the
/// framework cannot give comes from the runtime's own CUDA allocator. The
/// hooks live as long as the process. Needs the GIL; the hooks themselves
/// do not.
const dlrt_allocator *getFrameworkAllocator(const DLPackExchangeAPI *api);

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_FRAMEWORKALLOCATOR_H
