//===- Call.cpp - Calling kernels with Python arguments -------------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "Call.h"

#include "Tensor.h"

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <cstring>
#include <string>
#include <unordered_map>

namespace nb = nanobind;
using namespace dlbridge;
using namespace dlbridge::python;

namespace {

bool isPythonScalar(PyObject *object) {
  return PyBool_Check(object) || PyLong_Check(object) || PyFloat_Check(object);
}

/// How results reach the caller's framework, per type of first tensor.
struct ResultFramework {
  /// The framework's exchange API when it can wrap managed tensors.
  const DLPackExchangeAPI *api = nullptr;
  /// Else its from_dlpack (consumes a dlbridge.Tensor), or None.
  nb::object fromDlpack;
};

const ResultFramework &getResultFramework(PyTypeObject *type) {
  static auto *cache = new std::unordered_map<PyTypeObject *, ResultFramework>();
  auto it = cache->find(type);
  if (it != cache->end())
    return it->second;
  ResultFramework framework;
  if (type) {
    const DLPackExchangeAPI *api = getExchangeAPI(type);
    if (api && api->managed_tensor_to_py_object_no_sync)
      framework.api = api;
    else
      framework.fromDlpack = nb::module_::import_("dlbridge._frameworks")
                                 .attr("from_dlpack_for")(nb::handle(
                                     reinterpret_cast<PyObject *>(type)));
  }
  return cache->emplace(type, std::move(framework)).first->second;
}

nb::object wrapResult(DLManagedTensorVersioned *managed,
                      const ResultFramework &framework) {
  if (framework.api) {
    void *object = nullptr;
    if (framework.api->managed_tensor_to_py_object_no_sync(managed, &object))
      throw nb::python_error();
    return nb::steal(static_cast<PyObject *>(object));
  }
  nb::object tensor = makeTensor(managed);
  if (!framework.fromDlpack.is_valid() || framework.fromDlpack.is_none())
    return tensor;
  return framework.fromDlpack(tensor);
}

[[noreturn]] void raiseCallError(const char *function, int32_t status,
                                 const char *message) {
  std::string text = std::string(function) + "(): " + message;
  switch (status) {
  case DLRT_ERR_DTYPE:
    throw nb::type_error(text.c_str());
  case DLRT_ERR_READ_ONLY:
    throw nb::buffer_error(text.c_str());
  case DLRT_ERR_OUT_OF_MEMORY:
    PyErr_SetString(PyExc_MemoryError, text.c_str());
    throw nb::python_error();
  case DLRT_ERR_NO_CUDA_DRIVER:
  case DLRT_ERR_CUDA:
  case DLRT_ERR_UNSUPPORTED:
    PyErr_SetString(PyExc_RuntimeError, text.c_str());
    throw nb::python_error();
  default:
    throw nb::value_error(text.c_str());
  }
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

/// Converts a Python scalar to the parameter's dtype into `slot`.
void storeScalar(const PreparedCall &call, size_t index,
                 const jit::ParamInfo &param, uint64_t &slot) {
  PyObject *value = call.object(index);
  const DLDataType dtype = param.dtype;
  if (!call.isScalar(index))
    raiseScalarError(call, index, param, "a Python scalar");
  if (dtype.code == kDLFloat) {
    double number = PyFloat_AsDouble(value);
    if (number == -1.0 && PyErr_Occurred())
      throw nb::python_error();
    if (dtype.bits == 32) {
      float narrow = static_cast<float>(number);
      std::memcpy(&slot, &narrow, sizeof(narrow));
    } else {
      std::memcpy(&slot, &number, sizeof(number));
    }
    return;
  }
  if (dtype.code == kDLBool) {
    slot = PyObject_IsTrue(value) ? 1 : 0;
    return;
  }
  if (PyFloat_Check(value))
    raiseScalarError(call, index, param, "an integer");
  long long number = PyLong_AsLongLong(value);
  if (number == -1 && PyErr_Occurred())
    throw nb::python_error();
  // Little-endian: the low bytes of the slot are the narrower integer.
  std::memcpy(&slot, &number, sizeof(number));
}

nb::object loadScalar(const jit::ParamInfo &param, uint64_t slot) {
  const DLDataType dtype = param.dtype;
  if (dtype.code == kDLFloat) {
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
  return nb::int_(static_cast<long long>(static_cast<int64_t>(slot << shift) >>
                                         shift));
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

} // namespace

PreparedCall::PreparedCall(const char *function, PyObject *const *args,
                           size_t count, const ImportOptions &options)
    : name(function), objects(args), count(count), tensors(count) {
  for (size_t i = 0; i < count; ++i) {
    if (isPythonScalar(args[i]))
      continue;
    tensors[i] = importTensor(args[i], {function, static_cast<int>(i)}, options);
    if (!firstType)
      firstType = Py_TYPE(args[i]);
  }
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

nb::object dlbridge::python::runKernel(const jit::Kernel &kernel,
                                       PreparedCall &call, void *stream) {
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
    args[i] = call.tensor(i);
    flags[i] = call.flags(i);
    if (signature.device != kDLCPU && device.device_type == kDLCPU)
      device = call.tensor(i)->device;
  }
  if (signature.device != kDLCPU && device.device_type == kDLCPU)
    device = {signature.device, 0};
  checkWrittenArgsAreDistinct(call, signature);

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
    raiseCallError(call.function(), status, ctx.error);

  const ResultFramework &framework =
      getResultFramework(call.firstTensorType());
  auto result = [&](size_t j) {
    const jit::ParamInfo &param = signature.results[j];
    if (param.isTensor)
      return wrapResult(static_cast<DLManagedTensorVersioned *>(results[j]),
                        framework);
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
