//===- OffloadHostCode.cpp - Tensor data stays on the GPU -----------------===//
//
// Part of dlbridge. After `convert-parallel-loops-to-gpu`, host code of a
// CUDA program may still touch tensor data (loops the mapping left alone,
// 0-d fills, the count that sizes a compaction) and allocates its buffers on
// the host. This pass moves such accesses into single-thread kernels, copies
// back the scalars host code needs from them, and allocates on the device.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"

#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"
#include "dlbridge/Dialect/DLPack/Transforms/DeviceWords.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace dlbridge::dlpack {
#define GEN_PASS_DEF_DLPACKOFFLOADHOSTCODE
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"
} // namespace dlbridge::dlpack

using namespace mlir;

namespace {

/// Whether `memref` is host bookkeeping, host memory that no kernel sees and
/// that holds no tensor data: a buffer in host code that lower-deallocations
/// fills with buffer addresses and ownership flags for its `dealloc_helper`
/// and reads back to decide what to free (e.g. after a loop that yields a
/// fresh tensor each iteration), or the shape operand of a `memref.reshape`
/// in host code (a reshape to sizes the host computed, `x.reshape(-1)`),
/// whose sizes host code may load again.
bool isHostBookkeeping(Value memref) {
  if (!isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(
          memref.getDefiningOp()))
    return false;
  bool bookkeeping = false;
  SmallVector<Value> aliases{memref};
  while (!aliases.empty()) {
    Value alias = aliases.pop_back_val();
    for (OpOperand &use : alias.getUses()) {
      Operation *user = use.getOwner();
      if (user->getParentOfType<gpu::LaunchOp>())
        return false;
      if (auto cast = dyn_cast<memref::CastOp>(user)) {
        aliases.push_back(cast.getResult());
        continue;
      }
      if (auto call = dyn_cast<func::CallOp>(user)) {
        if (!call.getCallee().starts_with("dealloc_helper"))
          return false;
        bookkeeping = true;
        continue;
      }
      if (auto reshape = dyn_cast<memref::ReshapeOp>(user)) {
        if (use.get() != reshape.getShape())
          return false;
        bookkeeping = true;
        continue;
      }
      if (auto store = dyn_cast<memref::StoreOp>(user)) {
        if (use.get() != store.getMemRef())
          return false;
        continue;
      }
      if (!isa<memref::LoadOp, memref::DeallocOp>(user))
        return false;
    }
  }
  return bookkeeping;
}

/// Whether `op` itself reads or writes memory through a memref (or, without
/// precise effects, might). Allocation and deallocation do not count, nor do
/// accesses to deallocation bookkeeping.
bool accessesData(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    if (isHostBookkeeping(load.getMemRef()))
      return false;
  if (auto store = dyn_cast<memref::StoreOp>(op))
    if (isHostBookkeeping(store.getMemRef()))
      return false;
  // A reshape reads its shape operand only, not the data it views.
  if (auto reshape = dyn_cast<memref::ReshapeOp>(op))
    if (isHostBookkeeping(reshape.getShape()))
      return false;
  // Copies are diagnosed below: a kernel could not lower them either.
  if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp, memref::CopyOp,
          gpu::AllocOp, gpu::DeallocOp>(op))
    return false;
  // Run-time checks end the host function early; they read no data.
  if (isa<cf::AssertOp, dlbridge::dlpack::AssertOp>(op))
    return false;
  if (isPure(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    // Calls and unknown ops: the callee is offloaded on its own; anything
    // else with regions is judged by what it contains.
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    if (!isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()))
      return false;
    Value value = e.getValue();
    return !value || isa<BaseMemRefType>(value.getType());
  });
}

