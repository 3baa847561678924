//===- CUDAPipelineTest.cpp - GPU code checked without a GPU --------------===//
//
// Part of dlbridge's unit tests. Compiles linalg programs with
// --dlbridge-cuda-pipeline to PTX and assembles every kernel with the CUDA
// toolkit's ptxas for sm_80 and sm_90 (skipped, with the reason, when no
// ptxas is found); checks that math links libdevice when the toolkit has it
// and fails with a clear message when it does not, and that invalid chip /
// PTX options are diagnostics.
//
//===----------------------------------------------------------------------===//

#include "CUDAPrograms.h"

#include "dlbridge/InitAll.h"
#include "dlbridge/Pipelines/Pipelines.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace mlir;

namespace {

/// ptxas from CUDA_HOME, CUDA_PATH, CUDA_ROOT, PATH or /usr/local/cuda.
std::string findPtxas() {
  auto inToolkit = [](llvm::StringRef root) -> std::string {
    llvm::SmallString<256> path(root);
    llvm::sys::path::append(path, "bin", "ptxas");
    return llvm::sys::fs::can_execute(path) ? path.str().str() : "";
  };
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *value = std::getenv(variable))
      if (std::string path = inToolkit(value); !path.empty())
        return path;
  if (auto path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  return inToolkit("/usr/local/cuda");
}

bool hasLibdevice() {
  std::string toolkit = dlbridge::findCUDAToolkit("");
  llvm::SmallString<256> path(toolkit);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return !toolkit.empty() && llvm::sys::fs::is_regular_file(path);
}

struct Compiled {
  bool ok = false;
  std::string diagnostics;
  /// The PTX of every kernel module.
  std::vector<std::string> ptx;
  std::string ir;
};

/// The pipeline's options (not copyable themselves).
struct Options {
  std::string chip = "sm_80";
  std::string ptxVersion;
  std::string format = "ptx";
  std::string toolkit;
};

Compiled compile(const char *source, const Options &requested) {
  dlbridge::CUDAPipelineOptions options;
  options.chip = requested.chip;
  options.ptxVersion = requested.ptxVersion;
  options.format = requested.format;
  options.toolkit = requested.toolkit;
  DialectRegistry registry;
  dlbridge::registerAllDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  Compiled result;
  llvm::raw_string_ostream diagnostics(result.diagnostics);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics << diag << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    return result;
  PassManager pm(&context);
  dlbridge::buildDLPackCUDAPipeline(pm, options);
  if (failed(pm.run(*module)))
    return result;
  result.ok = true;
  module->walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjectsAttr())
      result.ptx.push_back(cast<gpu::ObjectAttr>(attr).getObject().str());
  });
  llvm::raw_string_ostream os(result.ir);
  module->print(os);
  return result;
}

Options ptxOptions(const std::string &chip) {
  Options options;
  options.chip = chip;
  return options;
}

/// Runs ptxas on `ptx`; returns its output, empty on success.
std::string assemble(const std::string &ptxas, const std::string &ptx,
                     const std::string &chip, bool &ok) {
  llvm::SmallString<128> input, log;
  llvm::sys::fs::createTemporaryFile("dlbridge-kernel", "ptx", input);
  llvm::sys::fs::createTemporaryFile("dlbridge-ptxas", "log", log);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input, ec);
    os << ptx;
  }
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.str(),
                                                log.str()};
  std::string arch = "-arch=" + chip;
  llvm::StringRef args[] = {ptxas, arch, input.str(), "-o", "/dev/null"};
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects);
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    output = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove(input);
  llvm::sys::fs::remove(log);
  ok = rc == 0;
  return output;
}

struct Program {
  const char *name;
  const char *source;
  bool usesMath;
};

const Program kPrograms[] = {
    {"broadcast_math", dlbridge::test::kBroadcastMath, true},
    {"add", dlbridge::test::kAdd, false},
    {"row_sum", dlbridge::test::kRowSum, false},
    {"total", dlbridge::test::kTotal, false},
    {"softmax", dlbridge::test::kSoftmax, true},
    {"matmul", dlbridge::test::kMatmul, false},
};

class PtxasTest
    : public ::testing::TestWithParam<std::tuple<Program, const char *>> {};

TEST_P(PtxasTest, KernelsAssemble) {
  auto [program, chip] = GetParam();
  if (program.usesMath && !hasLibdevice())
    GTEST_SKIP() << "no CUDA toolkit with libdevice (set CUDA_HOME)";
  Options options = ptxOptions(chip);
  Compiled compiled = compile(program.source, options);
  ASSERT_TRUE(compiled.ok) << compiled.diagnostics;
  ASSERT_FALSE(compiled.ptx.empty());
  // Host code: launches on the call's stream, never a stream of its own.
  EXPECT_NE(compiled.ir.find("llvm.call @dlrt_call_stream()"),
            std::string::npos);
  EXPECT_EQ(compiled.ir.find("mgpuStream"), std::string::npos);
  for (const std::string &ptx : compiled.ptx) {
    EXPECT_NE(ptx.find(std::string(".target ") + chip), std::string::npos);
    // libdevice was linked: no math function is left unresolved.
    EXPECT_EQ(ptx.find(".extern .func"), std::string::npos) << ptx;
  }
  std::string ptxas = findPtxas();
  if (ptxas.empty())
    GTEST_SKIP() << "ptxas not found (CUDA_HOME, CUDA_PATH, CUDA_ROOT, PATH, "
                    "/usr/local/cuda): PTX generated but not assembled";
  for (const std::string &ptx : compiled.ptx) {
    bool ok = false;
    std::string log = assemble(ptxas, ptx, chip, ok);
    EXPECT_TRUE(ok) << ptxas << " -arch=" << chip << ":\n"
                    << log << "\n"
                    << ptx;
  }
}

