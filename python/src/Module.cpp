//===- Module.cpp - The dlbridge._dlbridge extension module ---------------===//
//
// Part of dlbridge's Python extension. Includes only dlbridge's public
// headers, so it can be rebuilt for another Python against a prebuilt core.
//
//===----------------------------------------------------------------------===//

#include "Call.h"
#include "Dispatcher.h"
#include "Errors.h"
#include "Tensor.h"
#ifdef DLBRIDGE_HAVE_XLA_FFI
#include "XlaFfi.h"
#endif

#include "dlbridge/JIT/Kernel.h"
#include "dlbridge/JIT/ResultShapes.h"
#include "dlbridge/Runtime/dlrt.h"
#include "dlbridge/Runtime/dlrt_cuda.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <limits>

namespace nb = nanobind;
using namespace dlbridge;
using namespace dlbridge::python;

namespace {

nb::dict paramToDict(const jit::ParamInfo &param) {
  char dtype[64];
  nb::dict info;
  info["name"] = param.name;
  info["kind"] = param.isTensor ? "tensor" : "scalar";
  info["dtype"] =
      std::string(dlrt_dtype_name(param.dtype, dtype, sizeof(dtype)));
  if (param.isTensor) {
    nb::list shape;
    for (int64_t size : param.shape)
      shape.append(size == DLRT_DYNAMIC ? nb::object(nb::none())
                                        : nb::object(nb::int_(size)));
    info["shape"] = nb::tuple(shape);
    info["layout"] = param.strided ? "strided" : "contiguous";
    info["access"] = param.access == DLRT_ACCESS_READ_WRITE ? "read_write"
                     : param.access == DLRT_ACCESS_WRITE    ? "write"
                     : param.access == DLRT_ACCESS_READ     ? "read"
                                                            : "none";
  }
  return info;
}

nb::dict signatureToDict(const jit::Signature &signature) {
  nb::list args, results;
  for (const jit::ParamInfo &param : signature.args)
    args.append(paramToDict(param));
  for (const jit::ParamInfo &param : signature.results)
    results.append(paramToDict(param));
  nb::dict info;
  info["name"] = signature.name;
  info["device"] = dlrt_device_type_name(signature.device);
  info["args"] = args;
  info["results"] = results;
  return info;
}

/// dlbridge.set_num_threads(n): any integer (bool aside, as NumPy's
/// integers are) from 1 to DLRT_MAX_THREADS.
void setNumThreadsOrRaise(nb::handle n) {
  if (PyBool_Check(n.ptr()) || !PyIndex_Check(n.ptr()))
    throw nb::type_error(("set_num_threads(): argument 'n' must be an int, "
                          "got " +
                          std::string(nb::type_name(n.type()).c_str()))
                             .c_str());
  nb::object index = nb::steal(PyNumber_Index(n.ptr()));
  if (!index.is_valid())
    throw nb::python_error();
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0 || value < 1 || value > DLRT_MAX_THREADS ||
      dlrt_set_num_threads(static_cast<int32_t>(value)) != DLRT_OK)
    throw nb::value_error(
        ("set_num_threads(): argument 'n' must be from 1 to " +
         std::to_string(DLRT_MAX_THREADS) + ", got " +
         std::string(nb::str(index).c_str()))
            .c_str());
}

