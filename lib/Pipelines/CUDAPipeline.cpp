//===- CUDAPipeline.cpp - dlpack.entry functions to LLVM for CUDA ---------===//
//
// Part of dlbridge. Tensor (or memref) programs become host code in the LLVM
// dialect that allocates device buffers and launches kernels on the stream
// of the entry's call context, plus the kernels in a `gpu.binary`.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Conversion/Passes.h"
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"
#include "dlbridge/Pipelines/Pipelines.h"
#include "Bufferization.h"
#include "dlbridge/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;

//===----------------------------------------------------------------------===//
// Chips, PTX versions, toolkits
//===----------------------------------------------------------------------===//

unsigned dlbridge::getCUDAMinimumPTXVersion(llvm::StringRef chip) {
  // What LLVM 22's NVPTX backend requires at least (it aborts the process
  // below that). Chips older than sm_75 are left out: CUDA 13's ptxas
  // rejects them. sm_101 is CUDA 12.8/12.9's name for what CUDA 13 calls
  // sm_110; CUDA 13's ptxas does not know it.
  return llvm::StringSwitch<unsigned>(chip)
      .Case("sm_75", 63)
      .Case("sm_80", 70)
      .Case("sm_86", 71)
      .Case("sm_87", 74)
      .Case("sm_88", 90)
      .Case("sm_89", 78)
      .Case("sm_90", 78)
      .Case("sm_90a", 80)
      .Cases({"sm_100", "sm_100a", "sm_101", "sm_101a"}, 86)
      .Cases({"sm_100f", "sm_101f", "sm_103", "sm_103a", "sm_103f"}, 88)
      .Cases({"sm_110", "sm_110a", "sm_110f"}, 90)
      .Cases({"sm_120", "sm_120a"}, 87)
      .Cases({"sm_120f", "sm_121", "sm_121a", "sm_121f"}, 88)
      .Default(0);
}

namespace {

/// PTX ISA versions LLVM 22's NVPTX backend knows (`+ptxNN` features).
bool isKnownPTXVersion(unsigned version) {
  static const unsigned known[] = {32, 40, 41, 42, 43, 50, 60, 61, 62,
                                   63, 64, 65, 70, 71, 72, 73, 74, 75,
                                   76, 77, 78, 80, 81, 82, 83, 84, 85,
                                   86, 87, 88, 90};
  return llvm::is_contained(known, version);
}

/// Parses `ptx78`, `78` or `7.8`; 0 when malformed.
unsigned parsePTXVersion(llvm::StringRef text) {
  text = text.trim();
  text.consume_front("+");
  text.consume_front("ptx");
  unsigned major = 0, minor = 0;
  if (text.contains('.')) {
    auto [majorText, minorText] = text.split('.');
    if (majorText.getAsInteger(10, major) ||
        minorText.getAsInteger(10, minor) || minor > 9)
      return 0;
    return major * 10 + minor;
  }
  unsigned version = 0;
  if (text.getAsInteger(10, version))
    return 0;
  return version;
}

std::string formatPTX(unsigned version) {
  return std::to_string(version / 10) + "." + std::to_string(version % 10);
}

/// What the pipeline was asked for, checked; `error` says what is wrong.
struct ResolvedOptions {
  std::string error;
  unsigned ptxVersion = 0;
  std::string format; // gpu-module-to-binary's: isa, bin, fatbin
  std::string toolkit;
};

ResolvedOptions resolve(const dlbridge::CUDAPipelineOptions &options) {
  ResolvedOptions resolved;
  llvm::StringRef chip = options.chip;
  unsigned minimum = dlbridge::getCUDAMinimumPTXVersion(chip);
  if (!minimum) {
    resolved.error =
        ("dlpack-cuda-pipeline: unknown or unsupported chip '" + chip +
         "'; supported: sm_75, sm_80, sm_86, sm_87, sm_88, sm_89, sm_90, "
         "sm_90a, sm_100(a/f), sm_101(a/f), sm_103(a/f), sm_110(a/f), "
         "sm_120(a/f), sm_121(a/f) (CUDA 13 no longer compiles for older "
         "chips)")
            .str();
    return resolved;
  }
  if (options.ptxVersion.empty()) {
    resolved.ptxVersion = minimum;
  } else {
    unsigned version = parsePTXVersion(options.ptxVersion);
    if (!version || !isKnownPTXVersion(version)) {
      resolved.error = "dlpack-cuda-pipeline: unknown PTX version '" +
                       options.ptxVersion +
                       "'; write it as ptx78, 78 or 7.8 (LLVM 22 knows PTX "
                       "3.2 to 9.0)";
      return resolved;
    }
    if (version < minimum) {
      resolved.error = "dlpack-cuda-pipeline: PTX " + formatPTX(version) +
                       " cannot target " + chip.str() + ", which needs PTX " +
                       formatPTX(minimum) +
                       " or newer; leave ptx-version empty to use the chip's "
                       "minimum";
      return resolved;
    }
    resolved.ptxVersion = version;
  }
  llvm::StringRef format = options.format;
  resolved.format = llvm::StringSwitch<std::string>(format)
                        .Cases({"ptx", "isa"}, "isa")
                        .Cases({"cubin", "bin"}, "bin")
                        .Case("fatbin", "fatbin")
                        .Default("");
  if (resolved.format.empty()) {
    resolved.error = ("dlpack-cuda-pipeline: unknown format '" + format +
                      "'; expected ptx, cubin or fatbin")
                         .str();
    return resolved;
  }
  if (options.optLevel > 3) {
    resolved.error = "dlpack-cuda-pipeline: opt-level must be 0 to 3, not " +
                     std::to_string(options.optLevel);
    return resolved;
  }
  resolved.toolkit = dlbridge::findCUDAToolkit(options.toolkit);
  return resolved;
}

std::string getLibdevicePath(llvm::StringRef toolkit) {
  llvm::SmallString<256> path(toolkit);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return path.str().str();
}

//===----------------------------------------------------------------------===//
// Pipeline-internal passes
//===----------------------------------------------------------------------===//

/// Stands in for the whole pipeline when its options are invalid: fails
/// with the reason before anything (LLVM's NVPTX backend, which aborts the
/// process on a PTX version too old for the chip, in particular) runs.
struct InvalidOptionsPass
    : public PassWrapper<InvalidOptionsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(InvalidOptionsPass)
  explicit InvalidOptionsPass(std::string message)
      : message(std::move(message)) {}
  StringRef getArgument() const override {
    return "dlpack-cuda-pipeline-invalid-options";
  }
  void runOnOperation() override {
    getOperation().emitError() << message;
    signalPassFailure();
  }
  std::string message;
};

