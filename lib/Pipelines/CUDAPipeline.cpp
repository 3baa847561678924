//===- CUDAPipeline.cpp - dlpack.entry functions to LLVM for CUDA ---------===//
//
// Part of dlbridge. Tensor (or memref) programs become host code in the LLVM
// dialect that allocates device buffers and launches kernels on the stream
// of the entry's call context, plus the kernels in a `gpu.binary`.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Pipelines/Pipelines.h"

#include "Bufferization.h"
#include "dlbridge/Conversion/Passes.h"
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"
#include "dlbridge/Transforms/GPU/CUDATarget.h"
#include "dlbridge/Transforms/GPU/Passes.h"
#include "dlbridge/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;

namespace {

/// Tensors to buffers, as on the CPU: arith and math on whole tensors and
/// linalg.pack/unpack first become linalg and tensor ops that bufferize;
/// fully dynamic layouts at the boundary, so one kernel serves every DLPack
/// layout, or identity layouts for the contiguous specialisation, whose
/// kernels load and store whole vectors. Shape relations between
/// arguments are checked in host code before any kernel exists; copies
/// become linalg.copy so that they run as kernels too.
void buildTensorToBuffers(OpPassManager &pm,
                          const dlbridge::CUDAPipelineOptions &options) {
  pm.addPass(dlbridge::createDecomposeAggregatedOps());
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(dlbridge::createLowerPackUnpack());
  dlbridge::dlpack::DLPackCheckDataIndicesOptions indexOptions;
  indexOptions.guardAccesses = true;
  pm.addPass(dlbridge::dlpack::createDLPackCheckDataIndices(indexOptions));
  pm.addPass(dlbridge::dlpack::createDLPackGenerateShapeChecks());
  if (options.bufferize)
    dlbridge::addBufferizationPasses(
        pm, options.identityLayouts
                ? bufferization::LayoutMapOption::IdentityLayoutMap
                : bufferization::LayoutMapOption::FullyDynamicLayoutMap);
  pm.addPass(dlbridge::dlpack::createDLPackOwnResults());
  pm.addPass(dlbridge::createCopiesToLinalg());
}

/// Loops to kernels (docs/Design.md, "Pipelines"): named contractions call
/// cuBLASLt from host code; reductions become kernels whose threads share
/// each row, with the ops on the same rows around a row reduction (a softmax,
/// a layer norm) in the same kernel; elementwise ops on contiguous buffers
/// become kernels of 16-byte loads and stores; the rest of linalg (and the
/// products cuBLASLt declines at run time) and affine loop nests proven
/// parallel become parallel loops tiled into blocks of threads and mapped to
/// `gpu.launch`es; host scalars read from buffers that only kernels use are
/// read in those kernels; what host code still does to tensor data (other
/// loops, in kernels of one thread) moves into kernels too, and buffers into
/// device memory.
/// Kernels, generated or written by hand, are outlined into `gpu.module`s
/// with the constants they read, their calls must stay on the device, their
/// vector transfers become loads and stores (in control flow the next stage
/// lowers), and every launch runs on the stream of the entry's call.
void buildLoopsToKernels(OpPassManager &pm) {
  dlbridge::ContractionsToBlasOptions blasOptions;
  blasOptions.target = "cuda";
  pm.addPass(dlbridge::createContractionsToBlas(blasOptions));
  pm.addNestedPass<func::FuncOp>(dlbridge::createReductionsToKernels());
  // Foralls on buffers (scans, loops users write) are parallel loops too;
  // scans along contiguous rows become kernels of a block per row (along
  // other axes, a thread per column walks down it).
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  pm.addNestedPass<func::FuncOp>(dlbridge::createScansToKernels());
  pm.addNestedPass<func::FuncOp>(dlbridge::createVectorizeElementwise());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(dlbridge::createParallelizeAffineLoops());
  pm.addNestedPass<func::FuncOp>(dlbridge::createTileParallelLoops());
  // Without it convert-parallel-loops-to-gpu silently does nothing.
  pm.addPass(createCanonicalizerPass());
  // Nothing in between: canonicalisation would merge the block and thread
  // loops the mapping makes, and drop their mapping.
  pm.addNestedPass<func::FuncOp>(dlbridge::createMapParallelLoops());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  // Folds block sizes to constants, which gpu-kernel-outlining records as
  // the kernel's known block size (`.maxntid` in PTX).
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(dlbridge::createSinkDeviceReads());
  pm.addPass(dlbridge::dlpack::createDLPackOffloadHostCode());
  // Failed index checks in kernels become a status the host reads back.
  pm.addPass(dlbridge::dlpack::createDLPackReportKernelChecks());
  pm.addPass(dlbridge::createSinkConstantGlobals());
  // Constants the canonicalizer hoisted out of launches go back in, so that
  // kernels fold them instead of taking them as parameters.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(dlbridge::createLegalizeKernelNames());
  pm.addNestedPass<gpu::GPUModuleOp>(dlbridge::createCheckDeviceCalls());
  pm.addNestedPass<gpu::GPUModuleOp>(dlbridge::createLimitKernelRegisters());
  // Vector code in kernels, to what convert-gpu-to-nvvm converts (loops and
  // affine maps it leaves are lowered with the host's below).
  pm.addNestedPass<gpu::GPUModuleOp>(dlbridge::createLowerVector());
  pm.addPass(dlbridge::dlpack::createDLPackLaunchOnContextStream());
}

/// What upstream's common stage of gpu-lower-to-nvvm-pipeline does for host
/// code and kernels alike (structured control flow, affine maps and strided
/// metadata to plain arithmetic; the NVVM target on every `gpu.module`),
/// with the entry points and their checks in between: entries come after
/// deallocation, as on the CPU, and failed checks return early with a
/// status. The dlpack dialect is lowered here, before the host's GPU
/// operations.
void buildEntriesAndCommonLowering(OpPassManager &pm,
                                   const dlbridge::CUDAPipelineOptions &options,
                                   const dlbridge::CUDATarget &target) {
  dlbridge::dlpack::DLPackExposeEntryPointsOptions entryOptions;
  entryOptions.device = "cuda";
  pm.addPass(dlbridge::dlpack::createDLPackExposeEntryPoints(entryOptions));
  // Affine loops (in kernels of one thread, say) become scf loops, which
  // the next pass lowers; the affine maps expand-strided-metadata makes are
  // lowered below. Integer powers become loops too, in host code and
  // kernels, but for small constant exponents.
  pm.addPass(createLowerAffinePass());
  pm.addPass(dlbridge::createSimplifyMath());
  pm.addPass(dlbridge::createExpandIntegerPowers());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(dlbridge::dlpack::createDLPackCheckAllocations());
  pm.addPass(dlbridge::dlpack::createDLPackLowerAssertions());
  pm.addPass(dlbridge::createExpandShapesToReinterpretCasts());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  GpuNVVMAttachTargetOptions targetOptions;
  targetOptions.chip = options.chip;
  targetOptions.features = target.getFeatures();
  targetOptions.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(targetOptions));
  pm.addPass(dlbridge::createConvertDLPackToLLVM());
}

