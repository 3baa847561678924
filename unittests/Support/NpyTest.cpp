//===- NpyTest.cpp - .npy reading, writing and printing -------------------===//
//
// Part of dlbridge. Round trips for every dtype NumPy shares with DLPack, C
// and Fortran order, 0-d and empty arrays, version 1/2/3 headers, big-endian
// files, strided tensors written in C order, alignment, and every error.
// (Interoperability with NumPy itself is checked by test/Tools/dl-run.)
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Support/Npy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <numeric>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace dlbridge::npy;

namespace {

/// A .npy image with the given version, header dictionary and data, the
/// header padded like NumPy pads it.
std::string image(int major, const std::string &dict, const std::string &data,
                  int minor = 0) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += static_cast<char>(minor);
  size_t n = header.size();
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (major != 1) {
    out += static_cast<char>((n >> 16) & 0xff);
    out += static_cast<char>((n >> 24) & 0xff);
  }
  return out + header + data;
}

template <typename T> std::string bytesOf(const std::vector<T> &values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(T));
}

std::optional<NpyArray> read(const std::string &bytes, std::string &error) {
  return readNpyBuffer(bytes.data(), bytes.size(), error);
}

std::string readError(const std::string &bytes) {
  std::string error;
  std::optional<NpyArray> array = read(bytes, error);
  EXPECT_FALSE(array) << "expected an error";
  return error;
}

/// The header dictionary of an encoded image (without padding).
std::string dictOf(const std::string &bytes) {
  size_t length = static_cast<unsigned char>(bytes[8]) |
                  static_cast<unsigned char>(bytes[9]) << 8;
  std::string dict = bytes.substr(10, length);
  return dict.substr(0, dict.find_last_not_of(" \n") + 1);
}

std::string encode(DLTensor tensor) {
  std::string bytes, error;
  EXPECT_TRUE(encodeNpy(tensor, bytes, error)) << error;
  return bytes;
}

DLTensor view(void *data, DLDataType dtype, std::vector<int64_t> &shape,
              std::vector<int64_t> *strides = nullptr,
              uint64_t byteOffset = 0) {
  DLTensor t{};
  t.data = data;
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = dtype;
  t.shape = shape.empty() ? nullptr : shape.data();
  t.strides = strides ? strides->data() : nullptr;
  t.byte_offset = byteOffset;
  return t;
}

std::string printed(const DLTensor &t, int64_t threshold = 1000) {
  std::ostringstream os;
  printTensor(os, t, threshold);
  return os.str();
}

struct DTypeCase {
  const char *descr;
  DLDataType dtype;
  const char *name;
};

const DTypeCase kDTypes[] = {
    {"|b1", {kDLBool, 8, 1}, "bool"},
    {"|i1", {kDLInt, 8, 1}, "int8"},
    {"<i2", {kDLInt, 16, 1}, "int16"},
    {"<i4", {kDLInt, 32, 1}, "int32"},
    {"<i8", {kDLInt, 64, 1}, "int64"},
    {"|u1", {kDLUInt, 8, 1}, "uint8"},
    {"<u2", {kDLUInt, 16, 1}, "uint16"},
    {"<u4", {kDLUInt, 32, 1}, "uint32"},
    {"<u8", {kDLUInt, 64, 1}, "uint64"},
    {"<f2", {kDLFloat, 16, 1}, "float16"},
    {"<f4", {kDLFloat, 32, 1}, "float32"},
    {"<f8", {kDLFloat, 64, 1}, "float64"},
    {"<c8", {kDLComplex, 64, 1}, "complex64"},
    {"<c16", {kDLComplex, 128, 1}, "complex128"},
};

bool sameDType(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

} // namespace

