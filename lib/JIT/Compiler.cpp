//===- Compiler.cpp - MLIR source to a loaded Kernel ----------------------===//
//
// Part of dlbridge. A miss parses the source, runs the target's pipeline,
// compiles an object in memory, loads it as a disk hit would (ObjectLoader)
// and stores it on disk; a disk hit loads the objects without MLIR.
//
//===----------------------------------------------------------------------===//

#include "DiskCache.h"
#include "ExternalSymbols.h"
#include "Frontend.h"
#include "KernelImpl.h"
#include "MemoryCache.h"
#include "SymbolNames.h"
#include "dlbridge/JIT/CrashGuard.h"

#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"
#include "dlbridge/InitAll.h"
#include "dlbridge/Pipelines/Pipelines.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/TargetParser/Host.h"

#include <dlfcn.h>
#include <mutex>
#include <unordered_map>

using namespace mlir;
using namespace dlbridge;
using namespace dlbridge::jit;

namespace {

constexpr uint32_t kGeneralVariant = 0;
constexpr uint32_t kContiguousVariant = 1;

/// Which build of dlbridge is compiling: the path, size and modification
/// time of the binary holding this code, so a rebuilt or upgraded dlbridge
/// never reuses objects an older one cached. Computed once per process.
const std::string &getBuildIdentity() {
  static const std::string identity = [] {
    Dl_info info;
    if (!dladdr(reinterpret_cast<void *>(&getBuildIdentity), &info) ||
        !info.dli_fname)
      return std::string("unknown build");
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(info.dli_fname, status))
      return std::string(info.dli_fname);
    return std::string(info.dli_fname) + ";" +
           std::to_string(status.getSize()) + ";" +
           std::to_string(llvm::sys::toTimeT(status.getLastModificationTime()));
  }();
  return identity;
}

