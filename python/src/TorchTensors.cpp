//===- TorchTensors.cpp - PyTorch's tensor state beyond DLPack ------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "TorchTensors.h"

#include <nanobind/stl/string.h>

namespace nb = nanobind;
using namespace dlbridge::python;

namespace {

/// Interned method and attribute names of torch.Tensor.
struct TorchNames {
  PyObject *isConj = PyUnicode_InternFromString("is_conj");
  PyObject *isNeg = PyUnicode_InternFromString("is_neg");
  PyObject *isInference = PyUnicode_InternFromString("is_inference");
  PyObject *requiresGrad = PyUnicode_InternFromString("requires_grad");
  PyObject *resolveConj = PyUnicode_InternFromString("resolve_conj");
  PyObject *resolveNeg = PyUnicode_InternFromString("resolve_neg");
  PyObject *detach = PyUnicode_InternFromString("detach");
};

const TorchNames &names() {
  static const TorchNames *instance = new TorchNames();
  return *instance;
}

nb::object callMethod(nb::handle object, PyObject *name) {
  PyObject *self = object.ptr();
  PyObject *result = PyObject_VectorcallMethod(
      name, &self, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
  if (!result)
    throw nb::python_error();
  return nb::steal(result);
}

bool isTrue(nb::handle value) {
  if (value.ptr() == Py_True)
    return true;
  if (value.ptr() == Py_False)
    return false;
  int truth = PyObject_IsTrue(value.ptr());
  if (truth < 0)
    throw nb::python_error();
  return truth;
}

} // namespace

const char *dlbridge::python::lazyBitName(LazyBit bit) {
  return bit == LazyBit::Conjugate ? "conjugate" : "negative";
}

LazyBit dlbridge::python::getLazyBit(nb::handle tensor, bool complex) {
  if (complex && isTrue(callMethod(tensor, names().isConj)))
    return LazyBit::Conjugate;
  if (isTrue(callMethod(tensor, names().isNeg)))
    return LazyBit::Negative;
  return LazyBit::None;
}

nb::object dlbridge::python::resolveLazyBits(nb::handle tensor) {
  nb::object resolved = callMethod(tensor, names().resolveConj);
  return callMethod(resolved, names().resolveNeg);
}

bool dlbridge::python::requiresGrad(nb::handle tensor) {
  nb::object value =
      nb::steal(PyObject_GetAttr(tensor.ptr(), names().requiresGrad));
  if (!value.is_valid())
    throw nb::python_error();
  return isTrue(value);
}

nb::object dlbridge::python::detach(nb::handle tensor) {
  return callMethod(tensor, names().detach);
}

void dlbridge::python::checkAutogradAllowsWrite(const TorchState &state,
                                                nb::handle tensor,
                                                const std::string &argument) {
  if (!requiresGrad(tensor) && !isTrue(callMethod(tensor, names().isInference)))
    return;
  nb::object reason = state.writeRefusal(tensor);
  if (reason.is_none())
    return;
  std::string text = argument + ": " + nb::cast<std::string>(reason);
  PyErr_SetString(PyExc_RuntimeError, text.c_str());
  throw nb::python_error();
}

void dlbridge::python::noteInPlaceWrites(const TorchState &state,
                                         nb::handle tensors) {
  state.incrementVersion(tensors);
}
