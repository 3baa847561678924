//===- Dispatcher.cpp - @dlbridge.jit's specialisation cache --------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "Dispatcher.h"

#include "Errors.h"

#include "dlbridge/Runtime/dlrt.h"
#include "dlbridge/Runtime/dlrt_cuda.h"

#include <nanobind/stl/string.h>

namespace nb = nanobind;
using namespace dlbridge;
using namespace dlbridge::python;

namespace {

constexpr uint64_t kTensorTag = uint64_t(1) << 63;

/// The `stream=` keyword (a DLPack stream value): what producers of CUDA
/// tensors are asked to order their work before, and what the kernel runs on.
void *getStream(const nb::kwargs &kwargs, const char *function,
                ImportOptions &options) {
  void *stream = nullptr;
  for (auto [key, value] : kwargs) {
    if (nb::cast<std::string>(key) != "stream")
      throw nb::type_error((std::string(function) +
                            "() got an unexpected keyword argument '" +
                            nb::cast<std::string>(key) + "'")
                               .c_str());
    if (value.is_none())
      continue;
    options.stream = toInteger(value, std::string(function) + "(): stream",
                               INT64_MIN, INT64_MAX);
    if (dlrt_stream_from_dlpack({kDLCUDA, 0}, *options.stream, 1, &stream) !=
        DLRT_OK)
      throw nb::value_error(dlrt_last_error());
  }
  return stream;
}

} // namespace

Dispatcher::Dispatcher(nb::callable compiler, std::string name)
    : compiler(std::move(compiler)), functionName(std::move(name)) {}

namespace {

/// Two words per argument: its kind (a scalar's, or a tensor's dtype, rank
/// and device) and a tensor's size-1 dims or a NumPy scalar's dtype.
void computeKey(PreparedCall &call, uint64_t *key) {
  for (size_t i = 0; i < call.size(); ++i, key += 2) {
    if (call.isScalar(i)) {
      DLDataType dtype = scalarDtype(call.object(i));
      key[0] = static_cast<uint64_t>(call.scalarKind(i));
      key[1] = uint64_t(dtype.code) | uint64_t(dtype.bits) << 8;
      continue;
    }
    const DLTensor *t = call.tensor(i);
    uint64_t unitDims = 0;
    for (int32_t d = 0; d < t->ndim && d < 64; ++d)
      if (t->shape[d] == 1)
        unitDims |= uint64_t(1) << d;
    key[0] = kTensorTag | uint64_t(t->dtype.code) |
             uint64_t(t->dtype.bits) << 8 | uint64_t(t->dtype.lanes) << 16 |
             uint64_t(uint32_t(t->ndim) & 0xff) << 32 |
             uint64_t(t->device.device_type & 0xff) << 40 |
             uint64_t(t->device.device_id & 0xff) << 48;
    key[1] = unitDims;
  }
}

} // namespace

nb::tuple Dispatcher::specsFor(PreparedCall &call) {
  nb::list specs;
  for (size_t i = 0; i < call.size(); ++i) {
    if (call.isScalar(i)) {
      DLDataType dtype = scalarDtype(call.object(i));
      char name[64];
      nb::object dtypeName =
          dtype.bits ? nb::object(nb::str(dlrt_dtype_name(dtype, name,
                                                          sizeof(name))))
                     : nb::none();
      specs.append(nb::make_tuple(
          "scalar", scalarKindName(call.scalarKind(i)), dtypeName));
      continue;
    }
    const DLTensor *t = call.tensor(i);
    char dtype[64];
    dlrt_dtype_name(t->dtype, dtype, sizeof(dtype));
    nb::list unitDims;
    for (int32_t d = 0; d < t->ndim; ++d)
      unitDims.append(t->shape[d] == 1);
    specs.append(nb::make_tuple(
        "array", std::string(dtype), t->ndim, nb::tuple(unitDims),
        nb::make_tuple(static_cast<int>(t->device.device_type),
                       t->device.device_id)));
  }
  return nb::tuple(specs);
}

nb::tuple Dispatcher::specsOf(nb::args args) {
  PreparedCall call(functionName.c_str(), &PyTuple_GET_ITEM(args.ptr(), 0),
                    args.size(), {});
  return specsFor(call);
}

nb::object Dispatcher::call(nb::args args, nb::kwargs kwargs) {
  ImportOptions options;
  void *stream = getStream(kwargs, functionName.c_str(), options);
  PreparedCall call(functionName.c_str(), &PyTuple_GET_ITEM(args.ptr(), 0),
                    args.size(), options);
  SmallArray<uint64_t, 16> key(2 * call.size());
  computeKey(call, key.data());
  const jit::Kernel *kernel = table.find(key.data(), key.size());
  if (!kernel) {
    // The compiler releases the GIL: another thread may compile the same
    // key meanwhile; the table keeps the first kernel inserted.
    nb::callable compile = compiler;
    if (!compile.is_valid())
      throw nb::type_error((functionName + "() can no longer compile").c_str());
    nb::object compiled = compile(specsFor(call));
    kernel = &table.insert(key.data(), key.size(),
                           nb::cast<jit::Kernel>(compiled));
  }
  return runKernel(*kernel, call, stream);
}

namespace {
int traverseDispatcher(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self))
    return 0;
  Py_VISIT(nb::inst_ptr<Dispatcher>(self)->compilerCallback().ptr());
  return 0;
}

int clearDispatcher(PyObject *self) {
  nb::inst_ptr<Dispatcher>(self)->compilerCallback().reset();
  return 0;
}

PyType_Slot dispatcherSlots[] = {
    {Py_tp_traverse, reinterpret_cast<void *>(traverseDispatcher)},
    {Py_tp_clear, reinterpret_cast<void *>(clearDispatcher)},
    {0, nullptr}};
} // namespace

void dlbridge::python::bindDispatcher(nb::module_ &m) {
  nb::class_<Dispatcher>(m, "Dispatcher",
                         "The compiled-call path of a @dlbridge.jit function.",
                         nb::type_slots(dispatcherSlots))
      .def(nb::init<nb::callable, std::string>(), nb::arg("compiler"),
           nb::arg("name"))
      .def("__call__", &Dispatcher::call)
      .def("specs", &Dispatcher::specsOf,
           "The specialisation specs of an argument list.")
      .def_prop_ro("num_specialisations", &Dispatcher::numSpecialisations)
      .def_prop_ro("name", &Dispatcher::name);
}
