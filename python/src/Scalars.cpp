//===- Scalars.cpp - Which Python objects are scalar arguments ------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "Scalars.h"

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
  bool derives =
      PyType_Check(base) &&
      PyType_IsSubtype(type, reinterpret_cast<PyTypeObject *>(base));
  Py_DECREF(base);
  return derives;
}

ScalarKind classify(PyTypeObject *type) {
  PyObject *numpy = PyImport_GetModule(nb::str("numpy").ptr());
  if (!numpy) {
    PyErr_Clear();
    return ScalarKind::None;
  }
  ScalarKind kind = derivesFromNumpy(type, numpy, "bool_")      ? ScalarKind::Bool
                    : derivesFromNumpy(type, numpy, "integer")  ? ScalarKind::Int
                    : derivesFromNumpy(type, numpy, "floating") ? ScalarKind::Float
                                                                : ScalarKind::None;
  Py_DECREF(numpy);
  return kind;
}

} // namespace

ScalarKind dlbridge::python::scalarKind(PyObject *object) {
  if (PyFloat_Check(object))
    return ScalarKind::Float;
  if (PyLong_Check(object))
    return PyBool_Check(object) ? ScalarKind::Bool : ScalarKind::Int;
  // Other types are classified once. The cache holds a reference to each, so
  // no address is reused by another type; the GIL guards it. Calls mostly
  // pass arrays of one type: the last one is checked first.
  static auto *cache = new std::unordered_map<PyTypeObject *, ScalarKind>();
  static PyTypeObject *lastType = nullptr;
  static ScalarKind lastKind = ScalarKind::None;
  PyTypeObject *type = Py_TYPE(object);
  if (type == lastType)
    return lastKind;
  auto it = cache->find(type);
  if (it == cache->end()) {
    Py_INCREF(type);
    it = cache->emplace(type, classify(type)).first;
  }
  lastType = type;
  lastKind = it->second;
  return lastKind;
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
