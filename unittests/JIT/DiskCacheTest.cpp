//===- DiskCacheTest.cpp - The disk cache trusts nothing it did not write -===//
//
// Part of dlbridge's unit tests. Entries round-trip; the directory is made
// 0700 and entries 0600; a symlink, FIFO or device at an entry's path, a
// file larger than the bound, an entry or directory others may write, and
// an entry with any byte flipped (every header field included) are not
// read.
//
//===----------------------------------------------------------------------===//

#include "DiskCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sys/stat.h>
#include <unistd.h>

using namespace dlbridge::jit;

namespace {

class DiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("dlbridge-cache", root));
    dir = (root + "/cache").str();
    key.fill(7);
    entry.function = "_lambda__0123abcd";
    entry.name = "<lambda>";
    entry.inputMLIR = "func.func @f()";
    entry.llvmDialectMLIR = "llvm.func @f()";
    entry.dataLayout = "e-m:e-i64:64";
    entry.contiguous = true;
    entry.objects = {{0, std::string("\x7f"
                                     "ELF general",
                                     12)},
                     {1, "contiguous"}};
  }
  void TearDown() override { llvm::sys::fs::remove_directories(root); }

  std::string entryPath() const { return dir + "/" + getCacheEntryName(key); }

  std::string readBytes(const std::string &path) const {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
    EXPECT_TRUE(buffer) << path;
    return buffer ? (*buffer)->getBuffer().str() : "";
  }
  void writeBytes(const std::string &path, const std::string &bytes) const {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec) << ec.message();
    os << bytes;
  }
  mode_t modeOf(const std::string &path) const {
    struct stat status;
    EXPECT_EQ(::lstat(path.c_str(), &status), 0) << path;
    return status.st_mode & 07777;
  }

  llvm::SmallString<128> root;
  std::string dir;
  CacheKey key;
  CacheEntry entry;
};

TEST_F(DiskCacheTest, RoundTripsWithPrivateModes) {
  writeCacheEntry(dir, key, entry);
  std::optional<CacheEntry> read = readCacheEntry(dir, key);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->function, entry.function);
  EXPECT_EQ(read->name, entry.name);
  EXPECT_EQ(read->inputMLIR, entry.inputMLIR);
  EXPECT_EQ(read->llvmDialectMLIR, entry.llvmDialectMLIR);
  ASSERT_EQ(read->objects.size(), 2u);
  EXPECT_EQ(read->objects[0].bytes, entry.objects[0].bytes);
  EXPECT_EQ(read->objects[1].variant, 1u);
  EXPECT_EQ(modeOf(dir), 0700u);
  EXPECT_EQ(modeOf(entryPath()), 0600u);
  // Another key's entry is not this one's.
  CacheKey other = key;
  other[0] ^= 1;
  EXPECT_FALSE(readCacheEntry(dir, other));
}

TEST_F(DiskCacheTest, EveryFlippedByteIsRefused) {
  writeCacheEntry(dir, key, entry);
  const std::string good = readBytes(entryPath());
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] ^= 0x10;
    writeBytes(entryPath(), bad);
    EXPECT_FALSE(readCacheEntry(dir, key)) << "byte " << i << " flipped";
  }
  for (size_t size : {size_t(0), size_t(8), good.size() - 1}) {
    writeBytes(entryPath(), good.substr(0, size));
    EXPECT_FALSE(readCacheEntry(dir, key)) << "cut to " << size;
  }
  writeBytes(entryPath(), good + "x");
  EXPECT_FALSE(readCacheEntry(dir, key)) << "a byte appended";
  writeBytes(entryPath(), good);
  EXPECT_TRUE(readCacheEntry(dir, key));
}

TEST_F(DiskCacheTest, ASymlinkIsNotFollowed) {
  writeCacheEntry(dir, key, entry);
  std::string elsewhere = (root + "/elsewhere").str();
  ASSERT_EQ(::rename(entryPath().c_str(), elsewhere.c_str()), 0);
  ASSERT_EQ(::symlink(elsewhere.c_str(), entryPath().c_str()), 0);
  EXPECT_FALSE(readCacheEntry(dir, key));
  // Writing replaces the link, and leaves its target alone.
  std::string target = readBytes(elsewhere);
  entry.name = "rewritten";
  writeCacheEntry(dir, key, entry);
  EXPECT_EQ(readBytes(elsewhere), target);
  std::optional<CacheEntry> read = readCacheEntry(dir, key);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->name, "rewritten");
}

