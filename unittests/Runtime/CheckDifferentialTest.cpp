//===- CheckDifferentialTest.cpp - dlrt_check_tensor vs a reference -------===//
//
// Part of dlbridge's unit tests. Random parameter records and DLTensors
// (ranks 0-4, dims 0, 1, small, huge and negative; strides NULL, compact,
// 0, negative and huge; byte_offsets aligned, misaligned and past int64;
// every dtype kind, lanes and sub-byte widths; devices and READ_ONLY flags)
// checked by dlrt_check_tensor and by a reference written here from
// DLPack's rules and dlrt.h's contract, with exact 128-bit arithmetic.
// They must agree on acceptance, and a refusal must name a rule the tensor
// breaks. A fixed seed and a few fresh ones (printed on failure: rerun with
// DLRT_CHECK_SEED=<seed>) run each time, briefly.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using Int = __int128;
constexpr Int kInt64Min = INT64_MIN, kInt64Max = INT64_MAX;

/// What the reference decides: the rules the tensor breaks. A refusal must
/// cite one of `must` (or `may`); acceptance needs `must` empty. `may`
/// holds rules only a check working in int64 steps can trip on while the
/// exact arithmetic still fits.
struct Verdict {
  std::set<int32_t> must, may;
};

/// One random case, kept whole to print it.
struct Case {
  dlrt_param_desc desc{};
  std::vector<int64_t> descShape, descStrides;
  DLTensor tensor{};
  std::vector<int64_t> shape, strides;
  bool shapeNull = false, stridesNull = true;
  DLDevice callDevice{};
  bool hasFlags = false;
  uint64_t flags = 0;
  int32_t index = 0;
};

std::string describe(const Case &c) {
  std::ostringstream os;
  auto list = [&](const std::vector<int64_t> &v, bool null) {
    if (null)
      return std::string("NULL");
    std::string s = "[";
    for (int64_t x : v)
      s += (x == DLRT_DYNAMIC ? std::string("?") : std::to_string(x)) + ",";
    return s + "]";
  };
  const dlrt_param_desc &d = c.desc;
  const DLTensor &t = c.tensor;
  os << "desc{layout " << d.layout << ", access " << d.access << ", rank "
     << d.rank << ", dtype " << int(d.dtype.code) << "/" << int(d.dtype.bits)
     << "x" << d.dtype.lanes << ", shape "
     << list(c.descShape, d.shape == nullptr) << ", strides "
     << list(c.descStrides, d.strides == nullptr) << ", offset "
     << (d.offset == DLRT_DYNAMIC ? std::string("?") : std::to_string(d.offset))
     << "} tensor{ndim " << t.ndim << ", dtype " << int(t.dtype.code) << "/"
     << int(t.dtype.bits) << "x" << t.dtype.lanes << ", shape "
     << list(c.shape, c.shapeNull) << ", strides "
     << list(c.strides, c.stridesNull) << ", byte_offset " << t.byte_offset
     << ", data " << (t.data ? "set" : "NULL") << ", device "
     << t.device.device_type << ":" << t.device.device_id << "} call "
     << c.callDevice.device_type << ":" << c.callDevice.device_id << " flags "
     << (c.hasFlags ? std::to_string(c.flags) : "none");
  return os.str();
}

/// DLPack: where a call on `call` may read a tensor on `tensor` (dlrt.h's
/// DEVICE rule).
bool readable(DLDevice call, DLDevice tensor) {
  if (call.device_type == kDLCPU) {
    if (tensor.device_type == kDLCPU)
      return tensor.device_id == 0;
    return tensor.device_type == kDLCUDAHost ||
           tensor.device_type == kDLCUDAManaged ||
           tensor.device_type == kDLROCMHost;
  }
  if (call.device_type == kDLCUDA)
    return (tensor.device_type == kDLCUDA ||
            tensor.device_type == kDLCUDAManaged) &&
           tensor.device_id == call.device_id;
  return tensor.device_type == call.device_type &&
         tensor.device_id == call.device_id;
}

bool fits(Int value) { return value >= kInt64Min && value <= kInt64Max; }

