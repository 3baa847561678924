//===- Npy.h - Read and write NumPy .npy files as DLTensors -----*- C++ -*-===//
//
// Part of dlbridge. The `.npy` format (versions 1.0, 2.0 and 3.0) for the
// dtypes of the DLPack checklist NumPy can name: bool, int8-64, uint8-64,
// float16/32/64 and complex64/128. Arrays are read into 64-byte aligned
// buffers; a Fortran-order file becomes a tensor with column-major strides
// (no copy); big-endian files are byte-swapped on load. Writing stores the
// tensor's logical contents, little-endian.
//
// Plain C++, DLPack and libdlrt (whose dlrt_dtype_name names dtypes): no
// MLIR or LLVM type appears here.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_SUPPORT_NPY_H
#define DLBRIDGE_SUPPORT_NPY_H

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace dlbridge::npy {

/// Alignment of every buffer NpyArray allocates.
constexpr size_t kAlignment = 64;

/// What a `.npy` header says.
struct NpyHeader {
  /// Format version (1, 2 or 3).
  int major = 1, minor = 0;
  /// The `descr` string as written ("<f4", "|b1").
  std::string descr;
  DLDataType dtype{};
  /// Whether the file's bytes are big-endian (and must be swapped).
  bool bigEndian = false;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  /// Offset of the first data byte in the file.
  size_t dataOffset = 0;
};

/// An array owned in a 64-byte aligned host buffer, viewable as a DLTensor.
class NpyArray {
public:
  NpyArray() = default;
  /// A zero-filled array of `shape` and `dtype` in C (or Fortran) order.
  static std::optional<NpyArray> allocate(DLDataType dtype,
                                          std::vector<int64_t> shape,
                                          bool fortranOrder,
                                          std::string *error = nullptr);

  NpyArray(NpyArray &&) = default;
  NpyArray &operator=(NpyArray &&) = default;

  DLDataType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  /// Strides in elements: compact row-major, or column-major when
  /// fortranOrder().
  const std::vector<int64_t> &strides() const { return strides_; }
  bool fortranOrder() const { return fortranOrder_; }
  int64_t numElements() const;
  size_t elementSize() const { return (dtype_.bits * dtype_.lanes + 7) / 8; }
  size_t byteSize() const { return byteSize_; }
  /// The buffer; never NULL, 64-byte aligned, even for empty arrays.
  void *data() { return data_.get(); }
  const void *data() const { return data_.get(); }

  /// A CPU DLTensor viewing this array (byte_offset 0, explicit strides;
  /// shape and strides point into this object, which must outlive it).
  DLTensor tensor();

private:
  struct Free {
    void operator()(void *p) const;
  };
  DLDataType dtype_{};
  std::vector<int64_t> shape_, strides_;
  bool fortranOrder_ = false;
  size_t byteSize_ = 0;
  std::unique_ptr<void, Free> data_;
};

/// The NumPy `descr` for a dtype ("<f4", "|u1", "|b1"), or nullopt when
/// NumPy has no such dtype (bfloat16, float8, lanes > 1, ...).
std::optional<std::string> descrForDType(DLDataType dtype);

/// Parses a `descr` string; on failure returns false and explains in `error`.
bool parseDescr(const std::string &descr, DLDataType &dtype, bool &bigEndian,
                std::string &error);

/// Parses the header at the start of `bytes` (the magic string, version,
/// header length and the dictionary). Returns false and explains in `error`
/// on a bad magic string, version, header or unsupported descr.
bool parseHeader(const void *bytes, size_t size, NpyHeader &header,
                 std::string &error);

/// Reads a whole `.npy` image from memory.
std::optional<NpyArray> readNpyBuffer(const void *bytes, size_t size,
                                      std::string &error);

/// Reads `path`. Errors name the file: "a.npy: truncated data: ...".
std::optional<NpyArray> readNpyFile(const std::string &path,
                                    std::string &error);

/// Encodes `tensor` (a host tensor: kDLCPU, kDLCUDAHost or kDLCUDAManaged;
/// any strides, byte_offset; shape/strides/data may be NULL where DLPack
/// allows) as a version 1.0 `.npy` image; more than 64 dims, which NumPy
/// cannot read, are refused.
/// A compact column-major tensor is written in Fortran order, anything else
/// in C order; either way NumPy reads back the same logical array.
bool encodeNpy(const DLTensor &tensor, std::string &bytes, std::string &error);

/// encodeNpy() into `path`, atomically: a temporary file beside it (with
/// the mode of the file it replaces) is renamed over it once complete, so
/// `path` holds either its old contents or the whole new array. A symbolic
/// link is followed (it stays a link); a FIFO or character device
/// (`/dev/stdout`) is written in place, never replaced; a directory, socket,
/// block device or link to nothing is refused.
bool writeNpyFile(const std::string &path, const DLTensor &tensor,
                  std::string &error);

/// One file for writeNpyFiles().
struct NpyOutput {
  std::string path;
  DLTensor tensor;
};

/// Writes every output as writeNpyFile() does, all or none: each is encoded
/// and written to its temporary file first, and only when all are written
/// are they renamed over their paths. A failure before the renames leaves
/// every path untouched; `error` names the path and `*failed` (if given)
/// is the index of the output that failed.
bool writeNpyFiles(const std::vector<NpyOutput> &outputs, std::string &error,
                   size_t *failed = nullptr);

/// Prints `tensor` NumPy-style: `[[1. 2.]\n [3. 4.]]`, `True`, `(1+2j)`;
/// arrays with more than `threshold` elements are summarised with "...".
void printTensor(std::ostream &os, const DLTensor &tensor,
                 int64_t threshold = 1000);

/// dlrt_dtype_name() as a std::string ("float32", "bool", "bfloat16").
std::string dtypeName(DLDataType dtype);

} // namespace dlbridge::npy

#endif // DLBRIDGE_SUPPORT_NPY_H