/// Whether `op` or an op nested in it accesses data; launches are device
/// code already.
bool touchesData(Operation *op) {
  if (isa<gpu::LaunchOp>(op))
    return false;
  WalkResult walk = op->walk<WalkOrder::PreOrder>([](Operation *nested) {
    if (isa<gpu::LaunchOp>(nested))
      return WalkResult::skip();
    return accessesData(nested) ? WalkResult::interrupt()
                                : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

bool containsLaunch(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa<gpu::LaunchOp, gpu::LaunchFuncOp>(nested)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// A value a run computes that host code outside the run uses, with those
/// uses.
struct HostRead {
  Value value;
  SmallVector<OpOperand *> uses;
};

/// Host buffers of the words host reads copy back; on the stack, in the
/// function's entry block, so that a read in a loop does not grow the stack.
using HostWordBuffers = llvm::SmallPtrSet<Operation *, 4>;

/// Moves `run`, consecutive ops of one block, into a 1x1x1 `gpu.launch`.
/// The scalars host code still uses are read back: the kernel stores them
/// as i64 words into a device buffer, which host code copies to its own
/// buffer on the call's stream, waits for, and loads in their place.
LogicalResult wrapInKernel(ArrayRef<Operation *> run,
                           HostWordBuffers &hostWords) {
  Operation *first = run.front();
  llvm::SmallPtrSet<Operation *, 8> inRun(run.begin(), run.end());
  SmallVector<HostRead> reads;
  int64_t numWords = 0;
  for (Operation *op : run)
    for (Value result : op->getResults()) {
      HostRead read{result, {}};
      for (OpOperand &use : result.getUses())
        if (!inRun.contains(
                first->getBlock()->findAncestorOpInBlock(*use.getOwner())))
          read.uses.push_back(&use);
      if (read.uses.empty())
        continue;
      std::optional<unsigned> words =
          dlbridge::dlpack::getNumWords(result.getType());
      if (!words) {
        Operation *user = read.uses.front()->getOwner();
        InFlightDiagnostic diag =
            op->emitOpError()
            << "accesses tensor data in host code and host code uses its "
               "result, of type "
            << result.getType()
            << ", but a CUDA entry's tensors live in device memory and only "
               "scalars (integers and floats of at most 64 bits, indices, "
               "complex numbers) are copied back to the host; compute this "
               "inside a gpu.launch (or with linalg ops, which become "
               "kernels), or compile the function for the CPU";
        diag.attachNote(user->getLoc())
            << "the result is used here, by '" << user->getName() << "'";
        return diag;
      }
      numWords += *words;
      reads.push_back(std::move(read));
    }

  OpBuilder builder(first);
  Location loc = first->getLoc();
  MemRefType wordsType;
  Value bytes, deviceWords;
  if (!reads.empty()) {
    // Bytes viewed as the i64 words and, for gpu.memset (16 or 32 bits),
    // as i32 halves: zeroed, so that a kernel that did not run leaves zeros.
    wordsType = MemRefType::get({numWords}, builder.getI64Type());
    auto bytesType = MemRefType::get({8 * numWords}, builder.getI8Type());
    bytes = gpu::AllocOp::create(builder, loc, bytesType, Type(), ValueRange(),
                                 ValueRange(), ValueRange(),
                                 /*hostShared=*/false)
                .getMemref();
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value halves = memref::ViewOp::create(
        builder, loc, MemRefType::get({2 * numWords}, builder.getI32Type()),
        bytes, zero, ValueRange());
    gpu::MemsetOp::create(
        builder, loc, TypeRange(), ValueRange(), halves,
        arith::ConstantIntOp::create(builder, loc, builder.getI32Type(), 0));
    deviceWords = memref::ViewOp::create(builder, loc, wordsType, bytes, zero,
                                         ValueRange());
  }
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto launch =
      gpu::LaunchOp::create(builder, loc, one, one, one, one, one, one);
  Block &body = launch.getBody().front();
  builder.setInsertionPointToEnd(&body);
  auto terminator = gpu::TerminatorOp::create(builder, loc);
  for (Operation *op : run)
    op->moveBefore(terminator);
  if (reads.empty())
    return success();

  builder.setInsertionPoint(terminator);
  SmallVector<Value> words;
  for (HostRead &read : reads)
    dlbridge::dlpack::packWords(builder, read.value.getLoc(), read.value,
                                words);
  for (auto [i, word] : llvm::enumerate(words))
    memref::StoreOp::create(
        builder, loc, word, deviceWords,
        arith::ConstantIndexOp::create(builder, loc, int64_t(i)).getResult());

  auto func = launch->getParentOfType<FunctionOpInterface>();
  OpBuilder entry = OpBuilder::atBlockBegin(&func.getFunctionBody().front());
  auto hostBuffer = memref::AllocaOp::create(entry, loc, wordsType);
  hostWords.insert(hostBuffer);

  builder.setInsertionPointAfter(launch);
  if (failed(dlbridge::dlpack::copyWordsToHost(builder, loc, launch, hostBuffer,
                                               deviceWords)))
    return failure();
  gpu::DeallocOp::create(builder, loc, TypeRange(), ValueRange(), bytes);
  int64_t next = 0;
  for (HostRead &read : reads) {
    unsigned count = *dlbridge::dlpack::getNumWords(read.value.getType());
    SmallVector<Value> loaded;
    for (unsigned w = 0; w < count; ++w)
      loaded.push_back(memref::LoadOp::create(
          builder, read.value.getLoc(), hostBuffer,
          arith::ConstantIndexOp::create(builder, loc, next++).getResult()));
    Value value = dlbridge::dlpack::unpackWords(builder, read.value.getLoc(),
                                                read.value.getType(), loaded);
    for (OpOperand *use : read.uses)
      use->set(value);
  }
  return success();
}

LogicalResult offloadBlock(Block &block, HostWordBuffers &hostWords);

/// Whether `op`, of `run`, has a result host code outside the run uses that
/// cannot be read back from the device (a buffer an `scf.if` chooses).
bool hasHostOnlyResult(Operation *op,
                       const llvm::SmallPtrSetImpl<Operation *> &inRun) {
  Block *block = op->getBlock();
  return llvm::any_of(op->getResults(), [&](Value result) {
    if (dlbridge::dlpack::getNumWords(result.getType()))
      return false;
    return llvm::any_of(result.getUsers(), [&](Operation *user) {
      return !inRun.contains(block->findAncestorOpInBlock(*user));
    });
  });
}

/// Whether `op` gives a buffer (a memref result, which host code cannot read
/// back from the device).
bool choosesBuffers(Operation &op) {
  return llvm::any_of(op.getResultTypes(),
                      [](Type type) { return isa<BaseMemRefType>(type); });
}

/// Whether `op` allocates buffers in its regions (a loop that yields a fresh
/// buffer each iteration): allocation is host code, so `op` stays host
/// control flow.
bool allocatesInRegions(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa<memref::AllocOp, memref::AllocaOp>(nested)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The ops of `run` a kernel must run, in order: those that access data and
/// those that compute on what these give. The others, pure ops on host
/// values (a cast of a buffer a host loop yields), move in front of the run
/// and stay host code.
SmallVector<Operation *> keepOnHost(ArrayRef<Operation *> run) {
  llvm::SmallPtrSet<Operation *, 16> device;
  SmallVector<Operation *> kernel;
  for (Operation *op : run) {
    bool onData =
        touchesData(op) || llvm::any_of(op->getOperands(), [&](Value operand) {
          return device.contains(operand.getDefiningOp());
        });
    if (!onData) {
      if (!kernel.empty())
        op->moveBefore(kernel.front());
      continue;
    }
    device.insert(op);
    kernel.push_back(op);
  }
  return kernel;
}

/// Offloads `run`, consecutive ops of one block: into one kernel, unless an
/// op with regions allocates buffers or has a result host code needs that is
/// no scalar (a buffer an `scf.if` chooses while its branches copy data).
/// That op stays host control flow whose blocks are offloaded in turn, and
/// the ops before and after it are runs of their own.
LogicalResult offloadRun(ArrayRef<Operation *> run,
                         HostWordBuffers &hostWords) {
  if (run.empty())
    return success();
  llvm::SmallPtrSet<Operation *, 16> inRun(run.begin(), run.end());
  const auto *hostOnly = llvm::find_if(run, [&](Operation *op) {
    return op->getNumRegions() != 0 &&
           (allocatesInRegions(op) || hasHostOnlyResult(op, inRun));
  });
  if (hostOnly == run.end()) {
    SmallVector<Operation *> kernel = keepOnHost(run);
    return kernel.empty() ? success() : wrapInKernel(kernel, hostWords);
  }
  if (failed(offloadRun(run.take_front(hostOnly - run.begin()), hostWords)))
    return failure();
  for (Region &region : (*hostOnly)->getRegions())
    for (Block &nested : region)
      if (failed(offloadBlock(nested, hostWords)))
        return failure();
  return offloadRun(run.drop_front(hostOnly - run.begin() + 1), hostWords);
}

/// Wraps the data accesses of `block`, recursing into host control flow
/// that also launches kernels. A run goes on through pure operations: those
/// that compute on what the run read join it (e.g. arithmetic on loaded
/// vectors before they are stored), the others move before it.
LogicalResult offloadBlock(Block &block, HostWordBuffers &hostWords) {
  SmallVector<Operation *> run;
  llvm::SmallPtrSet<Operation *, 16> inRun;
  auto flush = [&]() -> LogicalResult {
    LogicalResult result = offloadRun(run, hostWords);
    run.clear();
    inRun.clear();
    return result;
  };
  auto usesRun = [&](Operation &op) {
    return llvm::any_of(op.getOperands(), [&](Value operand) {
      return inRun.contains(operand.getDefiningOp());
    });
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    bool isTerminator = op.hasTrait<OpTrait::IsTerminator>();
    if (!run.empty() && !isTerminator && op.getNumRegions() == 0 &&
        isPure(&op)) {
      if (usesRun(op) && choosesBuffers(op)) {
        // A buffer chosen on what the run read (an scf.if folded to an
        // arith.select of two buffers) cannot come back from the device: the
        // run ends before it, its scalars are read back, and it stays host
        // code.
        if (failed(flush()))
          return failure();
        continue;
      }
      if (usesRun(op)) {
        run.push_back(&op);
        inRun.insert(&op);
      } else {
        op.moveBefore(run.front());
      }
      continue;
    }
    if (isTerminator || !touchesData(&op)) {
      if (failed(flush()))
        return failure();
      continue;
    }
    if (!containsLaunch(&op)) {
      run.push_back(&op);
      inRun.insert(&op);
      continue;
    }
    if (failed(flush()))
      return failure();
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        if (failed(offloadBlock(nested, hostWords)))
          return failure();
  }
  return flush();
}

/// Device buffers for host code: gpu.alloc / gpu.dealloc. Host bookkeeping
/// and the words host reads copy back stay in host memory.
LogicalResult allocateOnDevice(func::FuncOp func,
                               const HostWordBuffers &hostWords) {
  SmallVector<Operation *> rewrites;
  WalkResult walk = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (isa<memref::AllocOp, memref::AllocaOp>(op) &&
        isHostBookkeeping(op->getResult(0)))
      return WalkResult::advance();
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
      if (isHostBookkeeping(dealloc.getMemref()))
        return WalkResult::advance();
    if (hostWords.contains(op))
      return WalkResult::advance();
    if (isa<memref::AllocaOp>(op)) {
      op->emitOpError() << "allocates on the host stack in host code; the "
                           "CUDA pipeline needs heap buffers (memref.alloc)";
      return WalkResult::interrupt();
    }
    if (isa<memref::CopyOp>(op)) {
      op->emitOpError() << "copies buffers in host code; the CUDA pipeline "
                           "copies with kernels (bufferize with "
                           "memcpy-op=linalg.copy)";
      return WalkResult::interrupt();
    }
    if (isa<memref::AllocOp, memref::DeallocOp>(op))
      rewrites.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (Operation *op : rewrites) {
    OpBuilder builder(op);
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      auto device = gpu::AllocOp::create(
          builder, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
          ValueRange(), alloc.getDynamicSizes(), alloc.getSymbolOperands());
      alloc.replaceAllUsesWith(device.getMemref());
    } else {
      gpu::DeallocOp::create(builder, op->getLoc(), /*asyncToken=*/Type(),
                             ValueRange(),
                             cast<memref::DeallocOp>(op).getMemref());
    }
    op->erase();
  }
  return success();
}

struct DLPackOffloadHostCodePass
    : public dlbridge::dlpack::impl::DLPackOffloadHostCodeBase<
          DLPackOffloadHostCodePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      // The helper lower-deallocations generates works on host arrays of
      // buffer addresses, not on tensor data.
      if (func.isExternal() || func.getSymName().starts_with("dealloc_helper"))
        continue;
      HostWordBuffers hostWords;
      for (Block &block : func.getBody())
        if (failed(offloadBlock(block, hostWords)))
          return signalPassFailure();
      if (failed(allocateOnDevice(func, hostWords)))
        return signalPassFailure();
    }
  }
};

} // namespace
