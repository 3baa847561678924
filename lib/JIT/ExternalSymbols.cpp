//===- ExternalSymbols.cpp - Calls the JIT can link -----------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "ExternalSymbols.h"
#include "RuntimeSymbols.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/SelfExecutorProcessControl.h"
#include "llvm/Support/DynamicLibrary.h"

using namespace mlir;

namespace {

/// The names of the libdlrt functions the JIT binds (getRuntimeSymbols).
const llvm::StringSet<> &getRuntimeSymbolNames() {
  static const llvm::StringSet<> *names = [] {
    llvm::orc::ExecutionSession session(
        llvm::cantFail(llvm::orc::SelfExecutorProcessControl::Create()));
    llvm::orc::MangleAndInterner interner(session, llvm::DataLayout(""));
    auto *names = new llvm::StringSet<>();
    for (const auto &symbol : dlbridge::jit::getRuntimeSymbols(interner))
      names->insert(*symbol.first);
    llvm::cantFail(session.endSession());
    return names;
  }();
  return *names;
}

} // namespace

bool dlbridge::jit::isLinkable(StringRef name) {
  return getRuntimeSymbolNames().contains(name) ||
         llvm::sys::DynamicLibrary::getPermanentLibrary(nullptr)
             .getAddressOfSymbol(name.str().c_str());
}

LogicalResult dlbridge::jit::verifyExternalFunctions(ModuleOp module) {
  bool linkable = true;
  for (auto function : module.getOps<FunctionOpInterface>()) {
    if (!function.isExternal() || isLinkable(function.getName()))
      continue;
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(function, module);
    if (!uses)
      continue;
    for (const SymbolTable::SymbolUse &use : *uses) {
      linkable = false;
      Operation *user = use.getUser();
      user->emitError() << "'" << user->getName() << "' uses @"
                        << function.getName()
                        << ", which the module declares but does not "
                           "define, and which neither libdlrt nor this "
                           "process exports: define @"
                        << function.getName()
                        << " in the module, or load a library that exports "
                           "it (with RTLD_GLOBAL) before compiling";
    }
  }
  return success(linkable);
}
