//===- Dispatcher.cpp - @dlbridge.jit's specialisation cache --------------===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#include "Dispatcher.h"

#include "Errors.h"
#include "Scalars.h"

#include "dlbridge/Runtime/dlrt.h"
#include "dlbridge/Runtime/dlrt_cuda.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_set>

namespace nb = nanobind;
using namespace dlbridge;
using namespace dlbridge::python;

namespace {

constexpr uint64_t kTensorTag = uint64_t(1) << 63;

/// The `stream=` keyword (a DLPack stream value): what producers of CUDA
/// tensors are asked to order their work before, and what the kernel runs on.
void setStream(PyObject *value, const std::string &function,
               ImportOptions &options) {
  if (!value || value == Py_None)
    return;
  options.stream = toInteger(nb::handle(value), function + "(): stream",
                             INT64_MIN, INT64_MAX);
  void *stream = nullptr;
  if (dlrt_stream_from_dlpack({kDLCUDA, 0}, *options.stream, 1, &stream) !=
      DLRT_OK)
    throw nb::value_error(dlrt_last_error());
}

[[noreturn]] void typeError(const std::string &message) {
  throw nb::type_error(message.c_str());
}

/// What `dlbridge._routes.route` makes of a call whose arguments DLPack
/// cannot import (a JAX tracer, a PyTorch fake tensor): the framework's front
/// door's result, or NotImplemented when no front door takes them.
nb::object routeForeignCall(nb::handle function, PyObject *const *args,
                            size_t count, PyObject *kwargs) {
  nb::list positional;
  for (size_t i = 0; i < count; ++i)
    positional.append(nb::handle(args[i]));
  nb::object keywords = kwargs ? nb::borrow<nb::dict>(kwargs) : nb::dict();
  return nb::module_::import_("dlbridge._routes")
      .attr("route")(function, nb::tuple(positional), keywords);
}

} // namespace

Dispatcher::Dispatcher(nb::callable compiler, std::string name,
                       nb::object parameters, nb::tuple defaults,
                       std::vector<size_t> statics)
    : compiler(std::move(compiler)), functionName(std::move(name)),
      defaults(std::move(defaults)) {
  if (!parameters.is_none()) {
    bindsKeywords = true;
    for (nb::handle p : parameters)
      parameterNames.push_back(nb::cast<std::string>(p));
  }
  for (size_t position : statics) {
    if (position >= isStatic.size())
      isStatic.resize(position + 1, false);
    isStatic[position] = true;
  }
}

void Dispatcher::bind(PyObject *const *positional, size_t given,
                      PyObject *kwargs, Bound &bound) {
  size_t total = bindsKeywords ? parameterNames.size() : given;
  if (bindsKeywords && given > total)
    typeError(functionName + "() takes " + std::to_string(total) +
              " positional argument" + (total == 1 ? "" : "s") + " but " +
              std::to_string(given) + " were given");
  // The common call: every parameter positionally, nothing static, no None.
  bool keywords = kwargs && PyDict_GET_SIZE(kwargs) != 0;
  if (!keywords && isStatic.empty() && given == total &&
      std::find(positional, positional + given, Py_None) ==
          positional + given) {
    bound.dynamic = positional;
    bound.count = given;
    return;
  }
  PyObject **values = bound.storage.data();
  for (size_t i = 0; i < given; ++i)
    values[i] = positional[i];
  for (auto [key, value] :
       keywords ? nb::borrow<nb::dict>(kwargs) : nb::dict()) {
    std::string name = nb::cast<std::string>(key);
    auto found = std::find(parameterNames.begin(), parameterNames.end(), name);
    if (found == parameterNames.end()) {
      if (name == "stream") {
        bound.stream = value.ptr();
        continue;
      }
      typeError(functionName + "() got an unexpected keyword argument '" +
                name + "'");
    }
    size_t i = found - parameterNames.begin();
    if (values[i])
      typeError(functionName + "() got multiple values for argument '" + name +
                "'");
    values[i] = value.ptr();
  }
  size_t firstDefault = total - std::min(total, defaults.size());
  for (size_t i = 0; i < total; ++i) {
    if (values[i])
      continue;
    if (i < firstDefault)
      typeError(functionName + "() missing required argument '" +
                parameterNames[i] + "'");
    values[i] = defaults[i - firstDefault].ptr();
  }
  // Static values move to `statics`, None (an optional array left out) to
  // `nones`; the others close up.
  nb::list statics;
  size_t count = 0;
  for (size_t i = 0; i < total; ++i) {
    if (i < isStatic.size() && isStatic[i])
      statics.append(nb::handle(values[i]));
    else if (values[i] == Py_None && i < 64)
      bound.nones |= uint64_t(1) << i;
    else
      values[count++] = values[i];
  }
  bound.dynamic = values;
  bound.count = count;
  bound.statics = nb::tuple(statics);
}