/// Kernels to NVVM. 8-bit floats, which LLVM has no type for, go through f32
/// and integers first. Then each `gpu.module` on its own (upstream's
/// GPU-module stage; complex arithmetic to real, as convert-gpu-to-nvvm
/// lowers only complex construction and access; vector operations, with the
/// contractions, transposes and reductions convert-gpu-to-nvvm cannot lower, go
/// to LLVM first, and subgroup reductions become shuffles, which it lowers for
/// every type), then checked: bools are bytes in memory, nothing is left
/// unlowered, and math has a libdevice to link.
void buildKernelsToNVVM(OpPassManager &pm,
                        const dlbridge::CUDAPipelineOptions &options) {
  pm.addPass(dlbridge::createExpandSmallFloats());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertComplexToStandardPass());
  // `x ** 3` as two multiplications, not libdevice's pow.
  kernels.addPass(dlbridge::createSimplifyMath());
  kernels.addPass(createConvertVectorToLLVMPass());
  kernels.addPass(dlbridge::createLowerSubgroupReduce());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(dlbridge::createExternDynamicSharedMemory());
  kernels.addPass(LLVM::createNVVMOptimizeForTargetPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  kernels.addPass(dlbridge::createBoolsAsBytes());
  dlbridge::VerifyLoweredOptions verifyOptions;
  verifyOptions.target = "cuda";
  kernels.addPass(dlbridge::createVerifyLowered(verifyOptions));
  // Locations served the diagnostics above; the binary carries none.
  kernels.addPass(createStripDebugInfoPass());
  dlbridge::CheckLibdeviceOptions libdeviceOptions;
  libdeviceOptions.toolkit = options.toolkit;
  pm.addPass(dlbridge::createCheckLibdevice(libdeviceOptions));
}

