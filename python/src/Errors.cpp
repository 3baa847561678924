//===- Errors.cpp - Runtime statuses as Python exceptions -----------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "Errors.h"

#include "dlbridge/Runtime/dlrt.h"

#include <nanobind/nanobind.h>

namespace nb = nanobind;
using namespace dlbridge::python;

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
  case DLRT_ERR_INDEX:
    type = PyExc_IndexError;
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

int64_t dlbridge::python::toInteger(nb::handle value, const std::string &what,
                                    int64_t min, int64_t max) {
  nb::object number = nb::steal(PyNumber_Index(value.ptr()));
  if (!number.is_valid()) {
    PyErr_Clear();
    throw nb::type_error((what + ": expected an int, got '" +
                          Py_TYPE(value.ptr())->tp_name + "'")
                             .c_str());
  }
  int overflow = 0;
  long long result = PyLong_AsLongLongAndOverflow(number.ptr(), &overflow);
  if (overflow || result < min || result > max) {
    std::string text = what + ": expected an int in [" + std::to_string(min) +
                       ", " + std::to_string(max) + "], got " +
                       nb::str(number).c_str();
    PyErr_SetString(PyExc_OverflowError, text.c_str());
    throw nb::python_error();
  }
  return result;
}
