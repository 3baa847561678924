//===- Options.cpp - The options of every way to compile ------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Pipelines/Options.h"
#include "dlbridge/Pipelines/Pipelines.h"

#include <cctype>

using namespace dlbridge;

/// Compares names, not addresses: the table's entries are inline variables,
/// which every shared object using them (the Python extension) may copy.
static bool is(const OptionInfo &option, const OptionInfo &other) {
  return std::string_view(option.name) == other.name;
}

std::string dlbridge::spell(const OptionInfo &option, Spelling spelling) {
  std::string name = option.name;
  switch (spelling) {
  case Spelling::Pipeline:
    return name;
  case Spelling::CommandLine:
    return "--" + name;
  case Spelling::Python:
    for (char &c : name)
      if (c == '-')
        c = '_';
    return name;
  case Spelling::Cpp: {
    std::string camel;
    bool upper = false;
    for (char c : name) {
      if (c == '-') {
        upper = true;
        continue;
      }
      camel += upper ? static_cast<char>(std::toupper(c)) : c;
      upper = false;
    }
    if (is(option, option::entry))
      return "compile()'s entry argument";
    return "CompileOptions::" + camel;
  }
  }
  return name;
}

std::string dlbridge::getDefaultText(const OptionInfo &option) {
  const CompileOptions defaults;
  auto boolean = [](bool value) { return value ? "true" : "false"; };
  if (is(option, option::target))
    return getName(defaults.target);
  if (is(option, option::bufferize))
    return boolean(defaults.bufferize);
  if (is(option, option::optLevel))
    return std::to_string(defaults.optLevel);
  if (is(option, option::chip))
    return defaults.chip;
  if (is(option, option::ptxVersion))
    return defaults.ptxVersion;
  if (is(option, option::format))
    return getName(defaults.format);
  if (is(option, option::toolkit))
    return defaults.toolkit;
  if (is(option, option::cache))
    return boolean(defaults.cache);
  if (is(option, option::identityLayouts))
    return boolean(false);
  return {};
}

const char *dlbridge::getName(Target target) {
  return target == Target::CUDA ? "cuda" : "cpu";
}

const char *dlbridge::getName(GPUBinaryFormat format) {
  switch (format) {
  case GPUBinaryFormat::PTX:
    return "ptx";
  case GPUBinaryFormat::Cubin:
    return "cubin";
  case GPUBinaryFormat::Fatbin:
    return "fatbin";
  }
  return "?";
}

std::optional<Target> dlbridge::parseTarget(std::string_view text) {
  for (Target target : {Target::CPU, Target::CUDA})
    if (text == getName(target))
      return target;
  return std::nullopt;
}

std::optional<GPUBinaryFormat>
dlbridge::parseGPUBinaryFormat(std::string_view text) {
  for (GPUBinaryFormat format :
       {GPUBinaryFormat::PTX, GPUBinaryFormat::Cubin, GPUBinaryFormat::Fatbin})
    if (text == getName(format))
      return format;
  return std::nullopt;
}

std::string dlbridge::describeInvalidValue(const OptionInfo &option,
                                           Spelling spelling,
                                           std::string_view got) {
  return spell(option, spelling) + ": expected " + option.values + ", got '" +
         std::string(got) + "'";
}

std::string dlbridge::checkOptions(const CompileOptions &options,
                                   Spelling spelling) {
  if (options.target != Target::CPU && options.target != Target::CUDA)
    return describeInvalidValue(
        option::target, spelling,
        std::to_string(static_cast<int>(options.target)));
  if (options.format != GPUBinaryFormat::PTX &&
      options.format != GPUBinaryFormat::Cubin &&
      options.format != GPUBinaryFormat::Fatbin)
    return describeInvalidValue(
        option::format, spelling,
        std::to_string(static_cast<int>(options.format)));
  if (options.optLevel > 3)
    return describeInvalidValue(option::optLevel, spelling,
                                std::to_string(options.optLevel));
  if (options.target == Target::CPU) {
    const CompileOptions defaults;
    const OptionInfo *changed =
        options.chip != defaults.chip               ? &option::chip
        : options.ptxVersion != defaults.ptxVersion ? &option::ptxVersion
        : options.format != defaults.format         ? &option::format
        : options.toolkit != defaults.toolkit       ? &option::toolkit
                                                    : nullptr;
    if (changed)
      return spell(*changed, spelling) + " applies to target cuda only; " +
             "compile with " + spell(option::target, spelling) +
             (spelling == Spelling::Cpp      ? " = Target::CUDA"
              : spelling == Spelling::Python ? "='cuda'"
                                             : " cuda") +
             " or leave it out";
    return {};
  }
  if (!getCUDAMinimumPTXVersion(options.chip))
    return describeInvalidValue(option::chip, spelling, options.chip) +
           " (CUDA 13 compiles for no older chip)";
  return {};
}
