//===- NpyWrite.cpp - Writing .npy files atomically -----------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Support/Npy.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace dlbridge::npy;

namespace {

/// Where one output goes: a written temporary file beside its destination,
/// removed unless renamed over it; or, for a FIFO or character device
/// (`/dev/stdout`, `/dev/null`), the bytes to write into it in place, since
/// renaming over it would replace the device with a regular file.
struct PendingFile {
  std::string temporary, destination, inPlaceBytes;
  bool inPlace = false;
  ~PendingFile() {
    if (!temporary.empty())
      ::unlink(temporary.c_str());
  }
};

/// What kind of file `st` is, for the refusal of one dl-run cannot write.
const char *describeFileType(const struct stat &st) {
  if (S_ISDIR(st.st_mode))
    return "a directory";
  if (S_ISSOCK(st.st_mode))
    return "a socket";
  if (S_ISBLK(st.st_mode))
    return "a block device";
  return "not a regular file";
}

bool writeAll(int fd, const std::string &bytes) {
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

/// Prepares `bytes` for `path`: a regular file (new, or existing behind any
/// symlinks, which stay) gets a new temporary file beside it with the mode
/// of the file it will replace or 0666 less the umask for a new one, as
/// fopen would create it; a FIFO or character device is written in place
/// later; anything else (a directory, socket, block device, a symlink to
/// nothing) is refused.
bool prepareOutput(const std::string &path, std::string bytes,
                   PendingFile &pending, std::string &error) {
  std::string destination = path;
  if (char *resolved = ::realpath(path.c_str(), nullptr)) {
    destination = resolved;
    std::free(resolved);
  }
  struct stat existing;
  bool exists = ::stat(destination.c_str(), &existing) == 0;
  struct stat link;
  if (!exists && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    error = "cannot write '" + path + "': it is a symbolic link to a " +
            "missing file";
    return false;
  }
  if (exists && !S_ISREG(existing.st_mode)) {
    if (!S_ISFIFO(existing.st_mode) && !S_ISCHR(existing.st_mode)) {
      error =
          "cannot write '" + path + "': it is " + describeFileType(existing);
      return false;
    }
    pending.destination = destination;
    pending.inPlaceBytes = std::move(bytes);
    pending.inPlace = true;
    return true;
  }
  std::string temporary = destination + ".XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    error = "cannot open '" + path + "' for writing: " + std::strerror(errno);
    return false;
  }
  pending.temporary = temporary;
  pending.destination = destination;
  mode_t mode;
  if (exists) {
    mode = existing.st_mode & 07777;
  } else {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  bool failed = ::fchmod(fd, mode) != 0 || !writeAll(fd, bytes);
  int savedErrno = errno;
  if (::close(fd) != 0 && !failed) {
    failed = true;
    savedErrno = errno;
  }
  if (failed)
    error = "cannot write '" + path + "': " + std::strerror(savedErrno);
  return !failed;
}

/// Writes a FIFO or character device in place; what is opened (links
/// followed, as `/dev/stdout` on a pipe needs: its realpath does not resolve)
/// may not have become anything else since prepareOutput() looked, and
/// without O_CREAT nothing is created.
bool writeInPlace(const std::string &path, const PendingFile &pending,
                  std::string &error) {
  int fd = ::open(pending.destination.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  struct stat st;
  if (fd >= 0 && (::fstat(fd, &st) != 0 ||
                  (!S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)))) {
    ::close(fd);
    error = "cannot write '" + path + "': it changed while being written";
    return false;
  }
  bool failed = fd < 0 || !writeAll(fd, pending.inPlaceBytes);
  int savedErrno = errno;
  if (fd >= 0 && ::close(fd) != 0 && !failed) {
    failed = true;
    savedErrno = errno;
  }
  if (failed)
    error = "cannot write '" + path + "': " + std::strerror(savedErrno);
  return !failed;
}

/// Renames the temporary file of `pending` over its destination, unless the
/// destination became something other than a regular file meanwhile.
bool replaceRegularFile(const std::string &path, PendingFile &pending,
                        std::string &error) {
  struct stat st;
  if (::lstat(pending.destination.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    error = "cannot write '" + path + "': it changed while being written";
    return false;
  }
  if (::rename(pending.temporary.c_str(), pending.destination.c_str()) != 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  pending.temporary.clear();
  return true;
}

} // namespace

bool dlbridge::npy::writeNpyFiles(const std::vector<NpyOutput> &outputs,
                                  std::string &error, size_t *failed) {
  std::vector<PendingFile> pending(outputs.size());
  auto fail = [&](size_t i) {
    if (failed)
      *failed = i;
    return false;
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string bytes;
    if (!encodeNpy(outputs[i].tensor, bytes, error)) {
      error = outputs[i].path + ": " + error;
      return fail(i);
    }
    if (!prepareOutput(outputs[i].path, std::move(bytes), pending[i], error))
      return fail(i);
  }
  // Streams first: a write that fails there (`/dev/full`) still leaves every
  // regular file untouched.
  for (size_t i = 0; i < outputs.size(); ++i)
    if (pending[i].inPlace && !writeInPlace(outputs[i].path, pending[i], error))
      return fail(i);
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!pending[i].inPlace &&
        !replaceRegularFile(outputs[i].path, pending[i], error))
      return fail(i);
  return true;
}

bool dlbridge::npy::writeNpyFile(const std::string &path, const DLTensor &t,
                                 std::string &error) {
  return writeNpyFiles({{path, t}}, error);
}
