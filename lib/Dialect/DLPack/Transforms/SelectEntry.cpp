//===- SelectEntry.cpp - Keep one entry and what it references ------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace dlbridge::dlpack {
#define GEN_PASS_DEF_DLPACKSELECTENTRY
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"
} // namespace dlbridge::dlpack

using namespace mlir;
using namespace dlbridge::dlpack;

namespace {

struct DLPackSelectEntryPass
    : public dlbridge::dlpack::impl::DLPackSelectEntryBase<
          DLPackSelectEntryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (entry.empty())
      return;
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    auto chosen = symbols.lookup<func::FuncOp>(entry);
    if (!chosen || !chosen->hasAttr(DLPackDialect::kEntryAttrName)) {
      InFlightDiagnostic diag = module.emitError()
                                << "dlbridge-select-entry: no 'dlpack.entry' "
                                   "function named @"
                                << entry << "; entries:";
      bool any = false;
      for (auto func : module.getOps<func::FuncOp>())
        if (func->hasAttr(DLPackDialect::kEntryAttrName)) {
          diag << (any ? ", @" : " @") << func.getSymName();
          any = true;
        }
      if (!any)
        diag << " none";
      return signalPassFailure();
    }

    // Top-level symbols reachable through symbol references (calls,
    // globals, GPU modules), transitively, from the entry and from the
    // module's operations that are not symbols (llvm.mlir.global_ctors, ...).
    llvm::SetVector<Operation *> live;
    live.insert(chosen);
    for (Operation &op : module.getBody()->getOperations())
      if (!isa<SymbolOpInterface>(op))
        live.insert(&op);
    for (size_t i = 0; i < live.size(); ++i) {
      std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(live[i]);
      if (!uses)
        continue;
      for (const SymbolTable::SymbolUse &use : *uses)
        if (Operation *target =
                symbols.lookup(use.getSymbolRef().getRootReference()))
          live.insert(target);
    }
    for (Operation &op :
         llvm::make_early_inc_range(module.getBody()->getOperations()))
      if (isa<SymbolOpInterface>(op) && !live.contains(&op))
        op.erase();
  }
};

} // namespace
