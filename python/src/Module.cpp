//===- Module.cpp - The dlbridge._dlbridge extension module ---------------===//
//
// Part of dlbridge's Python extension. Includes only dlbridge's public
// headers, so it can be rebuilt for another Python against a prebuilt core.
//
//===----------------------------------------------------------------------===//

#include "Call.h"
#include "Dispatcher.h"
#include "Tensor.h"

#include "dlbridge/JIT/Kernel.h"
#include "dlbridge/Runtime/dlrt.h"
#include "dlbridge/Runtime/dlrt_cuda.h"

#include <nanobind/stl/string.h>

namespace nb = nanobind;
using namespace dlbridge;
using namespace dlbridge::python;

namespace {

nb::dict paramToDict(const jit::ParamInfo &param) {
  char dtype[64];
  nb::dict info;
  info["name"] = param.name;
  info["kind"] = param.isTensor ? "tensor" : "scalar";
  info["dtype"] = std::string(dlrt_dtype_name(param.dtype, dtype, sizeof(dtype)));
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

jit::Kernel compileOrRaise(const std::string &source, const std::string &entry,
                           const std::string &target, const std::string &chip,
                           bool cache) {
  jit::CompileOptions options;
  if (target == "cuda")
    options.target = jit::Target::CUDA;
  else if (target != "cpu")
    throw nb::value_error(("unknown target '" + target +
                           "': expected 'cpu' or 'cuda'")
                              .c_str());
  if (!chip.empty())
    options.chip = chip;
  options.useCache = cache;
  jit::CompileResult result;
  {
    nb::gil_scoped_release unlocked;
    result = jit::compile(source, entry, options);
  }
  if (!result)
    throw nb::value_error(result.error.c_str());
  return *result.kernel;
}

} // namespace

NB_MODULE(_dlbridge, m) {
  m.doc() = "dlbridge's compiled core: kernels, tensors and the call path.";
  bindTensor(m);
  bindDispatcher(m);

  nb::class_<jit::Kernel>(m, "Kernel",
                          "A compiled entry point, callable with DLPack "
                          "tensors and Python scalars.")
      .def(
          "__call__",
          [](const jit::Kernel &kernel, nb::args args) {
            // Nothing reads the tensors before the entry point checks them.
            ImportOptions options;
            options.checkDescriptor = false;
            PreparedCall call(kernel.signature().name.c_str(),
                              &PyTuple_GET_ITEM(args.ptr(), 0), args.size(),
                              options, &kernel.signature());
            return runKernel(kernel, call, nullptr);
          })
      .def_prop_ro("signature",
                   [](const jit::Kernel &kernel) {
                     return signatureToDict(kernel.signature());
                   })
      .def_prop_ro("mlir",
                   [](const jit::Kernel &kernel) {
                     nb::dict stages;
                     stages["input"] = kernel.stages().input;
                     stages["llvm"] = kernel.stages().llvmDialect;
                     return stages;
                   })
      .def_prop_ro("has_contiguous_variant", &jit::Kernel::hasContiguousVariant)
      .def_prop_ro("from_disk_cache", &jit::Kernel::fromDiskCache);

  m.def("compile", &compileOrRaise, nb::arg("source"), nb::arg("entry") = "",
        nb::arg("target") = "cpu", nb::arg("chip") = "", nb::arg("cache") = true,
        "Compiles a dlpack.entry function of MLIR source; raises ValueError "
        "with MLIR's diagnostics when it cannot.");
  m.def("cuda_available", [] { return dlrt_cuda_available() != 0; });
  m.attr("version") = jit::versionString();
}
