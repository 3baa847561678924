//===- NumPy.cpp - numpy.ndarray without a DLPack capsule -----------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "NumPy.h"

#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
// NumPy 2's headers build an extension that runs on NumPy 1.x and 2.x.
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>

#include <cstring>
#include <type_traits>

namespace nb = nanobind;

namespace {

static_assert(std::is_same_v<npy_intp, int64_t> ||
                  sizeof(npy_intp) == sizeof(int64_t),
              "NumPy's dims are read as DLPack's int64_t shape");

constexpr const char *kUsedVersionedName = "used_dltensor_versioned";

/// numpy.ndarray, once NumPy's C API is loaded.
PyTypeObject *arrayType = nullptr;

/// What NumPy calls `dtype`, or -1 where numpy.from_dlpack refuses it.
int typeNumber(DLDataType dtype) {
  if (dtype.lanes != 1)
    return -1;
  switch (dtype.code) {
  case kDLBool:
    return dtype.bits == 8 ? NPY_BOOL : -1;
  case kDLInt:
    switch (dtype.bits) {
    case 8:
      return NPY_INT8;
    case 16:
      return NPY_INT16;
    case 32:
      return NPY_INT32;
    case 64:
      return NPY_INT64;
    }
    return -1;
  case kDLUInt:
    switch (dtype.bits) {
    case 8:
      return NPY_UINT8;
    case 16:
      return NPY_UINT16;
    case 32:
      return NPY_UINT32;
    case 64:
      return NPY_UINT64;
    }
    return -1;
  case kDLFloat:
    switch (dtype.bits) {
    case 16:
      return NPY_FLOAT16;
    case 32:
      return NPY_FLOAT32;
    case 64:
      return NPY_FLOAT64;
    }
    return -1;
  case kDLComplex:
    switch (dtype.bits) {
    case 64:
      return NPY_COMPLEX64;
    case 128:
      return NPY_COMPLEX128;
    }
    return -1;
  }
  return -1;
}

void deleteCapsuleTensor(PyObject *capsule) {
  auto *managed = static_cast<DLManagedTensorVersioned *>(
      PyCapsule_GetPointer(capsule, kUsedVersionedName));
  if (managed && managed->deleter)
    managed->deleter(managed);
}

} // namespace

DLDataType dlbridge::python::numpy::dtypeOfKind(char kind, int64_t itemSize) {
  auto bits = static_cast<uint8_t>(8 * itemSize);
  switch (kind) {
  case 'b':
    return {kDLBool, bits, 1};
  case 'i':
    return {kDLInt, bits, 1};
  case 'u':
    return {kDLUInt, bits, 1};
  case 'f':
    return {kDLFloat, bits, 1};
  case 'c':
    return {kDLComplex, bits, 1};
  }
  return {};
}

bool dlbridge::python::numpy::load() {
  if (arrayType)
    return true;
  PyObject *module = PyImport_GetModule(nb::str("numpy").ptr());
  if (!module) {
    PyErr_Clear();
    return false;
  }
  Py_DECREF(module);
  if (PyArray_ImportNumPyAPI() < 0) {
    PyErr_Clear();
    return false;
  }
  arrayType = &PyArray_Type;
  return true;
}

bool dlbridge::python::numpy::isArray(PyObject *object) {
  PyTypeObject *type = Py_TYPE(object);
  if (arrayType)
    return type == arrayType;
  // Before NumPy's first array: is this it? (NumPy is imported by then.)
  return std::strcmp(type->tp_name, "numpy.ndarray") == 0 && load() &&
         type == arrayType;
}

bool dlbridge::python::numpy::describe(PyObject *object, DLTensor &view,
                                       int64_t *strides, uint64_t &flags) {
  auto *array = reinterpret_cast<PyArrayObject *>(object);
  PyArray_Descr *descr = PyArray_DESCR(array);
  int ndim = PyArray_NDIM(array);
  if (ndim > kMaxDims || PyArray_ISBYTESWAPPED(array))
    return false;
  npy_intp itemSize = PyDataType_ELSIZE(descr);
  DLDataType dtype = dtypeOfKind(descr->kind, itemSize);
  // Long double is not IEEE binary128: NumPy's __dlpack__ refuses it.
  if (!dtype.bits || (dtype.code == kDLFloat && dtype.bits > 64) ||
      dtype.bits > 128)
    return false;
  const npy_intp *dims = PyArray_DIMS(array);
  const npy_intp *byteStrides = PyArray_STRIDES(array);
  for (int d = 0; d < ndim; ++d) {
    if (dims[d] > 1 && byteStrides[d] % itemSize != 0)
      return false;
    strides[d] = byteStrides[d] / itemSize;
  }
  view.data = PyArray_DATA(array);
  view.device = {kDLCPU, 0};
  view.ndim = ndim;
  view.dtype = dtype;
  view.shape = reinterpret_cast<int64_t *>(const_cast<npy_intp *>(dims));
  view.strides = strides;
  view.byte_offset = 0;
  flags = PyArray_ISWRITEABLE(array) ? 0 : DLPACK_FLAG_BITMASK_READ_ONLY;
  return true;
}

bool dlbridge::python::numpy::isFromDlpack(nb::handle function) {
  if (!load())
    return false;
  nb::object module = nb::steal(PyImport_GetModule(nb::str("numpy").ptr()));
  if (!module.is_valid()) {
    PyErr_Clear();
    return false;
  }
  return nb::getattr(module, "from_dlpack", nb::none()).is(function);
}

nb::object dlbridge::python::numpy::wrap(DLManagedTensorVersioned *managed) {
  const DLTensor &t = managed->dl_tensor;
  int typeNum = typeNumber(t.dtype);
  if (!load() || typeNum < 0 || t.device.device_type != kDLCPU ||
      t.ndim > NPY_MAXDIMS)
    return {};
  // The capsule owns the tensor from here on, as numpy.from_dlpack's does.
  PyObject *capsule =
      PyCapsule_New(managed, kUsedVersionedName, deleteCapsuleTensor);
  if (!capsule) {
    if (managed->deleter)
      managed->deleter(managed);
    throw nb::python_error();
  }
  npy_intp itemSize = t.dtype.bits / 8;
  npy_intp byteStrides[NPY_MAXDIMS];
  npy_intp compact = itemSize;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    byteStrides[d] = t.strides ? t.strides[d] * itemSize : compact;
    compact *= t.shape[d];
  }
  int arrayFlags =
      managed->flags & DLPACK_FLAG_BITMASK_READ_ONLY ? 0 : NPY_ARRAY_WRITEABLE;
  PyObject *array = PyArray_NewFromDescr(
      &PyArray_Type, PyArray_DescrFromType(typeNum), t.ndim,
      reinterpret_cast<npy_intp *>(t.shape), byteStrides,
      static_cast<char *>(t.data) + t.byte_offset, arrayFlags, nullptr);
  if (!array) {
    Py_DECREF(capsule);
    throw nb::python_error();
  }
  // Steals the capsule, even when it fails.
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject *>(array), capsule) <
      0) {
    Py_DECREF(array);
    throw nb::python_error();
  }
  return nb::steal(array);
}
