//===- Errors.cpp - Runtime statuses as Python exceptions -----------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "Errors.h"

#include "dlbridge/Runtime/dlrt.h"

#include <nanobind/nanobind.h>

#include <new>

namespace nb = nanobind;
using namespace dlbridge::python;

PyObject *dlbridge::python::setErrorFromException() noexcept {
  try {
    throw;
  } catch (nb::python_error &error) {
    error.restore();
  } catch (const nb::builtin_exception &error) {
    PyObject *type = PyExc_RuntimeError;
    switch (error.type()) {
    case nb::exception_type::stop_iteration:
      type = PyExc_StopIteration;
      break;
    case nb::exception_type::index_error:
      type = PyExc_IndexError;
      break;
    case nb::exception_type::key_error:
      type = PyExc_KeyError;
      break;
    case nb::exception_type::value_error:
      type = PyExc_ValueError;
      break;
    case nb::exception_type::type_error:
      type = PyExc_TypeError;
      break;
    case nb::exception_type::buffer_error:
      type = PyExc_BufferError;
      break;
    case nb::exception_type::import_error:
      type = PyExc_ImportError;
      break;
    case nb::exception_type::attribute_error:
      type = PyExc_AttributeError;
      break;
    case nb::exception_type::runtime_error:
    case nb::exception_type::next_overload:
      break;
    }
    PyErr_SetString(type, error.what());
  } catch (const std::bad_alloc &) {
    PyErr_NoMemory();
  } catch (const std::exception &error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
  return nullptr;
}

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
