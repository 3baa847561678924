//===- SymbolNames.cpp - Function names every target can assemble ---------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "SymbolNames.h"
#include "ExternalSymbols.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

namespace {
constexpr size_t kMaxPortableLength = 64;
constexpr size_t kKeptLength = 48;

bool isPortableChar(char c) { return llvm::isAlnum(c) || c == '_'; }

std::string portableSpelling(llvm::StringRef name) {
  std::string out;
  for (char c : name.take_front(kKeptLength))
    out += isPortableChar(c) ? c : '_';
  if (out.empty() || llvm::isDigit(out.front()))
    out.insert(out.begin(), '_');
  uint32_t hash = static_cast<uint32_t>(llvm::xxh3_64bits(name));
  return out + "_" + llvm::utohexstr(hash, /*LowerCase=*/true, /*Width=*/8);
}
} // namespace

bool dlbridge::jit::isPortableSymbol(llvm::StringRef name) {
  return !name.empty() && name.size() <= kMaxPortableLength &&
         !llvm::isDigit(name.front()) && llvm::all_of(name, isPortableChar);
}

std::string dlbridge::jit::makeSymbolsPortable(ModuleOp module,
                                               llvm::StringRef entry) {
  std::string entryName = entry.str();
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> renamed;
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    if (!func.isExternal() &&
        (!isPortableSymbol(func.getSymName()) || isLinkable(func.getSymName())))
      renamed.push_back(func);
  for (func::FuncOp func : renamed) {
    std::string base = portableSpelling(func.getSymName());
    std::string name = base;
    for (unsigned n = 1; symbols.lookup(name); ++n)
      name = base + "_" + std::to_string(n);
    bool isEntry = func.getSymName() == entryName;
    // Only fails for names already taken, which the loop above avoids.
    (void)symbols.rename(func, name);
    if (isEntry)
      entryName = name;
  }
  return entryName;
}
