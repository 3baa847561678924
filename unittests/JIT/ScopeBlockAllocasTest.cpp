//===- ScopeBlockAllocasTest.cpp - A loop's allocas return their stack ----===//
//
// Part of dlbridge's unit tests. Allocas that a loop's block uses only in
// that block are bracketed with stacksave/stackrestore; allocas whose memory
// another block may read, and those of the entry block, are left alone.
//
//===----------------------------------------------------------------------===//

#include "ScopeBlockAllocas.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace llvm;

namespace {

/// A loop over `%n` whose body `body` starts at block `%body`; `@use` takes
/// a pointer, as a kernel launch takes its argument array.
std::unique_ptr<Module> parseLoop(LLVMContext &context, StringRef body) {
  std::string text = R"(
declare void @use(ptr)
@global = global ptr null
define void @f(i64 %n) {
entry:
  %kept = alloca ptr
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %next, %latch ]
  %done = icmp eq i64 %i, %n
  br i1 %done, label %exit, label %body
body:
)" + body.str() + R"(
  br label %latch
latch:
  %next = add i64 %i, 1
  br label %head
exit:
  ret void
}
)";
  SMDiagnostic error;
  std::unique_ptr<Module> module = parseAssemblyString(text, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  return module;
}

/// The intrinsic calls of `block`, by intrinsic.
unsigned countCalls(const BasicBlock &block, Intrinsic::ID id) {
  unsigned count = 0;
  for (const Instruction &inst : block)
    if (const auto *call = dyn_cast<IntrinsicInst>(&inst))
      count += call->getIntrinsicID() == id;
  return count;
}

const BasicBlock &blockNamed(const Module &module, StringRef name) {
  for (const BasicBlock &block : *module.getFunction("f"))
    if (block.getName() == name)
      return block;
  ADD_FAILURE() << "no block " << name.str();
  return module.getFunction("f")->getEntryBlock();
}

TEST(ScopeBlockAllocasTest, LaunchArgumentsInALoopReturnTheirStack) {
  LLVMContext context;
  // The shape of a translated gpu.launch_func: a struct of values and an
  // array of pointers to its fields, both allocas where the launch is.
  std::unique_ptr<Module> module = parseLoop(context, R"(
  %args = alloca { i64, i64 }
  %ptrs = alloca [2 x ptr]
  %field = getelementptr { i64, i64 }, ptr %args, i32 0, i32 1
  store i64 %i, ptr %field
  store ptr %field, ptr %ptrs
  call void @use(ptr %ptrs))");
  EXPECT_EQ(dlbridge::jit::scopeBlockLocalAllocas(*module), 1u);
  EXPECT_FALSE(verifyModule(*module, &errs()));
  const BasicBlock &body = blockNamed(*module, "body");
  EXPECT_EQ(countCalls(body, Intrinsic::stacksave), 1u);
  EXPECT_EQ(countCalls(body, Intrinsic::stackrestore), 1u);
  // The save comes before the allocas, the restore after their last use.
  EXPECT_TRUE(isa<IntrinsicInst>(body.front()));
  EXPECT_TRUE(isa<IntrinsicInst>(body.getTerminator()->getPrevNode()));
  EXPECT_EQ(countCalls(blockNamed(*module, "entry"), Intrinsic::stacksave), 0u);
}

TEST(ScopeBlockAllocasTest, AllocasReadAfterTheirBlockStay) {
  const char *escapes[] = {
      // Its address outlives the block in an entry-block alloca...
      "%a = alloca i64\n  store ptr %a, ptr %kept",
      // ...in a global...
      "%a = alloca i64\n  store ptr %a, ptr @global",
      // ...or through a copy of its address into another block's memory.
      "%a = alloca i64\n  %b = alloca ptr\n  store ptr %a, ptr %b\n"
      "  %c = load ptr, ptr %b\n  store ptr %c, ptr %kept",
  };
  for (const char *body : escapes) {
    LLVMContext context;
    std::unique_ptr<Module> module = parseLoop(context, body);
    EXPECT_EQ(dlbridge::jit::scopeBlockLocalAllocas(*module), 0u) << body;
    EXPECT_EQ(countCalls(blockNamed(*module, "body"), Intrinsic::stacksave), 0u)
        << body;
  }
}

TEST(ScopeBlockAllocasTest, AnAddressUsedInALaterBlockStays) {
  LLVMContext context;
  std::unique_ptr<Module> module = parseLoop(context, R"(
  %a = alloca i64
  br label %later
later:
  call void @use(ptr %a))");
  EXPECT_FALSE(verifyModule(*module, &errs()));
  EXPECT_EQ(dlbridge::jit::scopeBlockLocalAllocas(*module), 0u);
}

} // namespace
