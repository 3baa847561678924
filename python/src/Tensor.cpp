//===- Tensor.cpp - dlbridge.Tensor and DLPack export ---------------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "Tensor.h"

#include "Errors.h"
#include "HostCopy.h"
#include "Import.h"
#include "TorchTensors.h"

#include "dlbridge/Runtime/dlrt.h"
#include "dlbridge/Runtime/dlrt_cuda.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace dlbridge::python;

namespace {

constexpr const char *kVersionedName = "dltensor_versioned";
constexpr const char *kLegacyName = "dltensor";

/// A managed tensor (versioned or legacy) viewing a SharedTensor; its
/// deleter drops the reference.
template <typename Managed> struct ExportedTensor {
  Managed managed;
  SharedTensor *source;

  static Managed *create(SharedTensor *source, uint64_t flags) {
    auto *self =
        static_cast<ExportedTensor *>(std::calloc(1, sizeof(ExportedTensor)));
    if (!self)
      return nullptr;
    source->retain();
    self->source = source;
    self->managed.dl_tensor = source->tensor();
    self->managed.deleter = &ExportedTensor::deleter;
    if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
      self->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
      self->managed.flags = flags;
    }
    return &self->managed;
  }

  static void deleter(Managed *managed) {
    auto *self = reinterpret_cast<ExportedTensor *>(managed);
    self->source->release();
    std::free(self);
  }
};

void destroyCapsule(PyObject *capsule) {
  // A capsule nobody consumed still owns its tensor.
  if (PyCapsule_IsValid(capsule, kVersionedName)) {
    auto *managed = static_cast<DLManagedTensorVersioned *>(
        PyCapsule_GetPointer(capsule, kVersionedName));
    if (managed->deleter)
      managed->deleter(managed);
  } else if (PyCapsule_IsValid(capsule, kLegacyName)) {
    auto *managed = static_cast<DLManagedTensor *>(
        PyCapsule_GetPointer(capsule, kLegacyName));
    if (managed->deleter)
      managed->deleter(managed);
  }
}

std::string deviceName(DLDevice device) {
  char name[48];
  return dlrt_device_name(device, name, sizeof(name));
}

/// Parses a `(device_type, device_id)` tuple.
DLDevice toDevice(const nb::tuple &device) {
  if (nb::len(device) != 2)
    throw nb::value_error("expected a (device_type, device_id) tuple");
  return {static_cast<DLDeviceType>(
              toInteger(device[0], "device_type", INT32_MIN, INT32_MAX)),
          static_cast<int32_t>(
              toInteger(device[1], "device_id", INT32_MIN, INT32_MAX))};
}

/// from_dlpack's `device`: None, a (device_type, device_id) tuple, or what
/// dlbridge._frameworks can turn into one (names, framework device objects).
std::optional<DLDevice> requestedDevice(nb::handle device) {
  if (device.is_none())
    return std::nullopt;
  if (nb::isinstance<nb::tuple>(device))
    return toDevice(nb::borrow<nb::tuple>(device));
  nb::object pair = nb::module_::import_("dlbridge._frameworks")
                        .attr("dlpack_device_of")(device);
  return toDevice(nb::cast<nb::tuple>(pair));
}

bool sameDevice(DLDevice a, DLDevice b) {
  return a.device_type == b.device_type && a.device_id == b.device_id;
}

/// "(2, 3) float32", as NumPy's MemoryError describes arrays.
std::string describeShape(const DLTensor &tensor) {
  std::string text = "(";
  for (int32_t i = 0; i < tensor.ndim; ++i)
    text += std::to_string(tensor.shape[i]) +
            (i + 1 < tensor.ndim || tensor.ndim == 1 ? "," : "") +
            (i + 1 < tensor.ndim ? " " : "");
  char dtype[64];
  return text + ") " + dlrt_dtype_name(tensor.dtype, dtype, sizeof(dtype));
}

