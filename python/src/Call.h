//===- Call.h - Calling kernels with Python arguments -----------*- C++ -*-===//
//
// Part of dlbridge's Python extension. The hot path: no Python code runs
// here on a cache hit.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_CALL_H
#define DLBRIDGE_PYTHON_CALL_H

#include "Import.h"
#include "Scalars.h"
#include "SmallArray.h"

#include "dlbridge/JIT/Kernel.h"

#include <nanobind/nanobind.h>

namespace dlbridge::python {

/// The arguments of one call: Python and NumPy scalars stay scalars (see
/// Scalars.h), everything else is imported as a tensor.
class PreparedCall {
public:
  /// `signature`, when the kernel is already known, names the arguments in
  /// import errors.
  PreparedCall(const char *function, PyObject *const *args, size_t count,
               const ImportOptions &options,
               const jit::Signature *signature = nullptr);

  const char *function() const { return name; }
  size_t size() const { return count; }
  bool isScalar(size_t i) const { return kinds[i] != ScalarKind::None; }
  ScalarKind scalarKind(size_t i) const { return kinds[i]; }
  PyObject *object(size_t i) const { return objects[i]; }
  DLTensor *tensor(size_t i) { return tensors[i].tensor(); }
  uint64_t flags(size_t i) const { return tensors[i].flags(); }
  /// Readies argument i for a written parameter: refuses a PyTorch lazy view
  /// (BufferError: writing through it would store wrong values) and what
  /// autograd forbids writing in place (RuntimeError, see TorchTensors.h),
  /// then makes flags(i) the producer's: a view borrowed without flags is
  /// imported again as a managed tensor (same data, shape and dtype).
  /// `param` names the argument in errors.
  void prepareWrite(size_t i, const jit::ParamInfo &param);
  /// Records the writes of a finished call in the version counters of the
  /// PyTorch tensors it wrote (`written[i]`: argument i was written).
  void noteWrites(const SmallArray<bool> &written);
  /// Type of the first tensor argument: results come back in its framework.
  PyTypeObject *firstTensorType() const { return firstType; }
  /// The DLPack stream value CUDA producers were asked to order their work
  /// before: the `stream=` keyword's, else the current stream of the first
  /// tensor's framework where that framework exports through `__dlpack__`
  /// (see getFrameworkStream); std::nullopt when neither chose one.
  std::optional<int64_t> stream() const { return options.stream; }
  /// Releases every imported tensor after work on `device`'s `stream`.
  void releaseAfter(DLDevice device, void *stream);

private:
  ArgumentName argumentName(size_t i) const;

  const char *name;
  PyObject *const *objects;
  size_t count;
  ImportOptions options;
  const jit::Signature *signature;
  SmallArray<ScalarKind> kinds;
  SmallArray<ImportedTensor> tensors;
  PyTypeObject *firstType = nullptr;
};

/// Runs `kernel` on `call` with the GIL released and returns its results
/// (None, one value, or a tuple) in the framework of the first tensor
/// argument. A CUDA kernel runs on call.stream(), else on the current stream
/// of the first tensor's framework (its DLPack exchange API's
/// current_work_stream), else on the legacy default stream; nothing waits
/// for it on the host. Raises TypeError, ValueError or BufferError naming
/// the argument when the kernel refuses one.
nanobind::object runKernel(const jit::Kernel &kernel, PreparedCall &call);

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_CALL_H