/// The options of dlbridge.compile() and inspect() from their keywords; None
/// leaves an option at its default.
CompileOptions optionsOrRaise(const std::string &target,
                              std::optional<bool> bufferize,
                              std::optional<int64_t> optLevel,
                              std::optional<std::string> chip,
                              std::optional<std::string> ptxVersion,
                              std::optional<std::string> format,
                              std::optional<std::string> toolkit, bool cache) {
  CompileOptions options;
  std::optional<Target> parsedTarget = parseTarget(target);
  if (!parsedTarget)
    throw nb::value_error(
        describeInvalidValue(option::target, Spelling::Python, target).c_str());
  options.target = *parsedTarget;
  if (format) {
    std::optional<GPUBinaryFormat> parsedFormat = parseGPUBinaryFormat(*format);
    if (!parsedFormat)
      throw nb::value_error(
          describeInvalidValue(option::format, Spelling::Python, *format)
              .c_str());
    options.format = *parsedFormat;
  }
  options.bufferize = bufferize.value_or(options.bufferize);
  if (optLevel) {
    // The range itself is checkOptions()'s; this keeps the value whole.
    if (*optLevel < 0 || *optLevel > std::numeric_limits<unsigned>::max())
      throw nb::value_error(describeInvalidValue(option::optLevel,
                                                 Spelling::Python,
                                                 std::to_string(*optLevel))
                                .c_str());
    options.optLevel = static_cast<unsigned>(*optLevel);
  }
  options.chip = chip.value_or(options.chip);
  options.ptxVersion = ptxVersion.value_or(options.ptxVersion);
  options.toolkit = toolkit.value_or(options.toolkit);
  options.cache = cache;
  if (std::string error = checkOptions(options, Spelling::Python);
      !error.empty())
    throw nb::value_error(error.c_str());
  return options;
}

jit::Kernel compileOrRaise(const std::string &source, const std::string &entry,
                           const std::string &target,
                           std::optional<bool> bufferize,
                           std::optional<int64_t> optLevel,
                           std::optional<std::string> chip,
                           std::optional<std::string> ptxVersion,
                           std::optional<std::string> format,
                           std::optional<std::string> toolkit, bool cache) {
  CompileOptions options = optionsOrRaise(target, bufferize, optLevel, chip,
                                          ptxVersion, format, toolkit, cache);
  jit::CompileResult result;
  {
    nb::gil_scoped_release unlocked;
    result = jit::compile(source, entry, options);
  }
  if (!result)
    throw nb::value_error(result.error.c_str());
  return *result.kernel;
}

/// Stage name and text, in the order of the compilation.
jit::InspectResult::Stages
inspectOrRaise(const std::string &source, const std::string &entry,
               const std::string &target, std::optional<bool> bufferize,
               std::optional<int64_t> optLevel, std::optional<std::string> chip,
               std::optional<std::string> ptxVersion,
               std::optional<std::string> format,
               std::optional<std::string> toolkit) {
  CompileOptions options =
      optionsOrRaise(target, bufferize, optLevel, chip, ptxVersion, format,
                     toolkit, /*cache=*/false);
  jit::InspectResult result;
  {
    nb::gil_scoped_release unlocked;
    result = jit::inspect(source, entry, options);
  }
  if (!result)
    throw nb::value_error(result.error.c_str());
  return std::move(result.stages);
}

/// resultShapes() as Python tuples and lists.
nb::tuple resultShapesOrRaise(const std::string &source,
                              const std::string &entry) {
  jit::ResultShapes shapes;
  {
    nb::gil_scoped_release unlocked;
    shapes = jit::resultShapes(source, entry);
  }
  if (!shapes)
    throw nb::value_error(shapes.error.c_str());
  nb::list nodes, results;
  for (const jit::SizeNode &node : shapes.nodes) {
    nb::list operands;
    for (size_t operand : node.operands)
      operands.append(operand);
    nodes.append(
        nb::make_tuple(node.op, node.value, node.arg, nb::tuple(operands)));
  }
  for (const std::vector<size_t> &dims : shapes.results) {
    nb::list row;
    for (size_t dim : dims)
      row.append(dim);
    results.append(row);
  }
  return nb::make_tuple(nodes, results);
}

