//===- LegalizeKernelNames.cpp - Kernel names PTX can spell ---------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace dlbridge {
#define GEN_PASS_DEF_LEGALIZEKERNELNAMES
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// Whether `c` may appear in a PTX identifier after its first character.
bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$';
}

/// `name` with every character PTX identifiers cannot hold replaced by `_`,
/// and a leading digit (or nothing) prefixed with `_`.
std::string legalize(StringRef name) {
  std::string legal;
  if (name.empty() || llvm::isDigit(name.front()))
    legal.push_back('_');
  for (char c : name)
    legal.push_back(isIdentifierChar(c) ? c : '_');
  return legal;
}

/// Renames the symbols of `table` that are not legal to legal names unique in
/// it; uses anywhere in `scope` (nested references too) follow.
LogicalResult legalizeSymbols(SymbolTable &table, Operation *tableOp,
                              Operation *scope) {
  SmallVector<Operation *> symbols;
  for (Operation &op : tableOp->getRegion(0).front())
    if (auto symbol = dyn_cast<SymbolOpInterface>(op))
      if (legalize(symbol.getName()) != symbol.getName())
        symbols.push_back(&op);
  for (Operation *op : symbols) {
    std::string legal = legalize(cast<SymbolOpInterface>(op).getName());
    std::string unique = legal;
    for (unsigned suffix = 0; table.lookup(unique); ++suffix)
      unique = legal + "_" + std::to_string(suffix);
    StringAttr to = StringAttr::get(op->getContext(), unique);
    if (failed(SymbolTable::replaceAllSymbolUses(op, to, scope)) ||
        failed(table.rename(op, to)))
      return op->emitOpError() << "cannot be renamed to '" << unique << "'";
  }
  return success();
}

struct LegalizeKernelNamesPass
    : public dlbridge::impl::LegalizeKernelNamesBase<LegalizeKernelNamesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable moduleTable(module);
    // Modules first: renaming a kernel then updates `@module::@kernel`
    // references under the module's final name.
    SmallVector<gpu::GPUModuleOp> kernelModules(
        module.getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp kernelModule : kernelModules) {
      std::string legal = legalize(kernelModule.getName());
      if (legal == kernelModule.getName())
        continue;
      std::string unique = legal;
      for (unsigned suffix = 0; moduleTable.lookup(unique); ++suffix)
        unique = legal + "_" + std::to_string(suffix);
      if (failed(moduleTable.rename(kernelModule, unique))) {
        kernelModule.emitOpError() << "cannot be renamed to '" << unique << "'";
        return signalPassFailure();
      }
    }
    for (gpu::GPUModuleOp kernelModule : module.getOps<gpu::GPUModuleOp>()) {
      SymbolTable kernelTable(kernelModule);
      if (failed(legalizeSymbols(kernelTable, kernelModule, module)))
        return signalPassFailure();
    }
  }
};

} // namespace
