//===- CUDATarget.cpp - Chips, PTX versions, formats, toolkits ------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/CUDATarget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;

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
  static const unsigned known[] = {32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64,
                                   65, 70, 71, 72, 73, 74, 75, 76, 77, 78, 80,
                                   81, 82, 83, 84, 85, 86, 87, 88, 90};
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

} // namespace

FailureOr<dlbridge::CUDATarget>
dlbridge::resolveCUDATarget(llvm::StringRef chip, llvm::StringRef ptxVersion,
                            llvm::StringRef format, unsigned optLevel,
                            std::string &error) {
  CUDATarget target;
  unsigned minimum = getCUDAMinimumPTXVersion(chip);
  if (!minimum) {
    error = ("unknown or unsupported chip '" + chip +
             "'; supported: sm_75, sm_80, sm_86, sm_87, sm_88, sm_89, sm_90, "
             "sm_90a, sm_100(a/f), sm_101(a/f), sm_103(a/f), sm_110(a/f), "
             "sm_120(a/f), sm_121(a/f) (CUDA 13 no longer compiles for older "
             "chips)")
                .str();
    return failure();
  }
  if (ptxVersion.empty()) {
    target.ptxVersion = minimum;
  } else {
    unsigned version = parsePTXVersion(ptxVersion);
    if (!version || !isKnownPTXVersion(version)) {
      error = ("unknown PTX version '" + ptxVersion +
               "'; write it as ptx78, 78 or 7.8 (LLVM 22 knows PTX 3.2 to "
               "9.0)")
                  .str();
      return failure();
    }
    if (version < minimum) {
      error = "PTX " + formatPTX(version) + " cannot target " + chip.str() +
              ", which needs PTX " + formatPTX(minimum) +
              " or newer; leave ptx-version empty to use the chip's minimum";
      return failure();
    }
    target.ptxVersion = version;
  }
  target.binaryFormat = llvm::StringSwitch<std::string>(format)
                            .Cases({"ptx", "isa"}, "isa")
                            .Cases({"cubin", "bin"}, "bin")
                            .Case("fatbin", "fatbin")
                            .Default("");
  if (target.binaryFormat.empty()) {
    error = ("unknown format '" + format + "'; expected ptx, cubin or fatbin")
                .str();
    return failure();
  }
  if (optLevel > 3) {
    error = "opt-level must be 0 to 3, not " + std::to_string(optLevel);
    return failure();
  }
  return target;
}

std::string dlbridge::findCUDAToolkit(llvm::StringRef explicitPath) {
  if (!explicitPath.empty())
    return explicitPath.str();
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *value = std::getenv(variable))
      if (*value && llvm::sys::fs::is_directory(value))
        return value;
  if (llvm::ErrorOr<std::string> ptxas =
          llvm::sys::findProgramByName("ptxas")) {
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

std::string dlbridge::getLibdevicePath(llvm::StringRef toolkit) {
  llvm::SmallString<256> path(toolkit);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return path.str().str();
}
