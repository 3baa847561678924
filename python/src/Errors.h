//===- Errors.h - Runtime statuses as Python exceptions ---------*- C++ -*-===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_ERRORS_H
#define DLBRIDGE_PYTHON_ERRORS_H

#include <cstdint>
#include <string>

namespace dlbridge::python {

/// Raises the Python exception of a dlrt status with `message`: TypeError
/// for dtypes, BufferError for READ_ONLY, MemoryError, RuntimeError for the
/// device's failures, ValueError for the rest.
[[noreturn]] void raiseStatus(int32_t status, const std::string &message);

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_ERRORS_H