/// `a * b`, saturated far beyond int64 (at +-2^100), so that products of
/// several huge dims and strides stay representable: only whether a value
/// fits int64 matters.
Int saturatingTimes(Int a, Int b) {
  const Int limit = Int(1) << 100;
  Int product;
  if (__builtin_mul_overflow(a, b, &product))
    return (a < 0) != (b < 0) ? -limit : limit;
  return product > limit ? limit : product < -limit ? -limit : product;
}

/// dlrt.h's documented conservatism: distinct addresses whose dims, sorted
/// by |stride|, do not each step past what the smaller ones reach may still
/// be refused for a written parameter.
bool interleaves(const DLTensor &t, const std::vector<Int> &compact) {
  std::vector<std::pair<Int, Int>> dims; // |stride|, size
  for (int32_t i = 0; i < t.ndim; ++i)
    if (t.shape[i] != 1) {
      Int stride = t.strides ? Int(t.strides[i]) : compact[i];
      dims.emplace_back(stride < 0 ? -stride : stride, t.shape[i]);
    }
  std::sort(dims.begin(), dims.end());
  Int reach = 1;
  for (auto [stride, size] : dims) {
    if (stride < reach)
      return true;
    reach += stride * (size - 1);
  }
  return false;
}

Verdict reference(const Case &c) {
  Verdict v;
  const dlrt_param_desc &d = c.desc;
  const DLTensor &t = c.tensor;
  if (t.ndim != d.rank)
    v.must.insert(DLRT_ERR_RANK);
  if (t.ndim > 0 && c.shapeNull)
    v.must.insert(DLRT_ERR_INVALID_ARGUMENT);
  bool sameDType = t.dtype.code == d.dtype.code &&
                   t.dtype.bits == d.dtype.bits &&
                   t.dtype.lanes == d.dtype.lanes;
  if (!sameDType)
    v.must.insert(DLRT_ERR_DTYPE);
  const Int elementBits = Int(t.dtype.bits) * t.dtype.lanes;
  const bool wholeBytes = elementBits > 0 && elementBits % 8 == 0;
  if (!wholeBytes)
    v.must.insert(DLRT_ERR_UNSUPPORTED);
  const Int element = elementBits / 8;
  if (!readable(c.callDevice, t.device))
    v.must.insert(DLRT_ERR_DEVICE);
  if (c.hasFlags && (c.flags & DLPACK_FLAG_BITMASK_READ_ONLY) &&
      (d.access & DLRT_ACCESS_WRITE))
    v.must.insert(DLRT_ERR_READ_ONLY);
  if (wholeBytes && Int(t.byte_offset) % element != 0)
    v.must.insert(DLRT_ERR_ALIGNMENT);
  if (Int(t.byte_offset) > kInt64Max)
    v.must.insert(DLRT_ERR_OVERFLOW);
  // The rest reads the dims, which exist only when rank and shape do.
  if (t.ndim != d.rank || (t.ndim > 0 && c.shapeNull))
    return v;
  bool negative = false, empty = false;
  for (int32_t i = 0; i < t.ndim; ++i) {
    int64_t size = t.shape[i];
    negative |= size < 0;
    empty |= size == 0;
    if (size < 0 ||
        (d.shape && d.shape[i] != DLRT_DYNAMIC && d.shape[i] != size))
      v.must.insert(DLRT_ERR_SHAPE);
  }
  if (!t.data && !empty)
    v.must.insert(DLRT_ERR_NULL_DATA);
  if (!wholeBytes)
    return v;
  // A static offset is compared with byte_offset / element, empty or not.
  if (d.layout == DLRT_LAYOUT_STRIDED && d.offset != DLRT_DYNAMIC &&
      Int(d.offset) != Int(t.byte_offset) / element) {
    if (Int(t.byte_offset) % element == 0 && Int(t.byte_offset) <= kInt64Max)
      v.must.insert(DLRT_ERR_LAYOUT);
    else
      v.may.insert(DLRT_ERR_LAYOUT);
  }
  if (negative || empty)
    return v;

  // Row-major strides: what NULL means, and what identity layouts need.
  std::vector<Int> compact(t.ndim);
  Int running = 1;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    compact[i] = running;
    running = saturatingTimes(running, t.shape[i]);
  }
  Int low = 0, high = 0;
  bool overflowSeen = false;
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (t.shape[i] == 1)
      continue; // never moves an address: its stride is not looked at
    if (!fits(compact[i]) && (d.layout == DLRT_LAYOUT_IDENTITY || !t.strides))
      overflowSeen = true;
    Int stride = t.strides ? Int(t.strides[i]) : compact[i];
    if (d.layout == DLRT_LAYOUT_IDENTITY && stride != compact[i])
      v.must.insert(DLRT_ERR_LAYOUT);
    if (d.layout == DLRT_LAYOUT_STRIDED && d.strides &&
        d.strides[i] != DLRT_DYNAMIC && Int(d.strides[i]) != stride)
      v.must.insert(DLRT_ERR_LAYOUT);
    Int span = saturatingTimes(Int(t.shape[i]) - 1, stride);
    (span < 0 ? low : high) += span;
  }
  const Int offset = Int(t.byte_offset);
  // The addressed bytes, [offset + low * element, offset + (high + 1) *
  // element), must be int64 addresses relative to data.
  const Int lowBytes = saturatingTimes(low, element);
  const Int highBytes = saturatingTimes(high + 1, element);
  if (!fits(offset + lowBytes) || !fits(offset + highBytes) || overflowSeen)
    v.must.insert(DLRT_ERR_OVERFLOW);
  else if (!fits(low) || !fits(high) || !fits(lowBytes) || !fits(highBytes))
    v.may.insert(DLRT_ERR_OVERFLOW);
  Int elements = 1;
  for (int32_t i = 0; i < t.ndim; ++i)
    elements = saturatingTimes(elements, t.shape[i]);
  if ((d.access & DLRT_ACCESS_WRITE) && !overflowSeen && fits(low) &&
      fits(high)) {
    // A written tensor must not have two elements at one address: every
    // address, by brute force, when there are few.
    bool overlaps = false;
    if (elements <= 4096) {
      std::vector<Int> addresses{0};
      for (int32_t i = 0; i < t.ndim; ++i) {
        Int stride = t.strides ? Int(t.strides[i]) : compact[i];
        std::vector<Int> next;
        for (Int base : addresses)
          for (int64_t k = 0; k < t.shape[i]; ++k)
            next.push_back(base + k * stride);
        addresses.swap(next);
      }
      std::sort(addresses.begin(), addresses.end());
      overlaps = std::adjacent_find(addresses.begin(), addresses.end()) !=
                 addresses.end();
    }
    if (overlaps)
      v.must.insert(DLRT_ERR_LAYOUT);
    else if (interleaves(t, compact))
      v.may.insert(DLRT_ERR_LAYOUT);
  }
  return v;
}