INSTANTIATE_TEST_SUITE_P(CUDAPipeline, PtxasTest,
                         ::testing::Combine(::testing::ValuesIn(kPrograms),
                                            ::testing::Values("sm_80",
                                                              "sm_90")),
                         [](const auto &info) {
                           return std::string(std::get<0>(info.param).name) +
                                  "_" + std::get<1>(info.param);
                         });

TEST(CUDAPipelineTest, CubinAndFatbinRunPtxas) {
  if (findPtxas().empty())
    GTEST_SKIP() << "ptxas not found";
  for (const char *format : {"cubin", "fatbin"}) {
    Options options = ptxOptions("sm_90");
    options.format = format;
    Compiled compiled = compile(dlbridge::test::kRowSum, options);
    EXPECT_TRUE(compiled.ok) << format << ": " << compiled.diagnostics;
    EXPECT_FALSE(compiled.ptx.empty());
  }
}

TEST(CUDAPipelineTest, MathWithoutLibdeviceIsAClearError) {
  llvm::SmallString<128> empty;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("dlbridge-no-cuda", empty));
  Options options = ptxOptions("sm_80");
  options.toolkit = empty.str().str();
  Compiled compiled = compile(dlbridge::test::kBroadcastMath, options);
  EXPECT_FALSE(compiled.ok);
  EXPECT_NE(compiled.diagnostics.find("kernels call libdevice (__nv_expf"),
            std::string::npos)
      << compiled.diagnostics;
  EXPECT_NE(compiled.diagnostics.find("libdevice is not at " +
                                      empty.str().str() +
                                      "/nvvm/libdevice/libdevice.10.bc"),
            std::string::npos)
      << compiled.diagnostics;
  EXPECT_NE(compiled.diagnostics.find("CUDA_HOME"), std::string::npos);

  // Kernels without math need no libdevice.
  Compiled plain = compile(dlbridge::test::kAdd, options);
  EXPECT_TRUE(plain.ok) << plain.diagnostics;
  llvm::sys::fs::remove(empty);
}

TEST(CUDAPipelineTest, InvalidOptionsAreDiagnosticsNotAborts) {
  struct Case {
    const char *chip, *ptx, *format, *expected;
  } cases[] = {
      {"sm_90", "ptx60", "ptx",
       "PTX 6.0 cannot target sm_90, which needs PTX 7.8 or newer"},
      {"sm_100", "7.8", "ptx", "PTX 7.8 cannot target sm_100"},
      {"sm_70", "", "ptx", "unknown or unsupported chip 'sm_70'"},
      {"gfx90a", "", "ptx", "unknown or unsupported chip 'gfx90a'"},
      {"sm_80", "ptx99", "ptx", "unknown PTX version 'ptx99'"},
      {"sm_80", "", "elf", "unknown format 'elf'"},
  };
  for (const Case &c : cases) {
    Options options = ptxOptions(c.chip);
    options.ptxVersion = c.ptx;
    options.format = c.format;
    Compiled compiled = compile(dlbridge::test::kAdd, options);
    EXPECT_FALSE(compiled.ok) << c.chip << " " << c.ptx;
    EXPECT_NE(compiled.diagnostics.find(c.expected), std::string::npos)
        << compiled.diagnostics;
  }
}

TEST(CUDAPipelineTest, PTXVersionDefaultsToTheChipsMinimum) {
  struct Case {
    const char *chip;
    unsigned ptx;
  } table[] = {{"sm_75", 63},   {"sm_80", 70},  {"sm_86", 71},  {"sm_87", 74},
               {"sm_89", 78},   {"sm_90", 78},  {"sm_90a", 80}, {"sm_100", 86},
               {"sm_100a", 86}, {"sm_103", 88}, {"sm_110", 90}, {"sm_120", 87},
               {"sm_120a", 87}, {"sm_121", 88}, {"sm_50", 0},   {"sm_70", 0},
               {"sm_72", 0},    {"", 0}};
  for (const Case &c : table)
    EXPECT_EQ(dlbridge::getCUDAMinimumPTXVersion(c.chip), c.ptx) << c.chip;

  // What the chips are compiled with when ptx-version is left empty, and
  // that an explicit newer version is taken.
  for (auto [chip, expected] :
       {std::pair{"sm_90a", ".version 8.0"}, {"sm_120", ".version 8.7"}}) {
    Options options = ptxOptions(chip);
    Compiled compiled = compile(dlbridge::test::kAdd, options);
    ASSERT_TRUE(compiled.ok) << compiled.diagnostics;
    EXPECT_NE(compiled.ptx.front().find(expected), std::string::npos) << chip;
  }
  Options options = ptxOptions("sm_80");
  options.ptxVersion = "ptx78";
  Compiled compiled = compile(dlbridge::test::kAdd, options);
  ASSERT_TRUE(compiled.ok) << compiled.diagnostics;
  EXPECT_NE(compiled.ptx.front().find(".version 7.8"), std::string::npos);
}

} // namespace
