//===- Call.cpp - Calling kernels with Python arguments -------------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "Call.h"

#include "Errors.h"
#include "NumPy.h"
#include "Tensor.h"

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <nanobind/stl/string.h>

#include <cstring>
#include <string>
#include <unordered_map>

namespace nb = nanobind;
using namespace dlbridge;
using namespace dlbridge::python;

namespace {

/// How results reach the caller's framework, per type of first tensor.
struct ResultFramework {
  /// The framework's exchange API when it can wrap managed tensors.
  const DLPackExchangeAPI *api = nullptr;
  /// Else its from_dlpack (consumes a dlbridge.Tensor), or None.
  nb::object fromDlpack;
  /// Whether that is numpy.from_dlpack, which NumPy.h does without a Tensor.
  bool numpy = false;
};

const ResultFramework &getResultFramework(PyTypeObject *type) {
  static auto *cache =
      new std::unordered_map<PyTypeObject *, ResultFramework>();
  static PyTypeObject *lastType = nullptr;
  static const ResultFramework *last = nullptr;
  if (last && type == lastType)
    return *last;
  auto it = cache->find(type);
  if (it != cache->end()) {
    lastType = type;
    last = &it->second;
    return it->second;
  }
  ResultFramework framework;
  // Without a tensor argument there is no caller's framework: results on the
  // CPU come back as NumPy arrays (what NumPy code calling a function of
  // scalars expects), others as dlbridge.Tensors.
  if (!type)
    framework.numpy = true;
  // Results of calls on dlbridge.Tensors stay dlbridge.Tensors, made here
  // so that they remember the stream that writes them.
  if (type && !isTensorType(type)) {
    const DLPackExchangeAPI *api = getExchangeAPI(type);
    if (api && api->managed_tensor_to_py_object_no_sync)
      framework.api = api;
    else
      framework.fromDlpack = nb::module_::import_("dlbridge._frameworks")
                                 .attr("from_dlpack_for")(nb::handle(
                                     reinterpret_cast<PyObject *>(type)));
    framework.numpy = numpy::isFromDlpack(framework.fromDlpack);
  }
  // The cache keeps the type, so no other type reuses its address.
  Py_XINCREF(type);
  lastType = type;
  last = &cache->emplace(type, std::move(framework)).first->second;
  return *last;
}

/// `stream`: where a CUDA kernel wrote the result, which consumers of the
/// dlbridge.Tensor handed to a framework's from_dlpack are ordered after.
nb::object wrapResult(DLManagedTensorVersioned *managed,
                      const ResultFramework &framework,
                      const PreparedCall &call, std::optional<void *> stream) {
  if (framework.api) {
    void *object = nullptr;
    if (framework.api->managed_tensor_to_py_object_no_sync(managed, &object) ||
        !object) {
      if (PyErr_Occurred())
        throw nb::python_error();
      throw nb::buffer_error(
          (std::string(call.function()) + "(): the DLPack exchange API of '" +
           call.firstTensorType()->tp_name +
           "' failed in managed_tensor_to_py_object_no_sync without setting "
           "an error")
              .c_str());
    }
    return nb::steal(static_cast<PyObject *>(object));
  }
  if (framework.numpy) {
    nb::object array = numpy::wrap(managed);
    if (array.is_valid())
      return array;
  }
  nb::object tensor = makeTensor(managed, stream);
  if (!framework.fromDlpack.is_valid() || framework.fromDlpack.is_none())
    return tensor;
  return framework.fromDlpack(tensor);
}

[[noreturn]] void raiseScalarError(const PreparedCall &call, size_t index,
                                   const jit::ParamInfo &param,
                                   const char *expected) {
  std::string text = std::string(call.function()) + "(): argument " +
                     std::to_string(index) + " '" + param.name +
                     "': expected " + expected + ", got '" +
                     Py_TYPE(call.object(index))->tp_name + "'";
  throw nb::type_error(text.c_str());
}

/// "[-128, 127]": the values of an integer dtype of at most 64 bits.
std::string integerRange(DLDataType dtype) {
  if (dtype.code == kDLUInt)
    return "[0, " + std::to_string(~0ull >> (64 - dtype.bits)) + "]";
  long long max = static_cast<long long>(~0ull >> (65 - dtype.bits));
  return "[" + std::to_string(-max - 1) + ", " + std::to_string(max) + "]";
}

/// Converts an int or bool scalar to the parameter's integer dtype into
/// `slot`; OverflowError naming the argument when it does not fit.
void storeInteger(const PreparedCall &call, size_t index,
                  const jit::ParamInfo &param, uint64_t &slot) {
  PyObject *value = call.object(index);
  const DLDataType dtype = param.dtype;
  if (call.scalarKind(index) == ScalarKind::Float)
    raiseScalarError(call, index, param, "an integer");
  // NumPy's bool_ has no __index__.
  nb::object number =
      call.scalarKind(index) == ScalarKind::Bool
          ? nb::object(nb::int_(PyObject_IsTrue(value) == 1 ? 1 : 0))
          : nb::steal(PyNumber_Index(value));
  if (!number.is_valid())
    throw nb::python_error();
  int overflow = 0;
  long long signedValue = PyLong_AsLongLongAndOverflow(number.ptr(), &overflow);
  if (signedValue == -1 && PyErr_Occurred())
    throw nb::python_error();
  const unsigned bits = dtype.bits;
  uint64_t word = static_cast<uint64_t>(signedValue);
  bool fits;
  if (dtype.code == kDLUInt && overflow > 0) {
    word = PyLong_AsUnsignedLongLong(number.ptr());
    fits = !PyErr_Occurred() && bits == 64;
    PyErr_Clear();
  } else if (dtype.code == kDLUInt) {
    fits =
        overflow == 0 && signedValue >= 0 && (bits == 64 || word >> bits == 0);
  } else {
    long long max = static_cast<long long>(~0ull >> (65 - bits));
    fits = overflow == 0 && signedValue >= -max - 1 && signedValue <= max;
  }
  if (!fits) {
    char dtypeName[64];
    std::string text =
        std::string(call.function()) + "(): argument " + std::to_string(index) +
        " '" + param.name + "': expected " +
        dlrt_dtype_name(dtype, dtypeName, sizeof(dtypeName)) + " in " +
        integerRange(dtype) + ", got " + nb::cast<std::string>(nb::str(number));
    PyErr_SetString(PyExc_OverflowError, text.c_str());
    throw nb::python_error();
  }
  // Little-endian: the low bytes of the slot are the narrower integer.
  slot = word;
}

/// Converts a scalar argument to the parameter's dtype into `slot`.
void storeScalar(const PreparedCall &call, size_t index,
                 const jit::ParamInfo &param, uint64_t &slot) {
  PyObject *value = call.object(index);
  const DLDataType dtype = param.dtype;
  if (!call.isScalar(index))
    raiseScalarError(call, index, param, "a Python or NumPy scalar");
  if (dtype.code == kDLBool) {
    int truth = PyObject_IsTrue(value);
    if (truth < 0)
      throw nb::python_error();
    slot = truth;
    return;
  }
  if ((dtype.code == kDLInt || dtype.code == kDLUInt) && dtype.bits >= 8 &&
      dtype.bits <= 64) {
    storeInteger(call, index, param, slot);
    return;
  }
  double number = 0;
  if (dtype.code == kDLFloat) {
    number = PyFloat_AsDouble(value);
    if (number == -1.0 && PyErr_Occurred()) {
      // e.g. "int too large to convert to float": say which argument.
      nb::python_error error;
      std::string text = std::string(call.function()) + "(): argument " +
                         std::to_string(index) + " '" + param.name +
                         "': " + nb::cast<std::string>(nb::str(error.value()));
      PyErr_SetString(error.type().ptr(), text.c_str());
      throw nb::python_error();
    }
  }
  if (dtype.code == kDLFloat && dtype.bits == 64) {
    std::memcpy(&slot, &number, sizeof(number));
  } else if (dtype.code == kDLFloat && dtype.bits == 32) {
    float narrow = static_cast<float>(number);
    std::memcpy(&slot, &narrow, sizeof(narrow));
  } else if (dtype.code == kDLFloat && dtype.bits == 16) {
    // Rounds to nearest; fails beyond float16's range.
    if (PyFloat_Pack2(number, reinterpret_cast<char *>(&slot), 1) < 0) {
      PyErr_Clear();
      std::string text = std::string(call.function()) + "(): argument " +
                         std::to_string(index) + " '" + param.name +
                         "': expected float16 in [-65504, 65504], got " +
                         nb::cast<std::string>(nb::repr(nb::float_(number)));
      PyErr_SetString(PyExc_OverflowError, text.c_str());
      throw nb::python_error();
    }
  } else {
    char dtypeName[64];
    raiseScalarError(call, index, param,
                     (std::string("a tensor (scalars cannot be passed as ") +
                      dlrt_dtype_name(dtype, dtypeName, sizeof(dtypeName)) +
                      ")")
                         .c_str());
  }
}

nb::object loadScalar(const jit::ParamInfo &param, uint64_t slot) {
  const DLDataType dtype = param.dtype;
  if (dtype.code == kDLFloat) {
    if (dtype.bits == 16)
      return nb::float_(
          PyFloat_Unpack2(reinterpret_cast<const char *>(&slot), 1));
    if (dtype.bits == 32) {
      float value;
      std::memcpy(&value, &slot, sizeof(value));
      return nb::float_(value);
    }
    double value;
    std::memcpy(&value, &slot, sizeof(value));
    return nb::float_(value);
  }
  if (dtype.code == kDLBool)
    return nb::bool_((slot & 1) != 0);
  // Sign- or zero-extend the low `bits`.
  unsigned shift = 64 - dtype.bits;
  if (dtype.code == kDLUInt)
    return nb::int_(static_cast<unsigned long long>(slot << shift >> shift));
  return nb::int_(
      static_cast<long long>(static_cast<int64_t>(slot << shift) >> shift));
}

/// The bytes `t` can address, [first, last], or false when it addresses none
/// or its extents overflow (the kernel's own checks refuse those).
bool getByteRange(const DLTensor *t, uintptr_t &first, uintptr_t &last) {
  if (!t->data || (t->ndim > 0 && !t->shape))
    return false;
  int64_t itemSize = (int64_t(t->dtype.bits) * t->dtype.lanes + 7) / 8;
  int64_t low = 0, high = 0, compact = 1;
  for (int32_t d = t->ndim - 1; d >= 0; --d) {
    if (t->shape[d] == 0)
      return false;
    int64_t stride = t->strides ? t->strides[d] : compact, reach;
    if (__builtin_mul_overflow(t->shape[d] - 1, stride, &reach) ||
        __builtin_add_overflow(reach < 0 ? low : high, reach,
                               reach < 0 ? &low : &high) ||
        __builtin_mul_overflow(compact, t->shape[d], &compact))
      return false;
  }
  int64_t lowBytes, highBytes;
  if (__builtin_mul_overflow(low, itemSize, &lowBytes) ||
      __builtin_mul_overflow(high + 1, itemSize, &highBytes))
    return false;
  uintptr_t base = reinterpret_cast<uintptr_t>(t->data) + t->byte_offset;
  first = base + lowBytes;
  last = base + highBytes - 1;
  return true;
}

/// Refuses a call where a parameter the kernel writes shares memory with
/// another array argument: the kernel assumes its arguments are distinct
/// (NumPy would copy first; the memory ranges are compared, as NumPy's first
/// overlap test does).
void checkWrittenArgsAreDistinct(PreparedCall &call,
                                 const jit::Signature &signature) {
  for (size_t i = 0; i < signature.args.size(); ++i) {
    uintptr_t first, last;
    if (!(signature.args[i].access & DLRT_ACCESS_WRITE) ||
        !getByteRange(call.tensor(i), first, last))
      continue;
    for (size_t j = 0; j < signature.args.size(); ++j) {
      uintptr_t otherFirst, otherLast;
      if (j == i || !signature.args[j].isTensor ||
          call.tensor(j)->device.device_type !=
              call.tensor(i)->device.device_type ||
          call.tensor(j)->device.device_id !=
              call.tensor(i)->device.device_id ||
          !getByteRange(call.tensor(j), otherFirst, otherLast) ||
          otherLast < first || last < otherFirst)
        continue;
      std::string text = std::string(call.function()) + "(): argument " +
                         std::to_string(i) + " '" + signature.args[i].name +
                         "' is written and shares memory with argument " +
                         std::to_string(j) + " '" + signature.args[j].name +
                         "'; pass a copy of one of them";
      throw nb::value_error(text.c_str());
    }
  }
}

void deleteManaged(void *managed) {
  auto *tensor = static_cast<DLManagedTensorVersioned *>(managed);
  if (tensor->deleter)
    tensor->deleter(tensor);
}

/// The tensor results of a call not yet handed to Python: released when
/// wrapping an earlier one fails.
struct PendingResults {
  const jit::Signature &signature;
  SmallArray<void *> &results;
  /// The first result not handed over.
  size_t next = 0;
  ~PendingResults() {
    for (size_t j = next; j < results.size(); ++j)
      if (signature.results[j].isTensor && results[j])
        deleteManaged(results[j]);
  }
};

} // namespace

