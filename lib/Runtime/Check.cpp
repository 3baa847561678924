//===- Check.cpp - Checking a DLTensor against a parameter record
//----------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// dlrt_check_tensor runs once per tensor argument per call, so its success
// path neither allocates nor formats: messages are only built on failure.
//
//===----------------------------------------------------------------------===//

#include "Layout.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace {

/// Whether a call running on `call` may use memory on `tensor`: the host
/// reads its own and pinned/managed memory (device_id is meaningless for
/// those, so only plain CPU tensors must say 0); a CUDA call reads its own
/// device's memory, managed included.
bool deviceAccepts(DLDevice call, DLDevice tensor) {
  switch (call.device_type) {
  case kDLCPU:
    return dlrt_host_accessible(tensor) &&
           (tensor.device_type != kDLCPU || tensor.device_id == 0);
  case kDLCUDA:
    return (tensor.device_type == kDLCUDA ||
            tensor.device_type == kDLCUDAManaged) &&
           tensor.device_id == call.device_id;
  default:
    return tensor.device_type == call.device_type &&
           tensor.device_id == call.device_id;
  }
}

/// The index of dlrt_check_descriptor's tensor, which is no argument.
constexpr int32_t kNoIndex = INT32_MIN;

/// Records "argument <index> '<name>': <detail>" as the call's failure
/// (only the detail for kNoIndex).
__attribute__((format(printf, 5, 6))) int32_t
fail(dlrt_call_ctx *ctx, int32_t status, int32_t index,
     const dlrt_param_desc *desc, const char *format, ...) {
  char detail[DLRT_ERROR_CAPACITY];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  if (index == kNoIndex)
    return dlrt_set_error(ctx, status, "%s", detail);
  if (desc && desc->name)
    return dlrt_set_error(ctx, status, "argument %d '%s': %s", index,
                          desc->name, detail);
  return dlrt_set_error(ctx, status, "argument %d: %s", index, detail);
}

int32_t failOverflowInDim(dlrt_call_ctx *ctx, int32_t index,
                          const dlrt_param_desc *desc, int32_t dim) {
  return fail(ctx, DLRT_ERR_OVERFLOW, index, desc,
              "expected addressed bytes within int64, got an overflow in "
              "dim %d",
              dim);
}

bool isEmpty(const DLTensor *tensor) {
  for (int32_t i = 0; i < tensor->ndim; ++i)
    if (tensor->shape[i] == 0)
      return true;
  return false;
}

/// Checks the strides (and the extent they address) of a non-empty tensor
/// whose rank, dims, dtype and byte_offset were already checked. Strides of
/// size-1 dims never move an address, so they are not compared.
int32_t checkStridesAndExtent(dlrt_call_ctx *ctx, int32_t index,
                              const DLTensor *tensor,
                              const dlrt_param_desc *desc,
                              int64_t elementBytes) {
  const bool identity = desc->layout == DLRT_LAYOUT_IDENTITY;
  if (identity) {
    const dlrt::CompactMismatch mismatch = dlrt::findCompactMismatch(*tensor);
    if (mismatch.overflow)
      return failOverflowInDim(ctx, index, desc, mismatch.dim);
    if (mismatch.dim >= 0)
      return fail(ctx, DLRT_ERR_LAYOUT, index, desc,
                  "dim %d expected stride %" PRId64
                  " (compact row-major), got %" PRId64,
                  mismatch.dim, mismatch.expected,
                  tensor->strides[mismatch.dim]);
  }
  // NULL strides are the compact ones.
  const bool usesCompact = !tensor->strides;
  int64_t compactStride = 1;
  bool compactOverflowed = false;
  int64_t lowestElement = 0, highestElement = 0;
  for (int32_t dim = tensor->ndim - 1; dim >= 0; --dim) {
    const int64_t size = tensor->shape[dim];
    if (size == 1)
      continue;
    if (usesCompact && compactOverflowed)
      return failOverflowInDim(ctx, index, desc, dim);
    const int64_t stride =
        tensor->strides ? tensor->strides[dim] : compactStride;
    if (!identity && desc->strides && desc->strides[dim] != DLRT_DYNAMIC &&
        desc->strides[dim] != stride)
      return fail(ctx, DLRT_ERR_LAYOUT, index, desc,
                  "dim %d expected stride %" PRId64 ", got %" PRId64, dim,
                  desc->strides[dim], stride);
    int64_t span;
    int64_t &bound = stride < 0 ? lowestElement : highestElement;
    if (__builtin_mul_overflow(size - 1, stride, &span) ||
        __builtin_add_overflow(bound, span, &bound))
      return failOverflowInDim(ctx, index, desc, dim);
    if (usesCompact &&
        __builtin_mul_overflow(compactStride, size, &compactStride))
      compactOverflowed = true;
  }
  const auto byteOffset = static_cast<int64_t>(tensor->byte_offset);
  int64_t lowestByte, highestByte;
  if (__builtin_mul_overflow(lowestElement, elementBytes, &lowestByte) ||
      __builtin_add_overflow(lowestByte, byteOffset, &lowestByte) ||
      __builtin_mul_overflow(highestElement, elementBytes, &highestByte) ||
      __builtin_add_overflow(highestByte, elementBytes, &highestByte) ||
      __builtin_add_overflow(highestByte, byteOffset, &highestByte))
    return fail(
        ctx, DLRT_ERR_OVERFLOW, index, desc,
        "expected addressed bytes within int64, got elements %" PRId64
        " to %" PRId64 " of %" PRId64 " bytes past byte_offset %" PRIu64,
        lowestElement, highestElement, elementBytes, tensor->byte_offset);
  return DLRT_OK;
}

