//===- DiskCache.cpp - Compiled kernels on disk ---------------------------===//
//
// Part of dlbridge.
//
// An entry is one file: "DLBRJIT1", the format version, the key, the function
// name, the input and LLVM-dialect MLIR (each as size, xxh3 checksum, bytes),
// the number of objects, then per object its variant, size, checksum and
// bytes.
//
//===----------------------------------------------------------------------===//

#include "DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstring>

using namespace llvm;
using namespace dlbridge::jit;

namespace {
constexpr char kMagic[8] = {'D', 'L', 'B', 'R', 'J', 'I', 'T', '1'};
constexpr uint32_t kFormatVersion = 2;

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
  bool readBytes(std::string &out, uint64_t size) {
    if (data.size() < size)
      return false;
    out.assign(data.data(), size);
    data = data.drop_front(size);
    return true;
  }
  /// Reads a size, a checksum and that many bytes matching it.
  bool readChecked(std::string &out) {
    uint64_t size, checksum;
    return read(&size, sizeof(size)) && read(&checksum, sizeof(checksum)) &&
           readBytes(out, size) &&
           xxh3_64bits(arrayRefFromStringRef(out)) == checksum;
  }
  bool atEnd() const { return data.empty(); }

private:
  StringRef data;
};

template <typename T>
void write(raw_ostream &os, const T &value) {
  os.write(reinterpret_cast<const char *>(&value), sizeof(T));
}

void writeChecked(raw_ostream &os, StringRef bytes) {
  write(os, static_cast<uint64_t>(bytes.size()));
  write(os, xxh3_64bits(arrayRefFromStringRef(bytes)));
  os << bytes;
}
} // namespace

std::string dlbridge::jit::getCacheDirectory() {
  if (std::optional<std::string> off = sys::Process::GetEnv("DLBRIDGE_DISK_CACHE"))
    if (*off == "0" || StringRef(*off).equals_insensitive("off"))
      return {};
  if (std::optional<std::string> dir = sys::Process::GetEnv("DLBRIDGE_CACHE_DIR"))
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
  return toHex(ArrayRef<uint8_t>(key), /*LowerCase=*/true) + ".dlbrjit";
}

std::optional<CacheEntry> dlbridge::jit::readCacheEntry(StringRef dir,
                                                       const CacheKey &key) {
  SmallString<256> path(dir);
  sys::path::append(path, getCacheEntryName(key));
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt;
  Reader reader((*buffer)->getBuffer());
  char magic[sizeof(kMagic)];
  uint32_t version, nameSize, count;
  CacheKey storedKey;
  CacheEntry entry;
  if (!reader.read(magic, sizeof(magic)) ||
      std::memcmp(magic, kMagic, sizeof(kMagic)) != 0 ||
      !reader.read(&version, sizeof(version)) || version != kFormatVersion ||
      !reader.read(storedKey.data(), storedKey.size()) || storedKey != key ||
      !reader.read(&nameSize, sizeof(nameSize)) ||
      !reader.readBytes(entry.function, nameSize) ||
      !reader.readChecked(entry.inputMLIR) ||
      !reader.readChecked(entry.llvmDialectMLIR) ||
      !reader.read(&count, sizeof(count)) || count == 0 || count > 2)
    return std::nullopt;
  entry.objects.resize(count);
  for (CachedObject &object : entry.objects)
    if (!reader.read(&object.variant, sizeof(object.variant)) ||
        !reader.readChecked(object.bytes))
      return std::nullopt;
  if (!reader.atEnd())
    return std::nullopt;
  return entry;
}

void dlbridge::jit::writeCacheEntry(StringRef dir, const CacheKey &key,
                                    const CacheEntry &entry) {
  if (sys::fs::create_directories(dir))
    return;
  SmallString<256> path(dir);
  sys::path::append(path, getCacheEntryName(key));
  SmallString<256> temporary;
  int fd;
  if (sys::fs::createUniqueFile(path + ".%%%%%%.tmp", fd, temporary))
    return;
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(kMagic, sizeof(kMagic));
    write(os, kFormatVersion);
    os.write(reinterpret_cast<const char *>(key.data()), key.size());
    write(os, static_cast<uint32_t>(entry.function.size()));
    os << entry.function;
    writeChecked(os, entry.inputMLIR);
    writeChecked(os, entry.llvmDialectMLIR);
    write(os, static_cast<uint32_t>(entry.objects.size()));
    for (const CachedObject &object : entry.objects) {
      write(os, object.variant);
      writeChecked(os, object.bytes);
    }
    if (os.has_error()) {
      os.clear_error();
      sys::fs::remove(temporary);
      return;
    }
  }
  if (sys::fs::rename(temporary, path))
    sys::fs::remove(temporary);
}