PreparedCall::PreparedCall(const char *function, PyObject *const *args,
                           size_t count, const ImportOptions &options,
                           const jit::Signature *signature)
    : name(function), objects(args), count(count), options(options),
      signature(signature), kinds(count), tensors(count) {
  for (size_t i = 0; i < count; ++i) {
    kinds[i] = python::scalarKind(args[i]);
    // A scalar parameter refuses whatever is not a scalar (runKernel).
    bool scalarParameter =
        signature && i < signature->args.size() && !signature->args[i].isTensor;
    if (kinds[i] != ScalarKind::None || scalarParameter)
      continue;
    if (!firstType && !this->options.stream && !numpy::isArray(args[i]))
      this->options.stream = getFrameworkStream(Py_TYPE(args[i]));
    importTensor(args[i], argumentName(i), this->options, tensors[i]);
    if (!firstType)
      firstType = Py_TYPE(args[i]);
  }
}

void PreparedCall::prepareWrite(size_t i, const jit::ParamInfo &param) {
  ImportedTensor &imported = tensors[i];
  ArgumentName argument{name, static_cast<int>(i), param.name.c_str()};
  if (imported.materialisedBit() != LazyBit::None)
    throw nb::buffer_error(
        (argument.str() +
         ": expected a tensor the call can write, got a lazy view with "
         "PyTorch's " +
         lazyBitName(imported.materialisedBit()) +
         " bit set, whose data DLPack describes without it: writing through "
         "it would store wrong values; pass a tensor without it (" +
         (imported.materialisedBit() == LazyBit::Conjugate ? "resolve_conj()"
                                                           : "resolve_neg()") +
         " makes one) and use that")
            .c_str());
  if (const TorchState *state = imported.torchState())
    checkAutogradAllowsWrite(*state, objects[i], argument.str());
  if (imported.flagsKnown())
    return;
  ImportOptions owning = options;
  owning.requireOwnership = true;
  owning.checkLazyBits = false;
  tensors[i].release();
  importTensor(objects[i], argument, owning, tensors[i]);
}