/// A host copy of `tensor`, which dlrt_check_descriptor accepted; MemoryError
/// when it cannot be allocated (its size may not even fit size_t).
DLManagedTensorVersioned *copyOrThrow(const char *function,
                                      const DLTensor &tensor, uint64_t flags) {
  if (!dlrt_host_accessible(tensor.device))
    throw nb::buffer_error(("cannot copy a tensor on " +
                            deviceName(tensor.device) + " to the host")
                               .c_str());
  DLManagedTensorVersioned *copy = copyToHost(tensor, flags);
  if (!copy) {
    std::string text = std::string(function) +
                       "(): cannot allocate a host copy of shape " +
                       describeShape(tensor);
    PyErr_SetString(PyExc_MemoryError, text.c_str());
    throw nb::python_error();
  }
  return copy;
}

//===----------------------------------------------------------------------===//
// The DLPack C exchange API, as a producer
//===----------------------------------------------------------------------===//

int allocateTensor(DLTensor *prototype, DLManagedTensorVersioned **out,
                   void *errorContext,
                   void (*setError)(void *, const char *, const char *)) {
  if (!dlrt_host_accessible(prototype->device)) {
    setError(errorContext, "BufferError",
             "dlbridge allocates host tensors only");
    return -1;
  }
  bool valid =
      prototype->ndim >= 0 && (prototype->ndim == 0 || prototype->shape);
  for (int32_t i = 0; valid && i < prototype->ndim; ++i)
    valid = prototype->shape[i] >= 0;
  if (!valid) {
    setError(errorContext, "ValueError",
             "expected a prototype with a shape of non-negative dims");
    return -1;
  }
  *out = allocateHostTensor(prototype->dtype, prototype->ndim, prototype->shape,
                            0);
  if (!*out) {
    setError(errorContext, "MemoryError",
             "cannot allocate a host tensor of the prototype's size");
    return -1;
  }
  return 0;
}

Tensor *asTensor(void *object) {
  nb::handle handle(static_cast<PyObject *>(object));
  if (!nb::isinstance<Tensor>(handle)) {
    PyErr_SetString(PyExc_TypeError, "expected a dlbridge.Tensor");
    return nullptr;
  }
  return nb::inst_ptr<Tensor>(handle);
}

int managedFromObject(void *object, DLManagedTensorVersioned **out) {
  Tensor *tensor = asTensor(object);
  if (!tensor)
    return -1;
  *out = tensor->exportVersioned();
  if (!*out) {
    PyErr_NoMemory();
    return -1;
  }
  return 0;
}

int managedToObject(DLManagedTensorVersioned *managed, void **out) {
  try {
    *out = makeTensor(managed).release().ptr();
    return 0;
  } catch (...) {
    PyErr_SetString(PyExc_MemoryError, "cannot wrap a dlbridge.Tensor");
    return -1;
  }
}

int viewFromObject(void *object, DLTensor *out) {
  Tensor *tensor = asTensor(object);
  if (!tensor)
    return -1;
  *out = tensor->tensor();
  return 0;
}

/// The stream each CUDA device's latest call on this thread ran on (see
/// noteWorkStream); devices past the table report the legacy one.
constexpr int32_t kTrackedDevices = 64;
thread_local void *workStreams[kTrackedDevices];

/// dlbridge has no stream of its own: its work runs on its callers'. The
/// latest on this thread is what a consumer of its results, which the
/// exchange API does not order, must wait for.
int currentWorkStream(DLDeviceType type, int32_t device, void **stream) {
  bool tracked = (type == kDLCUDA || type == kDLCUDAManaged) && device >= 0 &&
                 device < kTrackedDevices;
  *stream = tracked ? workStreams[device] : nullptr;
  return 0;
}

const DLPackExchangeAPI kExchangeAPI = {
    {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, nullptr},
    allocateTensor,
    managedFromObject,
    managedToObject,
    viewFromObject,
    currentWorkStream,
};

} // namespace

bool dlbridge::python::isTensorType(PyTypeObject *type) {
  return type == reinterpret_cast<PyTypeObject *>(nb::type<Tensor>().ptr());
}

