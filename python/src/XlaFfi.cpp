//===- XlaFfi.cpp - dlbridge kernels as XLA FFI targets -------------------===//
//
// Part of dlbridge's Python extension. One handler per XLA platform runs any
// registered kernel on XLA's buffers: operands and aliased results become
// DLTensors over XLA's memory, the kernel runs on XLA's stream, and its
// results are copied into XLA's result buffers. No Python runs here.
//
//===----------------------------------------------------------------------===//

#include "XlaFfi.h"

#include "SmallArray.h"

#include "dlbridge/JIT/Kernel.h"
#include "dlbridge/Runtime/dlrt.h"
#include "dlbridge/Runtime/dlrt_cuda.h"

#include "xla/ffi/api/ffi.h"

#include <nanobind/stl/string.h>

#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <string>

namespace nb = nanobind;
namespace ffi = xla::ffi;
using namespace dlbridge;
using namespace dlbridge::python;

namespace {

/// The kernels XLA programs refer to by key. They are never dropped: a
/// compiled XLA executable may call a key for as long as the process runs.
struct KernelRegistry {
  std::mutex mutex;
  std::deque<jit::Kernel> kernels;
};

KernelRegistry &getRegistry() {
  static auto *registry = new KernelRegistry();
  return *registry;
}

std::optional<jit::Kernel> lookupKernel(int64_t key) {
  KernelRegistry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (key < 0 || static_cast<uint64_t>(key) >= registry.kernels.size())
    return std::nullopt;
  return registry.kernels[static_cast<size_t>(key)];
}

/// The DLPack dtype of an XLA element type, or false for those DLPack
/// cannot name (tokens, sub-byte and 8-bit float types).
bool toDLDataType(ffi::DataType type, DLDataType &dtype) {
  auto set = [&](uint8_t code, uint8_t bits) {
    dtype = DLDataType{code, bits, 1};
    return true;
  };
  switch (type) {
  case ffi::DataType::PRED:
    return set(kDLBool, 8);
  case ffi::DataType::S8:
    return set(kDLInt, 8);
  case ffi::DataType::S16:
    return set(kDLInt, 16);
  case ffi::DataType::S32:
    return set(kDLInt, 32);
  case ffi::DataType::S64:
    return set(kDLInt, 64);
  case ffi::DataType::U8:
    return set(kDLUInt, 8);
  case ffi::DataType::U16:
    return set(kDLUInt, 16);
  case ffi::DataType::U32:
    return set(kDLUInt, 32);
  case ffi::DataType::U64:
    return set(kDLUInt, 64);
  case ffi::DataType::F16:
    return set(kDLFloat, 16);
  case ffi::DataType::F32:
    return set(kDLFloat, 32);
  case ffi::DataType::F64:
    return set(kDLFloat, 64);
  case ffi::DataType::BF16:
    return set(kDLBfloat, 16);
  case ffi::DataType::C64:
    return set(kDLComplex, 64);
  case ffi::DataType::C128:
    return set(kDLComplex, 128);
  default:
    return false;
  }
}

std::string dtypeName(DLDataType dtype) {
  char name[64];
  return dlrt_dtype_name(dtype, name, sizeof(name));
}

std::string shapeText(const int64_t *shape, int64_t rank) {
  std::string text = "(";
  for (int64_t d = 0; d < rank; ++d)
    text += (d ? ", " : "") + std::to_string(shape[d]);
  return text + (rank == 1 ? ",)" : ")");
}

/// The XLA error of a dlrt status: the checks' failures are the caller's
/// (invalid argument), memory is a resource, the rest is internal.
ffi::Error statusError(int32_t status, std::string message) {
  switch (status) {
  case DLRT_ERR_OUT_OF_MEMORY:
    return ffi::Error(ffi::ErrorCode::kResourceExhausted, std::move(message));
  case DLRT_ERR_INDEX:
    return ffi::Error(ffi::ErrorCode::kOutOfRange, std::move(message));
  case DLRT_ERR_NO_CUDA_DRIVER:
  case DLRT_ERR_CUDA:
  case DLRT_ERR_UNSUPPORTED:
    return ffi::Error::Internal(std::move(message));
  default:
    return ffi::Error::InvalidArgument(std::move(message));
  }
}

/// Names an argument or result in messages ("f(): argument 2 'x'"); the
/// text is built only on error.
struct Place {
  const std::string &function;
  const char *kind;
  size_t index;
  const std::string *param = nullptr;

