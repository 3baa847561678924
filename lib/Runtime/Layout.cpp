//===- Layout.cpp - The compactness rule and strided copies ---------------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// What "compact" means and how elements move between layouts, for every
// layer: the checks of identity layouts, the JIT's choice of its contiguous
// variant, the Python module's host copies, `.npy` files and memref.copy.
//
//===----------------------------------------------------------------------===//

#include "Layout.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

dlrt::CompactMismatch dlrt::findCompactMismatch(const DLTensor &tensor) {
  CompactMismatch result;
  if (!tensor.strides)
    return result;
  for (int32_t dim = 0; dim < tensor.ndim; ++dim)
    if (tensor.shape[dim] == 0)
      return result;
  int64_t compact = 1;
  bool overflowed = false;
  for (int32_t dim = tensor.ndim - 1; dim >= 0; --dim) {
    const int64_t size = tensor.shape[dim];
    if (size == 1)
      continue;
    if (overflowed || tensor.strides[dim] != compact) {
      result.dim = dim;
      result.expected = compact;
      result.overflow = overflowed;
      return result;
    }
    overflowed = __builtin_mul_overflow(compact, size, &compact);
  }
  return result;
}

bool dlrt::mayOverlapItself(const DLTensor &tensor) {
  if (!tensor.strides)
    return false;
  // Magnitudes and reaches in 128 bits: |INT64_MIN| and sums of extents
  // that were each checked against int64 do not fit in 64.
  using Wide = unsigned __int128;
  Wide strides[64], sizes[64];
  int32_t count = 0;
  for (int32_t dim = 0; dim < tensor.ndim; ++dim) {
    if (tensor.shape[dim] == 1)
      continue;
    if (count == 64)
      return true;
    const int64_t stride = tensor.strides[dim];
    strides[count] = stride < 0 ? Wide(0) - Wide(stride) : Wide(stride);
    sizes[count++] = Wide(tensor.shape[dim]);
  }
  // Insertion sort by stride: ranks are small.
  for (int32_t i = 1; i < count; ++i)
    for (int32_t j = i; j > 0 && strides[j] < strides[j - 1]; --j) {
      std::swap(strides[j], strides[j - 1]);
      std::swap(sizes[j], sizes[j - 1]);
    }
  Wide reach = 1;
  for (int32_t i = 0; i < count; ++i) {
    if (strides[i] < reach)
      return true;
    reach += strides[i] * (sizes[i] - 1);
  }
  return false;
}

namespace {
/// The arguments of dlrt::copyElements that stay the same at every depth.
struct Copy {
  const int64_t *sizes, *sourceStrides, *targetStrides;
  int64_t elementBytes;
  /// Bytes of the contiguous run that dims [outer, rank) form on both sides.
  int64_t block;
  int32_t outer;
};

void copyDims(const Copy &copy, int32_t dim, const char *source, char *target) {
  while (dim < copy.outer && copy.sizes[dim] == 1)
    ++dim;
  if (dim == copy.outer) {
    std::memcpy(target, source, static_cast<size_t>(copy.block));
    return;
  }
  const int64_t sourceStep = copy.sourceStrides[dim] * copy.elementBytes;
  const int64_t targetStep = copy.targetStrides[dim] * copy.elementBytes;
  for (int64_t i = 0; i < copy.sizes[dim]; ++i)
    copyDims(copy, dim + 1, source + i * sourceStep, target + i * targetStep);
}
} // namespace

void dlrt::copyElements(int32_t rank, const int64_t *sizes,
                        int64_t elementBytes, const char *source,
                        const int64_t *sourceStrides, char *target,
                        const int64_t *targetStrides) {
  for (int32_t dim = 0; dim < rank; ++dim)
    if (sizes[dim] == 0)
      return;
  // The innermost dims contiguous on both sides become one block; size-1
  // dims never move an address.
  Copy copy{sizes,        sourceStrides, targetStrides,
            elementBytes, elementBytes,  rank};
  while (copy.outer > 0) {
    const int32_t dim = copy.outer - 1;
    if (sizes[dim] != 1 && (sourceStrides[dim] * elementBytes != copy.block ||
                            targetStrides[dim] * elementBytes != copy.block))
      break;
    copy.block *= sizes[dim];
    --copy.outer;
  }
  copyDims(copy, 0, source, target);
}