namespace {
size_t popcount(uint64_t bits) {
  return static_cast<size_t>(__builtin_popcountll(bits));
}

/// The bits of `value`, one pattern for every NaN.
uint64_t floatBits(double value) {
  if (std::isnan(value))
    return 0x7FF8000000000000ull;
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}
} // namespace

nb::object dlbridge::python::staticKey(nb::handle value) {
  PyObject *object = value.ptr();
  nb::handle type(reinterpret_cast<PyObject *>(Py_TYPE(object)));
  bool numpyFloat = !PyFloat_Check(object) &&
                    scalarKind(object) == ScalarKind::Float &&
                    scalarDtype(object).bits <= 64;
  if (PyFloat_Check(object) || numpyFloat) {
    double number = PyFloat_AsDouble(object);
    if (number == -1.0 && PyErr_Occurred())
      throw nb::python_error();
    return nb::make_tuple(type, nb::int_(floatBits(number)));
  }
  if (PyComplex_Check(object)) {
    Py_complex number = PyComplex_AsCComplex(object);
    return nb::make_tuple(type, nb::int_(floatBits(number.real)),
                          nb::int_(floatBits(number.imag)));
  }
  if (PyTuple_Check(object)) {
    nb::list items;
    for (nb::handle item : nb::borrow<nb::tuple>(value))
      items.append(staticKey(item));
    return nb::make_tuple(type, nb::tuple(items));
  }
  if (PyFrozenSet_Check(object)) {
    nb::list items;
    for (nb::handle item : nb::iter(value))
      items.append(staticKey(item));
    nb::object keys = nb::steal(PyFrozenSet_New(items.ptr()));
    if (!keys.is_valid())
      throw nb::python_error();
    return nb::make_tuple(type, keys);
  }
  return nb::make_tuple(type, value);
}

uint64_t Dispatcher::staticsId(const nb::tuple &statics) {
  nb::list keys;
  for (nb::handle value : statics)
    keys.append(staticKey(value));
  nb::tuple key(keys);
  PyObject *id = PyDict_GetItemWithError(staticIds.ptr(), key.ptr());
  if (id)
    return PyLong_AsUnsignedLongLong(id);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    size_t position = 0;
    for (size_t i = 0; i < isStatic.size(); ++i) {
      if (!isStatic[i])
        continue;
      nb::handle value = statics[position++];
      if (PyObject_Hash(value.ptr()) == -1) {
        PyErr_Clear();
        std::string name = i < parameterNames.size()
                               ? "'" + parameterNames[i] + "'"
                               : std::to_string(i);
        typeError(functionName + "(): static argument " + name +
                  " must be hashable, got " + Py_TYPE(value.ptr())->tp_name);
      }
    }
    typeError(functionName + "(): static arguments must be hashable");
  }
  uint64_t next = nextStaticId++;
  staticIds[key] = nb::int_(next);
  return next;
}

void Dispatcher::forgetStaticIds() {
  size_t live = table.size();
  if (staticIds.size() <= 2 * live + 16)
    return;
  std::unordered_set<uint64_t> used;
  table.forEachKey([&](const uint64_t *key, size_t) { used.insert(key[0]); });
  nb::list stale;
  for (auto [key, id] : staticIds)
    if (!used.count(nb::cast<uint64_t>(id)))
      stale.append(key);
  for (nb::handle key : stale)
    PyDict_DelItem(staticIds.ptr(), key.ptr());
}

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