TEST(NpyTest, EveryDTypeRoundTrips) {
  for (const DTypeCase &c : kDTypes) {
    SCOPED_TRACE(c.descr);
    EXPECT_EQ(descrForDType(c.dtype), std::string(c.descr));
    EXPECT_EQ(dtypeName(c.dtype), c.name);
    DLDataType parsed{};
    bool bigEndian = true;
    std::string error;
    ASSERT_TRUE(parseDescr(c.descr, parsed, bigEndian, error)) << error;
    EXPECT_TRUE(sameDType(parsed, c.dtype));
    EXPECT_FALSE(bigEndian);

    std::optional<NpyArray> array =
        NpyArray::allocate(c.dtype, {2, 3}, /*fortranOrder=*/false, &error);
    ASSERT_TRUE(array) << error;
    auto *bytes = static_cast<unsigned char *>(array->data());
    for (size_t k = 0; k < array->byteSize(); ++k)
      bytes[k] = c.dtype.code == kDLBool
                     ? k % 2
                     : static_cast<unsigned char>(k * 7 + 1);
    std::string encoded = encode(array->tensor());
    EXPECT_EQ(dictOf(encoded), std::string("{'descr': '") + c.descr +
                                   "', 'fortran_order': False, 'shape': (2, "
                                   "3), }");
    std::optional<NpyArray> back = read(encoded, error);
    ASSERT_TRUE(back) << error;
    EXPECT_TRUE(sameDType(back->dtype(), c.dtype));
    EXPECT_EQ(back->shape(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(back->strides(), (std::vector<int64_t>{3, 1}));
    EXPECT_FALSE(back->fortranOrder());
    ASSERT_EQ(back->byteSize(), array->byteSize());
    EXPECT_EQ(std::memcmp(back->data(), array->data(), array->byteSize()), 0);
  }
}

TEST(NpyTest, DTypesWithoutNumPyEquivalentAreRefused) {
  std::vector<int64_t> shape = {2};
  uint16_t data[2] = {0, 0};
  struct {
    DLDataType dtype;
    const char *message;
  } cases[] = {
      {{kDLBfloat, 16, 1}, "NumPy has no dtype for bfloat16"},
      {{kDLFloat, 32, 4}, "NumPy has no dtype for float32x4"},
      {{kDLFloat8_e4m3fn, 8, 1}, "NumPy has no dtype for float8_e4m3fn"},
      {{kDLInt, 4, 1}, "NumPy has no dtype for int4"},
      {{kDLBool, 1, 1}, "NumPy has no dtype for bool(1 bits)"},
  };
  for (auto &c : cases) {
    SCOPED_TRACE(c.message);
    EXPECT_FALSE(descrForDType(c.dtype));
    std::string bytes, error;
    EXPECT_FALSE(encodeNpy(view(data, c.dtype, shape), bytes, error));
    EXPECT_EQ(error.rfind(c.message, 0), 0u) << error;
  }
}

TEST(NpyTest, FortranOrderIsReadAsColumnMajorStridesWithoutCopy) {
  // NumPy: np.asfortranarray(np.arange(6, dtype='<i4').reshape(2, 3)) stores
  // the columns: 0 3 1 4 2 5.
  std::string bytes =
      image(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }",
            bytesOf(std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  std::string error;
  std::optional<NpyArray> array = read(bytes, error);
  ASSERT_TRUE(array) << error;
  EXPECT_TRUE(array->fortranOrder());
  EXPECT_EQ(array->strides(), (std::vector<int64_t>{1, 2}));
  DLTensor t = array->tensor();
  ASSERT_NE(t.strides, nullptr);
  EXPECT_EQ(t.strides[0], 1);
  EXPECT_EQ(t.strides[1], 2);
  // Element [i][j] at i*1 + j*2: the file's bytes as they are.
  const auto *data = static_cast<const int32_t *>(t.data);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(data[i * t.strides[0] + j * t.strides[1]], i * 3 + j);
  EXPECT_EQ(printed(t), "[[0 1 2]\n [3 4 5]]");

  // Written back in Fortran order, byte for byte.
  std::string again = encode(t);
  EXPECT_EQ(dictOf(again),
            "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }");
  EXPECT_EQ(again, bytes);
}

TEST(NpyTest, FortranAllocationAndRoundTripOfRank3) {
  std::string error;
  std::optional<NpyArray> array =
      NpyArray::allocate({kDLFloat, 64, 1}, {2, 3, 4}, true, &error);
  ASSERT_TRUE(array) << error;
  EXPECT_EQ(array->strides(), (std::vector<int64_t>{1, 2, 6}));
  auto *d = static_cast<double *>(array->data());
  std::iota(d, d + 24, 0.5);
  std::optional<NpyArray> back = read(encode(array->tensor()), error);
  ASSERT_TRUE(back) << error;
  EXPECT_TRUE(back->fortranOrder());
  EXPECT_EQ(back->strides(), array->strides());
  EXPECT_EQ(std::memcmp(back->data(), array->data(), 24 * 8), 0);
}

TEST(NpyTest, StridedTensorsAreWrittenInCOrder) {
  std::vector<float> data(16);
  std::iota(data.begin(), data.end(), 0.0f);
  std::vector<int64_t> shape = {2, 3};
  struct Case {
    const char *what;
    std::vector<int64_t> strides;
    uint64_t byteOffset;
    std::vector<float> expected;
  } cases[] = {
      {"every other element", {6, 2}, 0, {0, 2, 4, 6, 8, 10}},
      {"negative strides and byte_offset", {-3, -1}, 5 * 4, {5, 4, 3, 2, 1, 0}},
      {"broadcast row", {0, 1}, 4, {1, 2, 3, 1, 2, 3}},
      {"column-major with offset (kept in Fortran order)",
       {1, 2},
       2 * 4,
       {2, 4, 6, 3, 5, 7}},
      {"transposed slice", {1, 3}, 2 * 4, {2, 5, 8, 3, 6, 9}},
  };
  for (Case &c : cases) {
    SCOPED_TRACE(c.what);
    std::string bytes = encode(
        view(data.data(), {kDLFloat, 32, 1}, shape, &c.strides, c.byteOffset));
    std::string error;
    std::optional<NpyArray> back = read(bytes, error);
    ASSERT_TRUE(back) << error;
    bool fortran = std::string(c.what).find("Fortran") != std::string::npos;
    EXPECT_EQ(back->fortranOrder(), fortran);
    DLTensor t = back->tensor();
    const auto *out = static_cast<const float *>(t.data);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(out[i * t.strides[0] + j * t.strides[1]],
                  c.expected[i * 3 + j]);
  }
}

TEST(NpyTest, ZeroDimensional) {
  double value = 2.5;
  std::vector<int64_t> shape;
  std::string bytes = encode(view(&value, {kDLFloat, 64, 1}, shape));
  EXPECT_EQ(dictOf(bytes),
            "{'descr': '<f8', 'fortran_order': False, 'shape': (), }");
  std::string error;
  std::optional<NpyArray> back = read(bytes, error);
  ASSERT_TRUE(back) << error;
  EXPECT_TRUE(back->shape().empty());
  EXPECT_EQ(back->numElements(), 1);
  DLTensor t = back->tensor();
  EXPECT_EQ(t.ndim, 0);
  EXPECT_EQ(t.shape, nullptr);
  EXPECT_EQ(t.strides, nullptr);
  EXPECT_EQ(*static_cast<double *>(t.data), 2.5);
  EXPECT_EQ(printed(t), "2.5");
}

TEST(NpyTest, EmptyArrays) {
  // DLPack allows data == NULL for a tensor with a zero dim.
  std::vector<int64_t> shape = {0, 3};
  std::string bytes = encode(view(nullptr, {kDLInt, 64, 1}, shape));
  EXPECT_EQ(dictOf(bytes),
            "{'descr': '<i8', 'fortran_order': False, 'shape': (0, 3), }");
  EXPECT_EQ(bytes.size() % 64, 0u);
  std::string error;
  std::optional<NpyArray> back = read(bytes, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->shape(), shape);
  EXPECT_EQ(back->numElements(), 0);
  EXPECT_EQ(back->byteSize(), 0u);
  ASSERT_NE(back->data(), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(back->data()) % kAlignment, 0u);
  EXPECT_EQ(printed(back->tensor()), "[]");
}

TEST(NpyTest, OneDimensionalShapeHasATrailingComma) {
  std::vector<uint8_t> data = {1, 2, 3};
  std::vector<int64_t> shape = {3};
  std::string bytes = encode(view(data.data(), {kDLUInt, 8, 1}, shape));
  EXPECT_EQ(dictOf(bytes),
            "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }");
}

TEST(NpyTest, VersionOneHeaderLayout) {
  std::vector<int16_t> data = {1, -2};
  std::vector<int64_t> shape = {2};
  std::string bytes = encode(view(data.data(), {kDLInt, 16, 1}, shape));
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t length = static_cast<unsigned char>(bytes[8]) |
                  static_cast<unsigned char>(bytes[9]) << 8;
  EXPECT_EQ((10 + length) % 64, 0u);
  EXPECT_EQ(bytes[10 + length - 1], '\n');
  EXPECT_EQ(bytes.size(), 10 + length + 4);
}

TEST(NpyTest, WhatNumPyCannotReadIsNeitherWrittenNorRead) {
  // NumPy arrays have at most 64 dims, and np.load reads headers of at
  // most 10000 characters.
  std::vector<int64_t> shape(65, 1);
  uint8_t value = 7;
  std::string bytes, error;
  EXPECT_FALSE(encodeNpy(view(&value, {kDLUInt, 8, 1}, shape), bytes, error));
  EXPECT_EQ(error, "NumPy arrays have at most 64 dimensions, got 65");
  shape.pop_back();
  bytes = encode(view(&value, {kDLUInt, 8, 1}, shape));
  EXPECT_EQ(bytes[6], 1);
  std::optional<NpyArray> back = read(bytes, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->shape(), shape);

  std::string dims;
  for (int i = 0; i < 65; ++i)
    dims += "1, ";
  EXPECT_EQ(readError(image(1,
                            "{'descr': '|u1', 'fortran_order': False, "
                            "'shape': (" +
                                dims + "), }",
                            "\7")),
            "bad header: 65 dimensions (NumPy reads at most 64)");
  std::string wide = "{'descr': '|u1', 'fortran_order': False, 'shape': (), }";
  wide += std::string(10001 - wide.size(), ' ');
  EXPECT_EQ(readError(image(2, wide, "\7")),
            "bad header: 10036 characters long (more than 10000, NumPy's "
            "limit)");
}

TEST(NpyTest, VersionTwoAndThreeHeadersAreRead) {
  for (int major : {2, 3}) {
    SCOPED_TRACE(major);
    std::string bytes = image(
        major, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
        bytesOf(std::vector<float>{1.5f, -2.0f}));
    std::string error;
    NpyHeader header;
    ASSERT_TRUE(parseHeader(bytes.data(), bytes.size(), header, error))
        << error;
    EXPECT_EQ(header.major, major);
    EXPECT_EQ(header.dataOffset % 64, 0u);
    std::optional<NpyArray> array = read(bytes, error);
    ASSERT_TRUE(array) << error;
    EXPECT_EQ(static_cast<float *>(array->data())[1], -2.0f);
  }
}

TEST(NpyTest, HeaderSpellingsNumPyAccepts) {
  const char *dicts[] = {
      "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,)}",
      "{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}",
      "{'descr':'<f4','fortran_order':False,'shape':(2L,),}",
      "  { 'descr' : '=f4' , 'fortran_order' : False , 'shape' : ( 2 , ) }  ",
  };
  for (const char *dict : dicts) {
    SCOPED_TRACE(dict);
    std::string error;
    std::optional<NpyArray> array =
        read(image(1, dict, bytesOf(std::vector<float>{1, 2})), error);
    ASSERT_TRUE(array) << error;
    EXPECT_EQ(array->shape(), (std::vector<int64_t>{2}));
    EXPECT_EQ(static_cast<float *>(array->data())[1], 2.0f);
  }
}

TEST(NpyTest, HeadersAreReadAsPythonLiteralsLikeNumPyDoes) {
  // NumPy evaluates the header with ast.literal_eval: what it accepts (the
  // differential test of test/Tools/dl-run found each of these).
  struct Case {
    int major;
    const char *dict;
  } accepted[] = {
      {1, "{'descr': '<f4',\f'fortran_order': False, 'shape': (2,)}"},
      {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} # note"},
      {1, "{'descr': '<f4', # note\n 'fortran_order': False, 'shape': (2,)}"},
      {1, "{'descr': '<f4', 'fortran_order':\\\n False, 'shape': (2,)}"},
      {1, "{r'descr': u'<f4', 'fortran_order': False, R'shape': (2,)}"},
      {1, "{'descr': '<' 'f4', 'fortran_order': False, 'shape': (+2,)}"},
      {1, "{'descr': '<f4', 'fortran_order': (False), 'shape': ((2,))}"},
      {3, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}"
          "\n# \xc3\xa9"},
      {2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2 L,)}"},
      {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), "
          "'descr': '<f4'}"},
  };
  for (const Case &c : accepted) {
    SCOPED_TRACE(c.dict);
    std::string error;
    std::optional<NpyArray> array =
        read(image(c.major, c.dict, bytesOf(std::vector<float>{1, 2})), error);
    ASSERT_TRUE(array) << error;
    EXPECT_EQ(array->shape(), (std::vector<int64_t>{2}));
    EXPECT_EQ(static_cast<float *>(array->data())[1], 2.0f);
  }
  std::string good = "'descr': '<f4', 'fortran_order': False, ";
  struct Refused {
    int major;
    std::string dict;
    const char *message;
  } refused[] = {
      {1, "{" + good + "'shape': (2)}", "'shape' must be a tuple"},
      {1, "{" + good + "'shape': (02,)}", "leading zeros in a decimal integer"},
      {1, "{" + good + "'shape': (2__0,)}", "expected an integer"},
      {1, "{" + good + "'shape': (2.,)}", "expected an integer"},
      {1, "{" + good + "'shape': (True,)}",
       "'shape' must be a tuple of non-negative integers"},
      {3, "{" + good + "'shape': (2L,)}", "expected an integer"},
      {1, "{'descr': b'<f4', 'fortran_order': False, 'shape': (2,)}",
       "'descr' must be a string"},
      {1, "{'descr': f'<f4', 'fortran_order': False, 'shape': (2,)}",
       "f-strings are not literals"},
      {1, "{'descr': '<f4', 'fortran_order': 1, 'shape': (2,)}",
       "'fortran_order' must be True or False"},
      {1, "{" + good + "'shape': (2,)}\v",
       "unexpected text after the dictionary"},
      {1, "{" + good + "'shape': (2,)}" + std::string(1, '\0'),
       "a NUL character"},
      {3, "{" + good + "'shape': (2,)} # \xe9",
       "not UTF-8, as format 3.0 requires"},
      {1,
       "{'descr': '<f4', 'fortran_order': False, 'shape': " +
           std::string(200, '(') + "2," + std::string(200, ')') + "}",
       "too many nested brackets"},
  };
  for (const Refused &c : refused) {
    SCOPED_TRACE(c.dict);
    EXPECT_EQ(
        readError(image(c.major, c.dict, bytesOf(std::vector<float>{1, 2}))),
        std::string("bad header: ") + c.message);
  }
  // A line continuation must continue something: one that ends the header
  // (unpadded here) is a syntax error.
  std::string header = "{" + good + "'shape': (2,)}\\\n";
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) +
                      static_cast<char>(header.size()) + '\0' + header +
                      bytesOf(std::vector<float>{1, 2});
  EXPECT_EQ(readError(bytes),
            "bad header: a line continuation ends the header");
}

