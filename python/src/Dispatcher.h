//===- Dispatcher.h - @dlbridge.jit's specialisation cache ------*- C++ -*-===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_DISPATCHER_H
#define DLBRIDGE_PYTHON_DISPATCHER_H

#include "Call.h"
#include "SmallArray.h"
#include "SpecialisationTable.h"

#include <nanobind/nanobind.h>

#include <map>
#include <string>
#include <vector>

namespace dlbridge::python {

/// Calls a jitted function: binds the arguments to the Python function's
/// parameters (keywords and defaults), imports them, finds the kernel
/// specialised for their (dtype, rank, size-1 dims, device), Python scalar
/// kinds and static values, and runs it. Only a miss runs Python:
/// `compiler(specs)` traces and compiles, returning a Kernel, or a Kernel and
/// the callable that rebuilds the Python function's result structure from
/// the kernel's results. Calls on several threads may compile at once (the
/// compiler releases the GIL); see SpecialisationTable.
class Dispatcher {
public:
  /// `parameters` names the positional parameters (None: take positional
  /// arguments only), `defaults` holds the values of the last ones,
  /// `statics` the positions of static parameters.
  Dispatcher(nanobind::callable compiler, std::string name,
             nanobind::object parameters, nanobind::tuple defaults,
             std::vector<size_t> statics);

  /// Calls with `count` positional arguments and the keywords in `kwargs`
  /// (a dict, or NULL), as the type's tp_call slot receives them.
  nanobind::object call(PyObject *const *args, size_t count, PyObject *kwargs);
  /// The specs of an argument list, as `compiler` receives them.
  nanobind::tuple specsOf(nanobind::args args, nanobind::kwargs kwargs);
  /// What a trace may fix of an argument list, as `compiler` receives it
  /// beside the specs: each array's shape, each Python int's or bool's
  /// value, None for other arguments.
  nanobind::tuple hintsOf(nanobind::args args, nanobind::kwargs kwargs);
  /// How many kernels this function has compiled (a specialisation the
  /// in-memory cache evicted and that was compiled again counts twice).
  size_t numSpecialisations() const { return compiledCount; }
  /// How many of its kernels are loaded now.
  size_t numLoaded() const { return table.size(); }
  /// For the garbage collector: the compiler usually refers back to us.
  nanobind::callable &compilerCallback() { return compiler; }
  const std::string &name() const { return functionName; }

private:
  /// The arguments of one call bound to the parameters: every parameter's
  /// value in order (borrowed), and the static ones' values as a tuple.
  /// Borrowed from the call's arguments, keywords and the defaults.
  struct Bound {
    explicit Bound(size_t parameters) : storage(parameters) {}
    PyObject *const *dynamic = nullptr;
    size_t count = 0;
    SmallArray<PyObject *, 8> storage;
    nanobind::tuple statics;
    /// Bit i: parameter i (not static, one of the first 64) is None, an
    /// optional array left out: the function sees None, the kernel has no
    /// parameter for it, and the key says which were.
    uint64_t nones = 0;
    PyObject *stream = nullptr; ///< the `stream=` keyword, if given
  };
  void bind(PyObject *const *args, size_t given, PyObject *kwargs,
            Bound &bound);
  /// A number for the static values `statics`: equal for values of the same
  /// types and values at every level (staticKey()).
  uint64_t staticsId(const nanobind::tuple &statics);
  /// Forgets the numbers of static values whose kernels were all evicted.
  void forgetStaticIds();
  nanobind::tuple specsFor(PreparedCall &call, const Bound &bound);
  nanobind::tuple hintsFor(PreparedCall &call, const Bound &bound);

  /// A size or value a kernel was specialised on, because the Python
  /// function needed it as a number: dim `dim` of dynamic argument `arg`, or
  /// the argument's value when `dim` is -1.
  struct Guard {
    uint32_t arg;
    int32_t dim;
  };
  /// `key` extended with what `call` has at each of `guards`.
  static std::vector<uint64_t> guardedKey(const uint64_t *key, size_t size,
                                          PreparedCall &call,
                                          const std::vector<Guard> &guards);

  nanobind::callable compiler;
  std::string functionName;
  std::vector<std::string> parameterNames;
  bool bindsKeywords = false;
  nanobind::tuple defaults;
  std::vector<bool> isStatic;
  nanobind::dict staticIds;
  uint64_t nextStaticId = 0;
  /// Kernels with, as payload (a nanobind::object), the callable rebuilding
  /// the Python function's result structure when it differs from the
  /// kernel's (a 1-tuple, a list, None entries...).
  SpecialisationTable table;
  /// The keys whose kernels were traced with guards, and those guards: a
  /// call with such a key looks its kernel up by the key extended with its
  /// values at the guards (guardedKey), and compiles anew when they differ.
  std::map<std::vector<uint64_t>, std::vector<Guard>> guardedKeys;
  size_t compiledCount = 0;
};

/// `value` as a key that equals another's only when both have the same type
/// and value at every level of tuples and frozensets: 1, 1.0, True, 0.0 and
/// -0.0 are five keys, every NaN of a float type is one.
nanobind::object staticKey(nanobind::handle value);

void bindDispatcher(nanobind::module_ &m);

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_DISPATCHER_H
