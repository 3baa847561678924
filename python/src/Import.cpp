//===- Import.cpp - Borrow framework tensors through DLPack ---------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "Import.h"

#include "Errors.h"

#include "dlbridge/Runtime/dlrt.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <unordered_map>

namespace nb = nanobind;
using namespace dlbridge::python;

namespace {

constexpr const char *kVersionedName = "dltensor_versioned";
constexpr const char *kLegacyName = "dltensor";
constexpr const char *kUsedVersionedName = "used_dltensor_versioned";
constexpr const char *kUsedLegacyName = "used_dltensor";

/// Interned names and constant arguments of the `__dlpack__` protocol.
struct ProtocolNames {
  PyObject *dlpack = PyUnicode_InternFromString("__dlpack__");
  PyObject *dlpackDevice = PyUnicode_InternFromString("__dlpack_device__");
  PyObject *exchangeAPI =
      PyUnicode_InternFromString("__dlpack_c_exchange_api__");
  PyObject *maxVersion =
      Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
  PyObject *maxVersionKeyword = Py_BuildValue("(s)", "max_version");
  PyObject *streamKeyword = Py_BuildValue("(s)", "stream");
  PyObject *streamAndMaxVersionKeywords =
      Py_BuildValue("(ss)", "stream", "max_version");
};

const ProtocolNames &names() {
  static const ProtocolNames *instance = new ProtocolNames();
  return *instance;
}

/// Calls `object.<name>(*positional, **keywords)` with vectorcall.
PyObject *callMethod(PyObject *object, PyObject *name,
                     std::initializer_list<PyObject *> keywordValues,
                     PyObject *keywordNames) {
  PyObject *arguments[3] = {object, nullptr, nullptr};
  size_t count = 1;
  for (PyObject *value : keywordValues)
    arguments[count++] = value;
  return PyObject_VectorcallMethod(
      name, arguments, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, keywordNames);
}

bool isAccelerator(int32_t deviceType) {
  return deviceType == kDLCUDA || deviceType == kDLROCM ||
         deviceType == kDLCUDAManaged;
}

/// How arrays of a type are exchanged, from dlbridge._frameworks.exporter_of:
/// the capsule exporter of types without `__dlpack__` (e.g. TensorFlow's
/// to_dlpack), whether the framework's arrays are immutable (JAX's capsules
/// carry no READ_ONLY flag), the function giving its current CUDA stream
/// (CuPy's) and the PyTorch state its tensors carry. Looked up once per type.
struct FrameworkTraits {
  nb::object toDlpack;
  bool immutable = false;
  nb::object currentStream;
  std::optional<TorchState> torch;
};

const FrameworkTraits &getFrameworkTraits(PyTypeObject *type) {
  // Types are kept alive by the references the cache holds; the GIL guards it.
  // Its nodes never move: ImportedTensor points at their TorchState.
  static auto *cache =
      new std::unordered_map<PyTypeObject *, FrameworkTraits>();
  static PyTypeObject *lastType = nullptr;
  static const FrameworkTraits *last = nullptr;
  if (type == lastType)
    return *last;
  auto it = cache->find(type);
  if (it == cache->end()) {
    nb::handle typeObject(reinterpret_cast<PyObject *>(type));
    nb::object found = nb::module_::import_("dlbridge._frameworks")
                           .attr("exporter_of")(typeObject);
    FrameworkTraits traits;
    if (!found.attr("to_dlpack").is_none())
      traits.toDlpack = found.attr("to_dlpack");
    traits.immutable = nb::cast<bool>(found.attr("immutable"));
    if (!found.attr("current_stream").is_none())
      traits.currentStream = found.attr("current_stream");
    nb::object torch = found.attr("torch_state");
    if (!torch.is_none())
      traits.torch = TorchState{torch.attr("increment_version"),
                                torch.attr("write_refusal")};
    typeObject.inc_ref();
    it = cache->emplace(type, std::move(traits)).first;
  }
  lastType = type;
  last = &it->second;
  return it->second;
}

/// Calls `__dlpack__`, negotiating the version: 1.3 first, the legacy form
/// when the producer does not take `max_version`, a framework's exporter for
/// types without `__dlpack__`.
nb::object requestCapsule(nb::handle object, const ArgumentName &name,
                          const ImportOptions &options) {
  const ProtocolNames &n = names();
  PyObject *stream = nullptr;
  if (options.stream) {
    nb::object device =
        nb::steal(PyObject_CallMethodNoArgs(object.ptr(), n.dlpackDevice));
    if (!device.is_valid())
      throw nb::python_error();
    if (!nb::isinstance<nb::tuple>(device) || nb::len(device) != 2)
      throw nb::type_error((name.str() +
                            ": expected __dlpack_device__ to "
                            "return a (device_type, device_id) "
                            "tuple, got " +
                            nb::cast<std::string>(nb::repr(device)))
                               .c_str());
    if (isAccelerator(toInteger(device[0],
                                name.str() + ": __dlpack_device__()[0]",
                                INT32_MIN, INT32_MAX)))
      stream = PyLong_FromLongLong(*options.stream);
  }
  nb::object streamValue = nb::steal(stream);
  PyObject *capsule =
      stream ? callMethod(object.ptr(), n.dlpack, {stream, n.maxVersion},
                          n.streamAndMaxVersionKeywords)
             : callMethod(object.ptr(), n.dlpack, {n.maxVersion},
                          n.maxVersionKeyword);
  if (capsule)
    return nb::steal(capsule);
  if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
    PyErr_Clear();
    const FrameworkTraits &traits = getFrameworkTraits(Py_TYPE(object.ptr()));
    if (traits.toDlpack.is_valid())
      return traits.toDlpack(object);
    throw nb::type_error((name.str() +
                          ": expected an array supporting DLPack "
                          "(__dlpack__), got '" +
                          Py_TYPE(object.ptr())->tp_name + "'")
                             .c_str());
  }
  if (!PyErr_ExceptionMatches(PyExc_TypeError))
    throw nb::python_error();
  // A pre-1.0 producer: it does not know `max_version`.
  PyErr_Clear();
  capsule = stream
                ? callMethod(object.ptr(), n.dlpack, {stream}, n.streamKeyword)
                : PyObject_CallMethodNoArgs(object.ptr(), n.dlpack);
  if (!capsule)
    throw nb::python_error();
  return nb::steal(capsule);
}