TEST_F(DiskCacheTest, AFIFOIsNotReadOrWaitedOn) {
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir));
  ASSERT_EQ(::mkfifo(entryPath().c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(readCacheEntry(dir, key));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(DiskCacheTest, ADeviceIsNotRead) {
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir));
  ASSERT_EQ(::symlink("/dev/zero", entryPath().c_str()), 0);
  EXPECT_FALSE(readCacheEntry(dir, key));
}

TEST_F(DiskCacheTest, AHugeFileIsNotRead) {
  writeCacheEntry(dir, key, entry);
  // Sparse: the bound is checked against the size before reading anything.
  ASSERT_EQ(::truncate(entryPath().c_str(),
                       static_cast<off_t>(kMaxCacheEntrySize + 1)),
            0);
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(readCacheEntry(dir, key));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(DiskCacheTest, EntriesOrDirectoriesOthersMayWriteAreNotRead) {
  writeCacheEntry(dir, key, entry);
  ASSERT_TRUE(readCacheEntry(dir, key));
  ASSERT_EQ(::chmod(entryPath().c_str(), 0622), 0);
  EXPECT_FALSE(readCacheEntry(dir, key));
  ASSERT_EQ(::chmod(entryPath().c_str(), 0600), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  EXPECT_FALSE(readCacheEntry(dir, key));
  // Nor is anything written there.
  ASSERT_EQ(::unlink(entryPath().c_str()), 0);
  writeCacheEntry(dir, key, entry);
  EXPECT_FALSE(llvm::sys::fs::exists(entryPath()));
}

TEST_F(DiskCacheTest, PruningKeepsTheDirectoryUnderItsSize) {
  writeCacheEntry(dir, key, entry);
  CacheKey second = key;
  second[0] ^= 1;
  writeCacheEntry(dir, second, entry);
  writeBytes(dir + "/notes.txt", "not the cache's");
  // Within the limit, nothing goes.
  pruneCacheDirectory(dir, "cache_size_bytes=1m:prune_interval=0s");
  EXPECT_TRUE(readCacheEntry(dir, key));
  EXPECT_TRUE(readCacheEntry(dir, second));
  // Over it, entries go until the rest fits; other files stay.
  pruneCacheDirectory(dir, "cache_size_bytes=1:prune_interval=0s");
  EXPECT_FALSE(readCacheEntry(dir, key));
  EXPECT_FALSE(readCacheEntry(dir, second));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/notes.txt"));
}

TEST_F(DiskCacheTest, TheSizeLimitComesFromTheEnvironment) {
  std::string error;
  ASSERT_EQ(::unsetenv("DLBRIDGE_CACHE_MAX_SIZE"), 0);
  EXPECT_EQ(getCachePruningPolicy(error),
            "cache_size_bytes=1g:prune_interval=0s");
  ASSERT_EQ(::setenv("DLBRIDGE_CACHE_MAX_SIZE", "512m", 1), 0);
  EXPECT_EQ(getCachePruningPolicy(error),
            "cache_size_bytes=512m:prune_interval=0s");
  for (const char *bad : {"lots", "5x", "1g:prune_after=0s", ""}) {
    ASSERT_EQ(::setenv("DLBRIDGE_CACHE_MAX_SIZE", bad, 1), 0);
    error.clear();
    EXPECT_EQ(getCachePruningPolicy(error), "") << bad;
    EXPECT_NE(error.find("DLBRIDGE_CACHE_MAX_SIZE"), std::string::npos) << bad;
  }
  ASSERT_EQ(::unsetenv("DLBRIDGE_CACHE_MAX_SIZE"), 0);
}

TEST_F(DiskCacheTest, RemovingEntriesRemovesNothingElse) {
  writeCacheEntry(dir, key, entry);
  writeBytes(dir + "/notes.txt", "not the cache's");
  EXPECT_EQ(removeCacheEntries(dir), 1u);
  EXPECT_FALSE(readCacheEntry(dir, key));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/notes.txt"));
  EXPECT_EQ(removeCacheEntries(dir), 0u);
}

} // namespace