void dlbridge::python::noteWorkStream(DLDevice device, void *stream) {
  if (device.device_id >= 0 && device.device_id < kTrackedDevices)
    workStreams[device.device_id] = stream;
}

SharedTensor *SharedTensor::adopt(DLManagedTensorVersioned *managed,
                                  std::optional<void *> stream,
                                  bool immutable) {
  return new SharedTensor(managed, stream, immutable);
}

void SharedTensor::release() {
  if (refs.fetch_sub(1, std::memory_order_acq_rel) != 1)
    return;
  if (managed->deleter)
    managed->deleter(managed);
  delete this;
}

Tensor::Tensor(DLManagedTensorVersioned *managed, std::optional<void *> stream,
               bool immutable)
    : shared(SharedTensor::adopt(managed, stream, immutable)) {}

Tensor::~Tensor() {
  if (shared)
    shared->release();
}

nb::tuple Tensor::shape() const {
  const DLTensor &t = tensor();
  nb::list dims;
  for (int32_t i = 0; i < t.ndim; ++i)
    dims.append(t.shape[i]);
  return nb::tuple(dims);
}

nb::tuple Tensor::strides() const {
  const DLTensor &t = tensor();
  std::vector<int64_t> elementStrides(t.ndim);
  // Imports accepted the tensor, so only its storage could be refused.
  if (dlrt_tensor_strides(&t, elementStrides.data()) != DLRT_OK)
    throw nb::value_error(dlrt_last_error());
  nb::list result;
  for (int64_t stride : elementStrides)
    result.append(stride);
  return nb::tuple(result);
}

std::string Tensor::dtype() const {
  char name[64];
  return dlrt_dtype_name(tensor().dtype, name, sizeof(name));
}

nb::tuple Tensor::dlpackDevice() const {
  return nb::make_tuple(static_cast<int>(tensor().device.device_type),
                        tensor().device.device_id);
}

uintptr_t Tensor::dataPointer() const {
  return reinterpret_cast<uintptr_t>(tensor().data) + tensor().byte_offset;
}

DLManagedTensorVersioned *Tensor::exportVersioned() const {
  return ExportedTensor<DLManagedTensorVersioned>::create(shared, flags());
}