/// memref.copy left by bufferization becomes linalg.copy, which the rest of
/// the pipeline turns into a kernel.
struct CopiesToLinalgPass
    : public PassWrapper<CopiesToLinalgPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CopiesToLinalgPass)
  StringRef getArgument() const override {
    return "dlpack-cuda-copies-to-linalg";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect>();
  }
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

/// Tiles innermost scf.parallel loops into blocks of threads by rank, so the
/// innermost (contiguous) dimension spreads over consecutive threads:
/// gpu-map-parallel-loops maps dimension 0 to x, 1 to y, 2 to z, and warps
/// are formed along x first. 1-d: 256 threads; 2-d: 1 x 256; 3-d and more:
/// 1 x 1 x 64 (blockDim.z is at most 64).
struct TileForGPUPass
    : public PassWrapper<TileForGPUPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TileForGPUPass)
  StringRef getArgument() const override { return "dlpack-cuda-tile-loops"; }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<affine::AffineDialect, arith::ArithDialect>();
  }
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> innermost;
    getOperation().walk([&](scf::ParallelOp loop) {
      bool hasNested = false;
      loop.getBody()->walk([&](scf::ParallelOp) { hasNested = true; });
      if (!hasNested)
        innermost.push_back(loop);
    });
    for (scf::ParallelOp loop : innermost) {
      SmallVector<int64_t> sizes;
      switch (loop.getNumLoops()) {
      case 1:
        sizes = {256};
        break;
      case 2:
        sizes = {1, 256};
        break;
      default:
        sizes = {1, 1, 64};
        break;
      }
      scf::tileParallelLoop(loop, sizes, /*noMinMaxBounds=*/false);
    }
  }
};

/// Math in kernels lowers to libdevice's `__nv_*` functions, which only
/// gpu-module-to-binary links, and only when it finds libdevice; without it
/// the PTX keeps unresolved externs that fail when loaded. Fails with the
/// way out instead.
struct CheckLibdevicePass
    : public PassWrapper<CheckLibdevicePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckLibdevicePass)
  CheckLibdevicePass(std::string toolkit, std::string requested)
      : toolkit(std::move(toolkit)), requested(std::move(requested)) {}
  StringRef getArgument() const override {
    return "dlpack-cuda-check-libdevice";
  }
  void runOnOperation() override {
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      SmallVector<StringRef> needed;
      module.walk([&](LLVM::LLVMFuncOp func) {
        if (func.isExternal() && func.getSymName().starts_with("__nv_"))
          needed.push_back(func.getSymName());
      });
      if (needed.empty())
        continue;
      std::string libdevice = toolkit.empty() ? "" : getLibdevicePath(toolkit);
      if (!libdevice.empty() && llvm::sys::fs::is_regular_file(libdevice))
        continue;
      InFlightDiagnostic diag = module.emitError()
                                << "kernels call libdevice (";
      llvm::interleaveComma(needed, diag);
      diag << ") but ";
      if (toolkit.empty())
        diag << "no CUDA toolkit was found (toolkit option, CUDA_HOME, "
                "CUDA_PATH, CUDA_ROOT, ptxas on PATH, /usr/local/cuda)";
      else
        diag << "libdevice is not at " << libdevice
             << (requested.empty() ? "" : " (toolkit option)");
      diag << "; point the toolkit option (CompileOptions::toolkitPath) or "
              "CUDA_HOME at a CUDA toolkit with nvvm/libdevice/libdevice.10.bc";
      return signalPassFailure();
    }
  }
  std::string toolkit, requested;
};

} // namespace

