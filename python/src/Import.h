//===- Import.h - Borrow framework tensors through DLPack -------*- C++ -*-===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_IMPORT_H
#define DLBRIDGE_PYTHON_IMPORT_H

#include "NumPy.h"
#include "TorchTensors.h"

#include <dlpack/dlpack.h>
#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>
#include <string>

namespace dlbridge::python {

/// The DLPack C exchange API of `type` (`type.__dlpack_c_exchange_api__`,
/// major version 1), or NULL. Looked up once per type.
const DLPackExchangeAPI *getExchangeAPI(PyTypeObject *type);

/// The DLPack stream value of the current CUDA stream of the framework that
/// owns `type`, for frameworks whose arrays are imported through
/// `__dlpack__` (CuPy), so that a call runs where the framework's own next
/// operation would; std::nullopt for other types (PyTorch's current stream
/// comes from its exchange API instead).
std::optional<int64_t> getFrameworkStream(PyTypeObject *type);

/// Names an argument in messages ("f(): argument 2 'x'"); built only on
/// error.
struct ArgumentName {
  const char *function;
  /// -1 for from_dlpack's single argument.
  int index;
  /// The parameter's name when the kernel is known, else NULL.
  const char *parameter = nullptr;
  std::string str() const;
};

/// How to ask a producer for its tensor.
struct ImportOptions {
  /// The consumer stream to pass to `__dlpack__(stream=...)` for CUDA
  /// tensors; std::nullopt lets the producer's current stream be used.
  std::optional<int64_t> stream;
  /// Whether the caller will take() the tensor: skips borrowed views.
  bool requireOwnership = false;
  /// Whether to refuse malformed descriptors (dlrt_check_descriptor). Only
  /// callers that hand the tensor straight to an entry point, which checks
  /// it with the same rules before reading anything, skip it.
  bool checkDescriptor = true;
  /// Whether a lazy view (see TorchTensors.h) may be imported as a copy with
  /// its bits materialised; else it is a BufferError.
  bool allowCopy = true;
  /// Whether to look for lazy bits: only an import again of an object found
  /// without them skips it.
  bool checkLazyBits = true;
};

/// One tensor borrowed from a Python object: a DLTensor view and whatever
/// must be released once the work reading it has finished. Move-only; the
/// destructor releases (calls the producer's deleter exactly once).
class ImportedTensor {
public:
  /// User-provided, so that value-initialisation (SmallArray's) runs only
  /// the member initialisers instead of zeroing the stride storage too.
  ImportedTensor() noexcept {}
  ImportedTensor(ImportedTensor &&other) noexcept;
  ImportedTensor &operator=(ImportedTensor &&other) noexcept;
  ImportedTensor(const ImportedTensor &) = delete;
  ImportedTensor &operator=(const ImportedTensor &) = delete;
  ~ImportedTensor() { release(); }

  DLTensor *tensor() { return dl; }
  bool holdsTensor() const { return dl != nullptr; }
  /// DLPACK_FLAG_BITMASK_* (0 for views borrowed through an exchange API and
  /// for legacy tensors; READ_ONLY added for frameworks whose arrays are
  /// immutable).
  uint64_t flags() const { return tensorFlags; }
  /// False for views borrowed through an exchange API's
  /// dltensor_from_py_object_no_sync, which carry no flags.
  bool flagsKnown() const { return knownFlags; }
  /// Whether the producer's framework never changes the data (JAX,
  /// TensorFlow): READ_ONLY to dlbridge, yet safe to hand back without a copy
  /// to consumers that cannot be told so.
  bool immutableData() const { return immutable; }
  /// The PyTorch state of the object when its framework has one (see
  /// TorchTensors.h), else NULL. Kept by take().
  const TorchState *torchState() const { return torch; }
  /// The lazy bit materialised into a copy at import, else LazyBit::None:
  /// the tensor is then not the object's data.
  LazyBit materialisedBit() const { return materialised; }

  /// Takes ownership as a versioned managed tensor (legacy tensors are
  /// wrapped; borrowed views cannot be taken: returns NULL).
  DLManagedTensorVersioned *take();

  /// Releases now (the deleter runs at most once over the object's life).
  void release();

private:
  friend void importTensor(nanobind::handle, const ArgumentName &,
                           const ImportOptions &, ImportedTensor &);
  friend void importProducer(nanobind::handle, const ArgumentName &,
                             const ImportOptions &, const DLPackExchangeAPI *,
                             bool, ImportedTensor &);
  DLTensor view{};
  /// The strides of `view` for a numpy.ndarray described in place.
  int64_t viewStrides[numpy::kMaxDims];
  DLTensor *dl = nullptr;
  DLManagedTensorVersioned *versioned = nullptr;
  DLManagedTensor *legacy = nullptr;
  /// The numpy.ndarray `view` describes, or the tensor imported in the
  /// object's place (a materialised lazy view, a detached PyTorch tensor),
  /// kept alive until release.
  PyObject *owner = nullptr;
  const TorchState *torch = nullptr;
  uint64_t tensorFlags = 0;
  bool knownFlags = true;
  bool immutable = false;
  LazyBit materialised = LazyBit::None;
};

/// Imports `object` by reading it when it is exactly a numpy.ndarray NumPy
/// would export (see NumPy.h) and no ownership is required, else through its
/// type's DLPack C exchange API when it has one, else through
/// `__dlpack__(max_version=(1, 3))`, retrying the legacy
/// `__dlpack__()` when the producer rejects the keyword with TypeError, else
/// through the capsule function dlbridge._frameworks knows for its type.
/// A PyTorch tensor with a lazy bit (see TorchTensors.h) is imported as a
/// copy with the bit materialised (resolve_conj()/resolve_neg()), or refused
/// with a BufferError when `options` allow no copy.
/// Raises TypeError for objects without DLPack support and for exchange APIs
/// without their required functions, BufferError for capsules that were
/// already consumed or whose major version is unsupported (after calling
/// their deleter) and for producers that fail without saying why, and what
/// dlrt_check_descriptor's status maps to for malformed descriptors (after
/// releasing them). The capsule is renamed to `used_*` before anything else
/// can fail.
/// The tensor goes into `into`, which must hold none: a call's arrays of
/// tensors are filled in place. On failure whatever `into` took is released
/// with it.
void importTensor(nanobind::handle object, const ArgumentName &name,
                  const ImportOptions &options, ImportedTensor &into);

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_IMPORT_H
