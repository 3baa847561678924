//===- NpyHeader.cpp - Magic, version and header of .npy ------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Support/Npy.h"

#include "NpyFormat.h"
#include "NpyHeaderDict.h"

#include <cstring>
#include <string_view>

using namespace dlbridge::npy;

bool dlbridge::npy::parseHeader(const void *bytes, size_t size,
                                NpyHeader &header, std::string &error) {
  const auto *p = static_cast<const unsigned char *>(bytes);
  if (size < kMagicSize || std::memcmp(p, kMagic, kMagicSize) != 0) {
    error = "not a .npy file (bad magic string)";
    return false;
  }
  if (size < kMagicSize + 2) {
    error = "truncated header";
    return false;
  }
  header.major = p[6];
  header.minor = p[7];
  if (header.major < 1 || header.major > 3 || header.minor != 0) {
    error = "unsupported .npy format version " + std::to_string(header.major) +
            "." + std::to_string(header.minor);
    return false;
  }
  size_t lengthSize = header.major == 1 ? 2 : 4;
  size_t start = kMagicSize + 2 + lengthSize;
  if (size < start) {
    error = "truncated header";
    return false;
  }
  size_t length = p[8] | (p[9] << 8);
  if (lengthSize == 4)
    length |= static_cast<size_t>(p[10]) << 16 | static_cast<size_t>(p[11])
                                                     << 24;
  if (size - start < length) {
    error = "truncated header (" + std::to_string(length) +
            " bytes announced, " + std::to_string(size - start) + " present)";
    return false;
  }
  std::string_view text(reinterpret_cast<const char *>(p + start), length);
  if (!parseHeaderDict(text, header.major, header, error))
    return false;
  if (!parseDescr(header.descr, header.dtype, header.bigEndian, error))
    return false;
  if (extentOverflows(header.shape, header.dtype.bits / 8)) {
    error = "bad header: the array's size overflows int64";
    return false;
  }
  header.dataOffset = start + length;
  return true;
}