nb::tuple specOf(PreparedCall &call, size_t i) {
  if (call.isScalar(i)) {
    DLDataType dtype = scalarDtype(call.object(i));
    char name[64];
    nb::object dtypeName =
        dtype.bits
            ? nb::object(nb::str(dlrt_dtype_name(dtype, name, sizeof(name))))
            : nb::none();
    return nb::make_tuple("scalar", scalarKindName(call.scalarKind(i)),
                          dtypeName);
  }
  const DLTensor *t = call.tensor(i);
  char dtype[64];
  dlrt_dtype_name(t->dtype, dtype, sizeof(dtype));
  nb::list unitDims;
  for (int32_t d = 0; d < t->ndim; ++d)
    unitDims.append(t->shape[d] == 1);
  return nb::make_tuple("array", std::string(dtype), t->ndim,
                        nb::tuple(unitDims),
                        nb::make_tuple(static_cast<int>(t->device.device_type),
                                       t->device.device_id));
}

} // namespace

nb::tuple Dispatcher::specsFor(PreparedCall &call, const Bound &bound) {
  nb::list specs;
  size_t dynamic = 0, fixed = 0;
  size_t total = call.size() + bound.statics.size() + popcount(bound.nones);
  for (size_t i = 0; i < total; ++i) {
    if (i < isStatic.size() && isStatic[i])
      specs.append(nb::make_tuple("static", bound.statics[fixed++]));
    else if (i < 64 && (bound.nones >> i & 1))
      specs.append(nb::make_tuple("static", nb::none()));
    else
      specs.append(specOf(call, dynamic++));
  }
  return nb::tuple(specs);
}

nb::tuple Dispatcher::hintsFor(PreparedCall &call, const Bound &bound) {
  nb::list hints;
  size_t dynamic = 0;
  size_t total = call.size() + bound.statics.size() + popcount(bound.nones);
  for (size_t i = 0; i < total; ++i) {
    if ((i < isStatic.size() && isStatic[i]) ||
        (i < 64 && (bound.nones >> i & 1))) {
      hints.append(nb::none());
      continue;
    }
    size_t k = dynamic++;
    if (!call.isScalar(k)) {
      const DLTensor *t = call.tensor(k);
      nb::list shape;
      for (int32_t d = 0; d < t->ndim; ++d)
        shape.append(t->shape[d]);
      hints.append(nb::tuple(shape));
    } else if (call.scalarKind(k) == ScalarKind::Int ||
               call.scalarKind(k) == ScalarKind::Bool ||
               call.scalarKind(k) == ScalarKind::Float) {
      hints.append(nb::handle(call.object(k)));
    } else {
      hints.append(nb::none());
    }
  }
  return nb::tuple(hints);
}

std::vector<uint64_t> Dispatcher::guardedKey(const uint64_t *key, size_t size,
                                             PreparedCall &call,
                                             const std::vector<Guard> &guards) {
  std::vector<uint64_t> extended(key, key + size);
  for (const Guard &guard : guards) {
    int64_t value = 0;
    if (guard.arg < call.size() && !call.isScalar(guard.arg) &&
        guard.dim >= 0 && guard.dim < call.tensor(guard.arg)->ndim)
      value = call.tensor(guard.arg)->shape[guard.dim];
    else if (guard.arg < call.size() && call.isScalar(guard.arg)) {
      PyObject *object = call.object(guard.arg);
      // A float argument Python needed as a number (int(x)) guards its
      // bits: -0.0 and 0.0 are different specialisations, a NaN is itself.
      if (PyFloat_Check(object)) {
        double number = PyFloat_AS_DOUBLE(object);
        std::memcpy(&value, &number, sizeof(value));
      } else {
        value = toInteger(nb::handle(object), "guard", INT64_MIN, INT64_MAX);
      }
    }
    extended.push_back(uint64_t(guard.arg) << 32 | uint32_t(guard.dim + 1));
    extended.push_back(static_cast<uint64_t>(value));
  }
  return extended;
}

