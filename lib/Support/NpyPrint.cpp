//===- NpyPrint.cpp - Printing DLTensors as NumPy does --------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Support/Npy.h"

#include "NpyFormat.h"

#include "dlbridge/Runtime/dlrt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace dlbridge::npy;

namespace {

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

struct Printer {
  const DLTensor &t;
  const char *base;
  size_t elementSize;
  bool summarise;
  /// Element strides, compact ones for NULL (dlrt_tensor_strides).
  std::vector<int64_t> strides;
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
    size_t w =
        alignDots && left + right > 0 ? std::max(width, left + right) : width;
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
        collect(d + 1, offset + i * strides[d]);
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
  if (t.ndim < 0 || (t.ndim > 0 && !t.shape)) {
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
  std::vector<int64_t> strides(t.ndim);
  dlrt_tensor_strides(&t, strides.data());
  Printer printer{t, static_cast<const char *>(t.data) + t.byte_offset,
                  static_cast<size_t>(t.dtype.bits / 8), count > threshold,
                  std::move(strides)};
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
