// The apache-tvm-ffi peer for bench/run.py: the same trivial bodies as the
// nanobind floor, exported as TVM FFI functions (the way a kernel library
// ships functions for tvm_ffi.load_module()).
//
//   add3(a, b, c)   -> tvm_ffi.Tensor   a + b + c into a fresh tensor
//   touch3(a, b, c) -> None             takes the three tensors, no result

#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <cstdint>
#include <cstdlib>

namespace ffi = tvm::ffi;

namespace {

struct CPUAlloc {
  void AllocData(DLTensor *tensor) {
    tensor->data = std::malloc(ffi::GetDataSize(*tensor));
  }
  void FreeData(DLTensor *tensor) { std::free(tensor->data); }
};

void checkInput(const ffi::TensorView &t, const ffi::TensorView &first) {
  TVM_FFI_ICHECK_EQ(t.ndim(), 1) << "expected a 1-d tensor";
  TVM_FFI_ICHECK_EQ(t.size(0), first.size(0)) << "lengths differ";
  TVM_FFI_ICHECK(t.dtype().code == kDLFloat && t.dtype().bits == 32)
      << "expected float32";
  TVM_FFI_ICHECK(t.IsContiguous()) << "expected a contiguous tensor";
}

ffi::Tensor add3(ffi::TensorView a, ffi::TensorView b, ffi::TensorView c) {
  checkInput(a, a);
  checkInput(b, a);
  checkInput(c, a);
  const int64_t n = a.size(0);
  ffi::Tensor out = ffi::Tensor::FromNDAlloc(CPUAlloc(), ffi::Shape({n}),
                                             a.dtype(), a.device());
  const float *pa = static_cast<const float *>(a.data_ptr());
  const float *pb = static_cast<const float *>(b.data_ptr());
  const float *pc = static_cast<const float *>(c.data_ptr());
  float *po = static_cast<float *>(out.data_ptr());
  for (int64_t i = 0; i < n; ++i)
    po[i] = pa[i] + pb[i] + pc[i];
  return out;
}

void touch3(ffi::TensorView a, ffi::TensorView b, ffi::TensorView c) {
  checkInput(a, a);
  checkInput(b, a);
  checkInput(c, a);
}

} // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add3, add3);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(touch3, touch3);
