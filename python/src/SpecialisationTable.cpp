//===- SpecialisationTable.cpp - Kernels by key, safe across threads ------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "SpecialisationTable.h"

using namespace dlbridge;
using namespace dlbridge::python;

uint64_t SpecialisationTable::hash(const uint64_t *key, size_t size) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ size;
  for (size_t i = 0; i < size; ++i) {
    h ^= key[i] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
  }
  return h ^ (h >> 31);
}

std::optional<SpecialisationTable::Entry>
SpecialisationTable::find(const uint64_t *key, size_t size) const {
  uint64_t h = hash(key, size);
  std::lock_guard<std::mutex> lock(mutex);
  auto [first, last] = nodes.equal_range(h);
  for (auto it = first; it != last; ++it)
    if (it->second.matches(key, size)) {
      if (std::optional<jit::Kernel> kernel = it->second.kernel.lock())
        return Entry{std::move(*kernel), it->second.payload};
      return std::nullopt;
    }
  return std::nullopt;
}

SpecialisationTable::Entry
SpecialisationTable::insert(const uint64_t *key, size_t size,
                            jit::Kernel kernel, std::shared_ptr<void> payload,
                            bool *added) {
  uint64_t h = hash(key, size);
  // Released after the lock: a payload's destructor may run Python code.
  std::vector<std::shared_ptr<void>> forgotten;
  std::lock_guard<std::mutex> lock(mutex);
  Node *slot = nullptr;
  for (auto it = nodes.begin(); it != nodes.end();) {
    if (it->first == h && it->second.matches(key, size)) {
      slot = &it->second;
      ++it;
    } else if (it->second.kernel.expired()) {
      forgotten.push_back(std::move(it->second.payload));
      it = nodes.erase(it);
    } else {
      ++it;
    }
  }
  if (slot)
    if (std::optional<jit::Kernel> existing = slot->kernel.lock()) {
      if (added)
        *added = false;
      return Entry{std::move(*existing), slot->payload};
    }
  if (!slot)
    slot = &nodes
                .emplace(h, Node{std::vector<uint64_t>(key, key + size),
                                 jit::WeakKernel(), nullptr})
                ->second;
  slot->kernel = jit::WeakKernel(kernel);
  forgotten.push_back(std::move(slot->payload));
  slot->payload = payload;
  if (added)
    *added = true;
  return Entry{std::move(kernel), std::move(payload)};
}

size_t SpecialisationTable::size() const {
  std::lock_guard<std::mutex> lock(mutex);
  size_t live = 0;
  for (const auto &[h, node] : nodes)
    live += !node.kernel.expired();
  return live;
}

void SpecialisationTable::forEachKey(
    const std::function<void(const uint64_t *, size_t)> &visit) const {
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto &[h, node] : nodes)
    if (!node.kernel.expired())
      visit(node.key.data(), node.key.size());
}
