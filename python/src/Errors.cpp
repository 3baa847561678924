//===- Errors.cpp - Runtime statuses as Python exceptions -----------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "Errors.h"

#include "dlbridge/Runtime/dlrt.h"

#include <nanobind/nanobind.h>

namespace nb = nanobind;

void dlbridge::python::raiseStatus(int32_t status, const std::string &message) {
  PyObject *type = PyExc_ValueError;
  switch (status) {
  case DLRT_ERR_DTYPE:
    type = PyExc_TypeError;
    break;
  case DLRT_ERR_READ_ONLY:
    type = PyExc_BufferError;
    break;
  case DLRT_ERR_OUT_OF_MEMORY:
    type = PyExc_MemoryError;
    break;
  case DLRT_ERR_NO_CUDA_DRIVER:
  case DLRT_ERR_CUDA:
  case DLRT_ERR_UNSUPPORTED:
    type = PyExc_RuntimeError;
    break;
  default:
    break;
  }
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}