/// The option table (Options.h), for documentation and its tests.
nb::list optionTable() {
  nb::list table;
  for (const OptionInfo *info : option::all) {
    nb::dict row;
    row["name"] = info->name;
    row["python"] = spell(*info, Spelling::Python);
    row["cpp"] = spell(*info, Spelling::Cpp);
    row["values"] = info->values;
    row["default"] = getDefaultText(*info);
    row["description"] = info->description;
    row["cuda_only"] = info->cudaOnly;
    nb::list interfaces;
    for (auto [bit, name] :
         {std::pair{InCPUPipeline, "dlbridge-cpu-pipeline"},
          std::pair{InCUDAPipeline, "dlbridge-cuda-pipeline"},
          std::pair{InDLRun, "dl-run"}, std::pair{InPython, "python"},
          std::pair{InCpp, "c++"}})
      if (info->interfaces & bit)
        interfaces.append(name);
    row["interfaces"] = interfaces;
    table.append(row);
  }
  return table;
}

/// tp_call: runs the kernel on one argument per parameter, with no method
/// lookup and no argument conversion on the way (see callDispatcher).
PyObject *callKernel(PyObject *self, PyObject *args,
                     PyObject *kwargs) noexcept {
  try {
    if (!nb::inst_ready(self))
      throw nb::type_error("Kernel.__call__(): the kernel is not initialised");
    const jit::Kernel &kernel = *nb::inst_ptr<jit::Kernel>(self);
    if (kwargs && PyDict_GET_SIZE(kwargs) != 0)
      throw nb::type_error(
          (kernel.signature().name + "() takes its arguments by position only")
              .c_str());
    // Nothing reads the tensors before the entry point checks them.
    ImportOptions options;
    options.checkDescriptor = false;
    PreparedCall call(kernel.signature().name.c_str(),
                      &PyTuple_GET_ITEM(args, 0), PyTuple_GET_SIZE(args),
                      options, &kernel.signature());
    return runKernel(kernel, call).release().ptr();
  } catch (...) {
    return setErrorFromException();
  }
}

PyType_Slot kernelSlots[] = {{Py_tp_call, reinterpret_cast<void *>(callKernel)},
                             {0, nullptr}};

} // namespace