nb::tuple Dispatcher::hintsOf(nb::args args, nb::kwargs kwargs) {
  Bound bound(bindsKeywords ? parameterNames.size() : args.size());
  bind(&PyTuple_GET_ITEM(args.ptr(), 0), args.size(), kwargs.ptr(), bound);
  PreparedCall call(functionName.c_str(), bound.dynamic, bound.count, {});
  return hintsFor(call, bound);
}

nb::tuple Dispatcher::specsOf(nb::args args, nb::kwargs kwargs) {
  Bound bound(bindsKeywords ? parameterNames.size() : args.size());
  bind(&PyTuple_GET_ITEM(args.ptr(), 0), args.size(), kwargs.ptr(), bound);
  PreparedCall call(functionName.c_str(), bound.dynamic, bound.count, {});
  return specsFor(call, bound);
}

nb::object Dispatcher::call(PyObject *const *args, size_t count,
                            PyObject *kwargs) {
  Bound bound(bindsKeywords ? parameterNames.size() : count);
  bind(args, count, kwargs, bound);
  ImportOptions options;
  setStream(bound.stream, functionName, options);
  std::optional<PreparedCall> prepared;
  try {
    prepared.emplace(functionName.c_str(), bound.dynamic, bound.count, options);
  } catch (...) {
    nb::object routed = routeForeignCall(nb::find(this), args, count, kwargs);
    if (!routed.is(nb::handle(Py_NotImplemented)))
      return routed;
    throw;
  }
  PreparedCall &call = *prepared;
  bool hasStatics = !isStatic.empty();
  // The static values' number first, then the arguments, then which were
  // None: guards extend keys at their end.
  bool hasNones = bound.nones != 0;
  SmallArray<uint64_t, 16> key(2 * call.size() + hasStatics + hasNones);
  computeKey(call, key.data() + hasStatics);
  if (hasStatics)
    key[0] = staticsId(bound.statics);
  if (hasNones)
    key[key.size() - 1] = bound.nones;
  const uint64_t *keyData = key.data();
  size_t keySize = key.size();
  std::vector<uint64_t> extended;
  if (!guardedKeys.empty()) {
    auto guarded = guardedKeys.find(
        std::vector<uint64_t>(key.data(), key.data() + key.size()));
    if (guarded != guardedKeys.end()) {
      extended = guardedKey(key.data(), key.size(), call, guarded->second);
      keyData = extended.data();
      keySize = extended.size();
    }
  }
  std::optional<SpecialisationTable::Entry> entry =
      table.find(keyData, keySize);
  if (!entry) {
    // The compiler releases the GIL: another thread may compile the same
    // key meanwhile; the table keeps the first kernel inserted.
    nb::callable compile = compiler;
    if (!compile.is_valid())
      throw nb::type_error((functionName + "() can no longer compile").c_str());
    nb::object compiled = compile(specsFor(call, bound), hintsFor(call, bound));
    nb::object builder;
    std::vector<Guard> guards;
    if (nb::isinstance<nb::tuple>(compiled)) {
      if (nb::len(compiled) > 2)
        for (nb::handle guard : compiled[2])
          guards.push_back(
              {nb::cast<uint32_t>(guard[0]), nb::cast<int32_t>(guard[1])});
      builder = compiled[1];
      compiled = compiled[0];
    }
    // The kernel serves the calls whose values at its guards are this one's
    // (none: every call with these specs).
    std::vector<uint64_t> base(key.data(), key.data() + key.size());
    if (guards.empty()) {
      guardedKeys.erase(base);
      extended.clear();
      keyData = key.data();
      keySize = key.size();
    } else {
      extended = guardedKey(key.data(), key.size(), call, guards);
      keyData = extended.data();
      keySize = extended.size();
      guardedKeys[std::move(base)] = std::move(guards);
    }
    jit::Kernel kernel = nb::cast<jit::Kernel>(compiled);
    if (std::string error = jit::keepInMemoryCache(kernel); !error.empty())
      throw nb::value_error(error.c_str());
    std::shared_ptr<void> payload;
    if (builder.is_valid() && !builder.is_none())
      payload = std::shared_ptr<void>(
          new nb::object(std::move(builder)), [](void *object) {
            nb::gil_scoped_acquire gil;
            delete static_cast<nb::object *>(object);
          });
    bool added = false;
    entry = table.insert(keyData, keySize, std::move(kernel),
                         std::move(payload), &added);
    compiledCount += added;
    if (hasStatics)
      forgetStaticIds();
  }
  nb::object result = runKernel(entry->kernel, call);
  if (entry->payload)
    return (*static_cast<nb::object *>(entry->payload.get()))(result);
  return result;
}