  std::string str() const {
    return function + "(): " + kind + " " + std::to_string(index) +
           (param ? " '" + *param + "'" : "");
  }
};

/// Makes `tensor` a view of one of XLA's buffers: compact row-major
/// (ffi_call asks for XLA's default layouts), on the call's device.
std::optional<ffi::Error> viewBuffer(const ffi::AnyBuffer &buffer,
                                     DLDevice device, const Place &what,
                                     DLTensor &tensor) {
  DLDataType dtype;
  if (!toDLDataType(buffer.element_type(), dtype))
    return ffi::Error::InvalidArgument(
        what.str() + ": XLA element type " +
        std::to_string(static_cast<int>(buffer.element_type())) +
        " has no DLPack dtype");
  ffi::AnyBuffer::Dimensions dims = buffer.dimensions();
  tensor.data = buffer.untyped_data();
  tensor.device = device;
  tensor.ndim = static_cast<int32_t>(dims.size());
  tensor.dtype = dtype;
  // The kernel only reads the shape; DLTensor's field is not const.
  tensor.shape = const_cast<int64_t *>(dims.begin());
  tensor.strides = nullptr;
  tensor.byte_offset = 0;
  return std::nullopt;
}

/// Copies `bytes` from `source` to `target` on the call's device, in order
/// on `stream` for CUDA.
std::optional<ffi::Error> copyBytes(DLDevice device, void *stream, void *target,
                                    const void *source, size_t bytes,
                                    const Place &what) {
  if (bytes == 0 || target == source)
    return std::nullopt;
  if (device.device_type == kDLCPU) {
    std::memcpy(target, source, bytes);
    return std::nullopt;
  }
  mgpuSetDefaultDevice(device.device_id);
  mgpuMemcpy(target, const_cast<void *>(source), bytes, stream);
  if (int32_t status = dlrt_cuda_take_launch_error())
    return statusError(status, what.str() + ": " + dlrt_last_error());
  return std::nullopt;
}

/// Whether `tensor` is compact row-major (the strides of size-1 dims aside).
bool isCompact(const DLTensor &tensor) {
  if (!tensor.strides)
    return true;
  int64_t expected = 1;
  for (int32_t d = tensor.ndim - 1; d >= 0; --d) {
    if (tensor.shape[d] == 0)
      return true;
    if (tensor.shape[d] != 1 && tensor.strides[d] != expected)
      return false;
    expected *= tensor.shape[d];
  }
  return true;
}

/// Writes the kernel's result `managed` into XLA's result buffer `target`
/// (same dtype and shape, else an error saying which differs). On the host
/// any strides are copied; on CUDA the result must be compact.
std::optional<ffi::Error> storeResult(DLDevice device, void *stream,
                                      DLManagedTensorVersioned *managed,
                                      const DLTensor &target,
                                      const Place &what) {
  const DLTensor &source = managed->dl_tensor;
  if (source.dtype.code != target.dtype.code ||
      source.dtype.bits != target.dtype.bits ||
      source.dtype.lanes != target.dtype.lanes)
    return ffi::Error::Internal(what.str() + ": the kernel returned " +
                                dtypeName(source.dtype) + ", XLA expected " +
                                dtypeName(target.dtype));
  if (source.ndim != target.ndim ||
      !std::equal(source.shape, source.shape + source.ndim, target.shape))
    return ffi::Error::Internal(
        what.str() + ": the kernel returned shape " +
        shapeText(source.shape, source.ndim) + ", XLA expected " +
        shapeText(target.shape, target.ndim) +
        " (the shape rule dlbridge.jax traced disagrees with the kernel)");
  if (device.device_type == kDLCPU) {
    if (dlrt_copy_strided(&source, &target) != DLRT_OK)
      return ffi::Error::Internal(what.str() + ": " + dlrt_last_error());
    return std::nullopt;
  }
  if (!isCompact(source))
    return ffi::Error(ffi::ErrorCode::kUnimplemented,
                      what.str() +
                          ": the kernel returned a strided CUDA tensor, "
                          "which dlbridge.jax cannot copy into XLA's "
                          "buffer yet; return a contiguous array "
                          "(numpy.ascontiguousarray) from the function");
  int64_t count = 1;
  for (int32_t d = 0; d < source.ndim; ++d)
    count *= source.shape[d];
  size_t bytes = static_cast<size_t>(count) *
                 ((source.dtype.bits * source.dtype.lanes + 7) / 8);
  const char *data =
      static_cast<const char *>(source.data) + (count ? source.byte_offset : 0);
  return copyBytes(device, stream, target.data, data, bytes, what);
}

/// Releases the kernel's tensor results when the handler returns.
struct OwnedResults {
  const jit::Signature &signature;
  SmallArray<void *> &results;
  ~OwnedResults() {
    for (size_t j = 0; j < results.size(); ++j)
      if (signature.results[j].isTensor && results[j])
        dlrt_release_managed(
            static_cast<DLManagedTensorVersioned *>(results[j]));
  }
};

/// Reads the 0-d buffer `buffer` (a traced JAX scalar: a Python number
/// passed through jax.jit) into `slot` as scalar parameter `param` takes it:
/// integers and booleans convert to any number, floats only to floats. On
/// CUDA the value is copied to the host, which waits for XLA's stream.
std::optional<ffi::Error> loadScalarOperand(const ffi::AnyBuffer &buffer,
                                            DLDevice device, void *stream,
                                            const jit::ParamInfo &param,
                                            uint64_t &slot, const Place &what) {
  DLDataType source;
  if (!toDLDataType(buffer.element_type(), source) ||
      buffer.dimensions().size() != 0 || source.bits > 64 ||
      source.code == kDLBfloat || (source.code == kDLFloat && source.bits < 32))
    return ffi::Error::InvalidArgument(
        what.str() + ": expected a 0-d bool, integer, float32 or float64 "
                     "array for a scalar parameter");
  uint64_t raw = 0;
  size_t bytes = source.bits / 8;
  if (device.device_type == kDLCPU) {
    std::memcpy(&raw, buffer.untyped_data(), bytes);
  } else {
    mgpuSetDefaultDevice(device.device_id);
    mgpuMemcpy(&raw, buffer.untyped_data(), bytes, stream);
    mgpuStreamSynchronize(stream);
    if (int32_t status = dlrt_cuda_take_launch_error())
      return statusError(status, what.str() + ": " + dlrt_last_error());
  }
  bool isFloat = source.code == kDLFloat;
  double real = 0;
  int64_t integer = 0;
  if (isFloat && source.bits == 32) {
    float narrow;
    std::memcpy(&narrow, &raw, sizeof(narrow));
    real = narrow;
  } else if (isFloat) {
    std::memcpy(&real, &raw, sizeof(real));
  } else if (source.code == kDLBool) {
    integer = (raw & 0xff) != 0;
  } else {
    unsigned shift = 64 - source.bits;
    integer = source.code == kDLUInt
                  ? static_cast<int64_t>(raw << shift >> shift)
                  : static_cast<int64_t>(raw << shift) >> shift;
  }
  const DLDataType target = param.dtype;
  if (target.code == kDLFloat && (target.bits == 32 || target.bits == 64)) {
    double value = isFloat ? real : static_cast<double>(integer);
    if (target.bits == 64) {
      std::memcpy(&slot, &value, sizeof(value));
    } else {
      float narrow = static_cast<float>(value);
      slot = 0;
      std::memcpy(&slot, &narrow, sizeof(narrow));
    }
    return std::nullopt;
  }
  if (target.code == kDLBool && !isFloat) {
    slot = integer != 0;
    return std::nullopt;
  }
  if ((target.code == kDLInt || target.code == kDLUInt) && !isFloat) {
    slot = static_cast<uint64_t>(integer);
    return std::nullopt;
  }
  return ffi::Error::InvalidArgument(
      what.str() + ": a traced " + dtypeName(source) + " cannot be passed as " +
      dtypeName(target));
}

/// The attributes of a call: the kernel's key, the bits of its scalar
/// parameters given as Python numbers (the low bytes of each word, as
/// runKernel stores them), and per scalar parameter 1 where its value is an
/// operand instead (a traced scalar).
struct CallAttributes {
  int64_t key;
  ffi::Span<const int64_t> scalars;
  ffi::Span<const int64_t> scalarOperands;
};

/// Runs kernel `attributes.key` on XLA's buffers. Operands are the kernel's
/// tensor parameters in order, then its traced scalar parameters in order;
/// the other scalars come from `attributes.scalars`. Results are the
/// kernel's results in order (scalars as 0-d buffers), then one per written
/// parameter, which XLA aliases to that parameter's operand: the kernel
/// writes into the result buffer.
ffi::Error runKernelOnBuffers(DLDevice device, void *stream,
                              const CallAttributes &attributes,
                              ffi::RemainingArgs operands,
                              ffi::RemainingRets rets) {
  int64_t key = attributes.key;
  ffi::Span<const int64_t> scalars = attributes.scalars;
  std::optional<jit::Kernel> kernel = lookupKernel(key);
  if (!kernel)
    return ffi::Error::InvalidArgument(
        "dlbridge: no kernel is registered with key " + std::to_string(key));
  const jit::Signature &signature = kernel->signature();
  const std::string &name = signature.name;
  if (signature.device != device.device_type)
    return ffi::Error::InvalidArgument(
        name + "(): the kernel was compiled for " +
        dlrt_device_type_name(signature.device) + " but XLA runs it on " +
        dlrt_device_type_name(device.device_type) +
        "; compile it for the device the JAX arrays are on");

  size_t count = signature.args.size(), tensorCount = 0, writtenCount = 0;
  for (const jit::ParamInfo &param : signature.args) {
    tensorCount += param.isTensor;
    writtenCount += param.isTensor && (param.access & DLRT_ACCESS_WRITE);
  }
  size_t resultCount = signature.results.size();
  size_t tracedCount = 0;
  for (int64_t traced : attributes.scalarOperands)
    tracedCount += traced != 0;
  if (operands.size() != tensorCount + tracedCount ||
      scalars.size() != count - tensorCount ||
      attributes.scalarOperands.size() != count - tensorCount ||
      rets.size() != resultCount + writtenCount)
    return ffi::Error::InvalidArgument(
        name + "(): XLA passed " + std::to_string(operands.size()) +
        " operands, " + std::to_string(scalars.size()) + " scalars and " +
        std::to_string(rets.size()) + " results; the kernel takes " +
        std::to_string(tensorCount) + " tensors and " +
        std::to_string(count - tensorCount) + " scalars and gives " +
        std::to_string(resultCount + writtenCount) + " results");

  SmallArray<DLTensor> tensors(count);
  SmallArray<uint64_t> scalarSlots(count);
  SmallArray<void *> args(count);
  for (size_t i = 0, operand = 0, scalar = 0, traced = tensorCount, written = 0;
       i < count; ++i) {
    const jit::ParamInfo &param = signature.args[i];
    Place what{name, "argument", i, &param.name};
    if (!param.isTensor) {
      args[i] = &scalarSlots[i];
      if (!attributes.scalarOperands[scalar]) {
        scalarSlots[i] = static_cast<uint64_t>(scalars[scalar++]);
        continue;
      }
      ++scalar;
      ffi::ErrorOr<ffi::AnyBuffer> value =
          operands.get<ffi::AnyBuffer>(traced++);
      if (value.has_error())
        return ffi::Error::InvalidArgument(what.str() + ": " +
                                           value.error().message());
      if (auto error = loadScalarOperand(*value, device, stream, param,
                                         scalarSlots[i], what))
        return std::move(*error);
      continue;
    }
    ffi::ErrorOr<ffi::AnyBuffer> input =
        operands.get<ffi::AnyBuffer>(operand++);
    if (input.has_error())
      return ffi::Error::InvalidArgument(what.str() + ": " +
                                         input.error().message());
    if (auto error = viewBuffer(*input, device, what, tensors[i]))
      return std::move(*error);
    args[i] = &tensors[i];
    if (!(param.access & DLRT_ACCESS_WRITE))
      continue;
    // XLA aliases the result to the operand; where it could not, the
    // result starts as a copy of the operand and the kernel updates it.
    auto output = rets.get<ffi::AnyBuffer>(resultCount + written++);
    if (output.has_error())
      return ffi::Error::InvalidArgument(what.str() + ": " +
                                         output.error().message());
    void *target = (*output)->untyped_data();
    if (auto error = copyBytes(device, stream, target, tensors[i].data,
                               (*input).size_bytes(), what))
      return std::move(*error);
    tensors[i].data = target;
  }

  SmallArray<void *> results(resultCount);
  SmallArray<uint64_t> resultScalars(resultCount);
  for (size_t j = 0; j < resultCount; ++j)
    if (!signature.results[j].isTensor)
      results[j] = &resultScalars[j];
  OwnedResults owned{signature, results};
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, device, stream);
  if (int32_t status = kernel->call(args.data(), results.data(), &ctx))
    return statusError(status, name + "(): " + ctx.error);