/// dlrt_check_tensor's rules; with `ofParameter` false only those that do
/// not depend on the call (ctx may then be NULL): not the device's, nor
/// READ_ONLY's.
int32_t checkTensor(dlrt_call_ctx *ctx, int32_t index, const DLTensor *tensor,
                    const dlrt_param_desc *desc, bool ofParameter) {
  if (desc->kind != DLRT_PARAM_TENSOR)
    return fail(ctx, DLRT_ERR_INVALID_ARGUMENT, index, desc,
                "expected a tensor parameter, got parameter kind %d",
                desc->kind);
  if (desc->layout != DLRT_LAYOUT_IDENTITY &&
      desc->layout != DLRT_LAYOUT_STRIDED)
    return fail(ctx, DLRT_ERR_INVALID_ARGUMENT, index, desc,
                "expected an identity or strided layout, got layout %d",
                desc->layout);
  if (!tensor)
    return fail(ctx, DLRT_ERR_INVALID_ARGUMENT, index, desc,
                "expected a DLTensor, got NULL");

  if (tensor->ndim != desc->rank)
    return fail(ctx, DLRT_ERR_RANK, index, desc,
                "expected rank %d, got rank %d", desc->rank, tensor->ndim);
  if (!tensor->shape && tensor->ndim != 0)
    return fail(ctx, DLRT_ERR_INVALID_ARGUMENT, index, desc,
                "expected a shape for rank %d, got NULL", tensor->ndim);

  const DLDataType expected = desc->dtype, actual = tensor->dtype;
  if (expected.code != actual.code || expected.bits != actual.bits ||
      expected.lanes != actual.lanes) {
    char expectedName[64], actualName[64];
    return fail(ctx, DLRT_ERR_DTYPE, index, desc, "expected %s, got %s",
                dlrt_dtype_name(expected, expectedName, sizeof(expectedName)),
                dlrt_dtype_name(actual, actualName, sizeof(actualName)));
  }
  const int64_t elementBits = int64_t(actual.bits) * actual.lanes;
  if (elementBits == 0 || elementBits % 8 != 0) {
    char name[64];
    return fail(ctx, DLRT_ERR_UNSUPPORTED, index, desc,
                "expected a whole-byte element type, got %s",
                dlrt_dtype_name(actual, name, sizeof(name)));
  }
  const int64_t elementBytes = elementBits / 8;

  for (int32_t dim = 0; dim < tensor->ndim; ++dim) {
    const int64_t size = tensor->shape[dim];
    if (size < 0)
      return fail(ctx, DLRT_ERR_SHAPE, index, desc,
                  "dim %d expected a non-negative size, got %" PRId64, dim,
                  size);
    // A rank-0 record may carry no shape; a ranked one always has one.
    const int64_t expectedSize = desc->shape ? desc->shape[dim] : DLRT_DYNAMIC;
    if (expectedSize != DLRT_DYNAMIC && expectedSize != size)
      return fail(ctx, DLRT_ERR_SHAPE, index, desc,
                  "dim %d expected %" PRId64 ", got %" PRId64, dim,
                  expectedSize, size);
  }

  if (ofParameter && !deviceAccepts(ctx->device, tensor->device)) {
    char expectedDevice[48], actualDevice[48];
    return fail(
        ctx, DLRT_ERR_DEVICE, index, desc, "expected device %s, got %s",
        dlrt_device_name(ctx->device, expectedDevice, sizeof(expectedDevice)),
        dlrt_device_name(tensor->device, actualDevice, sizeof(actualDevice)));
  }

  if (tensor->byte_offset % uint64_t(elementBytes) != 0)
    return fail(ctx, DLRT_ERR_ALIGNMENT, index, desc,
                "expected byte_offset a multiple of %" PRId64 ", got %" PRIu64,
                elementBytes, tensor->byte_offset);
  if (tensor->byte_offset > uint64_t(INT64_MAX))
    return fail(ctx, DLRT_ERR_OVERFLOW, index, desc,
                "expected byte_offset within int64, got %" PRIu64,
                tensor->byte_offset);

  const bool empty = isEmpty(tensor);
  if (!tensor->data && !empty)
    return fail(ctx, DLRT_ERR_NULL_DATA, index, desc,
                "expected data for a non-empty tensor, got NULL");
  if (!empty) {
    if (int32_t status =
            checkStridesAndExtent(ctx, index, tensor, desc, elementBytes))
      return status;
  }

  const int64_t elementOffset =
      static_cast<int64_t>(tensor->byte_offset) / elementBytes;
  if (desc->layout == DLRT_LAYOUT_STRIDED && desc->offset != DLRT_DYNAMIC &&
      desc->offset != elementOffset)
    return fail(ctx, DLRT_ERR_LAYOUT, index, desc,
                "expected offset %" PRId64 ", got %" PRId64
                " (byte_offset %" PRIu64 ")",
                desc->offset, elementOffset, tensor->byte_offset);

  if (ofParameter && ctx->arg_flags &&
      (ctx->arg_flags[index] & DLPACK_FLAG_BITMASK_READ_ONLY) &&
      (desc->access & DLRT_ACCESS_WRITE))
    return fail(ctx, DLRT_ERR_READ_ONLY, index, desc,
                "expected a writable tensor, got a READ_ONLY one");
  // A kernel may update a written parameter in place, element by element;
  // elements sharing an address would see each other's new values.
  if ((desc->access & DLRT_ACCESS_WRITE) && !empty &&
      dlrt::mayOverlapItself(*tensor))
    return fail(ctx, DLRT_ERR_LAYOUT, index, desc,
                "expected a written tensor whose elements do not overlap, got "
                "strides under which two elements may share an address "
                "(pass a copy)");
  return DLRT_OK;
}

} // namespace

