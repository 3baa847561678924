//===- RuntimeSymbols.cpp - libdlrt symbols for JIT'ed code ---------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSymbols.h"

#include "dlbridge/Runtime/dlrt.h"
#include "dlbridge/Runtime/dlrt_cuda.h"

#include <cmath>
#include <cstdint>
#include <cstring>

using namespace llvm;
using namespace llvm::orc;

namespace {

/// Conversions to bfloat16 that LLVM's x86 code generation calls on CPUs
/// without AVX512-BF16 or AVX-NE-CONVERT (compiler-rt's names), and which
/// libgcc before GCC 13 lacks. A bf16 comes back in the low 16 bits of
/// xmm0, as it would from a function returning __bf16: there a float's bit
/// pattern holding those 16 bits puts them.
float bitsAsReturnedBFloat16(uint32_t bits) {
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

/// Rounds the bits of a float to the nearest bfloat16, ties to even; NaNs
/// stay NaN (quiet).
uint32_t roundToBFloat16(uint32_t bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (bits >> 16) | 0x40u;
  return (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
}

float truncateFloatToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bitsAsReturnedBFloat16(roundToBFloat16(bits));
}

/// Rounds to float first, to odd (the nearer float toward zero with its
/// last bit set when inexact), so that rounding that float to bfloat16 is
/// the correctly rounded result: float keeps at least two more bits.
float truncateDoubleToBFloat16(double value) {
  float rounded = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &rounded, sizeof(bits));
  if (!std::isnan(value) && static_cast<double>(rounded) != value) {
    if (std::fabs(static_cast<double>(rounded)) > std::fabs(value))
      --bits;
    bits |= 1u;
  }
  return bitsAsReturnedBFloat16(roundToBFloat16(bits));
}

} // namespace

/// The libomp functions OpenMP regions translate to (OpenMPIRBuilder's
/// parallel, worksharing-loop and reduction code). libomp installs no
/// header declaring them; only their addresses are taken here, so the
/// prototypes do not matter. libomp is linked to the JIT's library, which a
/// Python extension loads with RTLD_LOCAL: generated code finds them here,
/// not in the process's global scope.
#define DLBRIDGE_OPENMP_SYMBOLS(X)                                             \
  X(__kmpc_barrier)                                                            \
  X(__kmpc_critical)                                                           \
  X(__kmpc_end_critical)                                                       \
  X(__kmpc_end_reduce)                                                         \
  X(__kmpc_end_reduce_nowait)                                                  \
  X(__kmpc_end_serialized_parallel)                                            \
  X(__kmpc_for_static_fini)                                                    \
  X(__kmpc_for_static_init_4)                                                  \
  X(__kmpc_for_static_init_4u)                                                 \
  X(__kmpc_for_static_init_8)                                                  \
  X(__kmpc_for_static_init_8u)                                                 \
  X(__kmpc_fork_call)                                                          \
  X(__kmpc_fork_call_if)                                                       \
  X(__kmpc_global_thread_num)                                                  \
  X(__kmpc_push_num_threads)                                                   \
  X(__kmpc_reduce)                                                             \
  X(__kmpc_reduce_nowait)                                                      \
  X(__kmpc_serialized_parallel)
#define DLBRIDGE_DECLARE_OPENMP_SYMBOL(name) void name();
extern "C" {
DLBRIDGE_OPENMP_SYMBOLS(DLBRIDGE_DECLARE_OPENMP_SYMBOL)
}
#undef DLBRIDGE_DECLARE_OPENMP_SYMBOL

orc::SymbolMap dlbridge::jit::getRuntimeSymbols(MangleAndInterner interner) {
  SymbolMap symbols;
  auto add = [&](StringRef name, auto *function) {
    symbols[interner(name)] = {ExecutorAddr::fromPtr(function),
                               JITSymbolFlags::Exported |
                                   JITSymbolFlags::Callable};
  };
  // Every libdlrt function generated code calls, from the table the
  // emitters use, so none can be left unregistered.
#define DLRT_FUNCTION(enumerator, name, result, params) add(#name, &name);
#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.def"
  // What upstream's memref and GPU lowerings call.
#define DLBRIDGE_RUNTIME_SYMBOL(name) add(#name, &name)
  DLBRIDGE_RUNTIME_SYMBOL(_mlir_memref_to_llvm_alloc);
  DLBRIDGE_RUNTIME_SYMBOL(_mlir_memref_to_llvm_aligned_alloc);
  DLBRIDGE_RUNTIME_SYMBOL(_mlir_memref_to_llvm_free);
  DLBRIDGE_RUNTIME_SYMBOL(memrefCopy);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuModuleLoad);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuModuleLoadJIT);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuModuleUnload);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuModuleGetFunction);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuLaunchKernel);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuStreamCreate);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuStreamSynchronize);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuStreamDestroy);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuStreamWaitEvent);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuEventCreate);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuEventDestroy);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuEventSynchronize);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuEventRecord);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuMemAlloc);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuMemFree);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuMemcpy);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuMemset32);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuMemset16);
  DLBRIDGE_RUNTIME_SYMBOL(mgpuSetDefaultDevice);
  add("__truncsfbf2", &truncateFloatToBFloat16);
  add("__truncdfbf2", &truncateDoubleToBFloat16);
  // What OpenMP regions call (--dlbridge-parallelize-outer-loops).
#define DLBRIDGE_ADD_OPENMP_SYMBOL(name) DLBRIDGE_RUNTIME_SYMBOL(name);
  DLBRIDGE_OPENMP_SYMBOLS(DLBRIDGE_ADD_OPENMP_SYMBOL)
#undef DLBRIDGE_ADD_OPENMP_SYMBOL
#undef DLBRIDGE_RUNTIME_SYMBOL
  return symbols;
}
