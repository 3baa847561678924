//===- CUDATarget.h - Chips, PTX versions, formats, toolkits ----*- C++ -*-===//
//
// Part of dlbridge. What the CUDA pipeline and its passes know about NVIDIA
// targets and where the CUDA toolkit is.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_TRANSFORMS_GPU_CUDATARGET_H
#define DLBRIDGE_TRANSFORMS_GPU_CUDATARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace dlbridge {

/// The PTX ISA version (e.g. 78 for PTX 7.8) LLVM needs at least for `chip`,
/// or 0 for chips the CUDA pipeline does not support.
unsigned getCUDAMinimumPTXVersion(llvm::StringRef chip);

/// CUDA target options, checked and in the form the upstream passes take.
struct CUDATarget {
  /// e.g. 78 for PTX 7.8.
  unsigned ptxVersion = 0;
  /// gpu-module-to-binary's compilation target: isa, bin or fatbin.
  std::string binaryFormat;

  /// nvvm-attach-target's features: `+ptx78`.
  std::string getFeatures() const {
    return "+ptx" + std::to_string(ptxVersion);
  }
};

/// Checks the options of the CUDA pipeline (`ptxVersion` empty: the chip's
/// minimum; `format`: ptx, cubin or fatbin). On failure, `error` says which
/// option is wrong and what it accepts.
mlir::FailureOr<CUDATarget> resolveCUDATarget(llvm::StringRef chip,
                                              llvm::StringRef ptxVersion,
                                              llvm::StringRef format,
                                              unsigned optLevel,
                                              std::string &error);

/// The CUDA toolkit directory to use: `explicitPath` when not empty, else the
/// first of CUDA_HOME, CUDA_PATH, CUDA_ROOT, the parent of the directory
/// holding `ptxas` on PATH, and /usr/local/cuda that exists; empty when none
/// does.
std::string findCUDAToolkit(llvm::StringRef explicitPath);

/// `<toolkit>/nvvm/libdevice/libdevice.10.bc`.
std::string getLibdevicePath(llvm::StringRef toolkit);

} // namespace dlbridge

#endif // DLBRIDGE_TRANSFORMS_GPU_CUDATARGET_H
