//===- LiveResults.h - Registry of undeleted results (internal) -*- C++ -*-===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// Makes result deleters idempotent and race-free without touching a freed
// tensor. A guard flag inside the tensor cannot do that: a deleter call that
// loses the race may read the flag after the winner freed the memory. The
// registry is keyed by the tensor's address and never dereferences the key,
// so every deleter call but the first finds nothing and returns.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_RUNTIME_LIVERESULTS_H
#define DLBRIDGE_LIB_RUNTIME_LIVERESULTS_H

namespace dlrt {

/// Intrusive registry entry, embedded in the object it keeps live.
struct LiveResultLink {
  LiveResultLink *next;
  /// The address deleter calls present (the DLManagedTensorVersioned).
  const void *key;
};

/// Registers `link` under `link->key`, which must not be registered. Never
/// allocates; thread-safe.
void registerLiveResult(LiveResultLink *link);

/// Removes and returns the link registered under `key`, or NULL when none is
/// (already removed). Exactly one of any number of concurrent calls with the
/// same key gets the link. Thread-safe; never dereferences `key`.
LiveResultLink *unregisterLiveResult(const void *key);

} // namespace dlrt

#endif // DLBRIDGE_LIB_RUNTIME_LIVERESULTS_H
