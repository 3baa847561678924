//===- dl-run.cpp - Compile a dlpack.entry function and run it on .npy files
//===//
//
// Part of dlbridge. `dl-run kernel.mlir --entry f -i a.npy -i 2.5 -o out.npy`
// compiles the entry with the JIT, reads its tensor arguments from .npy
// files (zero-copy views of 64-byte aligned buffers, Fortran order kept as
// column-major strides), parses its scalar arguments per their dtype, calls
// it once and writes or prints its results.
//
// Every failure is one `dl-run: ...` line on stderr (a compile error adds
// MLIR's diagnostics) and exit code 1. Output files are written all or
// none: a regular file (or a symlink's target) atomically, a FIFO or a
// character device in place; nothing else is written.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/JIT/Kernel.h"
#include "dlbridge/Support/Npy.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

using namespace dlbridge;
using namespace llvm;

namespace {

cl::OptionCategory category("dl-run options");

cl::opt<std::string> kernelPath(cl::Positional, cl::Required,
                                cl::desc("<kernel.mlir | ->"),
                                cl::cat(category));
cl::opt<std::string> entryName(StringRef(option::entry.name),
                               cl::desc(option::entry.description),
                               cl::value_desc("name"), cl::cat(category));
cl::alias entryAlias("e", cl::desc("Alias for --entry"),
                     cl::aliasopt(entryName), cl::cat(category));
cl::list<std::string> inputs(
    "i",
    cl::desc("The next argument, in the order of the entry's parameters: a "
             ".npy file for a tensor parameter; for a scalar parameter a "
             "literal parsed per its dtype (2.5, -3, 0x10, true), optionally "
             "written scalar:<literal>"),
    cl::value_desc("file.npy | literal"), cl::cat(category));
cl::list<std::string> outputs(
    "o",
    cl::desc("Where to write the next result, in the order of the entry's "
             "results, as .npy ('-' skips one). Give none or one per result; "
             "scalar results are written as 0-d arrays. Regular files are "
             "replaced atomically (a symlink's target; the link and the "
             "file's permissions stay), a FIFO or character device is "
             "written in place, anything else is refused; all or none"),
    cl::value_desc("file.npy"), cl::cat(category));
cl::opt<bool> printResults(
    "print",
    cl::desc("Print the results (and the parameters the entry writes) to "
             "stdout, NumPy-style"),
    cl::cat(category));
cl::opt<bool> writeBack(
    "write-back",
    cl::desc("Write tensor parameters the entry writes (in place) back to "
             "their .npy files. Without it they are modified in memory only"),
    cl::cat(category));
cl::opt<unsigned>
    timeCalls("time",
              cl::desc("After the first call (whose results are written and "
                       "printed), time N more calls and print the minimum "
                       "and median in microseconds"),
              cl::value_desc("N"), cl::init(0), cl::cat(category));
cl::opt<bool> printSignature("signature",
                             cl::desc("Print the entry's signature and exit"),
                             cl::cat(category));

// The compile options (Options.h); dl-run runs on the CPU, so --target cuda
// and the CUDA options only compile, with --signature.
cl::OptionCategory compileCategory("compile options (docs/Options.md)");
cl::opt<std::string>
    targetName(StringRef(option::target.name),
               cl::desc(option::target.description), cl::value_desc("cpu|cuda"),
               cl::init(dlbridge::getName(CompileOptions().target)),
               cl::cat(compileCategory));
cl::opt<bool> bufferizeFlag(StringRef(option::bufferize.name),
                            cl::desc(option::bufferize.description),
                            cl::init(CompileOptions().bufferize),
                            cl::cat(compileCategory));
cl::opt<unsigned> optLevel(StringRef(option::optLevel.name),
                           cl::desc(option::optLevel.description),
                           cl::value_desc("0-3"),
                           cl::init(CompileOptions().optLevel),
                           cl::cat(compileCategory));
cl::opt<std::string> chipName(StringRef(option::chip.name),
                              cl::desc(option::chip.description),
                              cl::value_desc("sm_NN"),
                              cl::init(CompileOptions().chip),
                              cl::cat(compileCategory));
cl::opt<std::string> ptxVersionName(StringRef(option::ptxVersion.name),
                                    cl::desc(option::ptxVersion.description),
                                    cl::value_desc("ptxNN"),
                                    cl::init(CompileOptions().ptxVersion),
                                    cl::cat(compileCategory));
cl::opt<std::string>
    formatName(StringRef(option::format.name),
               cl::desc(option::format.description),
               cl::value_desc("ptx|cubin|fatbin"),
               cl::init(dlbridge::getName(CompileOptions().format)),
               cl::cat(compileCategory));
cl::opt<std::string> toolkitPath(StringRef(option::toolkit.name),
                                 cl::desc(option::toolkit.description),
                                 cl::value_desc("dir"),
                                 cl::init(CompileOptions().toolkit),
                                 cl::cat(compileCategory));
cl::opt<bool> cacheFlag(StringRef(option::cache.name),
                        cl::desc(option::cache.description),
                        cl::init(CompileOptions().cache),
                        cl::cat(compileCategory));

[[noreturn]] void fail(const std::string &message) {
  std::string text = message;
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  errs() << "dl-run: " << text << "\n";
  errs().flush();
  std::exit(1);
}

std::string describe(const jit::ParamInfo &param, bool isResult = false) {
  std::string text = param.name + ": " + npy::dtypeName(param.dtype);
  if (!param.isTensor)
    return text;
  text += "[";
  for (int32_t i = 0; i < param.rank; ++i) {
    if (i)
      text += ", ";
    text += i < static_cast<int32_t>(param.shape.size()) &&
                    param.shape[i] != DLRT_DYNAMIC
                ? std::to_string(param.shape[i])
                : "?";
  }
  text += "]";
  if (!isResult && (param.access & DLRT_ACCESS_WRITE))
    text += " (written)";
  return text;
}

std::string describe(const std::vector<jit::ParamInfo> &params,
                     bool areResults = false) {
  std::string text;
  for (const jit::ParamInfo &param : params)
    text += (text.empty() ? "" : ", ") + describe(param, areResults);
  return text;
}

std::string plural(size_t n, const char *word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string argumentLabel(size_t index, const jit::ParamInfo &param) {
  return "argument " + std::to_string(index) + " '" + param.name + "'";
}

uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint32_t sign = (bits >> 16) & 0x8000;
  int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffff;
  if (((bits >> 23) & 0xff) == 0xff) // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00 | (mantissa ? 0x200 : 0));
  if (exponent >= 31)
    return static_cast<uint16_t>(sign | 0x7c00);
  if (exponent <= 0) {
    if (exponent < -10)
      return static_cast<uint16_t>(sign);
    mantissa |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - exponent);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half =
      sign | (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is right
  return static_cast<uint16_t>(half);
}

/// Parses `text` as a value of `dtype` into `storage`; returns an error
/// message or "".
std::string parseScalar(StringRef text, DLDataType dtype, void *storage) {
  std::string literal = text.str();
  auto bad = [&](const std::string &why = "") {
    return "expected a " + npy::dtypeName(dtype) + " literal, got '" + literal +
           "'" + (why.empty() ? "" : " (" + why + ")");
  };
  if (literal.empty())
    return bad();
  const char *begin = literal.c_str();
  char *end = nullptr;
  errno = 0;
  switch (dtype.code) {
  case kDLBool: {
    std::string lower = StringRef(literal).lower();
    bool value;
    if (lower == "true" || lower == "1")
      value = true;
    else if (lower == "false" || lower == "0")
      value = false;
    else
      return bad();
    *static_cast<uint8_t *>(storage) = value;
    return "";
  }
  case kDLInt: {
    long long value = std::strtoll(begin, &end, 0);
    if (*end != '\0' || end == begin)
      return bad();
    int bits = dtype.bits;
    long long lo = bits == 64 ? std::numeric_limits<long long>::min()
                              : -(1LL << (bits - 1));
    long long hi = bits == 64 ? std::numeric_limits<long long>::max()
                              : (1LL << (bits - 1)) - 1;
    if (errno == ERANGE || value < lo || value > hi)
      return bad("out of range");
    std::memcpy(storage, &value, bits / 8); // little-endian truncation
    return "";
  }
  case kDLUInt: {
    if (StringRef(literal).trim().starts_with("-"))
      return bad("negative");
    unsigned long long value = std::strtoull(begin, &end, 0);
    if (*end != '\0' || end == begin)
      return bad();
    int bits = dtype.bits;
    if (errno == ERANGE || (bits < 64 && value >> bits))
      return bad("out of range");
    std::memcpy(storage, &value, bits / 8);
    return "";
  }
  case kDLFloat:
  case kDLBfloat: {
    double value = std::strtod(begin, &end);
    if (*end != '\0' || end == begin)
      return bad();
    if (dtype.code == kDLFloat && dtype.bits == 64) {
      std::memcpy(storage, &value, 8);
    } else if (dtype.code == kDLFloat && dtype.bits == 32) {
      float f = static_cast<float>(value);
      std::memcpy(storage, &f, 4);
    } else if (dtype.code == kDLFloat && dtype.bits == 16) {
      uint16_t h = floatToHalf(static_cast<float>(value));
      std::memcpy(storage, &h, 2);
    } else if (dtype.code == kDLBfloat && dtype.bits == 16) {
      float f = static_cast<float>(value);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
      uint16_t h = static_cast<uint16_t>(bits >> 16);
      std::memcpy(storage, &h, 2);
    } else {
      return bad("dl-run cannot parse this dtype");
    }
    return "";
  }
  default:
    return "scalar parameters of dtype " + npy::dtypeName(dtype) +
           " are not supported by dl-run";
  }
}

std::string readSource(const std::string &path) {
  auto buffer = MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer)
    fail("cannot read '" + path + "': " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

/// A 0-d tensor over a scalar result's storage, for writing and printing.
DLTensor scalarTensor(void *storage, DLDataType dtype) {
  DLTensor t{};
  t.data = storage;
  t.device = {kDLCPU, 0};
  t.ndim = 0;
  t.dtype = dtype;
  return t;
}

std::string shapeText(const DLTensor &t) {
  std::string text = "(";
  for (int32_t i = 0; i < t.ndim; ++i)
    text += std::to_string(t.shape[i]) + (t.ndim == 1 ? "," : "") +
            (i + 1 < t.ndim ? ", " : "");
  return text + ")";
}

void printOne(const std::string &label, const DLTensor &t) {
  std::ostringstream os;
  os << label << ": " << npy::dtypeName(t.dtype) << " " << shapeText(t) << "\n";
  npy::printTensor(os, t);
  os << "\n";
  outs() << os.str();
}

/// Owns the results of one call.
struct CallResults {
  std::vector<void *> slots;
  /// Scalar results' storage, 16 bytes each.
  std::vector<std::array<uint64_t, 2>> scalars;
  std::vector<DLManagedTensorVersioned *> tensors;

  explicit CallResults(const jit::Signature &sig)
      : slots(sig.results.size(), nullptr), scalars(sig.results.size()),
        tensors(sig.results.size(), nullptr) {
    for (size_t j = 0; j < sig.results.size(); ++j)
      if (!sig.results[j].isTensor)
        slots[j] = scalars[j].data();
  }
  void collect(const jit::Signature &sig) {
    for (size_t j = 0; j < sig.results.size(); ++j)
      if (sig.results[j].isTensor)
        tensors[j] = static_cast<DLManagedTensorVersioned *>(slots[j]);
  }
  ~CallResults() {
    for (DLManagedTensorVersioned *t : tensors)
      dlrt_release_managed(t);
  }
};

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&category, &compileCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "dl-run: compile a dlpack.entry function and run it on .npy files\n\n"
      "  dl-run kernel.mlir --entry f -i x.npy -i 2.5 -o out.npy --print\n\n"
      "Each -i is the next parameter of the entry, in order: tensors come\n"
      "from .npy files (C or Fortran order; Fortran-order files are passed\n"
      "as column-major strided tensors without a copy), scalars are literals\n"
      "parsed per the parameter's dtype. A tensor parameter the entry writes\n"
      "is modified in memory only, unless --write-back is given. Errors are\n"
      "one 'dl-run: ...' line on stderr and exit code 1.\n");

  CompileOptions options;
  std::optional<dlbridge::Target> target = parseTarget(targetName);
  std::optional<GPUBinaryFormat> binaryFormat =
      parseGPUBinaryFormat(formatName);
  if (!target)
    fail(describeInvalidValue(option::target, Spelling::CommandLine,
                              targetName));
  if (!binaryFormat)
    fail(describeInvalidValue(option::format, Spelling::CommandLine,
                              formatName));
  options.target = *target;
  options.bufferize = bufferizeFlag;
  options.optLevel = optLevel;
  options.chip = chipName;
  options.ptxVersion = ptxVersionName;
  options.format = *binaryFormat;
  options.toolkit = toolkitPath;
  options.cache = cacheFlag;
  if (std::string error = checkOptions(options, Spelling::CommandLine);
      !error.empty())
    fail(error);
  if (options.target == dlbridge::Target::CUDA && !printSignature)
    fail("--target cuda: dl-run runs kernels on the CPU only; add "
         "--signature to compile for CUDA and print the entry's signature, "
         "or use dl-opt --dlbridge-cuda-pipeline");

  std::string sourceName =
      kernelPath == "-" ? std::string("<stdin>") : kernelPath.getValue();
  jit::CompileResult compiled =
      kernelPath == "-"
          ? jit::compile(readSource(kernelPath), entryName, options)
          : jit::compileFile(kernelPath, entryName, options);
  if (!compiled) {
    std::string error = compiled.error;
    while (!error.empty() && error.back() == '\n')
      error.pop_back();
    if (error.find('\n') != std::string::npos)
      fail("cannot compile '" + sourceName + "':\n" + error);
    fail(error);
  }
  const jit::Kernel &kernel = *compiled.kernel;
  const jit::Signature &sig = kernel.signature();

  if (printSignature) {
    outs() << "@" << sig.name << "(" << describe(sig.args) << ") -> ("
           << describe(sig.results, true) << ")\n";
    return 0;
  }
  if (sig.device != kDLCPU)
    fail("@" + sig.name + " was not compiled for the CPU");

  if (inputs.size() != sig.args.size())
    fail("@" + sig.name + " takes " + plural(sig.args.size(), "argument") +
         " (" + describe(sig.args) + "), but " +
         plural(inputs.size(), "input") + " (-i) " +
         (inputs.size() == 1 ? "was" : "were") + " given");
  if (!outputs.empty() && outputs.size() != sig.results.size())
    fail("@" + sig.name + " returns " + plural(sig.results.size(), "result") +
         (sig.results.empty() ? "" : " (" + describe(sig.results, true) + ")") +
         ", but " + plural(outputs.size(), "output") + " (-o) " +
         (outputs.size() == 1 ? "was" : "were") + " given");

  // Arguments. `tensors` is sized up front: args point into it.
  size_t numArgs = sig.args.size();
  std::vector<std::optional<npy::NpyArray>> arrays(numArgs);
  std::vector<DLTensor> tensors(numArgs);
  std::vector<std::array<uint64_t, 2>> scalars(numArgs);
  std::vector<void *> args(numArgs, nullptr);
  for (size_t i = 0; i < numArgs; ++i) {
    const jit::ParamInfo &param = sig.args[i];
    StringRef value = inputs[i];
    if (param.isTensor) {
      if (value.starts_with("scalar:"))
        fail(argumentLabel(i, param) +
             ": expected a .npy file for a tensor "
             "parameter, got '" +
             value.str() + "'");
      std::string error;
      arrays[i] = npy::readNpyFile(value.str(), error);
      if (!arrays[i])
        fail(argumentLabel(i, param) + ": " + error);
      tensors[i] = arrays[i]->tensor();
      args[i] = &tensors[i];
    } else {
      value.consume_front("scalar:");
      std::string error = parseScalar(value, param.dtype, scalars[i].data());
      if (!error.empty())
        fail(argumentLabel(i, param) + ": " + error);
      args[i] = scalars[i].data();
    }
  }

  auto callOnce = [&](CallResults &results) {
    dlrt_call_ctx ctx;
    dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
    int32_t status = kernel.call(args.data(), results.slots.data(), &ctx);
    if (status != DLRT_OK) {
      results.slots.assign(results.slots.size(), nullptr);
      fail(ctx.error[0] ? std::string(ctx.error)
                        : std::string(dlrt_status_name(status)));
    }
    results.collect(sig);
  };

  {
    CallResults results(sig);
    callOnce(results);
    auto resultTensor = [&](size_t j) {
      if (sig.results[j].isTensor)
        return results.tensors[j]->dl_tensor;
      return scalarTensor(results.scalars[j].data(), sig.results[j].dtype);
    };
    // Results and written parameters go out together: all files or none.
    std::vector<npy::NpyOutput> files;
    std::vector<std::string> labels;
    for (size_t j = 0; j < outputs.size(); ++j)
      if (outputs[j] != "-") {
        files.push_back({outputs[j], resultTensor(j)});
        labels.push_back("result " + std::to_string(j) + " '" +
                         sig.results[j].name + "'");
      }
    if (writeBack)
      for (size_t i = 0; i < numArgs; ++i)
        if (sig.args[i].isTensor && (sig.args[i].access & DLRT_ACCESS_WRITE)) {
          files.push_back({inputs[i], tensors[i]});
          labels.push_back(argumentLabel(i, sig.args[i]));
        }
    std::string error;
    size_t failed = 0;
    if (!npy::writeNpyFiles(files, error, &failed))
      fail(labels[failed] + ": " + error + " (no output was written)");
    if (printResults) {
      for (size_t j = 0; j < sig.results.size(); ++j)
        printOne("result " + std::to_string(j) + " '" + sig.results[j].name +
                     "'",
                 resultTensor(j));
      for (size_t i = 0; i < numArgs; ++i)
        if (sig.args[i].isTensor && (sig.args[i].access & DLRT_ACCESS_WRITE))
          printOne(argumentLabel(i, sig.args[i]) + " (written)", tensors[i]);
    }
  }

  if (timeCalls > 0) {
    std::vector<double> micros;
    micros.reserve(timeCalls);
    for (unsigned n = 0; n < timeCalls; ++n) {
      CallResults results(sig);
      auto start = std::chrono::steady_clock::now();
      callOnce(results);
      auto stop = std::chrono::steady_clock::now();
      micros.push_back(
          std::chrono::duration<double, std::micro>(stop - start).count());
    }
    std::sort(micros.begin(), micros.end());
    double median =
        micros.size() % 2
            ? micros[micros.size() / 2]
            : (micros[micros.size() / 2 - 1] + micros[micros.size() / 2]) / 2;
    char line[160];
    std::snprintf(line, sizeof(line),
                  "time: %u calls, min %.2f us, median %.2f us\n",
                  static_cast<unsigned>(timeCalls), micros.front(), median);
    outs() << line;
  }
  outs().flush();
  return 0;
}
