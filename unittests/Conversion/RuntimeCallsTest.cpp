//===- RuntimeCallsTest.cpp - The runtime-call table against dlrt.h -------===//
//
// Part of dlbridge. Every line of RuntimeCalls.def names a function of
// dlrt.h or dlrt_cuda.h (the test does not compile otherwise) whose C
// prototype, mapped to LLVM types by the C types' kinds and sizes, is the
// table's LLVM type.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.h"
#include "dlbridge/Runtime/dlrt.h"
#include "dlbridge/Runtime/dlrt_cuda.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>
#include <type_traits>

using namespace dlbridge;

namespace {

template <typename T>
constexpr bool kHasLLVMType =
    std::is_void_v<T> || std::is_pointer_v<T> || std::is_integral_v<T>;

/// The LLVM type a C `T` is passed or returned as.
template <typename T> mlir::Type getCType(mlir::MLIRContext *context) {
  static_assert(kHasLLVMType<T>, "a C type RuntimeCalls.def cannot spell");
  if constexpr (std::is_void_v<T>)
    return mlir::LLVM::LLVMVoidType::get(context);
  else if constexpr (std::is_pointer_v<T>)
    return mlir::LLVM::LLVMPointerType::get(context);
  else
    return mlir::IntegerType::get(context, 8 * sizeof(T));
}

/// The LLVM type of the C function type `F`.
template <typename F> struct CFunction;
template <typename Result, typename... Params>
struct CFunction<Result(Params...)> {
  static mlir::LLVM::LLVMFunctionType getType(mlir::MLIRContext *context) {
    return mlir::LLVM::LLVMFunctionType::get(getCType<Result>(context),
                                             {getCType<Params>(context)...});
  }
};

/// `type` as MLIR prints it, for readable failures.
std::string print(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

class RuntimeCallsTest : public ::testing::Test {
protected:
  RuntimeCallsTest() { context.loadDialect<mlir::LLVM::LLVMDialect>(); }

  mlir::MLIRContext context;
};

TEST_F(RuntimeCallsTest, TableMatchesDlrtH) {
#define DLRT_FUNCTION(ENUMERATOR, NAME, RESULT, PARAMS)                        \
  EXPECT_EQ(getRuntimeFunctionName(RuntimeFunction::ENUMERATOR), #NAME);       \
  EXPECT_EQ(                                                                   \
      print(getRuntimeFunctionType(&context, RuntimeFunction::ENUMERATOR)),    \
      print(CFunction<decltype(NAME)>::getType(&context)))                     \
      << #NAME;
#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.def"
}

/// A call declares its callee once, with the table's type.
TEST_F(RuntimeCallsTest, DeclaresOnce) {
  mlir::OpBuilder b(&context);
  mlir::Location loc = b.getUnknownLoc();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  auto func = mlir::LLVM::LLVMFuncOp::create(
      b, loc, "f",
      mlir::LLVM::LLVMFunctionType::get(mlir::LLVM::LLVMVoidType::get(&context),
                                        {}));
  module->push_back(func);
  b.setInsertionPointToStart(func.addEntryBlock(b));
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(mlir::succeeded(createRuntimeCall(
        b, func, RuntimeFunction::CallStatus, mlir::ValueRange())));
  auto callee =
      module->lookupSymbol<mlir::LLVM::LLVMFuncOp>("dlrt_call_status");
  ASSERT_TRUE(callee);
  EXPECT_EQ(callee.getFunctionType(),
            getRuntimeFunctionType(&context, RuntimeFunction::CallStatus));
  EXPECT_EQ(llvm::range_size(module->getOps<mlir::LLVM::LLVMFuncOp>()), 2u);
}

/// A symbol of the runtime function's name that is something else is
/// diagnosed, not called.
TEST_F(RuntimeCallsTest, RefusesOtherSymbol) {
  mlir::OpBuilder b(&context);
  mlir::Location loc = b.getUnknownLoc();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  auto i32 = b.getI32Type();
  module->push_back(mlir::LLVM::LLVMFuncOp::create(
      b, loc, "dlrt_call_status",
      mlir::LLVM::LLVMFunctionType::get(i32, {i32})));
  module->push_back(mlir::LLVM::GlobalOp::create(
      b, loc, i32, /*isConstant=*/true, mlir::LLVM::Linkage::External,
      "dlrt_call_stream", b.getI32IntegerAttr(0)));
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(
      &context, [&](mlir::Diagnostic &d) { diagnostics += d.str() + "\n"; });
  EXPECT_TRUE(mlir::failed(
      getOrDeclareRuntimeFunction(b, *module, RuntimeFunction::CallStatus)));
  EXPECT_TRUE(mlir::failed(
      getOrDeclareRuntimeFunction(b, *module, RuntimeFunction::CallStream)));
  EXPECT_NE(diagnostics.find("redefinition of function 'dlrt_call_status' of "
                             "different type '!llvm.func<i32 ()>'"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("takes the name of the libdlrt function "
                             "'!llvm.func<ptr ()>' @dlrt_call_stream"),
            std::string::npos)
      << diagnostics;
}

} // namespace