/// Wraps a legacy managed tensor so it can be owned like a versioned one.
struct LegacyAdapter {
  DLManagedTensorVersioned managed;
  DLManagedTensor *legacy;

  static void deleter(DLManagedTensorVersioned *self) {
    auto *adapter = reinterpret_cast<LegacyAdapter *>(self);
    if (adapter->legacy->deleter)
      adapter->legacy->deleter(adapter->legacy);
    std::free(adapter);
  }
};

} // namespace

std::optional<int64_t>
dlbridge::python::getFrameworkStream(PyTypeObject *type) {
  const FrameworkTraits &traits = getFrameworkTraits(type);
  if (!traits.currentStream.is_valid())
    return std::nullopt;
  return toInteger(traits.currentStream(), "the framework's current stream",
                   INT64_MIN, INT64_MAX);
}

const DLPackExchangeAPI *dlbridge::python::getExchangeAPI(PyTypeObject *type) {
  // Types live as long as their modules; the GIL guards the map.
  static auto *cache =
      new std::unordered_map<PyTypeObject *, const DLPackExchangeAPI *>();
  auto it = cache->find(type);
  if (it != cache->end())
    return it->second;
  const DLPackExchangeAPI *api = nullptr;
  PyObject *capsule =
      PyObject_GetAttr(reinterpret_cast<PyObject *>(type), names().exchangeAPI);
  if (capsule) {
    auto *candidate = static_cast<const DLPackExchangeAPI *>(
        PyCapsule_GetPointer(capsule, "dlpack_exchange_api"));
    if (candidate && candidate->header.version.major == DLPACK_MAJOR_VERSION)
      api = candidate;
    Py_DECREF(capsule);
  }
  PyErr_Clear();
  cache->emplace(type, api);
  return api;
}

ImportedTensor::ImportedTensor(ImportedTensor &&other) noexcept {
  *this = std::move(other);
}

ImportedTensor &ImportedTensor::operator=(ImportedTensor &&other) noexcept {
  if (this == &other)
    return *this;
  release();
  view = other.view;
  if (other.view.strides == other.viewStrides) {
    std::copy_n(other.viewStrides, view.ndim, viewStrides);
    view.strides = viewStrides;
  }
  versioned = other.versioned;
  legacy = other.legacy;
  owner = other.owner;
  torch = other.torch;
  tensorFlags = other.tensorFlags;
  knownFlags = other.knownFlags;
  immutable = other.immutable;
  materialised = other.materialised;
  dl = other.dl == &other.view ? &view : other.dl;
  other.dl = nullptr;
  other.versioned = nullptr;
  other.legacy = nullptr;
  other.owner = nullptr;
  return *this;
}