TEST(NpyTest, BigEndianFilesAreByteSwapped) {
  auto big = [](std::string bytes, size_t unit) {
    for (size_t i = 0; i < bytes.size(); i += unit)
      std::reverse(bytes.begin() + i, bytes.begin() + i + unit);
    return bytes;
  };
  std::string error;
  {
    std::vector<int32_t> values = {1, -2, 0x01020304};
    std::optional<NpyArray> array = read(
        image(1, "{'descr': '>i4', 'fortran_order': False, 'shape': (3,), }",
              big(bytesOf(values), 4)),
        error);
    ASSERT_TRUE(array) << error;
    EXPECT_EQ(std::memcmp(array->data(), values.data(), 12), 0);
  }
  {
    std::vector<double> values = {1.25, -3.5};
    std::optional<NpyArray> array = read(
        image(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }",
              big(bytesOf(values), 8)),
        error);
    ASSERT_TRUE(array) << error;
    EXPECT_EQ(std::memcmp(array->data(), values.data(), 16), 0);
  }
  {
    // complex64: each of the two float32 parts is swapped on its own.
    std::vector<float> values = {1.0f, -2.0f, 3.5f, 4.0f};
    std::optional<NpyArray> array = read(
        image(1, "{'descr': '>c8', 'fortran_order': False, 'shape': (2,), }",
              big(bytesOf(values), 4)),
        error);
    ASSERT_TRUE(array) << error;
    EXPECT_EQ(std::memcmp(array->data(), values.data(), 16), 0);
    EXPECT_EQ(printed(array->tensor()), "[ 1.-2.j 3.5+4.j]");
  }
  {
    std::vector<uint8_t> values = {1, 0, 1};
    std::optional<NpyArray> array = read(
        image(1, "{'descr': '>b1', 'fortran_order': False, 'shape': (3,), }",
              bytesOf(values)),
        error);
    ASSERT_TRUE(array) << error;
    EXPECT_EQ(printed(array->tensor()), "[ True False  True]");
  }
}

