//===- KernelImpl.h - What a Kernel holds -----------------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_JIT_KERNELIMPL_H
#define DLBRIDGE_LIB_JIT_KERNELIMPL_H

#include "dlbridge/JIT/Kernel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>

namespace dlbridge::jit {

/// The entry ABI of dlrt.h.
using EntryFunction = int32_t (*)(void **, void **, dlrt_call_ctx *);

/// One loaded specialisation; `owner` keeps its JIT'ed code alive.
struct LoadedVariant {
  std::shared_ptr<void> owner;
  EntryFunction entry = nullptr;
  const dlrt_signature *signature = nullptr;
};

/// Makes the contiguous specialisation: compiles it, or loads it from a disk
/// cache entry. std::nullopt when that failed.
using VariantMaker = std::function<std::optional<LoadedVariant>()>;

class KernelImpl {
public:
  /// `name` is the entry's name as the source spells it, which the
  /// signature reports; the compiled symbols may carry a portable spelling
  /// of it (see SymbolNames.h). `makeContiguous` is empty when there is no
  /// contiguous specialisation.
  KernelImpl(std::string name, LoadedVariant general,
             VariantMaker makeContiguous, KernelStages stages,
             bool fromDiskCache);

  static Kernel wrap(std::shared_ptr<const KernelImpl> impl) {
    return Kernel(std::move(impl));
  }
  static const std::shared_ptr<const KernelImpl> &unwrap(const Kernel &kernel) {
    return kernel.impl;
  }

  /// The contiguous specialisation's entry, made by the first caller (the
  /// others wait for it); null when there is none or making it failed, and
  /// then the general specialisation serves every call, as it can.
  EntryFunction getContiguousEntry() const;
  bool isContiguousLoaded() const {
    return contiguousEntry.load(std::memory_order_acquire) != nullptr;
  }

  /// Stamps this kernel as the most recently used (for MemoryCache's
  /// eviction). A kernel called again before any other costs two relaxed
  /// loads; the clock advances only when the most recent kernel changes.
  void markUsed() const {
    uint64_t now = useClock.load(std::memory_order_relaxed);
    if (stamp.load(std::memory_order_relaxed) != now)
      stamp.store(useClock.fetch_add(1, std::memory_order_relaxed) + 1,
                  std::memory_order_relaxed);
  }
  uint64_t lastUse() const { return stamp.load(std::memory_order_relaxed); }

  Signature signature;
  KernelStages stages;
  /// As written (memref sources) or with fully dynamic layouts (tensors).
  LoadedVariant general;
  /// Whether there is a contiguous specialisation (identity layouts; tensor
  /// sources only), loaded or not.
  bool hasContiguous;
  bool fromDiskCache;

private:
  /// The contiguous specialisation costs as much to compile as the general
  /// one (about 40% of a small kernel's cold compile), and a kernel called
  /// only with strided tensors never needs it: so compile() makes the
  /// general one, which every call can take, and the first compact call
  /// makes this one. On that call's thread rather than in the background: no
  /// thread outlives the kernel or races process exit, and which code a call
  /// runs does not depend on timing.
  mutable std::once_flag contiguousOnce;
  mutable VariantMaker makeContiguous;
  mutable LoadedVariant contiguous;
  mutable std::atomic<EntryFunction> contiguousEntry{nullptr};
  /// When this kernel was last used, on `useClock`.
  mutable std::atomic<uint64_t> stamp{0};
  static std::atomic<uint64_t> useClock;
};

/// Links an object file compiled by compile() for `dataLayout` (the host's,
/// as a string) into a fresh ORC JIT with the runtime's symbols, runs its
/// constructors, and finds `function`'s entry point and signature record.
llvm::Expected<LoadedVariant> loadObject(llvm::StringRef object,
                                         llvm::StringRef function,
                                         llvm::StringRef dataLayout);

/// The names compile() gives a function's entry point and signature record.
std::string getEntryPointName(llvm::StringRef function);
std::string getSignatureName(llvm::StringRef function);

/// The functions an object's static constructors and destructors
/// (`llvm.global_ctors`/`llvm.global_dtors`: MLIR's GPU lowering loads and
/// unloads kernel modules in them) become, since ORC without a platform runs
/// neither: loadObject calls the first, the last owner of the code the
/// second.
inline constexpr const char *kInitializerName = "__dlbridge_init";
inline constexpr const char *kFinalizerName = "__dlbridge_fini";

} // namespace dlbridge::jit

#endif // DLBRIDGE_LIB_JIT_KERNELIMPL_H
