//===- LiveResults.cpp - Registry of undeleted results
//---------------------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// A fixed hash table of intrusive chains, one mutex per bucket: registering
// and unregistering cost one uncontended lock and a short chain walk, and
// need no allocation (so packing a result cannot fail here).
//
//===----------------------------------------------------------------------===//

#include "LiveResults.h"

#include <cstdint>
#include <mutex>

namespace {

constexpr unsigned kBucketBits = 10;

struct alignas(64) Bucket {
  std::mutex mutex;
  dlrt::LiveResultLink *head = nullptr;
};

Bucket buckets[1u << kBucketBits];

Bucket &bucketFor(const void *key) {
  // Fibonacci hashing spreads the allocator's aligned addresses.
  const uint64_t hash =
      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key)) *
      0x9E3779B97F4A7C15ull;
  return buckets[hash >> (64 - kBucketBits)];
}

} // namespace

void dlrt::registerLiveResult(LiveResultLink *link) {
  Bucket &bucket = bucketFor(link->key);
  std::lock_guard<std::mutex> lock(bucket.mutex);
  link->next = bucket.head;
  bucket.head = link;
}

dlrt::LiveResultLink *dlrt::unregisterLiveResult(const void *key) {
  Bucket &bucket = bucketFor(key);
  std::lock_guard<std::mutex> lock(bucket.mutex);
  for (LiveResultLink **slot = &bucket.head; *slot; slot = &(*slot)->next) {
    if ((*slot)->key != key)
      continue;
    LiveResultLink *found = *slot;
    *slot = found->next;
    return found;
  }
  return nullptr;
}
