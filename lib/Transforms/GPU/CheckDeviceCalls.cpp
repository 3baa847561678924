//===- CheckDeviceCalls.cpp - Device code calls only device code ----------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace dlbridge {
#define GEN_PASS_DEF_CHECKDEVICECALLS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// Declarations the device resolves: LLVM intrinsics, libdevice (linked
/// when the module is serialised) and the system calls of PTX (resolved by
/// ptxas and the driver).
bool isDeviceDeclaration(StringRef name) {
  return name.starts_with("llvm.") || name.starts_with("__nv_") ||
         llvm::is_contained({"vprintf", "malloc", "free", "__assertfail"},
                            name);
}

/// Whether `symbol`, looked up from `from`, is a function with a body in the
/// GPU module.
bool isDefinedFunction(Operation *from, SymbolRefAttr symbol) {
  auto function = dyn_cast_or_null<FunctionOpInterface>(
      SymbolTable::lookupNearestSymbolFrom(from, symbol));
  return function && !function.isExternal();
}

/// Whether the function value `callee` is the address of a function the
/// module defines, rather than one that came from the host.
bool isDeviceFunctionAddress(Value callee) {
  Operation *producer = callee.getDefiningOp();
  if (auto constant = dyn_cast_or_null<func::ConstantOp>(producer))
    return isDefinedFunction(producer, constant.getValueAttr());
  if (auto address = dyn_cast_or_null<LLVM::AddressOfOp>(producer))
    return isDefinedFunction(producer, address.getGlobalNameAttr());
  return false;
}

struct CheckDeviceCallsPass
    : public dlbridge::impl::CheckDeviceCallsBase<CheckDeviceCallsPass> {
  void runOnOperation() override {
    bool refused = false;
    getOperation()->walk(
        [&](CallOpInterface call) {
          Operation *op = call.getOperation();
          CallInterfaceCallable callee = call.getCallableForCallee();
          if (auto value = dyn_cast<Value>(callee)) {
            if (isDeviceFunctionAddress(value))
              return;
            op->emitOpError()
                << "calls a function pointer in device code that is not a "
                   "function of the GPU module (a host function's address): a "
                   "GPU cannot run host code; call a function defined in the "
                   "module directly, or make the call on the host before the "
                   "launch";
            refused = true;
            return;
          }
          auto symbol = cast<SymbolRefAttr>(callee);
          auto function = dyn_cast_or_null<FunctionOpInterface>(
              SymbolTable::lookupNearestSymbolFrom(op, symbol));
          if (!function || !function.isExternal() ||
              isDeviceDeclaration(function.getName()))
            return;
          op->emitOpError()
              << "calls " << symbol
              << " in device code, but it is only declared (a host "
                 "function): a GPU cannot run host code; define "
              << symbol
              << " in the module with a body, which is compiled "
                 "for the device, or make the call on the host "
                 "before the launch";
          refused = true;
        });
    if (refused)
      signalPassFailure();
  }
};

} // namespace
