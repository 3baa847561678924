//===- SpecialisationTable.h - Kernels by key, safe across threads -*- C++
//-*-===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_SPECIALISATIONTABLE_H
#define DLBRIDGE_PYTHON_SPECIALISATIONTABLE_H

#include "dlbridge/JIT/Kernel.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace dlbridge::python {

/// The kernels of one jitted function, keyed by the kinds of their arguments.
///
/// The table holds its kernels weakly: the in-memory kernel cache
/// (jit::keepInMemoryCache) decides how long they stay loaded, and a key
/// whose kernel it evicted is a miss again (the caller compiles it anew).
/// What find() returns is a strong copy, so a call keeps its kernel loaded
/// until it returns even if another thread evicts it meanwhile. Lookups and
/// inserts may come from several threads; when two threads compiled the same
/// key, the first inserted kernel wins and both calls use it.
class SpecialisationTable {
public:
  /// A kernel and what its inserter attached to it (may be null).
  struct Entry {
    jit::Kernel kernel;
    std::shared_ptr<void> payload;
  };

  SpecialisationTable() = default;
  SpecialisationTable(const SpecialisationTable &) = delete;
  SpecialisationTable &operator=(const SpecialisationTable &) = delete;

  /// The kernel for `key` (`size` words), or nullopt when there is none or
  /// it was evicted.
  std::optional<Entry> find(const uint64_t *key, size_t size) const;
  /// Adds `kernel` for `key` unless a kernel that is still loaded is there;
  /// returns the entry the table holds for `key` afterwards, and in `added`
  /// whether it is this one. Forgets the keys whose kernels were evicted;
  /// their payloads are released after the table's lock, by the caller's
  /// thread.
  Entry insert(const uint64_t *key, size_t size, jit::Kernel kernel,
               std::shared_ptr<void> payload, bool *added = nullptr);
  /// How many keys have a kernel that is still loaded.
  size_t size() const;
  /// Calls `visit` with every key whose kernel is still loaded.
  void
  forEachKey(const std::function<void(const uint64_t *, size_t)> &visit) const;

private:
  struct Node {
    std::vector<uint64_t> key;
    jit::WeakKernel kernel;
    std::shared_ptr<void> payload;
    bool matches(const uint64_t *other, size_t size) const {
      return key.size() == size &&
             std::memcmp(key.data(), other, size * sizeof(uint64_t)) == 0;
    }
  };
  static uint64_t hash(const uint64_t *key, size_t size);

  mutable std::mutex mutex;
  std::unordered_multimap<uint64_t, Node> nodes;
};

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_SPECIALISATIONTABLE_H