/// `source` without what does not change the compiled code: comments and
/// `loc(...)` debug locations (outside string literals). So the same body
/// traced from another file or line is a cache hit.
std::string withoutDebugInfo(llvm::StringRef source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size();) {
    char c = source[i];
    if (c == '"') { // a string literal, escapes included
      size_t end = i + 1;
      while (end < source.size() && source[end] != '"')
        end += source[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, source.size());
      out.append(source.substr(i, end - i));
      i = end;
      continue;
    }
    if (source.substr(i).starts_with("//")) {
      i = source.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
      continue;
    }
    bool wordStart = i == 0 || !(llvm::isAlnum(source[i - 1]) ||
                                 source[i - 1] == '_' || source[i - 1] == '.');
    if (wordStart && source.substr(i).starts_with("loc(")) {
      size_t depth = 0, j = i + 3;
      for (; j < source.size(); ++j) {
        if (source[j] == '"') {
          ++j;
          while (j < source.size() && source[j] != '"')
            j += source[j] == '\\' ? 2 : 1;
        } else if (source[j] == '(') {
          ++depth;
        } else if (source[j] == ')' && --depth == 0) {
          break;
        }
      }
      i = j + 1;
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

/// Everything that determines the compiled code, hashed.
CacheKey computeKey(const std::string &source, const std::string &entry,
                    const CompileOptions &options) {
  llvm::SHA256 hasher;
  auto add = [&](llvm::StringRef field) {
    uint64_t size = field.size();
    hasher.update(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(&size), sizeof(size)));
    hasher.update(field);
  };
  add(versionString());
  add(getBuildIdentity());
  add(llvm::sys::getHostCPUName());
  add(llvm::sys::getProcessTriple());
  add(getName(options.target));
  add(std::to_string(options.optLevel));
  add(options.bufferize ? "bufferize" : "");
  if (options.target == Target::CUDA) {
    add(options.chip);
    add(options.ptxVersion);
    add(getName(options.format));
    add(options.toolkit);
  }
  add(entry);
  add(withoutDebugInfo(source));
  std::array<uint8_t, 32> digest = hasher.final();
  return digest;
}

CompileResult compileError(std::string message) {
  CompileResult result;
  result.error = std::move(message);
  return result;
}

/// Compiles one specialisation of the already parsed `module` to an object
/// in memory and loads it as a disk cache hit would; on success fills
/// `variant`, `object`, the data layout it was compiled for and (when asked)
/// the LLVM-dialect text.
LogicalResult compileVariant(ModuleOp module, llvm::StringRef function,
                             const CompileOptions &options, bool contiguous,
                             LoadedVariant &variant, std::string &object,
                             std::string &dataLayout, std::string *llvmDialect,
                             std::string &error) {
  OwningOpRef<ModuleOp> clone = module.clone();
  if (failed(runPipeline(*clone, function, options, contiguous)))
    return failure();
  if (llvmDialect) {
    llvm::raw_string_ostream os(*llvmDialect);
    clone->print(os);
  }
  std::unique_ptr<llvm::TargetMachine> targetMachine =
      createHostTargetMachine(options, error);
  if (!targetMachine)
    return failure();
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateAndOptimise(*clone, options, *targetMachine, context, error);
  if (!llvmModule)
    return failure();
  llvm::SmallVector<char, 0> bytes;
  if (failed(emitCode(*llvmModule, *targetMachine,
                      llvm::CodeGenFileType::ObjectFile, bytes, error)))
    return failure();
  object.assign(bytes.begin(), bytes.end());
  dataLayout = llvmModule->getDataLayoutStr();
  auto loaded = loadObject(object, function, dataLayout);
  if (!loaded) {
    error = llvm::toString(loaded.takeError());
    return failure();
  }
  variant = std::move(*loaded);
  return success();
}

/// Parses `source` into `context` and picks its entry `requestedEntry` (the
/// only one when empty), renamed to a portable symbol (SymbolNames.h):
/// `name` is the entry's name as written, `function` its symbol. Null after
/// writing why into `error` (MLIR's diagnostics go to the context's
/// handler).
OwningOpRef<ModuleOp>
parseEntry(MLIRContext &context, llvm::SourceMgr &sourceMgr,
           const std::string &sourceName, const std::string &requestedEntry,
           std::string &name, std::string &function, std::string &error) {
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return nullptr;
  name = selectEntry(*module, requestedEntry, error);
  if (name.empty()) {
    error = sourceName + ": " + error;
    return nullptr;
  }
  if (failed(verifyExternalFunctions(*module)))
    return nullptr;
  function = makeSymbolsPortable(*module, name);
  return module;
}

/// Where a kernel's disk cache entry lives; `directory` is empty when the
/// disk cache is off.
struct DiskLocation {
  std::string directory;
  CacheKey key;
};

/// Adds the contiguous specialisation's object to the entry at `location`,
/// so that processes loading it from now on need not compile it.
void addContiguousObject(const DiskLocation &location, std::string object) {
  if (location.directory.empty())
    return;
  std::optional<CacheEntry> entry =
      readCacheEntry(location.directory, location.key);
  if (!entry || !entry->contiguous || entry->objects.size() != 1)
    return;
  entry->objects.push_back({kContiguousVariant, std::move(object)});
  writeCacheEntry(location.directory, location.key, *entry);
}

/// Compiles the contiguous specialisation of the entry `name` of `source`,
/// which compiled before, and adds its object to the disk cache. Runs on a
/// call's path, so there is no one to report errors to: they and crashes
/// give std::nullopt (the general specialisation then serves).
std::optional<LoadedVariant> compileContiguous(const std::string &source,
                                               const std::string &sourceName,
                                               const std::string &name,
                                               const CompileOptions &options,
                                               const DiskLocation &location) {
  std::optional<LoadedVariant> variant;
  std::string object, dataLayout, crash;
  runContained(
      [&] {
        MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
        context.getDiagEngine().registerHandler([](Diagnostic &) {});
        llvm::SourceMgr sourceMgr;
        // Named as compile() named it: the checks' messages carry the name.
        sourceMgr.AddNewSourceBuffer(
            llvm::MemoryBuffer::getMemBuffer(source, sourceName),
            llvm::SMLoc());
        std::string parsedName, function, error;
        OwningOpRef<ModuleOp> module = parseEntry(
            context, sourceMgr, sourceName, name, parsedName, function, error);
        LoadedVariant loaded;
        if (module &&
            succeeded(compileVariant(*module, function, options,
                                     /*contiguous=*/true, loaded, object,
                                     dataLayout, nullptr, error)))
          variant = std::move(loaded);
      },
      crash);
  if (variant)
    addContiguousObject(location, std::move(object));
  return variant;
}

/// Makes the contiguous specialisation of a kernel compiled from `source`
/// when it is first needed.
VariantMaker compileContiguousLater(std::string source, std::string sourceName,
                                    std::string name, CompileOptions options,
                                    DiskLocation location) {
  return [source = std::move(source), sourceName = std::move(sourceName),
          name = std::move(name), options, location = std::move(location)] {
    return compileContiguous(source, sourceName, name, options, location);
  };
}

/// The cold path: parse, run the pipeline, JIT the general specialisation.
/// Fills `cacheEntry` with what a disk cache needs to skip all of it next
/// time. Runs in a crash guard, so it touches nothing outside itself until it
/// has finished, and keeps `stage` up to date for the report of a crash.
CompileResult compileUnguarded(const std::string &source,
                               const std::string &sourceName,
                               const std::string &requestedEntry,
                               const CompileOptions &options,
                               const DiskLocation &location,
                               CacheEntry &cacheEntry, const char *&stage) {
  stage = "parsing the source";
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  SourceDiagnostics sourceDiagnostics(context, source, sourceName);
  const std::string &diagnostics = sourceDiagnostics.text();

  std::string name, function, error;
  OwningOpRef<ModuleOp> module =
      parseEntry(context, sourceDiagnostics.sourceMgr(), sourceName,
                 requestedEntry, name, function, error);
  if (!module)
    return compileError(diagnostics + error);

  stage = options.target == Target::CUDA ? "compiling for CUDA"
                                         : "compiling for the CPU";
  KernelStages stages;
  stages.input = source;
  LoadedVariant general;
  CachedObject generalObject{kGeneralVariant, {}};
  CacheEntry entry;
  if (failed(compileVariant(*module, function, options, /*contiguous=*/false,
                            general, generalObject.bytes, entry.dataLayout,
                            &stages.llvmDialect, error)))
    return compileError(diagnostics + error);
  entry.function = function;
  entry.name = name;
  entry.inputMLIR = stages.input;
  entry.llvmDialectMLIR = stages.llvmDialect;
  entry.contiguous = takesTensors(*module, function);
  entry.objects.push_back(std::move(generalObject));
  VariantMaker makeContiguous;
  if (entry.contiguous)
    makeContiguous =
        compileContiguousLater(source, sourceName, name, options, location);
  CompileResult result;
  result.kernel = KernelImpl::wrap(std::make_shared<const KernelImpl>(
      std::move(name), std::move(general), std::move(makeContiguous),
      std::move(stages), /*fromDiskCache=*/false));
  cacheEntry = std::move(entry);
  return result;
}

/// compileUnguarded(), with a crash inside MLIR or LLVM reported as a
/// compile error. What the crashed compilation made (its MLIRContext,
/// JIT, diagnostics) is leaked, never reused.
CompileResult compileFromSource(const std::string &source,
                                const std::string &sourceName,
                                const std::string &requestedEntry,
                                const CompileOptions &options,
                                const DiskLocation &location,
                                CacheEntry &cacheEntry) {
  CompileResult result;
  const char *stage = "starting";
  std::string crash;
  if (runContained(
          [&] {
            result = compileUnguarded(source, sourceName, requestedEntry,
                                      options, location, cacheEntry, stage);
          },
          crash))
    return result;
  return compileError(sourceName + ": internal compiler error while " + stage +
                      ": " + crash +
                      " inside MLIR/LLVM (contained; nothing was compiled)");
}

/// An object of a disk entry, loaded in a crash guard.
std::optional<LoadedVariant> loadContained(llvm::StringRef object,
                                           llvm::StringRef function,
                                           llvm::StringRef dataLayout) {
  std::optional<LoadedVariant> variant;
  std::string crash;
  runContained(
      [&] {
        if (auto loaded = loadObject(object, function, dataLayout))
          variant = std::move(*loaded);
        else
          llvm::consumeError(loaded.takeError());
      },
      crash);
  return variant;
}

/// The warm path: a disk entry's general object, linked without MLIR; the
/// contiguous one is loaded (or, when the entry has none yet, compiled) on
/// first use. Fails (and the caller recompiles) when the object does not
/// load, or loading it crashes.
std::shared_ptr<const KernelImpl> loadFromDisk(CacheEntry entry,
                                               const std::string &sourceName,
                                               const CompileOptions &options,
                                               DiskLocation location) {
  CachedObject *generalObject = nullptr, *contiguousObject = nullptr;
  for (CachedObject &object : entry.objects)
    (object.variant == kContiguousVariant ? contiguousObject : generalObject) =
        &object;
  if (!generalObject)
    return nullptr;
  std::optional<LoadedVariant> general =
      loadContained(generalObject->bytes, entry.function, entry.dataLayout);
  if (!general)
    return nullptr;
  VariantMaker makeContiguous;
  if (contiguousObject)
    makeContiguous = [object = std::move(contiguousObject->bytes),
                      function = entry.function,
                      dataLayout = entry.dataLayout] {
      return loadContained(object, function, dataLayout);
    };
  else if (entry.contiguous)
    makeContiguous = compileContiguousLater(
        entry.inputMLIR, sourceName, entry.name, options, std::move(location));
  return std::make_shared<const KernelImpl>(
      entry.name, std::move(*general), std::move(makeContiguous),
      KernelStages{std::move(entry.inputMLIR),
                   std::move(entry.llvmDialectMLIR)},
      /*fromDiskCache=*/true);
}

CompileResult compileNamed(const std::string &source,
                           const std::string &sourceName,
                           const std::string &entry,
                           const CompileOptions &options) {
  // Refused before any work: an out-of-range enum or level would otherwise
  // reach LLVM unchecked.
  if (std::string error = checkOptions(options, Spelling::Cpp); !error.empty())
    return compileError(error);
  initializeNativeTarget();
  if (!options.cache) {
    CacheEntry unused;
    return compileFromSource(source, sourceName, entry, options, {}, unused);
  }
  DiskLocation location{getCacheDirectory(),
                        computeKey(source, entry, options)};
  if (auto kernel = getMemoryCache().lookup(location.key)) {
    CompileResult result;
    result.kernel = KernelImpl::wrap(std::move(kernel));
    return result;
  }
  std::string error;
  size_t limit = getMemoryCacheLimit(error);
  if (!limit)
    return compileError(error);
  std::string policy;
  if (!location.directory.empty()) {
    policy = getCachePruningPolicy(error);
    if (policy.empty())
      return compileError(error);
    if (std::optional<CacheEntry> cached =
            readCacheEntry(location.directory, location.key))
      if (auto kernel =
              loadFromDisk(std::move(*cached), sourceName, options, location)) {
        getMemoryCache().insert(&location.key, kernel, limit);
        CompileResult result;
        result.kernel = KernelImpl::wrap(std::move(kernel));
        return result;
      }
  }
  CacheEntry cacheEntry;
  CompileResult result = compileFromSource(source, sourceName, entry, options,
                                           location, cacheEntry);
  if (!result)
    return result;
  getMemoryCache().insert(&location.key, KernelImpl::unwrap(*result.kernel),
                          limit);
  if (!location.directory.empty()) {
    writeCacheEntry(location.directory, location.key, cacheEntry);
    pruneCacheDirectory(location.directory, policy);
  }
  return result;
}

} // namespace

unsigned dlbridge::jit::clearCaches() {
  getMemoryCache().clear();
  std::string directory = getCacheDirectory();
  return directory.empty() ? 0 : removeCacheEntries(directory);
}

const char *dlbridge::jit::version() { return DLBRIDGE_VERSION; }

const char *dlbridge::jit::versionString() {
  return "dlbridge " DLBRIDGE_VERSION "; LLVM " LLVM_VERSION_STRING;
}

CompileResult dlbridge::jit::compile(const std::string &source,
                                     const std::string &entry,
                                     const CompileOptions &options) {
  return compileNamed(source, "<source>", entry, options);
}

CompileResult dlbridge::jit::compileFile(const std::string &path,
                                         const std::string &entry,
                                         const CompileOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return compileError("cannot read '" + path +
                        "': " + buffer.getError().message());
  return compileNamed((*buffer)->getBuffer().str(), path, entry, options);
}