NB_MODULE(_dlbridge, m) {
  m.doc() = "dlbridge's compiled core: kernels, tensors and the call path.";
  bindTensor(m);
  bindDispatcher(m);
#ifdef DLBRIDGE_HAVE_XLA_FFI
  bindXlaFfi(m);
#endif

  nb::class_<jit::Kernel>(m, "Kernel",
                          "A compiled entry point, callable with DLPack "
                          "tensors and Python scalars.",
                          nb::type_slots(kernelSlots))
      .def_prop_ro(
          "signature",
          [](const jit::Kernel &kernel) {
            return signatureToDict(kernel.signature());
          },
          nb::sig("def signature(self) -> KernelSignature"),
          "The entry point's name and device, and the name, dtype, shape, "
          "layout and access of every parameter and result.")
      .def_prop_ro(
          "mlir",
          [](const jit::Kernel &kernel) {
            nb::dict stages;
            stages["input"] = kernel.stages().input;
            stages["llvm"] = kernel.stages().llvmDialect;
            return stages;
          },
          nb::sig("def mlir(self) -> KernelStages"),
          "The MLIR compiled ('input') and its LLVM-dialect lowering "
          "('llvm').")
      .def_prop_ro("has_contiguous_variant", &jit::Kernel::hasContiguousVariant,
                   "Whether calls with contiguous tensors take a variant "
                   "compiled for them.")
      .def_prop_ro("from_disk_cache", &jit::Kernel::fromDiskCache,
                   "Whether the kernel was loaded from the disk cache rather "
                   "than compiled.");

  m.def("compile", &compileOrRaise, nb::arg("source"), nb::arg("entry") = "",
        nb::arg("target") = "cpu", nb::arg("bufferize") = nb::none(),
        nb::arg("opt_level") = nb::none(), nb::arg("chip") = nb::none(),
        nb::arg("ptx_version") = nb::none(), nb::arg("format") = nb::none(),
        nb::arg("toolkit") = nb::none(), nb::arg("cache") = true,
        "Compiles a dlpack.entry function of MLIR source; raises ValueError "
        "naming the option, or with MLIR's diagnostics, when it cannot.");
  m.def("inspect", &inspectOrRaise, nb::arg("source"), nb::arg("entry") = "",
        nb::arg("target") = "cpu", nb::arg("bufferize") = nb::none(),
        nb::arg("opt_level") = nb::none(), nb::arg("chip") = nb::none(),
        nb::arg("ptx_version") = nb::none(), nb::arg("format") = nb::none(),
        nb::arg("toolkit") = nb::none(),
        "Compiles as compile() does, bypassing the caches, and returns the "
        "IR after every stage: (stage name, text) pairs, in order.");
  m.def("result_shapes", &resultShapesOrRaise, nb::arg("source"),
        nb::arg("entry") = "",
        nb::sig("def result_shapes(source: str, entry: str = '') -> "
                "tuple[list[tuple[str, int, int, tuple[int, ...]]], "
                "list[list[int]]]"),
        "The entry's result shapes as expressions of its arguments: the "
        "nodes (op, value, argument, operands) and, per result, a node per "
        "dim (ResultShapes.h). ValueError naming the result, the dim and the "
        "operation when a size depends on values.");
  m.def(
      "cuda_compute_capability",
      [](int32_t device) -> std::optional<std::pair<int32_t, int32_t>> {
        int32_t major = 0, minor = 0;
        if (dlrt_cuda_compute_capability(device, &major, &minor) != DLRT_OK)
          return std::nullopt;
        return std::make_pair(major, minor);
      },
      nb::arg("device"),
      "The (major, minor) compute capability of CUDA device `device`, or "
      "None where there is no driver or no such device.");
  m.def("clear_cache", &jit::clearCaches,
        "Empties the in-memory kernel cache and removes every entry of the "
        "disk cache; returns how many disk entries were removed. Kernels "
        "already compiled stay valid.");
  m.def("options", &optionTable,
        nb::sig("def options() -> list[dict[str, typing.Any]]"),
        "The compile options: name, spellings, values, default, description "
        "and where each can be given.");
  m.def("set_num_threads", &setNumThreadsOrRaise, nb::arg("n").none(),
        nb::sig("def set_num_threads(n: int) -> None"),
        "Sets how many threads, the calling one included, a compiled CPU "
        "kernel may run its parallel loops on, for the whole process; "
        "overrides DLBRIDGE_NUM_THREADS. Kernels called from several threads "
        "at once share this many between them. Raises TypeError unless n is "
        "an int, ValueError unless 1 <= n <= 1024.");
  m.def(
      "get_num_threads", [] { return dlrt_get_num_threads(); },
      "How many threads, the calling one included, a compiled CPU kernel "
      "may run its parallel loops on: what set_num_threads() set, else "
      "DLBRIDGE_NUM_THREADS (an integer from 1 to 1024; other values are "
      "ignored with a warning on stderr), else the number of cores the "
      "process may run on. Loops of less work than a few tens of thousands "
      "of iterations run on the calling thread alone.");
  m.def(
      "cuda_available", [] { return dlrt_cuda_available() != 0; },
      "Whether a CUDA driver loads and reports at least one GPU.");
  m.def(
      "set_blas",
      [](const std::string &path) {
        if (dlrt_set_blas(path.c_str()) != DLRT_OK)
          throw nb::value_error(
              ("set_blas: path: " + std::string(dlrt_last_error())).c_str());
      },
      nb::arg("path"),
      "Makes f32/f64 matmuls call the CBLAS of the shared library at "
      "`path` (LP64, OpenBLAS ILP64 or NumPy's scipy-openblas); ValueError "
      "when it does not load or lacks sgemm, dgemm, sgemv and dgemv.");
  m.def(
      "blas_library", [] { return std::string(dlrt_blas_library()); },
      "The path of the BLAS that f32/f64 matmuls call, or '' when there is "
      "none and they run in plain loops.");
  m.attr("version") = jit::version();
  m.attr("version_string") = jit::versionString();
}
