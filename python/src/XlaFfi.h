//===- XlaFfi.h - dlbridge kernels as XLA FFI targets -----------*- C++ -*-===//
//
// Part of dlbridge's Python extension. Built only where the Python that
// builds it has jaxlib, whose headers declare XLA's FFI (see
// python/CMakeLists.txt); dlbridge.jax uses it.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_XLAFFI_H
#define DLBRIDGE_PYTHON_XLAFFI_H

#include <nanobind/nanobind.h>

namespace dlbridge::python {

/// Adds to `m`: `_xla_ffi_handlers()`, the handlers as PyCapsules per XLA
/// platform ("cpu", "CUDA"), and `_xla_register_kernel(kernel)`, which keeps
/// a Kernel for the process's lifetime and returns the key the handlers'
/// `kernel` attribute names it by.
void bindXlaFfi(nanobind::module_ &m);

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_XLAFFI_H
