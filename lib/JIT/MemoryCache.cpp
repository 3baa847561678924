//===- MemoryCache.cpp - This process's kernels, bounded, LRU -------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "MemoryCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Process.h"

#include <vector>

using namespace dlbridge;
using namespace dlbridge::jit;

std::atomic<uint64_t> KernelImpl::useClock{1};

size_t dlbridge::jit::getMemoryCacheLimit(std::string &error) {
  std::optional<std::string> value =
      llvm::sys::Process::GetEnv("DLBRIDGE_MEMORY_CACHE_MAX");
  if (!value || value->empty())
    return kDefaultMemoryCacheMax;
  uint64_t limit = 0;
  if (llvm::StringRef(*value).getAsInteger(10, limit) || limit == 0 ||
      limit > (uint64_t(1) << 40)) {
    error = "DLBRIDGE_MEMORY_CACHE_MAX: expected a positive number of "
            "kernels, got '" +
            *value + "'";
    return 0;
  }
  return static_cast<size_t>(limit);
}

std::shared_ptr<const KernelImpl> MemoryCache::lookup(const CacheKey &key) {
  std::lock_guard<std::mutex> lock(mutex);
  auto found = byKey.find(std::string(key.begin(), key.end()));
  if (found == byKey.end())
    return nullptr;
  const std::shared_ptr<const KernelImpl> &kernel =
      residents.at(found->second).kernel;
  kernel->markUsed();
  return kernel;
}

void MemoryCache::insert(const CacheKey *key,
                         std::shared_ptr<const KernelImpl> kernel,
                         size_t limit) {
  // Evicted kernels are released after the lock: unloading code takes time
  // and runs the finalizers of its module.
  std::vector<std::shared_ptr<const KernelImpl>> evicted;
  {
    std::lock_guard<std::mutex> lock(mutex);
    kernel->markUsed();
    const KernelImpl *id = kernel.get();
    Resident &resident = residents[id];
    if (!resident.kernel)
      resident.kernel = std::move(kernel);
    if (key && resident.key.empty()) {
      std::string name(key->begin(), key->end());
      if (byKey.emplace(name, id).second)
        resident.key = std::move(name);
    }
    while (residents.size() > limit) {
      auto oldest = residents.end();
      for (auto it = residents.begin(); it != residents.end(); ++it)
        if (it->first != id &&
            (oldest == residents.end() ||
             it->second.kernel->lastUse() < oldest->second.kernel->lastUse()))
          oldest = it;
      if (oldest == residents.end())
        break;
      if (!oldest->second.key.empty())
        byKey.erase(oldest->second.key);
      evicted.push_back(std::move(oldest->second.kernel));
      residents.erase(oldest);
    }
  }
}

void MemoryCache::clear() {
  std::unordered_map<const KernelImpl *, Resident> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex);
    dropped.swap(residents);
    byKey.clear();
  }
}

size_t MemoryCache::size() {
  std::lock_guard<std::mutex> lock(mutex);
  return residents.size();
}

std::string dlbridge::jit::keepInMemoryCache(const Kernel &kernel) {
  std::string error;
  if (size_t limit = getMemoryCacheLimit(error))
    getMemoryCache().insert(nullptr, KernelImpl::unwrap(kernel), limit);
  return error;
}

size_t dlbridge::jit::getMemoryCacheSize() { return getMemoryCache().size(); }

MemoryCache &dlbridge::jit::getMemoryCache() {
  // Never destroyed: kernels may still be called while the process exits.
  static MemoryCache *cache = new MemoryCache();
  return *cache;
}
