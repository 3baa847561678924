//===- MemoryCache.h - This process's kernels, bounded, LRU -----*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_JIT_MEMORYCACHE_H
#define DLBRIDGE_LIB_JIT_MEMORYCACHE_H

#include "DiskCache.h"
#include "KernelImpl.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace dlbridge::jit {

/// The default of $DLBRIDGE_MEMORY_CACHE_MAX.
constexpr size_t kDefaultMemoryCacheMax = 512;

/// The most kernels the in-memory cache holds: $DLBRIDGE_MEMORY_CACHE_MAX (a
/// positive integer), else kDefaultMemoryCacheMax. 0 after writing why into
/// `error` when the variable holds something else.
size_t getMemoryCacheLimit(std::string &error);

/// The kernels this process keeps loaded: compile()'s, found again by their
/// cache key, and the ones other caches (a jitted function's
/// specialisations) hold only weakly and ask to keep, without a key. Over
/// the limit, the least recently used kernel (KernelImpl::markUsed) is
/// dropped; its code is unloaded once no Kernel copy refers to it any more,
/// so a call in flight, which holds one, is never cut short.
class MemoryCache {
public:
  /// The kernel cached under `key`, marked used; null when there is none.
  std::shared_ptr<const KernelImpl> lookup(const CacheKey &key);
  /// Keeps `kernel`, under `key` when given (the first kernel under a key
  /// stays), marks it used and evicts over `limit`.
  void insert(const CacheKey *key, std::shared_ptr<const KernelImpl> kernel,
              size_t limit);
  void clear();
  size_t size();

private:
  struct Resident {
    std::shared_ptr<const KernelImpl> kernel;
    std::string key; ///< empty when kept without one
  };
  std::mutex mutex;
  std::unordered_map<const KernelImpl *, Resident> residents;
  std::unordered_map<std::string, const KernelImpl *> byKey;
};

/// The process's one MemoryCache.
MemoryCache &getMemoryCache();

} // namespace dlbridge::jit

#endif // DLBRIDGE_LIB_JIT_MEMORYCACHE_H
