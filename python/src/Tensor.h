//===- Tensor.h - dlbridge.Tensor and DLPack export -------------*- C++ -*-===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_TENSOR_H
#define DLBRIDGE_PYTHON_TENSOR_H

#include <dlpack/dlpack.h>
#include <nanobind/nanobind.h>

#include <atomic>
#include <optional>

namespace dlbridge::python {

/// One managed tensor shared by a dlbridge.Tensor and every tensor it
/// exported; the last owner calls its deleter. Reference counts are atomic
/// and no Python object is involved, so exported tensors may be deleted on
/// any thread, with or without the GIL.
class SharedTensor {
public:
  /// Takes ownership of `managed` with one reference. `stream`, when given:
  /// the CUDA stream a kernel writes its data on (NULL: the legacy default
  /// one), which consumers on other streams are ordered after. `immutable`:
  /// the data belongs to a framework that never changes it (see
  /// ImportedTensor::immutableData).
  static SharedTensor *adopt(DLManagedTensorVersioned *managed,
                             std::optional<void *> stream = std::nullopt,
                             bool immutable = false);
  void retain() { refs.fetch_add(1, std::memory_order_relaxed); }
  void release();
  const DLTensor &tensor() const { return managed->dl_tensor; }
  uint64_t flags() const { return managed->flags; }
  std::optional<void *> stream() const { return producerStream; }
  bool immutable() const { return immutableData; }

private:
  SharedTensor(DLManagedTensorVersioned *managed, std::optional<void *> stream,
               bool immutable)
      : managed(managed), producerStream(stream), immutableData(immutable) {}
  std::atomic<int64_t> refs{1};
  DLManagedTensorVersioned *managed;
  std::optional<void *> producerStream;
  bool immutableData;
};

/// `dlbridge.Tensor`: owns a DLPack 1.3 managed tensor (a kernel's result or
/// an import) and exports it to any DLPack consumer without copying.
class Tensor {
public:
  /// Takes ownership of `managed`, written on `stream` (see SharedTensor).
  explicit Tensor(DLManagedTensorVersioned *managed,
                  std::optional<void *> stream = std::nullopt,
                  bool immutable = false);
  Tensor(Tensor &&other) noexcept : shared(other.shared) {
    other.shared = nullptr;
  }
  Tensor(const Tensor &) = delete;
  ~Tensor();

  const DLTensor &tensor() const { return shared->tensor(); }
  uint64_t flags() const { return shared->flags(); }
  bool immutable() const { return shared->immutable(); }

  nanobind::tuple shape() const;
  /// Element strides, compact row-major ones when the tensor has none.
  nanobind::tuple strides() const;
  std::string dtype() const;
  nanobind::tuple dlpackDevice() const;
  uintptr_t dataPointer() const;

  /// The array API's `__dlpack__`. A READ_ONLY tensor asked for a legacy
  /// capsule, which cannot say so, is exported as a copy unless copy=False
  /// (BufferError), or without one when its data is immutable by design.
  nanobind::object dlpack(nanobind::handle stream,
                          std::optional<nanobind::tuple> maxVersion,
                          std::optional<nanobind::tuple> dlDevice,
                          std::optional<bool> copy) const;

  /// A new owning managed tensor viewing this one (for exchange API
  /// consumers and capsules).
  DLManagedTensorVersioned *exportVersioned() const;

private:
  SharedTensor *shared;
};

/// Whether `type` is dlbridge.Tensor (not a subclass: it has none).
bool isTensorType(PyTypeObject *type);

/// Records that a CUDA call on `device` ran on `stream`: the exchange API's
/// current_work_stream reports it to consumers of dlbridge.Tensors made on
/// this thread.
void noteWorkStream(DLDevice device, void *stream);

/// Registers dlbridge.Tensor, its exchange API and dlbridge.from_dlpack.
void bindTensor(nanobind::module_ &m);

/// Wraps `managed` (ownership moves) in a new dlbridge.Tensor whose data is
/// written on `stream` (see SharedTensor).
nanobind::object makeTensor(DLManagedTensorVersioned *managed,
                            std::optional<void *> stream = std::nullopt,
                            bool immutable = false);

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_TENSOR_H
