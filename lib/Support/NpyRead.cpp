//===- NpyRead.cpp - Reading .npy images and files ------------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//
//
// Headers are parsed before anything is allocated, and the data they announce
// must be present: a corrupt file is an error, never a huge allocation.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Support/Npy.h"

#include "NpyFormat.h"
#include "NpyHeaderDict.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

using namespace dlbridge::npy;

namespace {

void byteSwap(char *data, int64_t count, size_t elementSize, DLDataType dtype) {
  size_t unit = dtype.code == kDLComplex ? elementSize / 2 : elementSize;
  if (unit <= 1)
    return;
  int64_t units = count * static_cast<int64_t>(elementSize / unit);
  for (int64_t i = 0; i < units; ++i)
    std::reverse(data + i * unit, data + (i + 1) * unit);
}

/// Reads the header from `file` and leaves it at the first data byte.
bool readHeader(std::FILE *file, NpyHeader &header, std::string &error) {
  unsigned char prefix[12];
  size_t got = std::fread(prefix, 1, sizeof(prefix), file);
  std::string bytes(reinterpret_cast<char *>(prefix), got);
  bool versionKnown = got >= 8 && prefix[6] >= 1 && prefix[6] <= 3 &&
                      prefix[7] == 0 &&
                      std::memcmp(prefix, kMagic, kMagicSize) == 0;
  size_t start = versionKnown && prefix[6] >= 2 ? 12 : 10;
  if (versionKnown && got >= start) {
    size_t length = prefix[8] | (prefix[9] << 8);
    if (start == 12)
      length |= static_cast<size_t>(prefix[10]) << 16 |
                static_cast<size_t>(prefix[11]) << 24;
    // UTF-8 (format 3) spends at most 4 bytes a character.
    if (length > 4 * kMaxHeaderChars) {
      error = "bad header: " + std::to_string(length) +
              " bytes long (more than " + std::to_string(kMaxHeaderChars) +
              " characters, NumPy's limit)";
      return false;
    }
    if (start + length > got) {
      bytes.resize(start + length);
      size_t more = std::fread(&bytes[got], 1, start + length - got, file);
      bytes.resize(got + more);
    }
  }
  if (!parseHeader(bytes.data(), bytes.size(), header, error))
    return false;
  if (std::fseek(file, static_cast<long>(header.dataOffset), SEEK_SET) != 0) {
    error = std::string("cannot seek to the data: ") + std::strerror(errno);
    return false;
  }
  return true;
}

std::string truncated(uint64_t expected, uint64_t present) {
  return "truncated data (" + std::to_string(expected) + " bytes expected, " +
         std::to_string(present) + " present)";
}

/// The array `header` declares, allocated only once `present` data bytes
/// are known to hold it: a header claiming 2**40 elements in a tiny file
/// is an error, not an allocation of terabytes.
std::optional<NpyArray> arrayFor(const NpyHeader &header, uint64_t present,
                                 std::string &error) {
  // parseHeader() checked that this product fits in int64.
  uint64_t expected = static_cast<uint64_t>(countElements(header.shape)) *
                      (header.dtype.bits / 8);
  if (present < expected) {
    error = truncated(expected, present);
    return std::nullopt;
  }
  return NpyArray::allocate(header.dtype, header.shape, header.fortranOrder,
                            &error);
}

} // namespace

std::optional<NpyArray> dlbridge::npy::readNpyBuffer(const void *bytes,
                                                     size_t size,
                                                     std::string &error) {
  NpyHeader header;
  if (!parseHeader(bytes, size, header, error))
    return std::nullopt;
  std::optional<NpyArray> array =
      arrayFor(header, size - header.dataOffset, error);
  if (!array)
    return std::nullopt;
  std::memcpy(array->data(),
              static_cast<const char *>(bytes) + header.dataOffset,
              array->byteSize());
  if (header.bigEndian)
    byteSwap(static_cast<char *>(array->data()), array->numElements(),
             array->elementSize(), array->dtype());
  return array;
}

std::optional<NpyArray> dlbridge::npy::readNpyFile(const std::string &path,
                                                   std::string &error) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  struct Closer {
    std::FILE *f;
    ~Closer() { std::fclose(f); }
  } closer{file};
  NpyHeader header;
  std::string why;
  if (!readHeader(file, header, why)) {
    if (std::ferror(file))
      error = "cannot read '" + path + "': " + std::strerror(errno);
    else
      error = path + ": " + why;
    return std::nullopt;
  }
  struct stat status;
  if (::fstat(::fileno(file), &status) != 0) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  // Pipes and devices have no size to check against: only what is read is.
  uint64_t present = UINT64_MAX;
  if (S_ISREG(status.st_mode))
    present = static_cast<uint64_t>(status.st_size) > header.dataOffset
                  ? static_cast<uint64_t>(status.st_size) - header.dataOffset
                  : 0;
  std::optional<NpyArray> array = arrayFor(header, present, why);
  if (!array) {
    error = path + ": " + why;
    return std::nullopt;
  }
  size_t got = std::fread(array->data(), 1, array->byteSize(), file);
  if (got < array->byteSize()) {
    if (std::ferror(file))
      error = "cannot read '" + path + "': " + std::strerror(errno);
    else
      error = path + ": " + truncated(array->byteSize(), got);
    return std::nullopt;
  }
  if (header.bigEndian)
    byteSwap(static_cast<char *>(array->data()), array->numElements(),
             array->elementSize(), array->dtype());
  return array;
}