  for (size_t j = 0; j < resultCount; ++j) {
    const jit::ParamInfo &param = signature.results[j];
    Place what{name, "result", j};
    auto output = rets.get<ffi::AnyBuffer>(j);
    if (output.has_error())
      return ffi::Error::InvalidArgument(what.str() + ": " +
                                         output.error().message());
    DLTensor target;
    if (auto error = viewBuffer(**output, device, what, target))
      return std::move(*error);
    if (param.isTensor) {
      if (auto error =
              storeResult(device, stream,
                          static_cast<DLManagedTensorVersioned *>(results[j]),
                          target, what))
        return std::move(*error);
      continue;
    }
    // A scalar result fills a 0-d buffer of its dtype; the words are
    // little-endian, so its bytes are the first ones.
    if (target.ndim != 0 || target.dtype.bits != param.dtype.bits ||
        target.dtype.code != param.dtype.code)
      return ffi::Error::Internal(
          what.str() + ": the kernel returned a " + dtypeName(param.dtype) +
          " scalar, XLA expected a " + dtypeName(target.dtype) +
          " array of shape " + shapeText(target.shape, target.ndim));
    if (auto error = copyBytes(device, stream, target.data, &resultScalars[j],
                               (param.dtype.bits + 7) / 8, what))
      return std::move(*error);
  }
  return ffi::Error::Success();
}

