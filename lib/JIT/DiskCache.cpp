//===- DiskCache.cpp - Compiled kernels on disk ---------------------------===//
//
// Part of dlbridge.
//
// An entry is one file: "DLBRJIT1", the format version, the key, the
// compiled function's symbol and the entry's name as written, the input and
// LLVM-dialect MLIR, the objects' data layout, whether there is a contiguous
// specialisation (a u32 0 or
// 1), the number of objects, then per object its variant and
// bytes (every string as a u64 size and the bytes), and last an xxh3 of
// everything before it, so no field is trusted unchecked.
//
// The cache holds code this process will run, so it is read as carefully as
// it is written: only a regular file (never a symlink, FIFO or device) owned
// by this user and writable by no one else, of bounded size, in a directory
// owned by this user that no one else may write; created 0700 and 0600.
//
//===----------------------------------------------------------------------===//

#include "DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;
using namespace dlbridge::jit;

namespace {
constexpr char kMagic[8] = {'D', 'L', 'B', 'R', 'J', 'I', 'T', '1'};
constexpr uint32_t kFormatVersion = 4;
/// What names every file the cache writes; LLVM's pruneCache() takes only
/// files named "llvmcache-*".
constexpr StringLiteral kEntryPrefix = "llvmcache-dlbridge-";

/// Sequential reads from an entry that fail, rather than overrun, at its end.
class Reader {
public:
  explicit Reader(StringRef data) : data(data) {}
  bool read(void *out, size_t size) {
    if (data.size() < size)
      return false;
    std::memcpy(out, data.data(), size);
    data = data.drop_front(size);
    return true;
  }
  /// Reads a u64 size and that many bytes.
  bool readString(std::string &out) {
    uint64_t size;
    if (!read(&size, sizeof(size)) || data.size() < size)
      return false;
    out.assign(data.data(), size);
    data = data.drop_front(size);
    return true;
  }
  bool atEnd() const { return data.empty(); }

private:
  StringRef data;
};

template <typename T> void write(raw_ostream &os, const T &value) {
  os.write(reinterpret_cast<const char *>(&value), sizeof(T));
}

void writeString(raw_ostream &os, StringRef bytes) {
  write(os, static_cast<uint64_t>(bytes.size()));
  os << bytes;
}

/// Whether `status` belongs to this user and no one else may write it.
bool isPrivate(const struct stat &status) {
  return status.st_uid == ::geteuid() &&
         (status.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/// Whether `dir` is a directory this user owns and no one else may write:
/// else another user could plant or swap entries.
bool isTrustedDirectory(StringRef dir) {
  struct stat status;
  return ::stat(dir.str().c_str(), &status) == 0 && S_ISDIR(status.st_mode) &&
         isPrivate(status);
}

/// The bytes of the entry at `path`, or nothing when it is missing, not a
/// regular private file, larger than kMaxCacheEntrySize or unreadable.
std::optional<std::string> readEntryFile(const std::string &path) {
  // O_NOFOLLOW: a symlink fails to open; O_NONBLOCK: a FIFO opens without
  // waiting for a writer (and is then refused by the fstat below).
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat status;
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode) ||
      !isPrivate(status) || status.st_size < 0 ||
      static_cast<uint64_t>(status.st_size) > kMaxCacheEntrySize)
    return std::nullopt;
  std::string bytes(static_cast<size_t>(status.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got = ::read(fd, &bytes[done], bytes.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return std::nullopt; // an error, or the file shrank
    done += static_cast<size_t>(got);
  }
  return bytes;
}
} // namespace

std::string dlbridge::jit::getCacheDirectory() {
  if (std::optional<std::string> off =
          sys::Process::GetEnv("DLBRIDGE_DISK_CACHE"))
    if (*off == "0" || StringRef(*off).equals_insensitive("off"))
      return {};
  if (std::optional<std::string> dir =
          sys::Process::GetEnv("DLBRIDGE_CACHE_DIR"))
    return *dir;
  SmallString<256> path;
  if (std::optional<std::string> xdg = sys::Process::GetEnv("XDG_CACHE_HOME");
      xdg && !xdg->empty())
    path = *xdg;
  else if (!sys::path::home_directory(path))
    return {};
  else
    sys::path::append(path, ".cache");
  sys::path::append(path, "dlbridge");
  return std::string(path);
}

std::string dlbridge::jit::getCacheEntryName(const CacheKey &key) {
  return kEntryPrefix.str() + toHex(ArrayRef<uint8_t>(key), /*LowerCase=*/true);
}

std::string dlbridge::jit::getCachePruningPolicy(std::string &error) {
  std::string size = "1g";
  if (std::optional<std::string> value =
          sys::Process::GetEnv("DLBRIDGE_CACHE_MAX_SIZE"))
    size = *value;
  std::string policy = "cache_size_bytes=" + size + ":prune_interval=0s";
  if (Expected<CachePruningPolicy> parsed = parseCachePruningPolicy(policy);
      !parsed || StringRef(size).contains(':')) {
    if (!parsed)
      consumeError(parsed.takeError());
    error = "DLBRIDGE_CACHE_MAX_SIZE: expected a size in bytes with an "
            "optional k, m or g suffix (e.g. 512m), got '" +
            size + "'";
    return {};
  }
  return policy;
}

void dlbridge::jit::pruneCacheDirectory(StringRef dir, StringRef policy) {
  if (!isTrustedDirectory(dir))
    return;
  if (Expected<CachePruningPolicy> parsed = parseCachePruningPolicy(policy))
    pruneCache(dir, *parsed);
  else
    consumeError(parsed.takeError());
}

unsigned dlbridge::jit::removeCacheEntries(StringRef dir) {
  if (!isTrustedDirectory(dir))
    return 0;
  unsigned removed = 0;
  std::error_code code;
  for (sys::fs::directory_iterator it(dir, code), end; it != end && !code;
       it.increment(code)) {
    StringRef name = sys::path::filename(it->path());
    if (name.starts_with(kEntryPrefix) && !sys::fs::remove(it->path()))
      ++removed;
  }
  return removed;
}

std::optional<CacheEntry> dlbridge::jit::readCacheEntry(StringRef dir,
                                                        const CacheKey &key) {
  if (!isTrustedDirectory(dir))
    return std::nullopt;
  SmallString<256> path(dir);
  sys::path::append(path, getCacheEntryName(key));
  std::optional<std::string> bytes = readEntryFile(std::string(path));
  uint64_t checksum;
  if (!bytes || bytes->size() < sizeof(checksum))
    return std::nullopt;
  StringRef body = StringRef(*bytes).drop_back(sizeof(checksum));
  std::memcpy(&checksum, bytes->data() + body.size(), sizeof(checksum));
  if (xxh3_64bits(arrayRefFromStringRef(body)) != checksum)
    return std::nullopt;

  Reader reader(body);
  char magic[sizeof(kMagic)];
  uint32_t version, contiguous, count;
  CacheKey storedKey;
  CacheEntry entry;
  if (!reader.read(magic, sizeof(magic)) ||
      std::memcmp(magic, kMagic, sizeof(kMagic)) != 0 ||
      !reader.read(&version, sizeof(version)) || version != kFormatVersion ||
      !reader.read(storedKey.data(), storedKey.size()) || storedKey != key ||
      !reader.readString(entry.function) || entry.function.empty() ||
      !reader.readString(entry.name) || entry.name.empty() ||
      !reader.readString(entry.inputMLIR) ||
      !reader.readString(entry.llvmDialectMLIR) ||
      !reader.readString(entry.dataLayout) || entry.dataLayout.empty() ||
      !reader.read(&contiguous, sizeof(contiguous)) || contiguous > 1 ||
      !reader.read(&count, sizeof(count)) || count == 0 ||
      count > 1 + contiguous)
    return std::nullopt;
  entry.contiguous = contiguous;
  entry.objects.resize(count);
  for (CachedObject &object : entry.objects)
    if (!reader.read(&object.variant, sizeof(object.variant)) ||
        object.variant > 1 || !reader.readString(object.bytes))
      return std::nullopt;
  if (!reader.atEnd())
    return std::nullopt;
  return entry;
}

void dlbridge::jit::writeCacheEntry(StringRef dir, const CacheKey &key,
                                    const CacheEntry &entry) {
  if (sys::fs::create_directories(dir, /*IgnoreExisting=*/true,
                                  sys::fs::owner_all) ||
      !isTrustedDirectory(dir))
    return;
  std::string body;
  {
    raw_string_ostream os(body);
    os.write(kMagic, sizeof(kMagic));
    write(os, kFormatVersion);
    os.write(reinterpret_cast<const char *>(key.data()), key.size());
    writeString(os, entry.function);
    writeString(os, entry.name);
    writeString(os, entry.inputMLIR);
    writeString(os, entry.llvmDialectMLIR);
    writeString(os, entry.dataLayout);
    write(os, static_cast<uint32_t>(entry.contiguous));
    write(os, static_cast<uint32_t>(entry.objects.size()));
    for (const CachedObject &object : entry.objects) {
      write(os, object.variant);
      writeString(os, object.bytes);
    }
  }
  uint64_t checksum = xxh3_64bits(arrayRefFromStringRef(body));
  if (body.size() + sizeof(checksum) > kMaxCacheEntrySize)
    return;

  SmallString<256> path(dir);
  sys::path::append(path, getCacheEntryName(key));
  SmallString<256> temporary;
  int fd;
  if (sys::fs::createUniqueFile(path + ".%%%%%%.tmp", fd, temporary,
                                sys::fs::OF_None,
                                sys::fs::owner_read | sys::fs::owner_write))
    return;
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << body;
    write(os, checksum);
    os.close();
    if (os.has_error()) {
      os.clear_error();
      sys::fs::remove(temporary);
      return;
    }
  }
  if (sys::fs::rename(temporary, path))
    sys::fs::remove(temporary);
}