nb::object Tensor::dlpack(nb::handle stream,
                          std::optional<nb::tuple> maxVersion,
                          std::optional<nb::tuple> dlDevice,
                          std::optional<bool> copy) const {
  const DLTensor &t = tensor();
  bool onHost = t.device.device_type == kDLCPU;
  if (onHost && !stream.is_none())
    throw nb::buffer_error("stream must be None for a CPU tensor");
  std::optional<void *> producer = shared->stream();
  if (!onHost && (producer || !stream.is_none())) {
    // The consumer's stream (None: the legacy default one) waits for the
    // kernel that wrote the data, as the array API asks of producers; data
    // no kernel of ours wrote is complete, but the value must be valid.
    void *consumer;
    bool given = !stream.is_none();
    if (dlrt_stream_from_dlpack(
            t.device,
            given ? toInteger(stream, "stream", INT64_MIN, INT64_MAX) : 0,
            given, &consumer) != DLRT_OK ||
        (producer &&
         dlrt_stream_wait(t.device, consumer, *producer) != DLRT_OK))
      throw nb::buffer_error(dlrt_last_error());
  }
  bool versioned = maxVersion && nb::len(*maxVersion) >= 1 &&
                   toInteger((*maxVersion)[0], "max_version[0]", INT64_MIN,
                             INT64_MAX) >= DLPACK_MAJOR_VERSION;
  bool mustCopy = copy.value_or(false);
  if (dlDevice && !sameDevice(toDevice(*dlDevice), t.device)) {
    DLDevice target = toDevice(*dlDevice);
    if (copy == false || target.device_type != kDLCPU)
      throw nb::buffer_error(
          ("cannot export a tensor on " + deviceName(t.device) + " to " +
           deviceName(target) + (copy == false ? " without a copy" : ""))
              .c_str());
    mustCopy = true;
  }

  // A legacy capsule cannot say the data is read-only: its consumer gets a
  // copy where the array API allows one, or the data itself where its
  // framework never changes it anyway (JAX's own capsules are legacy).
  if (!versioned && (flags() & DLPACK_FLAG_BITMASK_READ_ONLY) && !immutable()) {
    if (copy == false)
      throw nb::buffer_error(
          "cannot export a READ_ONLY tensor as a legacy (unversioned) DLPack "
          "capsule without a copy, as such a capsule cannot say it is "
          "read-only: ask for max_version >= (1, 0), or allow a copy "
          "(copy=None or copy=True)");
    mustCopy = true;
  }
  if (mustCopy) {
    Tensor copied(copyOrThrow("__dlpack__", t, DLPACK_FLAG_BITMASK_IS_COPIED));
    return copied.dlpack(nb::none(), maxVersion, std::nullopt, false);
  }
  PyObject *capsule;
  if (versioned) {
    DLManagedTensorVersioned *managed = exportVersioned();
    if (!managed)
      throw std::bad_alloc();
    capsule = PyCapsule_New(managed, kVersionedName, destroyCapsule);
    if (!capsule)
      managed->deleter(managed);
  } else {
    DLManagedTensor *managed =
        ExportedTensor<DLManagedTensor>::create(shared, 0);
    if (!managed)
      throw std::bad_alloc();
    capsule = PyCapsule_New(managed, kLegacyName, destroyCapsule);
    if (!capsule)
      managed->deleter(managed);
  }
  if (!capsule)
    throw nb::python_error();
  return nb::steal(capsule);
}

nb::object dlbridge::python::makeTensor(DLManagedTensorVersioned *managed,
                                        std::optional<void *> stream,
                                        bool immutable) {
  return nb::cast(Tensor(managed, stream, immutable), nb::rv_policy::move);
}