void ImportedTensor::release() {
  if (versioned && versioned->deleter)
    versioned->deleter(versioned);
  if (legacy && legacy->deleter)
    legacy->deleter(legacy);
  Py_XDECREF(owner);
  versioned = nullptr;
  legacy = nullptr;
  owner = nullptr;
  torch = nullptr;
  dl = nullptr;
  tensorFlags = 0;
  knownFlags = true;
  immutable = false;
  materialised = LazyBit::None;
}

DLManagedTensorVersioned *ImportedTensor::take() {
  DLManagedTensorVersioned *owned = versioned;
  if (legacy) {
    auto *adapter =
        static_cast<LegacyAdapter *>(std::calloc(1, sizeof(LegacyAdapter)));
    if (!adapter)
      return nullptr;
    adapter->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    adapter->managed.dl_tensor = legacy->dl_tensor;
    adapter->managed.deleter = &LegacyAdapter::deleter;
    adapter->managed.flags = tensorFlags;
    adapter->legacy = legacy;
    owned = &adapter->managed;
  }
  versioned = nullptr;
  legacy = nullptr;
  dl = nullptr;
  return owned;
}

std::string ArgumentName::str() const {
  std::string text = std::string(function) + "()";
  if (index >= 0)
    text += ": argument " + std::to_string(index);
  if (parameter)
    text += std::string(" '") + parameter + "'";
  return text;
}

namespace {

/// A producer's exchange API function failed: its Python error, else a
/// BufferError saying so (a failure without an error is the producer's bug,
/// and nanobind cannot raise an unset error).
[[noreturn]] void raiseExchangeFailure(nb::handle object,
                                       const ArgumentName &name,
                                       const char *function) {
  if (PyErr_Occurred())
    throw nb::python_error();
  throw nb::buffer_error((name.str() + ": the DLPack exchange API of '" +
                          Py_TYPE(object.ptr())->tp_name + "' failed in " +
                          function + " without setting an error")
                             .c_str());
}

/// Refuses what no entry point would take (dlrt_check_descriptor) unless
/// `options` leave it to the entry point; the caller's ImportedTensor then
/// releases the tensor. A dtype dlbridge cannot import (sub-byte elements) is
/// a BufferError, as in NumPy's from_dlpack.
void refuseMalformed(const DLTensor *tensor, const ArgumentName &name,
                     const ImportOptions &options) {
  if (!options.checkDescriptor)
    return;
  int32_t status = dlrt_check_descriptor(tensor);
  if (status == DLRT_ERR_UNSUPPORTED)
    throw nb::buffer_error((name.str() + ": " + dlrt_last_error()).c_str());
  if (status)
    raiseStatus(status, name.str() + ": " + dlrt_last_error());
}

/// A copy of `object` with its lazy `bit` materialised, where `options`
/// allow one.
nb::object materialise(nb::handle object, LazyBit bit, const ArgumentName &name,
                       const ImportOptions &options) {
  if (!options.allowCopy)
    throw nb::buffer_error(
        (name.str() + ": expected a tensor DLPack can describe without a " +
         "copy, got one with PyTorch's " + lazyBitName(bit) +
         " bit set (a lazy view); allow a copy, or pass its " +
         (bit == LazyBit::Conjugate ? "resolve_conj()" : "resolve_neg()"))
            .c_str());
  return resolveLazyBits(object);
}

} // namespace