/// Runs the handler body; a C++ exception (none is expected: allocation
/// failures at most) becomes an XLA error rather than ending the process.
template <typename Body> ffi::Error guarded(Body body) {
  try {
    return body();
  } catch (const std::exception &error) {
    return ffi::Error::Internal(std::string("dlbridge: ") + error.what());
  } catch (...) {
    return ffi::Error::Internal("dlbridge: unknown C++ exception");
  }
}

ffi::Error runOnHost(int64_t key, ffi::Span<const int64_t> scalars,
                     ffi::Span<const int64_t> scalarOperands,
                     ffi::RemainingArgs operands, ffi::RemainingRets rets) {
  return guarded([&] {
    return runKernelOnBuffers({kDLCPU, 0}, nullptr,
                              {key, scalars, scalarOperands}, operands, rets);
  });
}

ffi::Error runOnCuda(void *stream, int32_t ordinal, int64_t key,
                     ffi::Span<const int64_t> scalars,
                     ffi::Span<const int64_t> scalarOperands,
                     ffi::RemainingArgs operands, ffi::RemainingRets rets) {
  return guarded([&] {
    return runKernelOnBuffers({kDLCUDA, ordinal}, stream,
                              {key, scalars, scalarOperands}, operands, rets);
  });
}

// No kCmdBufferCompatible trait: a call allocates its results and
// temporaries, checks shapes and reads scalars on the host, may wait for its
// index checks (dlrt_call_synchronize) and frees through stream callbacks;
// a command buffer would replay only the GPU work of one capture.
XLA_FFI_DEFINE_HANDLER(hostHandler, runOnHost,
                       ffi::Ffi::Bind()
                           .Attr<int64_t>("kernel")
                           .Attr<ffi::Span<const int64_t>>("scalars")
                           .Attr<ffi::Span<const int64_t>>("scalar_operands")
                           .RemainingArgs()
                           .RemainingRets());

