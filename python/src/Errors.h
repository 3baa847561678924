//===- Errors.h - Runtime statuses as Python exceptions ---------*- C++ -*-===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_ERRORS_H
#define DLBRIDGE_PYTHON_ERRORS_H

#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>

namespace dlbridge::python {

/// Raises the Python exception of a dlrt status with `message`: TypeError
/// for dtypes, BufferError for READ_ONLY, MemoryError, RuntimeError for the
/// device's failures, ValueError for the rest.
[[noreturn]] void raiseStatus(int32_t status, const std::string &message);

/// Sets the Python error of the C++ exception being handled and returns
/// NULL: the guard of the extension's own C entry points (type slots), where
/// nanobind does not translate. Call only inside a catch block.
PyObject *setErrorFromException() noexcept;

/// `value` as an integer in [min, max]: TypeError naming `what` when it is
/// not an integer, OverflowError when it does not fit.
int64_t toInteger(nanobind::handle value, const std::string &what, int64_t min,
                  int64_t max);

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_ERRORS_H
