//===- SpecialisationTable.h - Kernels by key, safe across threads -*- C++
//-*-===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_SPECIALISATIONTABLE_H
#define DLBRIDGE_PYTHON_SPECIALISATIONTABLE_H

#include "dlbridge/JIT/Kernel.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace dlbridge::python {

/// The kernels of one jitted function, keyed by the kinds of their arguments.
///
/// Entries never move and live as long as the table, so a call may keep
/// using the Kernel it found while other threads (with the GIL released, or
/// without a GIL) add entries. Lookups take no lock: they walk an
/// append-only list published with release stores. Inserts are serialised;
/// when two threads compiled the same key, the first inserted kernel wins and
/// both calls use it.
class SpecialisationTable {
public:
  SpecialisationTable() = default;
  SpecialisationTable(const SpecialisationTable &) = delete;
  SpecialisationTable &operator=(const SpecialisationTable &) = delete;
  ~SpecialisationTable();

  /// The kernel for `key` (`size` words), or NULL.
  const jit::Kernel *find(const uint64_t *key, size_t size) const;
  /// Adds `kernel` for `key` unless the key is present; returns the kernel
  /// the table holds for `key` afterwards.
  const jit::Kernel &insert(const uint64_t *key, size_t size,
                            jit::Kernel kernel);
  size_t size() const { return count.load(std::memory_order_acquire); }

private:
  struct Node {
    std::vector<uint64_t> key;
    jit::Kernel kernel;
    const Node *next;
    bool matches(const uint64_t *other, size_t size) const {
      return key.size() == size &&
             std::memcmp(key.data(), other, size * sizeof(uint64_t)) == 0;
    }
  };

  std::atomic<const Node *> head{nullptr};
  std::atomic<size_t> count{0};
  std::mutex insertMutex;
};

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_SPECIALISATIONTABLE_H
