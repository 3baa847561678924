//===- TensorBuilder.h - Hand-built DLTensors for tests ---------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_UNITTESTS_JIT_TENSORBUILDER_H
#define DLBRIDGE_UNITTESTS_JIT_TENSORBUILDER_H

#include <dlpack/dlpack.h>

#include <cstdint>
#include <vector>

namespace dlbridge::testing {

template <typename T> DLDataType dtypeOf();
template <> inline DLDataType dtypeOf<float>() { return {kDLFloat, 32, 1}; }
template <> inline DLDataType dtypeOf<double>() { return {kDLFloat, 64, 1}; }
template <> inline DLDataType dtypeOf<int32_t>() { return {kDLInt, 32, 1}; }
template <> inline DLDataType dtypeOf<int64_t>() { return {kDLInt, 64, 1}; }

/// A DLTensor over memory the test owns; keeps its shape and strides alive.
/// Copying is disabled because `tensor` points into the object.
class TensorView {
public:
  /// Views `data` (may be NULL) with `shape`; `strides` empty means NULL.
  TensorView(void *data, DLDataType dtype, std::vector<int64_t> shape,
             std::vector<int64_t> strides = {}, uint64_t byteOffset = 0,
             DLDevice device = {kDLCPU, 0})
      : shape(std::move(shape)), strides(std::move(strides)) {
    tensor.data = data;
    tensor.device = device;
    tensor.ndim = static_cast<int32_t>(this->shape.size());
    tensor.dtype = dtype;
    tensor.shape = this->shape.empty() ? nullptr : this->shape.data();
    tensor.strides = this->strides.empty() ? nullptr : this->strides.data();
    tensor.byte_offset = byteOffset;
  }
  TensorView(const TensorView &) = delete;
  TensorView &operator=(const TensorView &) = delete;

  template <typename T>
  static TensorView of(std::vector<T> &data, std::vector<int64_t> shape,
                       std::vector<int64_t> strides = {},
                       uint64_t byteOffset = 0) {
    return TensorView(data.data(), dtypeOf<T>(), std::move(shape),
                      std::move(strides), byteOffset);
  }

  DLTensor *get() { return &tensor; }

  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLTensor tensor{};
};

} // namespace dlbridge::testing

#endif // DLBRIDGE_UNITTESTS_JIT_TENSORBUILDER_H
