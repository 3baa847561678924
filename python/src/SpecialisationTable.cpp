//===- SpecialisationTable.cpp - Kernels by key, safe across threads ------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "SpecialisationTable.h"

using namespace dlbridge;
using namespace dlbridge::python;

SpecialisationTable::~SpecialisationTable() {
  const Node *node = head.load(std::memory_order_acquire);
  while (node) {
    const Node *next = node->next;
    delete node;
    node = next;
  }
}

const jit::Kernel *SpecialisationTable::find(const uint64_t *key,
                                             size_t size) const {
  for (const Node *node = head.load(std::memory_order_acquire); node;
       node = node->next)
    if (node->matches(key, size))
      return &node->kernel;
  return nullptr;
}

const jit::Kernel &SpecialisationTable::insert(const uint64_t *key, size_t size,
                                               jit::Kernel kernel) {
  std::lock_guard<std::mutex> lock(insertMutex);
  if (const jit::Kernel *existing = find(key, size))
    return *existing;
  auto *node =
      new Node{std::vector<uint64_t>(key, key + size), std::move(kernel),
               head.load(std::memory_order_relaxed)};
  head.store(node, std::memory_order_release);
  count.fetch_add(1, std::memory_order_release);
  return node->kernel;
}
