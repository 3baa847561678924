//===- NumPy.h - numpy.ndarray without a DLPack capsule ---------*- C++ -*-===//
//
// Part of dlbridge's Python extension.
//
// The call path's fast path for NumPy, the framework most calls come from:
// an exact numpy.ndarray argument is described by reading the array itself,
// and a result for a NumPy caller becomes an ndarray through NumPy's C API.
// Both give what the DLPack protocol would (numpy.ndarray.__dlpack__ and
// numpy.from_dlpack), without a capsule, a managed tensor or a method call
// per array. Whatever they do not cover goes through DLPack as before.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_NUMPY_H
#define DLBRIDGE_PYTHON_NUMPY_H

#include <dlpack/dlpack.h>
#include <nanobind/nanobind.h>

#include <cstdint>

namespace dlbridge::python::numpy {

/// The most dims an array the fast path describes may have.
constexpr int32_t kMaxDims = 8;

/// The DLPack dtype of a NumPy dtype of `kind` ('b', 'i', 'u', 'f', 'c')
/// and `itemSize` bytes, or bits 0 for other kinds.
DLDataType dtypeOfKind(char kind, int64_t itemSize);

/// Loads NumPy's C API if NumPy has been imported (dlbridge never imports it
/// itself); returns whether it is loaded.
bool load();

/// Whether `object` is exactly a numpy.ndarray (subclasses are not: they may
/// override __dlpack__).
bool isArray(PyObject *object);

/// Describes the numpy.ndarray `array` in `view` as its __dlpack__ would,
/// borrowing its shape, with strides in elements written to `strides`
/// (kMaxDims entries), and returns its DLPack flags (READ_ONLY when the array
/// is not writeable) in `flags`. Returns false, touching nothing, for what
/// the fast path leaves to __dlpack__: other byte orders, dtypes NumPy does
/// not export, strides that are not whole elements, over kMaxDims dims.
bool describe(PyObject *array, DLTensor &view, int64_t *strides,
              uint64_t &flags);

/// Whether `function` is numpy.from_dlpack, whose results wrap() makes.
bool isFromDlpack(nanobind::handle function);

/// A numpy.ndarray that owns `managed` (its deleter runs when the array and
/// its views are gone), as numpy.from_dlpack would make it. Returns an empty
/// object, leaving `managed` to the caller, for a dtype NumPy has not or a
/// tensor not on the CPU; throws on failure, after releasing `managed`.
nanobind::object wrap(DLManagedTensorVersioned *managed);

} // namespace dlbridge::python::numpy

#endif // DLBRIDGE_PYTHON_NUMPY_H