/// Random cases biased towards the edges where checks go wrong.
class Generator {
public:
  explicit Generator(uint64_t seed) : rng(seed) {}

  Case next() {
    Case c;
    c.index = pick({0, 1, 7});
    int32_t rank = static_cast<int32_t>(below(5));
    int32_t ndim = chance(0.1) ? static_cast<int32_t>(below(5)) : rank;
    DLDataType dtype = randomDType();
    c.tensor.dtype = chance(0.85) ? dtype : randomDType();
    c.desc.dtype = dtype;
    c.desc.kind = DLRT_PARAM_TENSOR;
    c.desc.layout = chance(0.5) ? DLRT_LAYOUT_IDENTITY : DLRT_LAYOUT_STRIDED;
    c.desc.access = static_cast<int32_t>(below(4));
    c.desc.rank = rank;
    c.desc.name = "x";

    c.shape.resize(ndim);
    for (int64_t &size : c.shape)
      size = randomSize();
    // Records describe dims that match most of the time.
    c.descShape.resize(rank);
    for (int32_t i = 0; i < rank; ++i) {
      int64_t actual = i < ndim ? c.shape[i] : randomSize();
      c.descShape[i] = chance(0.5)   ? DLRT_DYNAMIC
                       : chance(0.9) ? actual
                                     : randomSize();
    }
    c.desc.shape = rank == 0 && chance(0.5) ? nullptr : c.descShape.data();

    std::vector<int64_t> compact(ndim);
    int64_t running = 1;
    for (int32_t i = ndim - 1; i >= 0; --i) {
      compact[i] = running;
      if (__builtin_mul_overflow(running, c.shape[i], &running))
        running = INT64_MAX;
    }
    c.stridesNull = chance(0.3);
    c.strides.resize(ndim);
    for (int32_t i = 0; i < ndim; ++i)
      c.strides[i] = randomStride(compact[i]);
    if (c.desc.layout == DLRT_LAYOUT_STRIDED) {
      c.descStrides.resize(rank);
      for (int32_t i = 0; i < rank; ++i) {
        int64_t actual =
            i < ndim ? (c.stridesNull ? compact[i] : c.strides[i]) : 1;
        c.descStrides[i] = chance(0.6)   ? DLRT_DYNAMIC
                           : chance(0.8) ? actual
                                         : randomStride(actual);
      }
      c.desc.strides = chance(0.2) ? nullptr : c.descStrides.data();
    }
    int64_t elementBytes = std::max<int64_t>(
        1, (int64_t(c.tensor.dtype.bits) * c.tensor.dtype.lanes) / 8);
    c.tensor.byte_offset = randomByteOffset(elementBytes);
    c.desc.offset =
        c.desc.layout != DLRT_LAYOUT_STRIDED || chance(0.6) ? DLRT_DYNAMIC
        : chance(0.8)
            ? static_cast<int64_t>(c.tensor.byte_offset /
                                   static_cast<uint64_t>(elementBytes))
            : static_cast<int64_t>(below(5));

    // DLPack lets a 0-d tensor have a NULL shape; others must not.
    c.shapeNull = ndim == 0 ? chance(0.5) : chance(0.03);
    c.tensor.ndim = ndim;
    c.tensor.shape = c.shapeNull ? nullptr : c.shape.data();
    c.tensor.strides = c.stridesNull ? nullptr : c.strides.data();
    // Never dereferenced: the check reads no data.
    c.tensor.data = chance(0.1) ? nullptr : reinterpret_cast<void *>(0x1000);

    static const DLDevice kCalls[] = {
        {kDLCPU, 0}, {kDLCUDA, 0}, {kDLCUDA, 1}, {kDLROCM, 0}};
    static const DLDevice kTensors[] = {{kDLCPU, 0},
                                        {kDLCPU, 1},
                                        {kDLCUDA, 0},
                                        {kDLCUDA, 1},
                                        {kDLCUDAHost, 3},
                                        {kDLCUDAManaged, 0},
                                        {kDLCUDAManaged, 1},
                                        {kDLROCMHost, 0},
                                        {kDLROCM, 0},
                                        {kDLVulkan, 0},
                                        {static_cast<DLDeviceType>(42), 0}};
    c.callDevice = kCalls[below(4)];
    c.tensor.device = chance(0.7) ? c.callDevice : kTensors[below(11)];
    c.hasFlags = chance(0.3);
    c.flags = chance(0.5) ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
    if (chance(0.2))
      c.flags |= DLPACK_FLAG_BITMASK_IS_COPIED;
    return c;
  }

private:
  bool chance(double p) { return std::bernoulli_distribution(p)(rng); }
  uint64_t below(uint64_t n) { return rng() % n; }
  template <typename T> T pick(std::initializer_list<T> values) {
    return *(values.begin() + below(values.size()));
  }