namespace dlbridge::python {

/// Imports `object` through `api` when given, else through `__dlpack__`
/// (see importTensor); `immutable`: its framework never changes the data.
void importProducer(nb::handle object, const ArgumentName &name,
                    const ImportOptions &options, const DLPackExchangeAPI *api,
                    bool immutable, ImportedTensor &imported) {
  uint64_t immutableFlag = immutable ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  if (api) {
    if (!api->managed_tensor_from_py_object_no_sync)
      throw nb::type_error(
          (name.str() + ": expected the DLPack exchange API of '" +
           Py_TYPE(object.ptr())->tp_name +
           "' to provide managed_tensor_from_py_object_no_sync, got NULL")
              .c_str());
    if (api->dltensor_from_py_object_no_sync && !options.requireOwnership) {
      if (api->dltensor_from_py_object_no_sync(object.ptr(), &imported.view))
        raiseExchangeFailure(object, name, "dltensor_from_py_object_no_sync");
      imported.dl = &imported.view;
      imported.knownFlags = false;
      refuseMalformed(imported.dl, name, options);
      return;
    }
    DLManagedTensorVersioned *managed = nullptr;
    if (api->managed_tensor_from_py_object_no_sync(object.ptr(), &managed) ||
        !managed)
      raiseExchangeFailure(object, name,
                           "managed_tensor_from_py_object_no_sync");
    imported.versioned = managed;
    imported.dl = &managed->dl_tensor;
    imported.tensorFlags = managed->flags | immutableFlag;
    refuseMalformed(imported.dl, name, options);
    return;
  }

  nb::object capsule = requestCapsule(object, name, options);
  PyObject *raw = capsule.ptr();
  if (PyCapsule_IsValid(raw, kVersionedName)) {
    auto *managed = static_cast<DLManagedTensorVersioned *>(
        PyCapsule_GetPointer(raw, kVersionedName));
    // From here on the tensor is ours, whatever fails next.
    PyCapsule_SetName(raw, kUsedVersionedName);
    if (managed->version.major > DLPACK_MAJOR_VERSION) {
      unsigned major = managed->version.major, minor = managed->version.minor;
      if (managed->deleter)
        managed->deleter(managed);
      throw nb::buffer_error((name.str() +
                              ": expected DLPack 1.x, "
                              "got version " +
                              std::to_string(major) + "." +
                              std::to_string(minor))
                                 .c_str());
    }
    imported.versioned = managed;
    imported.dl = &managed->dl_tensor;
    imported.tensorFlags = managed->flags | immutableFlag;
    refuseMalformed(imported.dl, name, options);
    return;
  }
  if (PyCapsule_IsValid(raw, kLegacyName)) {
    auto *managed =
        static_cast<DLManagedTensor *>(PyCapsule_GetPointer(raw, kLegacyName));
    PyCapsule_SetName(raw, kUsedLegacyName);
    imported.legacy = managed;
    imported.dl = &managed->dl_tensor;
    imported.tensorFlags = immutableFlag;
    refuseMalformed(imported.dl, name, options);
    return;
  }
  if (PyCapsule_IsValid(raw, kUsedVersionedName) ||
      PyCapsule_IsValid(raw, kUsedLegacyName))
    throw nb::buffer_error((name.str() +
                            ": expected a fresh DLPack capsule, got one "
                            "that was already consumed")
                               .c_str());
  throw nb::type_error((name.str() +
                        ": expected __dlpack__ to return a DLPack capsule, "
                        "got '" +
                        Py_TYPE(raw)->tp_name + "'")
                           .c_str());
}

} // namespace dlbridge::python

void dlbridge::python::importTensor(nb::handle object, const ArgumentName &name,
                                    const ImportOptions &options,
                                    ImportedTensor &imported) {
  if (!options.requireOwnership && numpy::isArray(object.ptr()) &&
      numpy::describe(object.ptr(), imported.view, imported.viewStrides,
                      imported.tensorFlags)) {
    imported.owner = object.inc_ref().ptr();
    imported.dl = &imported.view;
    return;
  }
  PyTypeObject *type = Py_TYPE(object.ptr());
  const DLPackExchangeAPI *api = getExchangeAPI(type);
  const FrameworkTraits &traits = getFrameworkTraits(type);
  nb::object resolved;
  LazyBit bit = LazyBit::None;
  bool lazy = traits.torch && options.checkLazyBits;
  if (traits.torch && !api) {
    // PyTorch's __dlpack__ refuses tensors that require grad (autograd's
    // rules are checked on `object` where it is written) and the conjugate
    // bit, and exports the negative one as if unset: ask for a tensor
    // without them.
    if (requiresGrad(object))
      resolved = detach(object);
    nb::handle source = resolved.is_valid() ? nb::handle(resolved) : object;
    bit = lazy ? getLazyBit(source, true) : LazyBit::None;
    if (bit != LazyBit::None)
      resolved = materialise(source, bit, name, options);
  }
  importProducer(resolved.is_valid() ? nb::handle(resolved) : object, name,
                 options, api, traits.immutable, imported);
  if (lazy && api) {
    // The exchange API exports lazy views as if their bits were unset.
    bit = getLazyBit(object, imported.dl->dtype.code == kDLComplex);
    if (bit != LazyBit::None) {
      resolved = materialise(object, bit, name, options);
      imported.release();
      // Owned, so that a CUDA call releases the copy only after its stream
      // has read it (see PreparedCall::releaseAfter).
      ImportOptions owning = options;
      owning.requireOwnership = true;
      importProducer(resolved, name, owning, api, traits.immutable, imported);
    }
  }
  imported.torch = traits.torch ? &*traits.torch : nullptr;
  imported.immutable = traits.immutable;
  imported.materialised = bit;
  if (resolved.is_valid())
    imported.owner = resolved.release().ptr();
}
