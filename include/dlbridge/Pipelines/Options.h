//===- Options.h - The options of every way to compile ----------*- C++ -*-===//
//
// Part of dlbridge. The one home of the compile options: their names,
// descriptions, allowed values, defaults and checks. `dl-opt`'s pipeline
// options, `dl-run`'s flags, `dlbridge.compile(...)`'s keywords and the C++
// CompileOptions are all built from what is here (docs/Options.md lists
// them). No MLIR or LLVM type appears here: Kernel.h includes it.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_PIPELINES_OPTIONS_H
#define DLBRIDGE_PIPELINES_OPTIONS_H

#include <optional>
#include <string>
#include <string_view>

namespace dlbridge {

enum class Target { CPU, CUDA };

/// What `--dlbridge-cuda-pipeline` puts into the `gpu.binary`.
enum class GPUBinaryFormat { PTX, Cubin, Fatbin };

/// How an entry is compiled. Every field is an option of the table below;
/// its default is the option's default everywhere.
struct CompileOptions {
  Target target = Target::CPU;
  /// Bufferize modules with tensor values (memref-level modules never are).
  bool bufferize = true;
  /// LLVM optimisation level: of host code on the CPU, of device code (and
  /// the host code launching it) for CUDA.
  unsigned optLevel = 3;
  /// CUDA only; see the table. `ptxVersion` empty: the chip's minimum;
  /// `toolkit` empty: CUDA_HOME, CUDA_PATH, CUDA_ROOT, ptxas on PATH,
  /// /usr/local/cuda.
  std::string chip = "sm_80";
  std::string ptxVersion;
  GPUBinaryFormat format = GPUBinaryFormat::Fatbin;
  std::string toolkit;
  /// Reuse and fill the in-memory and disk caches (see Cache.h).
  bool cache = true;
};

/// Where an option can be given.
enum OptionInterface : unsigned {
  InCPUPipeline = 1 << 0,  ///< `--dlbridge-cpu-pipeline=...`
  InCUDAPipeline = 1 << 1, ///< `--dlbridge-cuda-pipeline=...`
  InDLRun = 1 << 2,        ///< `dl-run --name`
  InPython = 1 << 3,       ///< `dlbridge.compile(name=...)`
  InCpp = 1 << 4,          ///< `CompileOptions::name` or compile()'s argument
  InEverything = InCPUPipeline | InCUDAPipeline | InDLRun | InPython | InCpp,
};

/// One option. Its name is spelled `ptx-version` as a pipeline option and a
/// dl-run flag, `ptx_version` as a Python keyword and `ptxVersion` in C++.
struct OptionInfo {
  const char *name;
  /// What it accepts, for messages and the documentation.
  const char *values;
  const char *description;
  /// OptionInterface bits.
  unsigned interfaces;
  /// Only meaningful for Target::CUDA: an error with Target::CPU unless it
  /// has its default value.
  bool cudaOnly;
};

namespace option {
inline constexpr OptionInfo target{
    "target", "cpu or cuda",
    "Where the code runs: cpu (host code) or cuda (kernels for NVIDIA GPUs "
    "launched from host code). dl-opt picks it by pipeline name",
    InDLRun | InPython | InCpp, false};
inline constexpr OptionInfo entry{
    "entry", "the name of a dlpack.entry function",
    "The dlpack.entry function to compile, with what it references "
    "(--dlbridge-select-entry); the module's other functions need not compile "
    "for the target. May be omitted when the module has exactly one entry; "
    "empty in a pipeline: every entry",
    InEverything, false};
inline constexpr OptionInfo bufferize{
    "bufferize", "true or false",
    "Bufferize modules with tensor values and insert deallocations "
    "(--dlbridge-bufferize; a memref-level module is left as it is either "
    "way); false: never",
    InEverything, false};
inline constexpr OptionInfo optLevel{
    "opt-level", "0, 1, 2 or 3",
    "LLVM optimisation level. CPU: of the host code the JIT compiles (dl-opt's "
    "CPU pipeline stops at the LLVM dialect and has none); CUDA: of device "
    "code, in the pipeline, and of the host code launching it, in the JIT",
    InCUDAPipeline | InDLRun | InPython | InCpp, false};
inline constexpr OptionInfo chip{
    "chip",
    "sm_75, sm_80, sm_86, sm_87, sm_88, sm_89, sm_90, sm_90a, "
    "sm_100(a/f), sm_101(a/f), sm_103(a/f), sm_110(a/f), "
    "sm_120(a/f) or sm_121(a/f)",
    "The GPU architecture device code is compiled for",
    InCUDAPipeline | InDLRun | InPython | InCpp, true};
inline constexpr OptionInfo ptxVersion{
    "ptx-version",
    "ptx78, 78 or 7.8 (PTX 3.2 to 9.0, at least the chip's "
    "minimum); empty: the chip's minimum",
    "The PTX ISA version of device code",
    InCUDAPipeline | InDLRun | InPython | InCpp, true};
inline constexpr OptionInfo format{
    "format", "ptx, cubin or fatbin",
    "What the gpu.binary holds: ptx (compiled by the driver's JIT when "
    "loaded), cubin or fatbin (assembled by the toolkit's ptxas)",
    InCUDAPipeline | InDLRun | InPython | InCpp, true};
inline constexpr OptionInfo toolkit{
    "toolkit",
    "a directory with bin/ptxas and "
    "nvvm/libdevice/libdevice.10.bc; empty: CUDA_HOME, CUDA_PATH, "
    "CUDA_ROOT, ptxas on PATH, /usr/local/cuda",
    "The CUDA toolkit that assembles and links device code",
    InCUDAPipeline | InDLRun | InPython | InCpp, true};
inline constexpr OptionInfo cache{
    "cache", "true or false",
    "Reuse and fill the in-memory and disk kernel caches "
    "($XDG_CACHE_HOME/dlbridge)",
    InDLRun | InPython | InCpp, false};
inline constexpr OptionInfo identityLayouts{
    "identity-layouts", "true or false",
    "Give tensor arguments identity layouts instead of fully dynamic "
    "strides: the contiguous specialisation, for compact inputs only (the "
    "JIT compiles it when a call first has only compact inputs)",
    InCPUPipeline | InCUDAPipeline, false};

/// Every option, in the order docs/Options.md lists them.
inline constexpr const OptionInfo *all[] = {
    &target,     &entry,  &bufferize, &optLevel, &chip,
    &ptxVersion, &format, &toolkit,   &cache,    &identityLayouts};
} // namespace option

/// How an interface spells option names in its messages.
enum class Spelling {
  Pipeline,    ///< `opt-level`
  CommandLine, ///< `--opt-level`
  Python,      ///< `opt_level`
  Cpp,         ///< `CompileOptions::optLevel`
};

/// `option`'s name as `spelling` writes it.
std::string spell(const OptionInfo &option, Spelling spelling);

/// The text of `option`'s default value (`sm_80`, `3`, `true`, or empty).
std::string getDefaultText(const OptionInfo &option);

/// `cpu`/`cuda` and `ptx`/`cubin`/`fatbin`, both ways.
const char *getName(Target target);
const char *getName(GPUBinaryFormat format);
std::optional<Target> parseTarget(std::string_view text);
std::optional<GPUBinaryFormat> parseGPUBinaryFormat(std::string_view text);

/// "<option>: expected <values>, got '<got>'".
std::string describeInvalidValue(const OptionInfo &option, Spelling spelling,
                                 std::string_view got);

/// Checks what can be checked without compiling: enums and levels in range,
/// no CUDA-only option changed from its default for the CPU. Returns the
/// first problem, naming the option as `spelling` does, or "". The chip and
/// PTX version are checked by the CUDA pipeline.
std::string checkOptions(const CompileOptions &options, Spelling spelling);

} // namespace dlbridge

#endif // DLBRIDGE_PIPELINES_OPTIONS_H