  DLDataType randomDType() {
    static const DLDataType kDTypes[] = {
        {kDLBool, 8, 1},      {kDLInt, 8, 1},
        {kDLInt, 16, 1},      {kDLInt, 32, 1},
        {kDLInt, 64, 1},      {kDLUInt, 8, 1},
        {kDLUInt, 64, 1},     {kDLFloat, 16, 1},
        {kDLBfloat, 16, 1},   {kDLFloat, 32, 1},
        {kDLFloat, 64, 1},    {kDLComplex, 64, 1},
        {kDLComplex, 128, 1}, {kDLFloat8_e4m3fn, 8, 1},
        {kDLFloat, 32, 4},    {kDLInt, 4, 1},
        {kDLInt, 4, 2},       {kDLBool, 1, 1},
        {kDLInt, 0, 1},       {kDLFloat, 32, 0},
        {kDLUInt, 24, 1},     {99, 8, 1}};
    return kDTypes[below(sizeof(kDTypes) / sizeof(kDTypes[0]))];
  }

  int64_t randomSize() {
    switch (below(10)) {
    case 0:
      return 0;
    case 1:
    case 2:
      return 1;
    case 3:
      return pick<int64_t>({-1, INT64_MIN, -7});
    case 4:
      return pick<int64_t>(
          {int64_t(1) << 31, int64_t(1) << 40, int64_t(1) << 62, INT64_MAX});
    default:
      return static_cast<int64_t>(2 + below(6));
    }
  }

