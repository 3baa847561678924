//===- NpyWrite.cpp - Writing .npy files atomically -----------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Support/Npy.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace dlbridge::npy;

namespace {

/// A written temporary file beside its destination, removed unless kept.
struct PendingFile {
  std::string temporary, destination;
  ~PendingFile() {
    if (!temporary.empty())
      ::unlink(temporary.c_str());
  }
};

/// Writes `bytes` to a new temporary file beside `path` (beside the file a
/// symlink at `path` points to), with the mode of the file it will replace
/// or 0666 less the umask for a new one, as fopen would create it.
bool writeTemporary(const std::string &path, const std::string &bytes,
                    PendingFile &pending, std::string &error) {
  std::string destination = path;
  if (char *resolved = ::realpath(path.c_str(), nullptr)) {
    destination = resolved;
    std::free(resolved);
  }
  std::string temporary = destination + ".XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    error = "cannot open '" + path + "' for writing: " + std::strerror(errno);
    return false;
  }
  pending.temporary = temporary;
  pending.destination = destination;
  struct stat existing;
  mode_t mode;
  if (::stat(destination.c_str(), &existing) == 0) {
    mode = existing.st_mode & 07777;
  } else {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  bool failed = ::fchmod(fd, mode) != 0;
  for (size_t done = 0; !failed && done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    failed = n <= 0;
    if (!failed)
      done += static_cast<size_t>(n);
  }
  int savedErrno = errno;
  if (::close(fd) != 0 && !failed) {
    failed = true;
    savedErrno = errno;
  }
  if (failed)
    error = "cannot write '" + path + "': " + std::strerror(savedErrno);
  return !failed;
}

} // namespace

bool dlbridge::npy::writeNpyFiles(const std::vector<NpyOutput> &outputs,
                                  std::string &error, size_t *failed) {
  std::vector<PendingFile> pending(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string bytes;
    bool written = encodeNpy(outputs[i].tensor, bytes, error);
    if (!written)
      error = outputs[i].path + ": " + error;
    else
      written = writeTemporary(outputs[i].path, bytes, pending[i], error);
    if (!written) {
      if (failed)
        *failed = i;
      return false;
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (::rename(pending[i].temporary.c_str(),
                 pending[i].destination.c_str()) != 0) {
      error = "cannot write '" + outputs[i].path + "': " + std::strerror(errno);
      if (failed)
        *failed = i;
      return false;
    }
    pending[i].temporary.clear();
  }
  return true;
}

bool dlbridge::npy::writeNpyFile(const std::string &path, const DLTensor &t,
                                 std::string &error) {
  return writeNpyFiles({{path, t}}, error);
}
