// The call-overhead floor for bench/run.py: the cheapest way a C++ extension
// can take three framework tensors from Python (nanobind's nb::ndarray, which
// imports them through DLPack / the buffer protocol) and do the same trivial
// body as the dlbridge kernel it is compared with.
//
//   add3_numpy(a, b, c) -> numpy.ndarray   a + b + c into a fresh array
//   add3_jax(a, b, c)   -> jax.Array       the same, returned as a JAX array
//   add3_torch(a, b, c) -> torch.Tensor    the same, as a PyTorch tensor
//   touch3(a, b, c)     -> None            imports the three tensors, no result

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>

namespace nb = nanobind;

namespace {

/// A read-only, compact, 1-d float32 CPU tensor (what the dlbridge kernel
/// takes).
using Input =
    nb::ndarray<const float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// a + b + c into a new buffer owned by the returned ndarray.
template <typename Framework>
nb::ndarray<Framework, float, nb::ndim<1>> add3(Input a, Input b, Input c) {
  const size_t n = a.shape(0);
  if (b.shape(0) != n || c.shape(0) != n)
    throw nb::value_error("add3(): arguments must have the same length");
  float *out = new float[n];
  const float *pa = a.data(), *pb = b.data(), *pc = c.data();
  for (size_t i = 0; i < n; ++i)
    out[i] = pa[i] + pb[i] + pc[i];
  nb::capsule owner(out,
                    [](void *p) noexcept { delete[] static_cast<float *>(p); });
  return nb::ndarray<Framework, float, nb::ndim<1>>(out, {n}, owner);
}

/// Imports three tensors and returns nothing: the argument-passing floor.
void touch3(Input a, Input b, Input c) {
  if (b.shape(0) != a.shape(0) || c.shape(0) != a.shape(0))
    throw nb::value_error("touch3(): arguments must have the same length");
}

} // namespace

NB_MODULE(nanobind_floor, m) {
  m.doc() =
      "dlbridge benchmark floor: nanobind functions taking three nb::ndarray";
  m.def("add3_numpy", &add3<nb::numpy>, nb::arg("a"), nb::arg("b"),
        nb::arg("c"));
  m.def("add3_jax", &add3<nb::jax>, nb::arg("a"), nb::arg("b"), nb::arg("c"));
  m.def("add3_torch", &add3<nb::pytorch>, nb::arg("a"), nb::arg("b"),
        nb::arg("c"));
  m.def("touch3", &touch3, nb::arg("a"), nb::arg("b"), nb::arg("c"));
}
