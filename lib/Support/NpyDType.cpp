//===- NpyDType.cpp - NumPy descrs and DLPack dtypes ----------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Support/Npy.h"

#include "NpyHeaderDict.h"

#include "dlbridge/Runtime/dlrt.h"

#include <algorithm>
#include <cstdlib>

using namespace dlbridge::npy;

std::string dlbridge::npy::dtypeName(DLDataType dtype) {
  char name[64];
  return dlrt_dtype_name(dtype, name, sizeof(name));
}

std::optional<std::string> dlbridge::npy::descrForDType(DLDataType dtype) {
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