extern "C" int32_t dlrt_check_tensor(dlrt_call_ctx *ctx, int32_t index,
                                     const DLTensor *tensor,
                                     const dlrt_param_desc *desc) {
  if (!ctx)
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "argument %d: no call context", index);
  if (index < 0)
    return fail(ctx, DLRT_ERR_INVALID_ARGUMENT, index, desc,
                "expected a non-negative argument index, got %d", index);
  if (!desc)
    return fail(ctx, DLRT_ERR_INVALID_ARGUMENT, index, desc,
                "expected a parameter descriptor, got NULL");
  return checkTensor(ctx, index, tensor, desc, /*ofParameter=*/true);
}

extern "C" int32_t dlrt_check_descriptor(const DLTensor *tensor) {
  if (tensor && tensor->ndim < 0)
    return fail(nullptr, DLRT_ERR_INVALID_ARGUMENT, kNoIndex, nullptr,
                "expected a non-negative ndim, got %d", tensor->ndim);
  // A parameter that takes the tensor as it is: its own rank and dtype, any
  // size and any strides.
  dlrt_param_desc any{};
  any.kind = DLRT_PARAM_TENSOR;
  any.layout = DLRT_LAYOUT_STRIDED;
  any.access = DLRT_ACCESS_NONE;
  any.offset = DLRT_DYNAMIC;
  if (tensor) {
    any.rank = tensor->ndim;
    any.dtype = tensor->dtype;
  }
  return checkTensor(nullptr, kNoIndex, tensor, &any, /*ofParameter=*/false);
}