namespace {
/// tp_call: a call reaches the dispatcher with no method lookup, no
/// keyword dict and no argument conversion (nanobind's __call__ has all
/// three, which cost as much as importing an array).
PyObject *callDispatcher(PyObject *self, PyObject *args,
                         PyObject *kwargs) noexcept {
  try {
    if (!nb::inst_ready(self))
      throw nb::type_error("Dispatcher.__call__(): the dispatcher is not "
                           "initialised (call Dispatcher.__init__ first)");
    return nb::inst_ptr<Dispatcher>(self)
        ->call(&PyTuple_GET_ITEM(args, 0), PyTuple_GET_SIZE(args), kwargs)
        .release()
        .ptr();
  } catch (...) {
    return setErrorFromException();
  }
}

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
    {Py_tp_call, reinterpret_cast<void *>(callDispatcher)},
    {Py_tp_traverse, reinterpret_cast<void *>(traverseDispatcher)},
    {Py_tp_clear, reinterpret_cast<void *>(clearDispatcher)},
    {0, nullptr}};
} // namespace

void dlbridge::python::bindDispatcher(nb::module_ &m) {
  m.def("static_key", &staticKey, nb::arg("value").none(),
        nb::sig("def static_key(value: typing.Any) -> typing.Any"),
        "The key a static argument's value specialises a jitted function "
        "by: equal only for the same types and values at every level.");
  m.def("memory_cache_size", &jit::getMemoryCacheSize,
        "How many kernels the in-memory kernel cache holds now.");
  nb::class_<Dispatcher>(m, "Dispatcher",
                         "The compiled-call path of a @dlbridge.jit function.",
                         nb::type_slots(dispatcherSlots))
      .def(nb::init<nb::callable, std::string, nb::object, nb::tuple,
                    std::vector<size_t>>(),
           nb::arg("compiler"), nb::arg("name"),
           nb::arg("parameters") = nb::none(),
           nb::arg("defaults") = nb::tuple(),
           nb::arg("statics") = std::vector<size_t>(),
           nb::sig("def __init__(self, compiler: collections.abc.Callable["
                   "[tuple[typing.Any, ...]], typing.Any], name: str, "
                   "parameters: collections.abc.Sequence[str] | None = None, "
                   "defaults: tuple[typing.Any, ...] = (), "
                   "statics: collections.abc.Sequence[int] = []) -> None"))
      .def("specs", &Dispatcher::specsOf,
           nb::sig("def specs(self, *args: typing.Any, **kwargs: typing.Any) "
                   "-> tuple[tuple[typing.Any, ...], ...]"),
           "The specialisation specs of an argument list.")
      .def("hints", &Dispatcher::hintsOf,
           nb::sig("def hints(self, *args: typing.Any, **kwargs: typing.Any) "
                   "-> tuple[typing.Any, ...]"),
           "What a trace may fix of an argument list: each array's shape, "
           "each Python int's or bool's value, None for other arguments.")
      .def_prop_ro("num_specialisations", &Dispatcher::numSpecialisations,
                   "How many kernels have been compiled so far.")
      .def_prop_ro("num_loaded", &Dispatcher::numLoaded,
                   "How many of its kernels are loaded now (the in-memory "
                   "kernel cache evicts the least recently used).")
      .def_prop_ro("name", &Dispatcher::name, "The function's name.");
}