void PreparedCall::noteWrites(const SmallArray<bool> &written) {
  const TorchState *state = nullptr;
  size_t torchCount = 0;
  for (size_t i = 0; i < count; ++i)
    if (written[i] && tensors[i].torchState()) {
      state = tensors[i].torchState();
      ++torchCount;
    }
  if (!state)
    return;
  nb::object tuple = nb::steal(PyTuple_New(torchCount));
  if (!tuple.is_valid())
    throw nb::python_error();
  for (size_t i = 0, next = 0; i < count; ++i)
    if (written[i] && tensors[i].torchState())
      PyTuple_SET_ITEM(tuple.ptr(), next++, Py_NewRef(objects[i]));
  noteInPlaceWrites(*state, tuple);
}

ArgumentName PreparedCall::argumentName(size_t i) const {
  const char *parameter = signature && i < signature->args.size()
                              ? signature->args[i].name.c_str()
                              : nullptr;
  return {name, static_cast<int>(i), parameter};
}

void PreparedCall::releaseAfter(DLDevice device, void *stream) {
  if (device.device_type == kDLCPU)
    return; // The call has returned: nothing reads the tensors any more.
  for (ImportedTensor &imported : tensors) {
    if (!imported.tensor())
      continue;
    DLManagedTensorVersioned *owned = imported.take();
    if (owned &&
        dlrt_defer_release(device, stream, deleteManaged, owned) != DLRT_OK)
      deleteManaged(owned);
  }
}

