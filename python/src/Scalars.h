//===- Scalars.h - Which Python objects are scalar arguments ----*- C++ -*-===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_SCALARS_H
#define DLBRIDGE_PYTHON_SCALARS_H

#include <dlpack/dlpack.h>
#include <nanobind/nanobind.h>

#include <cstdint>

namespace dlbridge::python {

enum class ScalarKind : uint8_t { None = 0, Bool = 1, Int = 2, Float = 3 };

/// Python bools, ints and floats (subclasses included) and NumPy's bool_,
/// integer and floating scalars are scalar arguments; everything else is a
/// tensor (kind None).
/// NumPy scalar types are recognised once per type, without importing NumPy.
ScalarKind scalarKind(PyObject *object);

/// The dtype of a NumPy scalar, which is strongly typed (NEP 50: as a 0-d
/// array of its dtype), or bits 0 for Python's own scalars, which are weak.
DLDataType scalarDtype(PyObject *object);

/// "bool", "int" or "float" (the kinds the tracer's ScalarSpec takes).
const char *scalarKindName(ScalarKind kind);

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_SCALARS_H