TEST(NpyTest, EveryMalformedFileIsAnError) {
  std::string f4 = bytesOf(std::vector<float>{1, 2});
  auto dict = [](const std::string &body) { return "{" + body + "}"; };
  const std::string good = "'descr': '<f4', 'fortran_order': False, ";
  struct Case {
    std::string bytes;
    std::string message;
  } cases[] = {
      {"", "not a .npy file (bad magic string)"},
      {"\x93NUM", "not a .npy file (bad magic string)"},
      {"PK\x03\x04 zip archive, e.g. a .npz",
       "not a .npy file (bad magic string)"},
      {std::string("\x93NUMPY\x01", 7), "truncated header"},
      {std::string("\x93NUMPY\x01\x00\x50", 9), "truncated header"},
      {std::string("\x93NUMPY\x02\x00\x50\x00", 10), "truncated header"},
      {std::string("\x93NUMPY\x01\x00\x50\x00{'descr'", 17),
       "truncated header (80 bytes announced, 7 present)"},
      {image(4, dict(good + "'shape': (2,)"), f4),
       "unsupported .npy format version 4.0"},
      {image(1, dict(good + "'shape': (2,)"), f4, 1),
       "unsupported .npy format version 1.1"},
      {image(1, "['descr', '<f4']", f4), "bad header: expected '{'"},
      {image(1, dict("descr: '<f4'"), f4), "bad header: expected a quoted key"},
      {image(1, dict("'descr' '<f4'"), f4),
       "bad header: expected ':' after 'descr<f4'"},
      {image(1, dict("'descr': '<f4' 'shape': (2,)"), f4),
       "bad header: expected ',' or '}'"},
      {image(1, dict(good + "'shape': (2,)") + " x", f4),
       "bad header: unexpected text after the dictionary"},
      {image(1, dict("'fortran_order': False, 'shape': (2,)"), f4),
       "bad header: missing key 'descr'"},
      {image(1, dict("'descr': '<f4', 'shape': (2,)"), f4),
       "bad header: missing key 'fortran_order'"},
      {image(1, dict("'descr': '<f4', 'fortran_order': False"), f4),
       "bad header: missing key 'shape'"},
      {image(1, dict(good + "'shape': (2,), 'extra': 1"), f4),
       "bad header: unexpected key 'extra'"},
      {image(1, dict("'descr': 4, 'fortran_order': False, 'shape': (2,)"), f4),
       "bad header: 'descr' must be a string"},
      {image(1, dict("'descr': '<f4', 'fortran_order': 0, 'shape': (2,)"), f4),
       "bad header: 'fortran_order' must be True or False"},
      {image(1, dict(good + "'shape': [2]"), f4),
       "bad header: 'shape' must be a tuple"},
      {image(1, dict(good + "'shape': (-2,)"), f4),
       "bad header: 'shape' must be a tuple of non-negative integers"},
      {image(1, dict(good + "'shape': (2 3)"), f4),
       "bad header: expected ',' or ')'"},
      {image(1, dict(good + "'shape': (99999999999999999999,)"), f4),
       "bad header: a dimension of 'shape' overflows int64"},
      {image(1, dict(good + "'shape': (4294967296, 4294967296)"), f4),
       "bad header: the array's size overflows int64"},
      {image(1, dict(good + "'shape': (0, 4294967296, 4294967296)"), f4),
       "bad header: the array's size overflows int64"},
      {image(1,
             dict("'descr': [('a', '<f4')], 'fortran_order': False, "
                  "'shape': (2,)"),
             f4),
       "bad header: unsupported descr: structured dtypes (a list) are not "
       "supported"},
      {image(1, dict("'descr': '<U5', 'fortran_order': False, 'shape': (2,)"),
             f4),
       "unsupported descr '<U5'"},
      {image(1, dict("'descr': '|O', 'fortran_order': False, 'shape': (2,)"),
             f4),
       "unsupported descr '|O'"},
      {image(1, dict("'descr': '<f16', 'fortran_order': False, 'shape': (2,)"),
             f4),
       "unsupported descr '<f16': long double is not supported"},
      {image(1,
             dict("'descr': '<M8[ns]', 'fortran_order': False, "
                  "'shape': (2,)"),
             f4),
       "unsupported descr '<M8[ns]'"},
      {image(1, dict("'descr': '<i3', 'fortran_order': False, 'shape': (2,)"),
             f4),
       "unsupported descr '<i3'"},
      {image(1, dict(good + "'shape': (3,)"), f4),
       "truncated data (12 bytes expected, 8 present)"},
      {image(1, dict(good + "'shape': (2,)"), f4.substr(0, 5)),
       "truncated data (8 bytes expected, 5 present)"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.message);
    EXPECT_EQ(readError(c.bytes), c.message);
  }
}