namespace {

/// The stream a CUDA call on `device` runs on (see runKernel), and the
/// current stream of the first tensor's framework when its exchange API
/// names one.
struct CallStreams {
  void *kernel = nullptr;
  std::optional<void *> framework;
};

CallStreams getCallStreams(const PreparedCall &call, DLDevice device) {
  CallStreams streams;
  if (call.stream() && dlrt_stream_from_dlpack(device, *call.stream(), 1,
                                               &streams.kernel) != DLRT_OK)
    throw nb::value_error(
        (std::string(call.function()) + "(): stream: " + dlrt_last_error())
            .c_str());
  const DLPackExchangeAPI *api =
      call.firstTensorType() ? getExchangeAPI(call.firstTensorType()) : nullptr;
  if (!api || !api->current_work_stream)
    return streams;
  void *current = nullptr;
  if (api->current_work_stream(device.device_type, device.device_id,
                               &current)) {
    if (PyErr_Occurred())
      throw nb::python_error();
    throw nb::buffer_error(
        (std::string(call.function()) + "(): the DLPack exchange API of '" +
         call.firstTensorType()->tp_name +
         "' failed in current_work_stream without setting an error")
            .c_str());
  }
  streams.framework = current;
  if (!call.stream())
    streams.kernel = current;
  return streams;
}

/// Makes `waiter` wait for the work on `signaller`, or raises.
void orderStreams(const PreparedCall &call, DLDevice device, void *waiter,
                  void *signaller) {
  if (int32_t status = dlrt_stream_wait(device, waiter, signaller))
    raiseStatus(status,
                std::string(call.function()) + "(): " + dlrt_last_error());
}

} // namespace