extern "C" int32_t dlrt_is_compact(const DLTensor *tensor) {
  if (!tensor || tensor->ndim < 0 || (tensor->ndim > 0 && !tensor->shape))
    return 0;
  for (int32_t dim = 0; dim < tensor->ndim; ++dim)
    if (tensor->shape[dim] < 0)
      return 0;
  return dlrt::findCompactMismatch(*tensor).dim < 0;
}

namespace {
/// Records "<role>: <the thread's last error>" and returns `status`.
int32_t failWithRole(const char *role, int32_t status) {
  char message[DLRT_ERROR_CAPACITY];
  std::snprintf(message, sizeof(message), "%s", dlrt_last_error());
  return dlrt_set_error(nullptr, status, "%s: %s", role, message);
}

/// The checks of one side of dlrt_copy_strided.
int32_t checkSide(const char *role, const DLTensor *tensor) {
  if (int32_t status = dlrt_check_descriptor(tensor))
    return failWithRole(role, status);
  if (!dlrt_host_accessible(tensor->device)) {
    char device[48];
    return dlrt_set_error(
        nullptr, DLRT_ERR_DEVICE,
        "%s: expected memory the host can access (cpu, cuda_host, "
        "cuda_managed, rocm_host), got %s",
        role, dlrt_device_name(tensor->device, device, sizeof(device)));
  }
  return DLRT_OK;
}

} // namespace

extern "C" int32_t dlrt_tensor_strides(const DLTensor *tensor,
                                       int64_t *strides) {
  if (!tensor || tensor->ndim < 0 ||
      (tensor->ndim > 0 && (!tensor->shape || !strides)))
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "expected a well-formed tensor and room for its "
                          "strides, got %s",
                          !tensor            ? "a NULL tensor"
                          : tensor->ndim < 0 ? "a negative ndim"
                          : !tensor->shape   ? "a NULL shape"
                                             : "NULL strides");
  if (tensor->strides) {
    for (int32_t dim = 0; dim < tensor->ndim; ++dim)
      strides[dim] = tensor->strides[dim];
    return DLRT_OK;
  }
  uint64_t compact = 1;
  for (int32_t dim = tensor->ndim - 1; dim >= 0; --dim) {
    strides[dim] = static_cast<int64_t>(compact);
    compact *= static_cast<uint64_t>(tensor->shape[dim]);
  }
  return DLRT_OK;
}

extern "C" int32_t dlrt_copy_strided(const DLTensor *source,
                                     const DLTensor *target) {
  if (int32_t status = checkSide("source", source))
    return status;
  if (int32_t status = checkSide("target", target))
    return status;
  if (source->ndim != target->ndim)
    return dlrt_set_error(nullptr, DLRT_ERR_RANK,
                          "target: expected rank %d, got rank %d", source->ndim,
                          target->ndim);
  for (int32_t dim = 0; dim < source->ndim; ++dim)
    if (source->shape[dim] != target->shape[dim])
      return dlrt_set_error(nullptr, DLRT_ERR_SHAPE,
                            "target: dim %d expected %" PRId64 ", got %" PRId64,
                            dim, source->shape[dim], target->shape[dim]);
  const DLDataType from = source->dtype, to = target->dtype;
  if (from.code != to.code || from.bits != to.bits || from.lanes != to.lanes) {
    char expected[64], actual[64];
    return dlrt_set_error(nullptr, DLRT_ERR_DTYPE,
                          "target: expected %s, got %s",
                          dlrt_dtype_name(from, expected, sizeof(expected)),
                          dlrt_dtype_name(to, actual, sizeof(actual)));
  }
  const int32_t rank = source->ndim;
  for (int32_t dim = 0; dim < rank; ++dim)
    if (source->shape[dim] == 0)
      return DLRT_OK; // data may be NULL: no address may be formed
  // Shapes are equal, so two NULL strides share their compact values.
  int64_t *compact = nullptr;
  if ((!source->strides || !target->strides) && rank > 0) {
    compact = static_cast<int64_t *>(std::malloc(sizeof(int64_t) * rank));
    if (!compact)
      return dlrt_set_error(nullptr, DLRT_ERR_OUT_OF_MEMORY,
                            "cannot allocate %d strides", rank);
    dlrt_tensor_strides(source->strides ? target : source, compact);
  }
  dlrt::copyElements(rank, source->shape, int64_t(from.bits) * from.lanes / 8,
                     static_cast<const char *>(source->data) +
                         source->byte_offset,
                     source->strides ? source->strides : compact,
                     static_cast<char *>(target->data) + target->byte_offset,
                     target->strides ? target->strides : compact);
  std::free(compact);
  return DLRT_OK;
}
