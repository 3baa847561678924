//===- Npy.cpp - Read and write NumPy .npy files as DLTensors -------------===//
//
// Part of dlbridge. The format: the magic "\x93NUMPY", a major and minor
// version byte, the header length (uint16 little-endian for 1.0, uint32 for
// 2.0 and 3.0), then a Python dict literal with the keys 'descr',
// 'fortran_order' and 'shape', padded with spaces and ended by '\n', then
// the raw data.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Support/Npy.h"

#include "NpyHeaderDict.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace dlbridge::npy;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

bool mulOverflows(int64_t a, int64_t b, int64_t &out) {
  return __builtin_mul_overflow(a, b, &out);
}

/// Number of elements of `shape`, or -1 on overflow (or a negative dim).
int64_t countElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t dim : shape)
    if (dim < 0 || mulOverflows(n, dim, n))
      return -1;
  return n;
}

/// Whether the bytes of `shape`'s non-zero dims overflow int64: NumPy
/// refuses such shapes even when a 0 dim makes them empty, and their
/// strides would overflow.
bool extentOverflows(const std::vector<int64_t> &shape, int64_t elementBytes) {
  for (int64_t dim : shape)
    if (dim != 0 && mulOverflows(elementBytes, dim, elementBytes))
      return true;
  return false;
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(shape[i], 1);
  }
  return strides;
}

std::vector<int64_t> columnMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[i] = stride;
    stride *= std::max<int64_t>(shape[i], 1);
  }
  return strides;
}

void setError(std::string *error, std::string message) {
  if (error)
    *error = std::move(message);
}

//===----------------------------------------------------------------------===//
// Element access
//===----------------------------------------------------------------------===//

float halfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f,
           mantissa = h & 0x3ff;
  float value;
  if (exponent == 0)
    value = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    value = mantissa ? NAN : INFINITY;
  else
    value = std::ldexp(static_cast<float>(mantissa | 0x400),
                       static_cast<int>(exponent) - 25);
  return sign ? -value : value;
}

