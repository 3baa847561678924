//===- NpyEncode.cpp - DLTensors as .npy images ---------------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Support/Npy.h"

#include "NpyFormat.h"
#include "NpyHeaderDict.h"

#include "dlbridge/Runtime/dlrt.h"

#include <algorithm>
#include <vector>

using namespace dlbridge::npy;

namespace {
/// Whether `t` (with strides) is compact column-major: compact row-major
/// once its dims are reversed.
bool isColumnMajor(const DLTensor &t) {
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  std::vector<int64_t> strides(t.strides, t.strides + t.ndim);
  std::reverse(shape.begin(), shape.end());
  std::reverse(strides.begin(), strides.end());
  DLTensor reversed = t;
  reversed.shape = shape.data();
  reversed.strides = strides.data();
  return dlrt_is_compact(&reversed);
}
} // namespace

bool dlbridge::npy::encodeNpy(const DLTensor &t, std::string &bytes,
                              std::string &error) {
  if (!dlrt_host_accessible(t.device)) {
    char device[48];
    error = std::string("cannot write a tensor on ") +
            dlrt_device_name(t.device, device, sizeof(device)) +
            " (host memory only)";
    return false;
  }
  std::optional<std::string> descr = descrForDType(t.dtype);
  if (!descr) {
    error = "NumPy has no dtype for " + dtypeName(t.dtype);
    return false;
  }
  if (t.ndim < 0 || (t.ndim > 0 && !t.shape)) {
    error = "malformed tensor (negative ndim or NULL shape)";
    return false;
  }
  if (static_cast<size_t>(t.ndim) > kMaxDims) {
    error = "NumPy arrays have at most " + std::to_string(kMaxDims) +
            " dimensions, got " + std::to_string(t.ndim);
    return false;
  }
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  int64_t count = countElements(shape);
  if (count < 0 || extentOverflows(shape, t.dtype.bits / 8)) {
    error = "malformed tensor (negative or overflowing shape)";
    return false;
  }
  if (count > 0 && !t.data) {
    error = "malformed tensor (NULL data)";
    return false;
  }
  size_t elementSize = t.dtype.bits / 8;
  bool fortran = !dlrt_is_compact(&t) && isColumnMajor(t);

  std::string dict = "{'descr': '" + *descr +
                     "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i)
    dict += std::to_string(shape[i]) + (shape.size() == 1 ? "," : "") +
            (i + 1 < shape.size() ? ", " : "");
  dict += "), }";
  // Pad with spaces so the data starts at a multiple of 64 bytes, as NumPy
  // does; the header ends with '\n'. At most kMaxDims dims keep it far
  // below format 1.0's 64 KiB.
  size_t prefix = kMagicSize + 2 + 2;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  size_t headerLength = total - prefix;
  dict.append(headerLength - dict.size() - 1, ' ');
  dict += '\n';

  bytes.clear();
  bytes.reserve(total + static_cast<size_t>(count) * elementSize);
  bytes.append(kMagic, kMagicSize);
  bytes += '\1';
  bytes += '\0';
  bytes += static_cast<char>(headerLength & 0xff);
  bytes += static_cast<char>((headerLength >> 8) & 0xff);
  bytes += dict;
  if (count == 0)
    return true;

  if (fortran) {
    bytes.append(static_cast<const char *>(t.data) + t.byte_offset,
                 static_cast<size_t>(count) * elementSize);
    return true;
  }
  // The logical contents in C order: one copy for a compact tensor.
  size_t dataOffset = bytes.size();
  bytes.resize(dataOffset + static_cast<size_t>(count) * elementSize);
  DLTensor target{&bytes[dataOffset], {kDLCPU, 0}, t.ndim, t.dtype,
                  shape.data(),       nullptr,     0};
  if (dlrt_copy_strided(&t, &target) != DLRT_OK) {
    error = std::string("malformed tensor: ") + dlrt_last_error();
    return false;
  }
  return true;
}