void dlbridge::python::bindTensor(nb::module_ &m) {
  auto tensor =
      nb::class_<Tensor>(m, "Tensor",
                         "A tensor owned by dlbridge (a kernel's result or an "
                         "import), exported zero-copy through DLPack.")
          .def_prop_ro("shape", &Tensor::shape,
                       nb::sig("def shape(self) -> tuple[int, ...]"),
                       "The size of each dimension.")
          .def_prop_ro("strides", &Tensor::strides,
                       nb::sig("def strides(self) -> tuple[int, ...]"),
                       "Strides in elements (DLPack's convention).")
          .def_prop_ro("dtype", &Tensor::dtype,
                       "The element type as NumPy names it ('float32', "
                       "'int64', 'bool'...).")
          .def_prop_ro(
              "device",
              [](const Tensor &t) { return deviceName(t.tensor().device); },
              "Where the data is, as 'cpu:0' or 'cuda:1'.")
          .def_prop_ro(
              "ndim", [](const Tensor &t) { return t.tensor().ndim; },
              "The number of dimensions.")
          .def_prop_ro("data_ptr", &Tensor::dataPointer,
                       "Address of the first element.")
          .def_prop_ro(
              "readonly",
              [](const Tensor &t) {
                return (t.flags() & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
              },
              "Whether the producer forbids writing to the data.")
          .def("__dlpack__", &Tensor::dlpack, nb::kw_only(),
               nb::arg("stream").none() = nb::none(),
               nb::arg("max_version").none() = nb::none(),
               nb::arg("dl_device").none() = nb::none(),
               nb::arg("copy").none() = nb::none(),
               nb::sig("def __dlpack__(self, *, stream: int | None = None, "
                       "max_version: tuple[int, int] | None = None, "
                       "dl_device: tuple[int, int] | None = None, "
                       "copy: bool | None = None) -> "
                       "typing_extensions.CapsuleType"),
               "Exports the tensor as a DLPack capsule (versioned when "
               "max_version allows 1.x, legacy otherwise). A READ_ONLY "
               "tensor reaches a legacy consumer as a copy (BufferError "
               "with copy=False), or as it is where its framework's arrays "
               "are immutable (JAX).")
          .def("__dlpack_device__", &Tensor::dlpackDevice,
               nb::sig("def __dlpack_device__(self) -> tuple[int, int]"),
               "The (DLDeviceType, device id) pair of the data.")
          .def("__repr__", [](const Tensor &t) {
            std::string shape = nb::cast<std::string>(nb::repr(t.shape()));
            return "dlbridge.Tensor(shape=" + shape + ", dtype=" + t.dtype() +
                   ", device=" + deviceName(t.tensor().device) + ")";
          });
  tensor.attr("__dlpack_c_exchange_api__") =
      nb::capsule(&kExchangeAPI, "dlpack_exchange_api");

  m.def(
      "from_dlpack",
      [](nb::handle x, nb::handle device, std::optional<bool> copy) {
        std::optional<DLDevice> target = requestedDevice(device);
        ImportOptions options;
        options.requireOwnership = true;
        options.allowCopy = copy != false;
        ImportedTensor imported;
        importTensor(x, {"from_dlpack", -1}, options, imported);
        const DLTensor source = *imported.tensor();
        // A materialised lazy view is already a copy of the object's data.
        bool copied = imported.materialisedBit() != LazyBit::None;
        bool mustCopy = copy.value_or(false) && !copied;
        if (target && !sameDevice(*target, source.device)) {
          if (copy == false || target->device_type != kDLCPU)
            throw nb::buffer_error(("cannot import a tensor on " +
                                    deviceName(source.device) + " to " +
                                    deviceName(*target) +
                                    (copy == false ? " without a copy" : ""))
                                       .c_str());
          mustCopy = true;
        }
        // A copy is the caller's to write: only IS_COPIED of the flags stays.
        if (mustCopy)
          return makeTensor(copyOrThrow("from_dlpack", source,
                                        DLPACK_FLAG_BITMASK_IS_COPIED));
        bool immutable =
            imported.immutableData() || (isTensorType(Py_TYPE(x.ptr())) &&
                                         nb::inst_ptr<Tensor>(x)->immutable());
        // Autograd would not see writes through the result: it keeps them
        // away from a tensor that requires grad, as PyTorch's __dlpack__
        // refuses to export one.
        bool readOnly = !copied && imported.torchState() && requiresGrad(x);
        DLManagedTensorVersioned *owned = imported.take();
        if (!owned)
          throw std::bad_alloc();
        if (copied)
          owned->flags = DLPACK_FLAG_BITMASK_IS_COPIED;
        if (readOnly)
          owned->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
        return makeTensor(owned, std::nullopt, immutable);
      },
      nb::arg("x"), nb::kw_only(), nb::arg("device").none() = nb::none(),
      nb::arg("copy").none() = nb::none(),
      nb::sig("def from_dlpack(x: SupportsDLPack, *, "
              "device: object | None = None, copy: bool | None = None) -> "
              "Tensor"),
      "Imports any object implementing __dlpack__ as a dlbridge.Tensor, "
      "zero-copy unless copy=True or another device is asked for, or x is a "
      "PyTorch conjugate or negative view (copied with the bit "
      "materialised; BufferError with copy=False). A PyTorch tensor that "
      "requires grad comes in READ_ONLY. `device` "
      "is a (device_type, device_id) tuple, a name such as 'cpu' or "
      "'cuda:0', or a framework's device object (e.g. x.device).");

  m.def(
      "device_type",
      [](const std::string &name) {
        int32_t type;
        if (dlrt_parse_device_type(name.c_str(), &type) != DLRT_OK)
          throw nb::value_error(dlrt_last_error());
        return type;
      },
      nb::arg("name"),
      "The DLDeviceType of a device type name as dlbridge.Tensor.device "
      "spells it ('cpu', 'cuda', 'cuda_managed'); ValueError for others.");
}
