//===- Scalars.cpp - Which Python objects are scalar arguments ------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "Scalars.h"

#include "NumPy.h"

#include <nanobind/stl/string.h>

#include <string>
#include <unordered_map>

namespace nb = nanobind;
using namespace dlbridge::python;

namespace {

/// Whether `type` derives from `numpy.<name>` (NumPy already imported).
bool derivesFromNumpy(PyTypeObject *type, PyObject *numpy, const char *name) {
  PyObject *base = PyObject_GetAttrString(numpy, name);
  if (!base) {
    PyErr_Clear();
    return false;
  }
  bool derives = PyType_Check(base) &&
                 PyType_IsSubtype(type, reinterpret_cast<PyTypeObject *>(base));
  Py_DECREF(base);
  return derives;
}

/// What a scalar type is as an argument.
struct ScalarType {
  ScalarKind kind = ScalarKind::None;
  /// NumPy's dtype for NumPy scalars; bits 0 for weak scalars.
  DLDataType dtype{};
};

/// The DLPack dtype of NumPy scalar type `type`, or bits 0.
DLDataType numpyDtype(PyTypeObject *type, PyObject *numpyModule) {
  nb::object dtype = nb::steal(PyObject_CallMethod(
      numpyModule, "dtype", "O", reinterpret_cast<PyObject *>(type)));
  if (!dtype.is_valid()) {
    PyErr_Clear();
    return {};
  }
  return numpy::dtypeOfKind(nb::cast<std::string>(dtype.attr("kind"))[0],
                            nb::cast<int64_t>(dtype.attr("itemsize")));
}

ScalarType classify(PyTypeObject *type) {
  // Subclasses of Python's scalars that are not NumPy's are weak like them.
  ScalarType weak;
  if (PyType_IsSubtype(type, &PyFloat_Type))
    weak.kind = ScalarKind::Float;
  else if (PyType_IsSubtype(type, &PyLong_Type))
    weak.kind = ScalarKind::Int;
  PyObject *numpy = PyImport_GetModule(nb::str("numpy").ptr());
  if (!numpy) {
    PyErr_Clear();
    return weak;
  }
  ScalarType result;
  result.kind = derivesFromNumpy(type, numpy, "bool_")      ? ScalarKind::Bool
                : derivesFromNumpy(type, numpy, "integer")  ? ScalarKind::Int
                : derivesFromNumpy(type, numpy, "floating") ? ScalarKind::Float
                                                            : ScalarKind::None;
  if (result.kind != ScalarKind::None)
    result.dtype = numpyDtype(type, numpy);
  Py_DECREF(numpy);
  return result.kind != ScalarKind::None ? result : weak;
}

/// The classification of `type`, computed once. The cache holds a reference
/// to each type, so no address is reused by another type; the GIL guards it.
/// Calls mostly pass arrays of one type: the last one is checked first.
const ScalarType &classifyOnce(PyTypeObject *type) {
  static auto *cache = new std::unordered_map<PyTypeObject *, ScalarType>();
  static PyTypeObject *lastType = nullptr;
  static const ScalarType *last = nullptr;
  if (type == lastType)
    return *last;
  auto it = cache->find(type);
  if (it == cache->end()) {
    Py_INCREF(type);
    it = cache->emplace(type, classify(type)).first;
  }
  lastType = type;
  last = &it->second;
  return *last;
}

} // namespace

ScalarKind dlbridge::python::scalarKind(PyObject *object) {
  if (PyFloat_CheckExact(object))
    return ScalarKind::Float;
  if (PyLong_CheckExact(object))
    return ScalarKind::Int;
  if (PyBool_Check(object))
    return ScalarKind::Bool;
  return classifyOnce(Py_TYPE(object)).kind;
}

DLDataType dlbridge::python::scalarDtype(PyObject *object) {
  if (PyFloat_CheckExact(object) || PyLong_CheckExact(object) ||
      PyBool_Check(object))
    return {};
  return classifyOnce(Py_TYPE(object)).dtype;
}

const char *dlbridge::python::scalarKindName(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::Bool:
    return "bool";
  case ScalarKind::Int:
    return "int";
  case ScalarKind::Float:
  case ScalarKind::None:
    break;
  }
  return "float";
}
