//===- DiskCache.h - Compiled kernels on disk -------------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_JIT_DISKCACHE_H
#define DLBRIDGE_LIB_JIT_DISKCACHE_H

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dlbridge::jit {

/// SHA-256 of everything that determines a compiled kernel.
using CacheKey = std::array<uint8_t, 32>;

/// One object file of a kernel: a specialisation (0 as written or strided,
/// 1 contiguous) and its bytes.
struct CachedObject {
  uint32_t variant;
  std::string bytes;
};

/// A cache entry: the compiled function's symbol and the entry's name as the
/// source spells it (they differ where SymbolNames.h renamed it), the MLIR
/// it was compiled from and lowered to (for inspection), the data layout its
/// objects were compiled for (which loading them needs), whether the kernel
/// has a contiguous specialisation, and its objects: the general one's, and
/// the contiguous one's once a call has needed it.
struct CacheEntry {
  std::string function;
  std::string name;
  std::string inputMLIR;
  std::string llvmDialectMLIR;
  std::string dataLayout;
  bool contiguous = false;
  std::vector<CachedObject> objects;
};

/// Where entries live: $DLBRIDGE_CACHE_DIR, else $XDG_CACHE_HOME/dlbridge,
/// else ~/.cache/dlbridge. Empty when the disk cache is off
/// (DLBRIDGE_DISK_CACHE=0) or no directory can be named.
std::string getCacheDirectory();

/// The largest entry read or written, checked before reading.
constexpr uint64_t kMaxCacheEntrySize = uint64_t(1) << 30;

/// Reads the entry of `key`. An entry that is truncated, fails its checksum,
/// or was written for another key or format is ignored (std::nullopt), so
/// the caller recompiles and overwrites it; a cache file is never loaded
/// unless it is exactly what this key stored. So is anything but a regular
/// file of at most kMaxCacheEntrySize bytes that this user owns and no one
/// else may write, in a directory of the same kind: a symlink, FIFO or
/// device at the entry's path is neither followed nor opened for long.
std::optional<CacheEntry> readCacheEntry(llvm::StringRef dir,
                                         const CacheKey &key);

/// Writes the entry of `key` atomically (temporary file, then rename) with
/// mode 0600, creating `dir` with mode 0700. Nothing is written into a
/// directory readCacheEntry() would not trust. Failures are ignored: the
/// cache is an optimisation.
void writeCacheEntry(llvm::StringRef dir, const CacheKey &key,
                     const CacheEntry &entry);

/// The file name of `key`'s entry inside a cache directory. It starts with
/// "llvmcache-", the prefix LLVM's pruneCache() takes for its own.
std::string getCacheEntryName(const CacheKey &key);

/// The pruning policy of the disk cache, in LLVM's CachePruning syntax:
/// at most $DLBRIDGE_CACHE_MAX_SIZE bytes (a number with an optional k, m or
/// g suffix; default 1g) of entries, the least recently used pruned first,
/// and entries unused for a week. Empty after writing why into `error` when
/// the variable holds something else.
std::string getCachePruningPolicy(std::string &error);

/// Prunes `dir` by `policy` (LLVM's pruneCache()). The policy scans the
/// directory after every write (a few stat() calls per entry, against a
/// compile's tens of milliseconds), so that a burst of new kernels, such as
/// a jitted function's distinct static values, never grows the cache past
/// its limit.
void pruneCacheDirectory(llvm::StringRef dir, llvm::StringRef policy);

/// Removes every entry (and leftover temporary file) of `dir`, and nothing
/// else; returns how many files were removed.
unsigned removeCacheEntries(llvm::StringRef dir);

} // namespace dlbridge::jit

#endif // DLBRIDGE_LIB_JIT_DISKCACHE_H