nb::object dlbridge::python::runKernel(const jit::Kernel &kernel,
                                       PreparedCall &call) {
  const jit::Signature &signature = kernel.signature();
  size_t count = signature.args.size();
  if (call.size() != count) {
    std::string names;
    for (const jit::ParamInfo &param : signature.args)
      names += (names.empty() ? "" : ", ") + param.name;
    throw nb::type_error((std::string(call.function()) + "() takes " +
                          std::to_string(count) + " arguments (" + names +
                          "), got " + std::to_string(call.size()))
                             .c_str());
  }

  SmallArray<void *> args(count);
  SmallArray<uint64_t> scalars(count), flags(count);
  SmallArray<bool> written(count);
  bool anyWritten = false;
  DLDevice device{kDLCPU, 0};
  for (size_t i = 0; i < count; ++i) {
    const jit::ParamInfo &param = signature.args[i];
    if (!param.isTensor) {
      storeScalar(call, i, param, scalars[i]);
      args[i] = &scalars[i];
      continue;
    }
    if (call.isScalar(i))
      raiseScalarError(call, i, param, "an array");
    if (param.access & DLRT_ACCESS_WRITE) {
      call.prepareWrite(i, param);
      written[i] = anyWritten = true;
    }
    args[i] = call.tensor(i);
    flags[i] = call.flags(i);
    if (signature.device != kDLCPU && device.device_type == kDLCPU)
      device = call.tensor(i)->device;
  }
  if (signature.device != kDLCPU && device.device_type == kDLCPU)
    device = {signature.device, 0};
  checkWrittenArgsAreDistinct(call, signature);
  // Exchange API imports are not ordered by their producer: a stream the
  // caller chose waits for the framework's current one, and the framework's
  // waits for the kernel before it sees the results.
  CallStreams streams;
  std::optional<void *> resultStream;
  if (device.device_type != kDLCPU) {
    streams = getCallStreams(call, device);
    if (call.stream() && streams.framework)
      orderStreams(call, device, streams.kernel, *streams.framework);
    resultStream = streams.kernel;
  }
  void *stream = streams.kernel;

  size_t resultCount = signature.results.size();
  SmallArray<void *> results(resultCount);
  SmallArray<uint64_t> resultScalars(resultCount);
  for (size_t j = 0; j < resultCount; ++j)
    if (!signature.results[j].isTensor)
      results[j] = &resultScalars[j];

  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, device, stream);
  ctx.arg_flags = flags.data();
  int32_t status;
  {
    nb::gil_scoped_release unlocked;
    status = kernel.call(args.data(), results.data(), &ctx);
  }
  call.releaseAfter(device, stream);
  if (status != DLRT_OK)
    raiseStatus(status, std::string(call.function()) + "(): " + ctx.error);

  PendingResults pending{signature, results};
  if (anyWritten)
    call.noteWrites(written);
  if (call.stream() && streams.framework)
    orderStreams(call, device, *streams.framework, stream);
  if (device.device_type != kDLCPU)
    noteWorkStream(device, stream);
  const ResultFramework &framework = getResultFramework(call.firstTensorType());
  auto result = [&](size_t j) {
    const jit::ParamInfo &param = signature.results[j];
    pending.next = j + 1;
    if (param.isTensor)
      return wrapResult(static_cast<DLManagedTensorVersioned *>(results[j]),
                        framework, call, resultStream);
    return loadScalar(param, resultScalars[j]);
  };
  if (resultCount == 0)
    return nb::none();
  if (resultCount == 1)
    return result(0);
  nb::list values;
  for (size_t j = 0; j < resultCount; ++j)
    values.append(result(j));
  return nb::tuple(values);
}
