//===- Kernel.h - Compile MLIR to kernels callable with DLPack --*- C++ -*-===//
//
// Part of dlbridge. The C++ API compiler backends and the Python module use:
// one call takes MLIR source and returns a Kernel callable with DLPack
// tensors. No MLIR or LLVM type appears here, so clients need neither's
// headers.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_JIT_KERNEL_H
#define DLBRIDGE_JIT_KERNEL_H

#include "dlbridge/Pipelines/Options.h"
#include "dlbridge/Runtime/dlrt.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dlbridge::jit {

/// The options, their defaults and checks: Options.h.
using dlbridge::CompileOptions;
using dlbridge::GPUBinaryFormat;
using dlbridge::Target;

/// One parameter or result of a kernel, read from its signature record.
struct ParamInfo {
  std::string name;
  bool isTensor = true;
  DLDataType dtype{};
  int32_t rank = 0;
  /// `rank` sizes; DLRT_DYNAMIC where dynamic.
  std::vector<int64_t> shape;
  /// Tensors: whether any strides are accepted (else compact row-major).
  bool strided = false;
  /// dlrt_access bits: read 1, write 2.
  int32_t access = DLRT_ACCESS_NONE;
};

struct Signature {
  /// The compiled function's name.
  std::string name;
  DLDeviceType device = kDLCPU;
  std::vector<ParamInfo> args;
  std::vector<ParamInfo> results;
};

/// The MLIR a kernel was built from, per stage, for inspection.
struct KernelStages {
  std::string input;
  /// After the pipeline, in the LLVM dialect.
  std::string llvmDialect;
};

class KernelImpl;

/// A compiled entry point. Copies share one compiled module; calls are
/// thread-safe (each call brings its own dlrt_call_ctx).
class Kernel {
public:
  const Signature &signature() const;
  const KernelStages &stages() const;

  /// Runs the kernel with the entry ABI of dlrt.h: `args[i]` is a DLTensor*
  /// or a pointer to a scalar, `results[j]` receives a
  /// DLManagedTensorVersioned* (owned by the caller) or a scalar. Picks the
  /// contiguous specialisation when every tensor argument is compact (the
  /// first such call makes it), the strided one otherwise. Returns 0 or a dlrt
  /// status with ctx->error set.
  int32_t call(void **args, void **results, dlrt_call_ctx *ctx) const;

  /// Whether a contiguous specialisation exists (tensor-level sources).
  bool hasContiguousVariant() const;
  /// Whether the contiguous specialisation is loaded: it is compiled (or
  /// loaded from the disk cache) on the first call whose tensors are all
  /// compact, not by compile().
  bool isContiguousVariantLoaded() const;
  /// Whether this kernel was loaded from the disk cache.
  bool fromDiskCache() const;

private:
  friend class KernelImpl;
  friend class WeakKernel;
  explicit Kernel(std::shared_ptr<const KernelImpl> impl);
  std::shared_ptr<const KernelImpl> impl;
};

/// A kernel, or why there is none.
struct CompileResult {
  std::optional<Kernel> kernel;
  std::string error;
  explicit operator bool() const { return kernel.has_value(); }
};

/// Compiles the `dlpack.entry` function `entry` of `source` (tensor- or
/// memref-level MLIR). With `entry` empty the module must have exactly one
/// entry. Errors (invalid options, parse, verification, pipeline, unknown
/// entry) come back as text, with MLIR's located diagnostics.
CompileResult compile(const std::string &source, const std::string &entry,
                      const CompileOptions &options = {});

/// Like compile(), reading the source from `path`.
CompileResult compileFile(const std::string &path, const std::string &entry,
                          const CompileOptions &options = {});

/// The IR of each stage of a compilation, in order: "input" (the source),
/// the target pipeline's stages (Pipelines.h), "llvm-ir" (after LLVM's
/// optimisations at the options' level), "asm" (the host's assembly) and,
/// for CUDA, "ptx" (the kernels'). Or why there is none.
struct InspectResult {
  using Stages = std::vector<std::pair<std::string, std::string>>;
  Stages stages;
  std::string error;
  explicit operator bool() const { return error.empty(); }
};

/// Compiles `entry` of `source` as compile() would, bypassing the caches, and
/// keeps the IR between stages: for reading, never on a call's path. The
/// general (strided) specialisation is the one shown.
InspectResult inspect(const std::string &source, const std::string &entry,
                      const CompileOptions &options = {});

/// A kernel referred to without keeping it loaded: caches that the
/// in-memory cache's limit governs hold their kernels so (a jitted
/// function's specialisations), and keep them loaded with
/// keepInMemoryCache().
class WeakKernel {
public:
  WeakKernel() = default;
  explicit WeakKernel(const Kernel &kernel);
  /// The kernel, unless it was evicted and no Kernel refers to it any more.
  /// The copy keeps it loaded while it is used.
  std::optional<Kernel> lock() const;
  bool expired() const;

private:
  std::weak_ptr<const KernelImpl> impl;
};

/// Adds `kernel` to this process's in-memory kernel cache (compile() puts
/// the kernels it makes there) without a key, so that it stays loaded until
/// evicted: the cache holds at most $DLBRIDGE_MEMORY_CACHE_MAX kernels
/// (default 512) and drops the least recently called first. A kernel's code
/// is unloaded once neither the cache nor any Kernel copy refers to it.
/// Returns why not when the variable holds something else than a positive
/// integer, else "".
std::string keepInMemoryCache(const Kernel &kernel);

/// How many kernels the in-memory cache holds now.
size_t getMemoryCacheSize();

/// Empties this process's kernel cache and removes every entry of the disk
/// cache (DiskCache.h: nothing else in its directory); kernels that are
/// referred to stay valid. Returns how many disk entries were removed.
unsigned clearCaches();

/// dlbridge's version, e.g. "0.1.0" (the project() version in CMakeLists.txt).
const char *version();

/// The version string compiled into cache keys: dlbridge's and LLVM's.
const char *versionString();

} // namespace dlbridge::jit

#endif // DLBRIDGE_JIT_KERNEL_H
