//===- ScopeBlockAllocas.cpp - Return a block's stack at its end ----------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "ScopeBlockAllocas.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace {

/// Whether every use of `alloca`, and of every pointer derived from it
/// (through address arithmetic, casts, selects, calls and loads of stored
/// copies), is in its block, and its address is stored only into allocas of
/// that block: then nothing reads its memory after the block ends.
bool staysInBlock(AllocaInst *alloca) {
  BasicBlock *block = alloca->getParent();
  SmallVector<Value *> work{alloca};
  SmallPtrSet<Value *, 16> seen;
  while (!work.empty()) {
    Value *pointer = work.pop_back_val();
    if (!seen.insert(pointer).second)
      continue;
    for (User *user : pointer->users()) {
      auto *inst = dyn_cast<Instruction>(user);
      if (!inst || inst->getParent() != block || isa<PHINode>(inst))
        return false;
      if (auto *store = dyn_cast<StoreInst>(inst)) {
        if (store->getValueOperand() != pointer)
          continue;
        auto *into = dyn_cast<AllocaInst>(
            getUnderlyingObject(store->getPointerOperand()));
        if (!into || into->getParent() != block)
          return false;
        work.push_back(into);
        continue;
      }
      if (isa<GetElementPtrInst, CastInst, SelectInst, CallBase, LoadInst>(
              inst)) {
        if (inst->getType()->isPointerTy())
          work.push_back(inst);
        continue;
      }
      if (!isa<CmpInst>(inst))
        return false;
    }
  }
  return true;
}

/// Brackets `block`'s allocas when all stay in it.
bool scopeBlock(BasicBlock &block) {
  SmallVector<AllocaInst *> allocas;
  for (Instruction &inst : block)
    if (auto *alloca = dyn_cast<AllocaInst>(&inst))
      allocas.push_back(alloca);
  if (allocas.empty() || !block.getTerminator() ||
      !llvm::all_of(allocas, staysInBlock))
    return false;
  IRBuilder<> builder(allocas.front());
  Value *saved = builder.CreateStackSave("block.stack");
  builder.SetInsertPoint(block.getTerminator());
  builder.CreateStackRestore(saved);
  return true;
}

} // namespace

unsigned dlbridge::jit::scopeBlockLocalAllocas(Module &module) {
  unsigned scoped = 0;
  for (Function &function : module) {
    if (function.isDeclaration())
      continue;
    for (BasicBlock &block : llvm::drop_begin(function))
      scoped += scopeBlock(block);
  }
  return scoped;
}
