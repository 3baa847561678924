//===- Bufferize.cpp - Bufferize tensor programs, not memref-level ones ---===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"

#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"

#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"

namespace dlbridge::dlpack {
#define GEN_PASS_DEF_DLPACKBUFFERIZE
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"
} // namespace dlbridge::dlpack

using namespace mlir;

namespace {

bool isTensor(Type type) { return isa<TensorType>(type); }

/// Whether any value, block argument or function signature in `module` has a
/// tensor type: what One-Shot Bufferize would have work to do on.
bool containsTensors(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    if (auto function = dyn_cast<FunctionOpInterface>(op))
      if (llvm::any_of(function.getArgumentTypes(), isTensor) ||
          llvm::any_of(function.getResultTypes(), isTensor))
        return WalkResult::interrupt();
    if (llvm::any_of(op->getResultTypes(), isTensor))
      return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (llvm::any_of(block.getArgumentTypes(), isTensor))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Makes the computation of an update write the argument's tensor `dest`
/// itself: a `linalg.generic` whose init is a `tensor.empty` and whose result
/// is materialised in `dest` gets `dest` as its init, when it is
/// elementwise (all loops parallel, its output not read) and reads `dest`, if
/// at all, only where it writes (the output's indexing map). `w += v` then
/// bufferizes to one in-place loop; `c += c.T`, which reads other elements,
/// keeps its temporary. (Upstream empty-tensor elimination also rewrites
/// `tensor.insert_slice` destinations, where One-Shot Bufferize then copies
/// every shifted read of a stencil instead of the one result.)
void computeInDestination(Value source, Value dest) {
  auto generic = source.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0)
    return;
  OpOperand *init = generic.getDpsInitOperand(0);
  if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
      init->get().getType() != dest.getType() ||
      generic.payloadUsesValueFromOperand(init))
    return;
  AffineMap written = generic.getMatchingIndexingMap(init);
  for (OpOperand *input : generic.getDpsInputOperands())
    if (input->get() == dest &&
        generic.getMatchingIndexingMap(input) != written)
      return;
  init->set(dest);
}

/// Rewrites each `materialize_in_destination %v in restrict writable %buf`
/// whose buffer the function also reads as `%t = to_tensor %buf restrict
/// writable` (how the tracer writes an updated argument back) into the tensor
/// form `materialize_in_destination %v in %t`, which materialises in `%t`'s
/// buffer, `%buf`, and lets One-Shot Bufferize relate the update to every
/// read of `%t` (two `restrict` views of one buffer hide that aliasing).
/// Then computeInDestination.
void materializeInArgumentTensors(ModuleOp module) {
  module.walk([](bufferization::MaterializeInDestinationOp materialize) {
    Value buffer = materialize.getDest();
    if (!isa<BaseMemRefType>(buffer.getType()))
      return;
    bufferization::ToTensorOp view;
    for (Operation *user : buffer.getUsers())
      if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(user))
        if (toTensor.getRestrict() && toTensor.getWritable())
          view = toTensor;
    if (!view || view.getType() != materialize.getSource().getType() ||
        view->getBlock() != materialize->getBlock() ||
        !view->isBeforeInBlock(materialize))
      return;
    OpBuilder builder(materialize);
    bufferization::MaterializeInDestinationOp::create(
        builder, materialize.getLoc(), materialize.getSource(), view);
    computeInDestination(materialize.getSource(), view);
    materialize.erase();
  });
}

/// Gives the strided memref arguments of `module`'s entries (the arrays a
/// traced function updates in place) identity layouts, casting back to the
/// strided type for their uses. Only under identity layouts, the
/// contiguous specialisation, which runs only when every argument is
/// compact: the kernels that read and write them then see unit strides and
/// move 16 bytes at a time, as they do for the tensor arguments.
void giveMemRefArgumentsIdentityLayouts(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr(dlbridge::dlpack::DLPackDialect::kEntryAttrName) ||
        func.isExternal())
      continue;
    SmallVector<Type> inputs(func.getArgumentTypes());
    OpBuilder builder = OpBuilder::atBlockBegin(&func.front());
    for (BlockArgument argument : func.getArguments()) {
      auto type = dyn_cast<MemRefType>(argument.getType());
      if (!type || type.getLayout().isIdentity())
        continue;
      auto identity =
          MemRefType::get(type.getShape(), type.getElementType(),
                          MemRefLayoutAttrInterface(), type.getMemorySpace());
      argument.setType(identity);
      auto cast =
          memref::CastOp::create(builder, argument.getLoc(), type, argument);
      argument.replaceAllUsesExcept(cast, cast);
      inputs[argument.getArgNumber()] = identity;
    }
    func.setType(
        FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
  }
}

struct DLPackBufferizePass
    : public dlbridge::dlpack::impl::DLPackBufferizeBase<DLPackBufferizePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    OpPassManager pm(ModuleOp::getOperationName());
    buildPipeline(pm);
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!containsTensors(module))
      return;
    // Ownership-based deallocation refuses frees it did not insert, with a
    // message that says nothing of why.
    WalkResult freed = module.walk([](memref::DeallocOp dealloc) {
      dealloc.emitError()
          << "'memref.dealloc' in a module with tensors: bufferization "
             "inserts the deallocations of such a module itself; remove this "
             "dealloc, or make the module memref-level (no tensor values), "
             "which is not bufferized";
      return WalkResult::interrupt();
    });
    if (freed.wasInterrupted())
      return signalPassFailure();
    if (functionBoundaryTypeConversion ==
        bufferization::LayoutMapOption::IdentityLayoutMap)
      giveMemRefArgumentsIdentityLayouts(module);
    materializeInArgumentTensors(module);
    OpPassManager pm(ModuleOp::getOperationName());
    buildPipeline(pm);
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }

private:
  void buildPipeline(OpPassManager &pm) const {
    bufferization::OneShotBufferizePassOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.functionBoundaryTypeConversion = functionBoundaryTypeConversion;
    // A loop carrying a tensor it recomputes (`scf.for ... iter_args`, each
    // iteration yielding a new tensor) yields a fresh buffer; without this
    // one-shot-bufferize refuses it ("Yield operand #0 is not equivalent").
    // The deallocation pipeline frees the buffers of earlier iterations.
    options.allowReturnAllocsFromLoops = true;
    pm.addPass(bufferization::createOneShotBufferizePass(options));
    bufferization::buildBufferDeallocationPipeline(pm);
    // Deallocation returns copies (bufferization.clone) of what a function
    // does not own: alloc and copy, which both targets lower.
    pm.addPass(createConvertBufferizationToMemRefPass());
  }
};

} // namespace