XLA_FFI_DEFINE_HANDLER(cudaHandler, runOnCuda,
                       ffi::Ffi::Bind()
                           .Ctx<ffi::PlatformStream<void *>>()
                           .Ctx<ffi::DeviceOrdinal>()
                           .Attr<int64_t>("kernel")
                           .Attr<ffi::Span<const int64_t>>("scalars")
                           .Attr<ffi::Span<const int64_t>>("scalar_operands")
                           .RemainingArgs()
                           .RemainingRets());

} // namespace

void dlbridge::python::bindXlaFfi(nb::module_ &m) {
  m.def(
      "_xla_ffi_handlers",
      [] {
        nb::dict handlers;
        handlers["cpu"] = nb::capsule(reinterpret_cast<void *>(hostHandler));
        handlers["CUDA"] = nb::capsule(reinterpret_cast<void *>(cudaHandler));
        return handlers;
      },
      "The XLA FFI handlers running registered kernels, as PyCapsules per "
      "XLA platform name.");
  m.def(
      "_xla_register_kernel",
      [](const jit::Kernel &kernel) {
        KernelRegistry &registry = getRegistry();
        std::lock_guard<std::mutex> lock(registry.mutex);
        registry.kernels.push_back(kernel);
        return static_cast<int64_t>(registry.kernels.size() - 1);
      },
      nb::arg("kernel"),
      "Keeps `kernel` for the process's lifetime and returns the key the "
      "XLA FFI handlers' `kernel` attribute names it by.");
}