/// Host code to LLVM (upstream's host stage): buffers the host still
/// allocates (deallocation helpers) come from libdlrt, as on the CPU, and
/// GPU operations become calls to the mgpu* functions libdlrt implements.
void buildHostToLLVM(OpPassManager &pm) {
  FinalizeMemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOptions));
  pm.addPass(createGpuToLLVMConversionPass());
}

/// Kernels into `gpu.binary`s (ptxas from the toolkit for cubin and
/// fatbin), then the last cleanups and the check that nothing was left
/// unlowered.
void buildBinary(OpPassManager &pm,
                 const dlbridge::CUDAPipelineOptions &options,
                 const dlbridge::CUDATarget &target) {
  GpuModuleToBinaryPassOptions binaryOptions;
  binaryOptions.compilationTarget = target.binaryFormat;
  // Only a toolkit that has libdevice: gpu-module-to-binary reports a
  // missing one even for kernels without math (dlbridge-gpu-check-libdevice
  // covers those with).
  std::string toolkit = dlbridge::findCUDAToolkit(options.toolkit);
  if (!toolkit.empty() &&
      llvm::sys::fs::is_regular_file(dlbridge::getLibdevicePath(toolkit)))
    binaryOptions.toolkitPath = toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binaryOptions));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  dlbridge::VerifyLoweredOptions verifyOptions;
  verifyOptions.target = "cuda";
  pm.addPass(dlbridge::createVerifyLowered(verifyOptions));
}

} // namespace

void dlbridge::buildDLPackCUDAPipeline(const CUDAPipelineOptions &options,
                                       StagePassManager stagePM) {
  // First, so that invalid options fail before anything (LLVM's NVPTX
  // backend, which aborts the process on a PTX version too old for the
  // chip, in particular) runs.
  OpPassManager &first = stagePM("tensors-to-buffers");
  CheckCUDAOptionsOptions checkOptions;
  checkOptions.chip = options.chip;
  checkOptions.ptxVersion = options.ptxVersion;
  checkOptions.format = options.format;
  checkOptions.optLevel = options.optLevel;
  first.addPass(createCheckCUDAOptions(checkOptions));
  std::string error;
  FailureOr<CUDATarget> target =
      resolveCUDATarget(options.chip, options.ptxVersion, options.format,
                        options.optLevel, error);
  if (failed(target))
    return;

  if (!options.entry.empty())
    first.addPass(dlbridge::dlpack::createDLPackSelectEntry({options.entry}));
  buildTensorToBuffers(first, options);
  buildLoopsToKernels(stagePM("loops-to-kernels"));
  buildEntriesAndCommonLowering(stagePM("entries-and-common-lowering"), options,
                                *target);
  buildKernelsToNVVM(stagePM("kernels-to-nvvm"), options);
  buildHostToLLVM(stagePM("host-to-llvm"));
  buildBinary(stagePM("binary"), options, *target);
}

void dlbridge::buildDLPackCUDAPipeline(OpPassManager &pm,
                                       const CUDAPipelineOptions &options) {
  buildDLPackCUDAPipeline(
      options, [&](llvm::StringRef) -> OpPassManager & { return pm; });
}