TEST(NpyTest, TrailingBytesAreIgnoredLikeNumPyDoes) {
  std::string error;
  std::optional<NpyArray> array =
      read(image(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }",
                 "\x01\x02 and more"),
           error);
  ASSERT_TRUE(array) << error;
  EXPECT_EQ(array->byteSize(), 2u);
}

class NpyFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/dlbridge-npy-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    for (const std::string &file : files)
      std::remove(file.c_str());
    rmdir(dir.c_str());
  }
  std::string path(const std::string &name) {
    files.push_back(dir + "/" + name);
    return files.back();
  }
  void put(const std::string &file, const std::string &bytes) {
    std::ofstream(file, std::ios::binary) << bytes;
  }
  std::string dir;
  std::vector<std::string> files;
};

TEST_F(NpyFileTest, WriteThenReadAndAlignment) {
  for (int64_t n : {0, 1, 3, 17, 1000}) {
    SCOPED_TRACE(n);
    std::vector<int64_t> values(n);
    std::iota(values.begin(), values.end(), -5);
    std::vector<int64_t> shape = {n};
    std::string file = path("a" + std::to_string(n) + ".npy");
    std::string error;
    ASSERT_TRUE(
        writeNpyFile(file, view(values.data(), {kDLInt, 64, 1}, shape), error))
        << error;
    std::optional<NpyArray> array = readNpyFile(file, error);
    ASSERT_TRUE(array) << error;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(array->data()) % kAlignment, 0u);
    EXPECT_EQ(array->shape(), shape);
    if (n > 0) {
      EXPECT_EQ(std::memcmp(array->data(), values.data(), n * 8), 0);
    }
  }
}