  /// `compact` times `factor`, wrapping: huge strides are what the checks
  /// must refuse, and the test itself must not overflow making them.
  static int64_t wrappingTimes(int64_t compact, int64_t factor) {
    return static_cast<int64_t>(static_cast<uint64_t>(compact) *
                                static_cast<uint64_t>(factor));
  }

  int64_t randomStride(int64_t compact) {
    switch (below(9)) {
    case 0:
    case 1:
    case 2:
      return compact;
    case 3:
      return 0;
    case 4:
      return wrappingTimes(compact, -1);
    case 5:
      return pick<int64_t>({-1, 1, 2, 3, -3});
    case 6:
      return pick<int64_t>({int64_t(1) << 40, int64_t(1) << 61,
                            -(int64_t(1) << 61), INT64_MAX, INT64_MIN});
    default:
      return wrappingTimes(compact, static_cast<int64_t>(1 + below(3)));
    }
  }

  uint64_t randomByteOffset(int64_t elementBytes) {
    switch (below(8)) {
    case 0:
    case 1:
    case 2:
      return 0;
    case 3:
      return static_cast<uint64_t>(elementBytes) * below(100);
    case 4:
      return 1 + below(7);
    case 5:
      return pick<uint64_t>({uint64_t(INT64_MAX) - 7, uint64_t(INT64_MAX) + 1,
                             UINT64_MAX, uint64_t(1) << 62});
    default:
      return static_cast<uint64_t>(elementBytes) * (below(1 << 20));
    }
  }

  std::mt19937_64 rng;
};

void runSeed(uint64_t seed, int iterations) {
  SCOPED_TRACE("seed " + std::to_string(seed) +
               " (rerun with DLRT_CHECK_SEED=" + std::to_string(seed) + ")");
  Generator generator(seed);
  int disagreements = 0;
  for (int i = 0; i < iterations && disagreements < 5; ++i) {
    Case c = generator.next();
    dlrt_call_ctx ctx;
    dlrt_call_ctx_init(&ctx, c.callDevice, nullptr);
    std::vector<uint64_t> flags(c.index + 1, 0);
    flags[c.index] = c.flags;
    if (c.hasFlags)
      ctx.arg_flags = flags.data();
    int32_t status = dlrt_check_tensor(&ctx, c.index, &c.tensor, &c.desc);
    Verdict verdict = reference(c);
    bool agrees;
    if (status == DLRT_OK)
      agrees = verdict.must.empty();
    else
      agrees = verdict.must.count(status) || verdict.may.count(status);
    if (!agrees) {
      ++disagreements;
      std::string expected;
      for (int32_t rule : verdict.must)
        expected += std::string(dlrt_status_name(rule)) + " ";
      for (int32_t rule : verdict.may)
        expected += std::string("(") + dlrt_status_name(rule) + ") ";
      ADD_FAILURE() << "case " << i << ": " << describe(c)
                    << "\n  dlrt_check_tensor: " << dlrt_status_name(status)
                    << " " << ctx.error << "\n  reference: "
                    << (expected.empty() ? "OK" : expected);
      continue;
    }
    if (status != DLRT_OK) {
      std::string prefix = "argument " + std::to_string(c.index) + " 'x': ";
      EXPECT_EQ(std::string(ctx.error).rfind(prefix, 0), 0u)
          << describe(c) << "\n  " << ctx.error;
      EXPECT_EQ(ctx.status, status);
    } else {
      EXPECT_EQ(ctx.status, DLRT_OK);
    }
  }
}

TEST(CheckDifferentialTest, AgreesWithTheReference) {
  constexpr int kIterations = 100000;
  if (const char *seed = std::getenv("DLRT_CHECK_SEED")) {
    runSeed(std::strtoull(seed, nullptr, 10), kIterations);
    return;
  }
  runSeed(20261123, kIterations);
  std::random_device device;
  for (int n = 0; n < 3; ++n)
    runSeed((uint64_t(device()) << 32) | device(), kIterations);
}

} // namespace