float bf16ToFloat(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

template <typename T> T load(const char *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

/// A float the way NumPy prints array elements: up to 8 significant
/// digits, and a trailing '.' for integral values ("1.", "0.5", "1e-05").
std::string formatFloat(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.8g", value);
  std::string text = buf;
  if (text.find_first_of(".e") == std::string::npos)
    text += '.';
  return text;
}

std::string formatElement(const char *p, DLDataType dtype) {
  switch (dtype.code) {
  case kDLBool:
    return *p ? "True" : "False";
  case kDLInt:
    switch (dtype.bits) {
    case 8:
      return std::to_string(load<int8_t>(p));
    case 16:
      return std::to_string(load<int16_t>(p));
    case 32:
      return std::to_string(load<int32_t>(p));
    case 64:
      return std::to_string(load<int64_t>(p));
    }
    break;
  case kDLUInt:
    switch (dtype.bits) {
    case 8:
      return std::to_string(load<uint8_t>(p));
    case 16:
      return std::to_string(load<uint16_t>(p));
    case 32:
      return std::to_string(load<uint32_t>(p));
    case 64:
      return std::to_string(load<uint64_t>(p));
    }
    break;
  case kDLFloat:
    switch (dtype.bits) {
    case 16:
      return formatFloat(halfToFloat(load<uint16_t>(p)));
    case 32:
      return formatFloat(load<float>(p));
    case 64:
      return formatFloat(load<double>(p));
    }
    break;
  case kDLBfloat:
    if (dtype.bits == 16)
      return formatFloat(bf16ToFloat(load<uint16_t>(p)));
    break;
  case kDLComplex: {
    double re, im;
    if (dtype.bits == 64) {
      re = load<float>(p);
      im = load<float>(p + 4);
    } else if (dtype.bits == 128) {
      re = load<double>(p);
      im = load<double>(p + 8);
    } else {
      break;
    }
    std::string imag = formatFloat(std::fabs(im));
    return formatFloat(re) + (std::signbit(im) ? "-" : "+") + imag + "j";
  }
  default:
    break;
  }
  return "?";
}

void byteSwap(char *data, int64_t count, size_t elementSize,
              DLDataType dtype) {
  size_t unit = dtype.code == kDLComplex ? elementSize / 2 : elementSize;
  if (unit <= 1)
    return;
  int64_t units = count * static_cast<int64_t>(elementSize / unit);
  for (int64_t i = 0; i < units; ++i)
    std::reverse(data + i * unit, data + (i + 1) * unit);
}

bool isHostDevice(DLDeviceType type) {
  return type == kDLCPU || type == kDLCUDAHost || type == kDLCUDAManaged ||
         type == kDLROCMHost;
}

/// Whether `strides` (NULL: compact row-major) describe the compact layout
/// `expected`, ignoring size-1 dims; empty tensors always match.
bool matches(const DLTensor &t, const std::vector<int64_t> &expected) {
  if (!t.strides)
    return expected == rowMajorStrides(std::vector<int64_t>(
                           t.shape, t.shape + t.ndim));
  for (int i = 0; i < t.ndim; ++i) {
    if (t.shape[i] == 0)
      return true;
  }
  for (int i = 0; i < t.ndim; ++i)
    if (t.shape[i] != 1 && t.strides[i] != expected[i])
      return false;
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// NpyArray
//===----------------------------------------------------------------------===//

void NpyArray::Free::operator()(void *p) const { std::free(p); }

int64_t NpyArray::numElements() const { return countElements(shape_); }

std::optional<NpyArray> NpyArray::allocate(DLDataType dtype,
                                           std::vector<int64_t> shape,
                                           bool fortranOrder,
                                           std::string *error) {
  if (dtype.lanes != 1 || dtype.bits == 0 || dtype.bits % 8 != 0) {
    setError(error, "unsupported dtype " + dtypeName(dtype));
    return std::nullopt;
  }
  int64_t count = countElements(shape);
  int64_t bytes;
  if (count < 0 || mulOverflows(count, dtype.bits / 8, bytes) ||
      bytes > INT64_MAX - static_cast<int64_t>(kAlignment) ||
      extentOverflows(shape, dtype.bits / 8)) {
    setError(error, "the array is too large (its size overflows int64)");
    return std::nullopt;
  }
  size_t rounded = (static_cast<size_t>(bytes) + kAlignment - 1) /
                   kAlignment * kAlignment;
  void *data = std::aligned_alloc(kAlignment, std::max(rounded, kAlignment));
  if (!data) {
    setError(error, "out of memory allocating " + std::to_string(bytes) +
                        " bytes");
    return std::nullopt;
  }
  NpyArray array;
  array.data_.reset(data);
  array.dtype_ = dtype;
  array.fortranOrder_ = fortranOrder;
  array.strides_ =
      fortranOrder ? columnMajorStrides(shape) : rowMajorStrides(shape);
  array.shape_ = std::move(shape);
  array.byteSize_ = static_cast<size_t>(bytes);
  std::memset(data, 0, std::max(rounded, kAlignment));
  return array;
}

DLTensor NpyArray::tensor() {
  DLTensor t{};
  t.data = data();
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int32_t>(shape_.size());
  t.dtype = dtype_;
  t.shape = shape_.empty() ? nullptr : shape_.data();
  t.strides = strides_.empty() ? nullptr : strides_.data();
  t.byte_offset = 0;
  return t;
}

//===----------------------------------------------------------------------===//
// dtypes
//===----------------------------------------------------------------------===//

std::string dlbridge::npy::dtypeName(DLDataType dtype) {
  std::string base;
  switch (dtype.code) {
  case kDLBool:
    base = dtype.bits == 8 ? "bool" : "bool" + std::to_string(dtype.bits);
    break;
  case kDLInt:
    base = "int" + std::to_string(dtype.bits);
    break;
  case kDLUInt:
    base = "uint" + std::to_string(dtype.bits);
    break;
  case kDLFloat:
    base = "float" + std::to_string(dtype.bits);
    break;
  case kDLBfloat:
    base = "bfloat" + std::to_string(dtype.bits);
    break;
  case kDLComplex:
    base = "complex" + std::to_string(dtype.bits);
    break;
  default:
    base = "dtype(code=" + std::to_string(dtype.code) +
           ", bits=" + std::to_string(dtype.bits) + ")";
  }
  if (dtype.lanes != 1)
    base += "x" + std::to_string(dtype.lanes);
  return base;
}

std::optional<std::string>
dlbridge::npy::descrForDType(DLDataType dtype) {
  if (dtype.lanes != 1)
    return std::nullopt;
  char kind;
  switch (dtype.code) {
  case kDLBool:
    if (dtype.bits != 8)
      return std::nullopt;
    return std::string("|b1");
  case kDLInt:
    kind = 'i';
    if (dtype.bits != 8 && dtype.bits != 16 && dtype.bits != 32 &&
        dtype.bits != 64)
      return std::nullopt;
    break;
  case kDLUInt:
    kind = 'u';
    if (dtype.bits != 8 && dtype.bits != 16 && dtype.bits != 32 &&
        dtype.bits != 64)
      return std::nullopt;
    break;
  case kDLFloat:
    kind = 'f';
    if (dtype.bits != 16 && dtype.bits != 32 && dtype.bits != 64)
      return std::nullopt;
    break;
  case kDLComplex:
    kind = 'c';
    if (dtype.bits != 64 && dtype.bits != 128)
      return std::nullopt;
    break;
  default:
    return std::nullopt;
  }
  std::string descr;
  descr += dtype.bits == 8 ? '|' : '<';
  descr += kind;
  descr += std::to_string(dtype.bits / 8);
  return descr;
}

bool dlbridge::npy::parseDescr(const std::string &descr, DLDataType &dtype,
                               bool &bigEndian, std::string &error) {
  auto unsupported = [&](const std::string &why) {
    error = "unsupported descr '" + printable(descr) + "'" +
            (why.empty() ? "" : ": ") + why;
    return false;
  };
  if (descr.size() < 3)
    return unsupported("");
  char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return unsupported("");
  char kind = descr[1];
  std::string digits = descr.substr(2);
  if (digits.empty() || digits.size() > 2 ||
      !std::all_of(digits.begin(), digits.end(),
                   [](char c) { return c >= '0' && c <= '9'; }))
    return unsupported("");
  int bytes = std::atoi(digits.c_str());
  dtype.lanes = 1;
  dtype.bits = static_cast<uint8_t>(bytes * 8);
  switch (kind) {
  case 'b':
    if (bytes != 1)
      return unsupported("");
    dtype.code = kDLBool;
    break;
  case 'i':
  case 'u':
    if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
      return unsupported("");
    dtype.code = kind == 'i' ? kDLInt : kDLUInt;
    break;
  case 'f':
    if (bytes != 2 && bytes != 4 && bytes != 8)
      return unsupported(bytes > 8 ? "long double is not supported" : "");
    dtype.code = kDLFloat;
    break;
  case 'c':
    if (bytes != 8 && bytes != 16)
      return unsupported(bytes > 16 ? "long double is not supported" : "");
    dtype.code = kDLComplex;
    break;
  default:
    return unsupported("");
  }
  // '=' is native order: little-endian on every host dlbridge runs on.
  bigEndian = order == '>' && bytes > 1;
  return true;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

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
    length |= static_cast<size_t>(p[10]) << 16 |
              static_cast<size_t>(p[11]) << 24;
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

namespace {

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

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

bool dlbridge::npy::encodeNpy(const DLTensor &t, std::string &bytes,
                              std::string &error) {
  if (!isHostDevice(t.device.device_type)) {
    error = "cannot write a tensor on device type " +
            std::to_string(t.device.device_type) + " (host memory only)";
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
  bool cOrder = matches(t, rowMajorStrides(shape));
  bool fortran = !cOrder && matches(t, columnMajorStrides(shape));

  std::string dict = "{'descr': '" + *descr + "', 'fortran_order': " +
                     (fortran ? "True" : "False") + ", 'shape': (";
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

  const char *base = static_cast<const char *>(t.data) + t.byte_offset;
  if (cOrder || fortran) {
    bytes.append(base, static_cast<size_t>(count) * elementSize);
    return true;
  }
  // Gather the logical contents in C order.
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      offset += index[d] * t.strides[d];
    bytes.append(base + offset * static_cast<int64_t>(elementSize),
                 elementSize);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return true;
}

namespace {

/// A written temporary file beside its destination, removed unless kept.
struct PendingFile {
  std::string temporary, destination;
  ~PendingFile() {
    if (!temporary.empty())
      ::unlink(temporary.c_str());
  }
};

/// Writes `bytes` to a new temporary file beside `path` (beside the file a
/// symlink at `path` points to), with the mode of the file it will replace
/// or 0666 less the umask for a new one, as fopen would create it.
bool writeTemporary(const std::string &path, const std::string &bytes,
                    PendingFile &pending, std::string &error) {
  std::string destination = path;
  if (char *resolved = ::realpath(path.c_str(), nullptr)) {
    destination = resolved;
    std::free(resolved);
  }
  std::string temporary = destination + ".XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    error = "cannot open '" + path + "' for writing: " + std::strerror(errno);
    return false;
  }
  pending.temporary = temporary;
  pending.destination = destination;
  struct stat existing;
  mode_t mode;
  if (::stat(destination.c_str(), &existing) == 0) {
    mode = existing.st_mode & 07777;
  } else {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  bool failed = ::fchmod(fd, mode) != 0;
  for (size_t done = 0; !failed && done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    failed = n <= 0;
    if (!failed)
      done += static_cast<size_t>(n);
  }
  int savedErrno = errno;
  if (::close(fd) != 0 && !failed) {
    failed = true;
    savedErrno = errno;
  }
  if (failed)
    error = "cannot write '" + path + "': " + std::strerror(savedErrno);
  return !failed;
}

} // namespace

bool dlbridge::npy::writeNpyFiles(const std::vector<NpyOutput> &outputs,
                                  std::string &error, size_t *failed) {
  std::vector<PendingFile> pending(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string bytes;
    bool written = encodeNpy(outputs[i].tensor, bytes, error);
    if (!written)
      error = outputs[i].path + ": " + error;
    else
      written = writeTemporary(outputs[i].path, bytes, pending[i], error);
    if (!written) {
      if (failed)
        *failed = i;
      return false;
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (::rename(pending[i].temporary.c_str(),
                 pending[i].destination.c_str()) != 0) {
      error = "cannot write '" + outputs[i].path + "': " + std::strerror(errno);
      if (failed)
        *failed = i;
      return false;
    }
    pending[i].temporary.clear();
  }
  return true;
}

bool dlbridge::npy::writeNpyFile(const std::string &path, const DLTensor &t,
                                 std::string &error) {
  return writeNpyFiles({{path, t}}, error);
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

namespace {

struct Printer {
  const DLTensor &t;
  const char *base;
  size_t elementSize;
  bool summarise;
  std::vector<std::string> cells; // formatted elements, in print order
  size_t width = 0;
  /// Floats in positional notation line up their decimal points, as in
  /// NumPy: `left` digits before the point, `right` from it on.
  bool alignDots = true;
  size_t left = 0, right = 0;

  std::string pad(const std::string &cell) const {
    size_t dot = cell.find('.');
    if (alignDots && dot != std::string::npos)
      return std::string(left - dot, ' ') + cell +
             std::string(right - (cell.size() - dot), ' ');
    size_t w = alignDots && left + right > 0 ? std::max(width, left + right)
                                             : width;
    return std::string(w - cell.size(), ' ') + cell;
  }

  /// Indices shown along dim `d`: all, or the first and last 3 around a -1
  /// marking "...".
  std::vector<int64_t> shown(int d) const {
    std::vector<int64_t> out;
    int64_t n = t.shape[d];
    if (summarise && n > 6) {
      out = {0, 1, 2, -1, n - 3, n - 2, n - 1};
    } else {
      for (int64_t i = 0; i < n; ++i)
        out.push_back(i);
    }
    return out;
  }

  int64_t stride(int d) const {
    if (t.strides)
      return t.strides[d];
    int64_t s = 1;
    for (int i = d + 1; i < t.ndim; ++i)
      s *= t.shape[i];
    return s;
  }

  void collect(int d, int64_t offset) {
    if (d == t.ndim) {
      cells.push_back(formatElement(
          base + offset * static_cast<int64_t>(elementSize), t.dtype));
      const std::string &cell = cells.back();
      width = std::max(width, cell.size());
      size_t dot = cell.find('.');
      if (t.dtype.code == kDLComplex || dot == std::string::npos ||
          cell.find('e') != std::string::npos) {
        alignDots = false;
      } else {
        left = std::max(left, dot);
        right = std::max(right, cell.size() - dot);
      }
      return;
    }
    for (int64_t i : shown(d))
      if (i >= 0)
        collect(d + 1, offset + i * stride(d));
  }

  size_t next = 0;
  void emit(std::ostream &os, int d) {
    os << '[';
    std::vector<int64_t> indices = shown(d);
    for (size_t k = 0; k < indices.size(); ++k) {
      if (k > 0) {
        if (d == t.ndim - 1) {
          os << ' ';
        } else {
          os << std::string(t.ndim - 1 - d, '\n') << std::string(d + 1, ' ');
        }
      }
      if (indices[k] < 0) {
        os << "...";
        continue;
      }
      if (d == t.ndim - 1) {
        os << pad(cells[next++]);
      } else {
        emit(os, d + 1);
      }
    }
    os << ']';
  }
};

} // namespace

void dlbridge::npy::printTensor(std::ostream &os, const DLTensor &t,
                                int64_t threshold) {
  if (t.ndim > 0 && !t.shape) {
    os << "<malformed tensor>";
    return;
  }
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  int64_t count = countElements(shape);
  if (count < 0 || t.dtype.lanes != 1 || t.dtype.bits % 8 != 0 ||
      (count > 0 && !t.data)) {
    os << "<tensor that cannot be printed>";
    return;
  }
  Printer printer{t, static_cast<const char *>(t.data) + t.byte_offset,
                  static_cast<size_t>(t.dtype.bits / 8), count > threshold};
  if (t.ndim == 0) {
    os << formatElement(printer.base, t.dtype);
    return;
  }
  if (count == 0) {
    // NumPy prints empty arrays as [] whatever their shape.
    os << "[]";
    return;
  }
  printer.collect(0, 0);
  printer.emit(os, 0);
}