TEST_F(NpyFileTest, FileErrorsNameTheFile) {
  std::string error;
  std::string missing = dir + "/missing.npy";
  EXPECT_FALSE(readNpyFile(missing, error));
  EXPECT_EQ(error, "cannot open '" + missing + "': No such file or directory");

  EXPECT_FALSE(readNpyFile(dir, error));
  EXPECT_EQ(error, "cannot read '" + dir + "': Is a directory");

  std::string text = path("text.npy");
  put(text, "hello, world\n");
  EXPECT_FALSE(readNpyFile(text, error));
  EXPECT_EQ(error, text + ": not a .npy file (bad magic string)");

  std::string shortData = path("short.npy");
  put(shortData,
      image(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }",
            std::string(9, '\0')));
  EXPECT_FALSE(readNpyFile(shortData, error));
  EXPECT_EQ(error,
            shortData + ": truncated data (32 bytes expected, 9 present)");

  std::string hugeHeader = path("huge.npy");
  put(hugeHeader, std::string("\x93NUMPY\x02\x00\x00\x00\x00\x10", 12));
  EXPECT_FALSE(readNpyFile(hugeHeader, error));
  EXPECT_EQ(error, hugeHeader + ": bad header: 268435456 bytes long (more "
                                "than 10000 characters, NumPy's limit)");

  std::string truncatedHeader = path("trunc.npy");
  put(truncatedHeader,
      std::string("\x93NUMPY\x01\x00\x76\x00{'descr': '<f8'", 25));
  EXPECT_FALSE(readNpyFile(truncatedHeader, error));
  EXPECT_EQ(error, truncatedHeader +
                       ": truncated header (118 bytes announced, 15 present)");

  std::vector<int64_t> shape = {1};
  float one = 1;
  EXPECT_FALSE(writeNpyFile(dir + "/no/such/dir.npy",
                            view(&one, {kDLFloat, 32, 1}, shape), error));
  EXPECT_EQ(error, "cannot open '" + dir +
                       "/no/such/dir.npy' for writing: No such file or "
                       "directory");
}

