//===- Dispatcher.h - @dlbridge.jit's specialisation cache ------*- C++ -*-===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_DISPATCHER_H
#define DLBRIDGE_PYTHON_DISPATCHER_H

#include "Call.h"
#include "SpecialisationTable.h"

#include <nanobind/nanobind.h>

#include <string>

namespace dlbridge::python {

/// Calls a jitted function: imports the arguments, finds the kernel
/// specialised for their (dtype, rank, size-1 dims, device) and Python
/// scalar kinds, and runs it. Only a miss runs Python: `compiler(specs)`
/// traces and compiles, returning a Kernel. Calls on several threads may
/// compile at once (the compiler releases the GIL); see SpecialisationTable.
class Dispatcher {
public:
  Dispatcher(nanobind::callable compiler, std::string name);

  nanobind::object call(nanobind::args args, nanobind::kwargs kwargs);
  /// The specs of an argument list, as `compiler` receives them.
  nanobind::tuple specsOf(nanobind::args args);
  size_t numSpecialisations() const { return table.size(); }
  /// For the garbage collector: the compiler usually refers back to us.
  nanobind::callable &compilerCallback() { return compiler; }
  const std::string &name() const { return functionName; }

private:
  static nanobind::tuple specsFor(PreparedCall &call);

  nanobind::callable compiler;
  std::string functionName;
  SpecialisationTable table;
};

void bindDispatcher(nanobind::module_ &m);

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_DISPATCHER_H