std::string dlbridge::findCUDAToolkit(llvm::StringRef explicitPath) {
  if (!explicitPath.empty())
    return explicitPath.str();
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *value = std::getenv(variable))
      if (*value && llvm::sys::fs::is_directory(value))
        return value;
  if (llvm::ErrorOr<std::string> ptxas = llvm::sys::findProgramByName("ptxas")) {
    // <toolkit>/bin/ptxas
    llvm::StringRef bin = llvm::sys::path::parent_path(*ptxas);
    llvm::StringRef root = llvm::sys::path::parent_path(bin);
    if (!root.empty())
      return root.str();
  }
  if (llvm::sys::fs::is_directory("/usr/local/cuda"))
    return "/usr/local/cuda";
  return {};
}

void dlbridge::buildDLPackCUDAPipeline(OpPassManager &pm,
                                       const CUDAPipelineOptions &options) {
  ResolvedOptions resolved = resolve(options);
  if (!resolved.error.empty()) {
    pm.addPass(std::make_unique<InvalidOptionsPass>(resolved.error));
    return;
  }

  // Tensors to buffers, as on the CPU: fully dynamic layouts at the
  // boundary, so one kernel serves every DLPack layout.
  pm.addPass(createDecomposeAggregatedOps());
  // arith and math on whole tensors, and linalg.pack/unpack, as linalg
  // and tensor ops that bufferize.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createLowerPackUnpack());
  // Shape relations between arguments, checked in host code before any
  // kernel exists.
  pm.addPass(dlpack::createDLPackGenerateShapeChecks());
  if (options.bufferize)
    addBufferizationPasses(pm,
                           bufferization::LayoutMapOption::FullyDynamicLayoutMap);
  pm.addPass(dlpack::createDLPackOwnResults());
  pm.addNestedPass<func::FuncOp>(std::make_unique<CopiesToLinalgPass>());

  // Loops to kernels (DESIGN.md, "Pipelines"): without the canonicalisation
  // convert-parallel-loops-to-gpu silently does nothing.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(std::make_unique<TileForGPUPass>());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(dlpack::createDLPackOffloadHostCode());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(dlpack::createDLPackLaunchOnContextStream());

  // Entry points after deallocation, as on the CPU.
  dlpack::DLPackExposeEntryPointsOptions entryOptions;
  entryOptions.device = "cuda";
  pm.addPass(dlpack::createDLPackExposeEntryPoints(entryOptions));

  // What gpu-lower-to-nvvm-pipeline runs, split so that host code keeps its
  // launches async on the context stream and its allocations in libdlrt.
  pm.addPass(createSCFToControlFlowPass());
  // Failed checks return early, as on the CPU.
  pm.addPass(dlpack::createDLPackCheckAllocations());
  pm.addPass(dlpack::createDLPackLowerAssertions());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  GpuNVVMAttachTargetOptions targetOptions;
  targetOptions.chip = options.chip;
  targetOptions.features = "+ptx" + std::to_string(resolved.ptxVersion);
  targetOptions.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(targetOptions));
  pm.addPass(createConvertDLPackToLLVM());

  // 8-bit floats, which LLVM has no type for: through f32 and integers.
  pm.addPass(createExpandSmallFloats());
  // Kernels. Complex arithmetic to real first: convert-gpu-to-nvvm lowers
  // only complex construction and access.
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertComplexToStandardPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(LLVM::createNVVMOptimizeForTargetPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createBoolsAsBytes());
  VerifyLoweredOptions verifyOptions;
  verifyOptions.target = "cuda";
  pm.addNestedPass<gpu::GPUModuleOp>(createVerifyLowered(verifyOptions));
  // Locations served the diagnostics above; the binary carries none.
  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addPass(std::make_unique<CheckLibdevicePass>(resolved.toolkit,
                                                  options.toolkit));

  // Host code. Any host buffer left (deallocation helpers) comes from
  // libdlrt, as on the CPU.
  FinalizeMemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOptions));
  pm.addPass(createGpuToLLVMConversionPass());

  GpuModuleToBinaryPassOptions binaryOptions;
  binaryOptions.compilationTarget = resolved.format;
  // Only a toolkit that has libdevice: gpu-module-to-binary reports a
  // missing one even for kernels without math (CheckLibdevicePass covers
  // those with).
  if (!resolved.toolkit.empty() &&
      llvm::sys::fs::is_regular_file(getLibdevicePath(resolved.toolkit)))
    binaryOptions.toolkitPath = resolved.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binaryOptions));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createVerifyLowered(verifyOptions));
}
