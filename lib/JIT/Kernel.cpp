//===- Kernel.cpp - Calling compiled kernels ------------------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "KernelImpl.h"

using namespace dlbridge::jit;

namespace {
ParamInfo toParamInfo(const dlrt_param_desc &desc) {
  ParamInfo info;
  info.name = desc.name ? desc.name : "";
  info.isTensor = desc.kind == DLRT_PARAM_TENSOR;
  info.dtype = desc.dtype;
  info.rank = desc.rank;
  if (desc.shape)
    info.shape.assign(desc.shape, desc.shape + desc.rank);
  info.strided = desc.layout == DLRT_LAYOUT_STRIDED;
  info.access = desc.access;
  return info;
}

Signature toSignature(const dlrt_signature &record) {
  Signature signature;
  signature.name = record.name;
  signature.device = static_cast<DLDeviceType>(record.device_type);
  for (int32_t i = 0; i < record.num_args; ++i)
    signature.args.push_back(toParamInfo(record.args[i]));
  for (int32_t i = 0; i < record.num_results; ++i)
    signature.results.push_back(toParamInfo(record.results[i]));
  return signature;
}
} // namespace

KernelImpl::KernelImpl(std::string name, LoadedVariant general,
                       VariantMaker makeContiguous, KernelStages stages,
                       bool fromDiskCache)
    : signature(toSignature(*general.signature)), stages(std::move(stages)),
      general(std::move(general)),
      hasContiguous(static_cast<bool>(makeContiguous)),
      fromDiskCache(fromDiskCache), makeContiguous(std::move(makeContiguous)) {
  signature.name = std::move(name);
}

EntryFunction KernelImpl::getContiguousEntry() const {
  if (EntryFunction entry = contiguousEntry.load(std::memory_order_acquire))
    return entry;
  std::call_once(contiguousOnce, [&] {
    if (std::optional<LoadedVariant> made = makeContiguous()) {
      contiguous = std::move(*made);
      contiguousEntry.store(contiguous.entry, std::memory_order_release);
    }
    makeContiguous = nullptr; // what it captured (the source) is not needed
  });
  return contiguousEntry.load(std::memory_order_acquire);
}

Kernel::Kernel(std::shared_ptr<const KernelImpl> impl)
    : impl(std::move(impl)) {}

const Signature &Kernel::signature() const { return impl->signature; }

const KernelStages &Kernel::stages() const { return impl->stages; }

bool Kernel::hasContiguousVariant() const { return impl->hasContiguous; }

bool Kernel::isContiguousVariantLoaded() const {
  return impl->isContiguousLoaded();
}

bool Kernel::fromDiskCache() const { return impl->fromDiskCache; }

int32_t Kernel::call(void **args, void **results, dlrt_call_ctx *ctx) const {
  impl->markUsed();
  EntryFunction entry = impl->general.entry;
  if (impl->hasContiguous) {
    bool compact = true;
    const std::vector<ParamInfo> &params = impl->signature.args;
    for (size_t i = 0; compact && i < params.size(); ++i)
      if (params[i].isTensor)
        compact = dlrt_is_compact(static_cast<const DLTensor *>(args[i]));
    if (compact)
      if (EntryFunction contiguous = impl->getContiguousEntry())
        entry = contiguous;
  }
  return entry(args, results, ctx);
}

WeakKernel::WeakKernel(const Kernel &kernel)
    : impl(KernelImpl::unwrap(kernel)) {}

std::optional<Kernel> WeakKernel::lock() const {
  if (std::shared_ptr<const KernelImpl> locked = impl.lock())
    return KernelImpl::wrap(std::move(locked));
  return std::nullopt;
}

bool WeakKernel::expired() const { return impl.expired(); }