TEST_F(NpyFileTest, DeclaredSizesAreCheckedBeforeAllocating) {
  // 2**40 float64 elements (8 TiB) declared, none present: an error before
  // any allocation, from memory and from a file.
  std::string huge = image(1,
                           "{'descr': '<f8', 'fortran_order': False, 'shape': "
                           "(1048576, 1048576), }",
                           std::string(16, '\0'));
  EXPECT_EQ(readError(huge),
            "truncated data (8796093022208 bytes expected, 16 present)");
  std::string file = path("huge.npy");
  put(file, huge);
  std::string error;
  EXPECT_FALSE(readNpyFile(file, error));
  EXPECT_EQ(error,
            file +
                ": truncated data (8796093022208 bytes expected, 16 present)");
  // The largest shape whose byte size still fits in int64.
  std::string largest =
      image(1,
            "{'descr': '|u1', 'fortran_order': True, 'shape': "
            "(9223372036854775807,), }",
            "");
  EXPECT_EQ(readError(largest),
            "truncated data (9223372036854775807 bytes expected, 0 present)");
}

/// The names in `dir`, sorted.
std::vector<std::string> listDirectory(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *handle = opendir(dir.c_str())) {
    while (dirent *entry = readdir(handle))
      if (entry->d_name[0] != '.')
        names.push_back(entry->d_name);
    closedir(handle);
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST_F(NpyFileTest, WritesAreAllOrNone) {
  std::vector<int64_t> shape = {2};
  float values[2] = {1, 2};
  uint16_t bf16[2] = {0x3f80, 0x4000};
  std::string first = path("first.npy"), second = path("second.npy");
  put(first, "old first");
  std::string error;
  size_t failed = 99;
  // The second has no NumPy dtype: neither is written.
  EXPECT_FALSE(writeNpyFiles({{first, view(values, {kDLFloat, 32, 1}, shape)},
                              {second, view(bf16, {kDLBfloat, 16, 1}, shape)}},
                             error, &failed));
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(error, second + ": NumPy has no dtype for bfloat16");
  std::ifstream in(first, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "old first");
  // The second cannot be created: neither is written, no temporary is left.
  EXPECT_FALSE(writeNpyFiles(
      {{first, view(values, {kDLFloat, 32, 1}, shape)},
       {dir + "/no/such/dir.npy", view(values, {kDLFloat, 32, 1}, shape)}},
      error, &failed));
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(listDirectory(dir), std::vector<std::string>{"first.npy"});
  // Both writable: both written.
  ASSERT_TRUE(writeNpyFiles({{first, view(values, {kDLFloat, 32, 1}, shape)},
                             {second, view(values, {kDLFloat, 32, 1}, shape)}},
                            error))
      << error;
  for (const std::string &file : {first, second}) {
    std::optional<NpyArray> array = readNpyFile(file, error);
    ASSERT_TRUE(array) << error;
    EXPECT_EQ(static_cast<const float *>(array->data())[1], 2.0f);
  }
  EXPECT_EQ(listDirectory(dir),
            (std::vector<std::string>{"first.npy", "second.npy"}));
}

TEST_F(NpyFileTest, ReplacingKeepsTheModeAndWritesThroughSymlinks) {
  std::vector<int64_t> shape = {1};
  float one = 1;
  std::string file = path("kept.npy"), link = path("link.npy");
  put(file, "old");
  ASSERT_EQ(chmod(file.c_str(), 0640), 0);
  ASSERT_EQ(symlink(file.c_str(), link.c_str()), 0);
  std::string error;
  ASSERT_TRUE(writeNpyFile(link, view(&one, {kDLFloat, 32, 1}, shape), error))
      << error;
  struct stat status;
  ASSERT_EQ(lstat(link.c_str(), &status), 0);
  EXPECT_TRUE(S_ISLNK(status.st_mode));
  ASSERT_EQ(stat(file.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0640u);
  EXPECT_TRUE(readNpyFile(file, error)) << error;
}

TEST(NpyTest, WritingRefusesDeviceMemoryAndMalformedTensors) {
  std::vector<int64_t> shape = {2};
  float data[2] = {1, 2};
  std::string bytes, error;
  DLTensor gpu = view(data, {kDLFloat, 32, 1}, shape);
  gpu.device = {kDLCUDA, 0};
  EXPECT_FALSE(encodeNpy(gpu, bytes, error));
  EXPECT_EQ(error, "cannot write a tensor on cuda:0 (host memory only)");
  DLTensor noData = view(nullptr, {kDLFloat, 32, 1}, shape);
  EXPECT_FALSE(encodeNpy(noData, bytes, error));
  EXPECT_EQ(error, "malformed tensor (NULL data)");
  // A strided tensor is gathered through dlrt_copy_strided, which refuses
  // what no consumer reads.
  int64_t stride = -1;
  DLTensor misaligned = view(data, {kDLFloat, 32, 1}, shape);
  misaligned.strides = &stride;
  misaligned.byte_offset = 6;
  EXPECT_FALSE(encodeNpy(misaligned, bytes, error));
  EXPECT_EQ(error, "malformed tensor: source: expected byte_offset a multiple "
                   "of 4, got 6");
  DLTensor noShape = view(data, {kDLFloat, 32, 1}, shape);
  noShape.shape = nullptr;
  EXPECT_FALSE(encodeNpy(noShape, bytes, error));
  EXPECT_EQ(error, "malformed tensor (negative ndim or NULL shape)");
  // Empty, but its other dims overflow: NumPy cannot hold it either.
  std::vector<int64_t> huge = {0, INT64_C(1) << 62, INT64_C(1) << 62};
  DLTensor overflowing = view(data, {kDLFloat, 32, 1}, huge);
  EXPECT_FALSE(encodeNpy(overflowing, bytes, error));
  EXPECT_EQ(error, "malformed tensor (negative or overflowing shape)");
  // Pinned host memory is fine.
  DLTensor pinned = view(data, {kDLFloat, 32, 1}, shape);
  pinned.device = {kDLCUDAHost, 0};
  EXPECT_TRUE(encodeNpy(pinned, bytes, error)) << error;
}

TEST(NpyTest, AllocateRefusesWhatCannotBeStored) {
  std::string error;
  EXPECT_FALSE(NpyArray::allocate({kDLFloat, 32, 1}, {-1}, false, &error));
  EXPECT_EQ(error, "the array is too large (its size overflows int64)");
  EXPECT_FALSE(NpyArray::allocate(
      {kDLFloat, 32, 1}, {INT64_C(1) << 40, INT64_C(1) << 40}, false, &error));
  EXPECT_EQ(error, "the array is too large (its size overflows int64)");
  EXPECT_FALSE(NpyArray::allocate({kDLFloat, 32, 1},
                                  {0, INT64_C(1) << 62, INT64_C(1) << 62},
                                  false, &error));
  EXPECT_EQ(error, "the array is too large (its size overflows int64)");
  EXPECT_FALSE(NpyArray::allocate({kDLInt, 4, 1}, {2}, false, &error));
  EXPECT_EQ(error, "unsupported dtype int4");
  std::optional<NpyArray> zeros =
      NpyArray::allocate({kDLFloat, 32, 1}, {3}, false, &error);
  ASSERT_TRUE(zeros);
  EXPECT_EQ(printed(zeros->tensor()), "[0. 0. 0.]");
}

TEST(NpyTest, PrintingLooksLikeNumPy) {
  std::vector<float> f = {1, 2.5f, -3, 4, 5, 6};
  std::vector<int64_t> shape23 = {2, 3};
  EXPECT_EQ(printed(view(f.data(), {kDLFloat, 32, 1}, shape23)),
            "[[ 1.   2.5 -3. ]\n [ 4.   5.   6. ]]");
  std::vector<int32_t> i = {1, -20, 300, 4};
  std::vector<int64_t> shape4 = {4};
  EXPECT_EQ(printed(view(i.data(), {kDLInt, 32, 1}, shape4)),
            "[  1 -20 300   4]");
  std::vector<int64_t> shape222 = {2, 1, 2};
  EXPECT_EQ(printed(view(i.data(), {kDLInt, 32, 1}, shape222)),
            "[[[  1 -20]]\n\n [[300   4]]]");
  std::vector<double> big(2000);
  std::iota(big.begin(), big.end(), 0.0);
  std::vector<int64_t> shapeBig = {2000};
  EXPECT_EQ(printed(view(big.data(), {kDLFloat, 64, 1}, shapeBig)),
            "[   0.    1.    2. ... 1997. 1998. 1999.]");
  uint16_t half[2] = {0x3c00, 0xc100}; // 1.0, -2.5
  std::vector<int64_t> shape2 = {2};
  EXPECT_EQ(printed(view(half, {kDLFloat, 16, 1}, shape2)), "[ 1.  -2.5]");
}
