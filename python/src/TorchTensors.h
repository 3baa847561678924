//===- TorchTensors.h - PyTorch's tensor state beyond DLPack ----*- C++ -*-===//
//
// Part of dlbridge's Python extension.
//
//===----------------------------------------------------------------------===//
//
// PyTorch tensors carry state a DLTensor cannot describe, and its DLPack
// exchange API exports them as if it were absent: the conjugate and negative
// bits (lazy views whose data is stored unconjugated or unnegated) and
// autograd's rules on in-place writes. dlbridge._frameworks marks the
// frameworks whose tensors carry it (torch_state).
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PYTHON_TORCHTENSORS_H
#define DLBRIDGE_PYTHON_TORCHTENSORS_H

#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>

namespace dlbridge::python {

/// What dlbridge._frameworks.TorchState provides.
struct TorchState {
  /// torch._C._increment_version: takes a tuple of tensors.
  nanobind::object incrementVersion;
  /// dlbridge._frameworks.autograd_write_refusal.
  nanobind::object writeRefusal;
};

/// A lazy bit whose tensor's data DLPack describes wrongly.
enum class LazyBit : uint8_t { None, Conjugate, Negative };

/// "conjugate" or "negative".
const char *lazyBitName(LazyBit bit);

/// The first lazy bit `tensor` has (is_conj(), asked only when `complex`:
/// PyTorch sets it on complex tensors only, then is_neg()).
LazyBit getLazyBit(nanobind::handle tensor, bool complex);

/// A new tensor with `tensor`'s values and no lazy bit
/// (resolve_conj().resolve_neg()).
nanobind::object resolveLazyBits(nanobind::handle tensor);

/// Raises RuntimeError "<argument>: <PyTorch's reason>" when autograd
/// forbids writing `tensor` in place now (see
/// dlbridge._frameworks.autograd_write_refusal); `argument` names it.
void checkAutogradAllowsWrite(const TorchState &state, nanobind::handle tensor,
                              const std::string &argument);

/// tensor.requires_grad.
bool requiresGrad(nanobind::handle tensor);

/// tensor.detach(): the same data, bits and version counter, outside
/// autograd.
nanobind::object detach(nanobind::handle tensor);

/// Records in the version counters of `tensors` (a tuple) that a kernel
/// wrote them in place, as PyTorch's own in-place operations do.
void noteInPlaceWrites(const TorchState &state, nanobind::handle tensors);

} // namespace dlbridge::python

#endif // DLBRIDGE_PYTHON_TORCHTENSORS_H
