#include "api/file_text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace basalt {
namespace {

std::atomic<int64_t> max_input_file_bytes{kDefaultMaxInputFileBytes};

std::string AboveFileLimit(const std::string& what) {
  return what + ", above the limit of " + std::to_string(MaxInputFileBytes()) +
         " bytes per input file (raise it with --max-file-bytes)";
}

// Reads `fd` to its end, at most the limit; refuses a NUL byte where it is
// found, so /dev/zero and /dev/urandom stop within the first block.
Result<std::string> ReadCapped(int fd) {
  const int64_t cap = MaxInputFileBytes();
  std::string text;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return text;
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::InvalidArgument(std::strerror(errno));
    }
    if (const void* nul = std::memchr(buf, '\0', static_cast<size_t>(n)); nul != nullptr) {
      const size_t at = text.size() + static_cast<size_t>(static_cast<const char*>(nul) - buf);
      return Status::InvalidArgument("holds a NUL byte at offset " + std::to_string(at) +
                                     ": not a text file");
    }
    if (static_cast<int64_t>(text.size()) + n > cap) {
      return Status::InvalidArgument("did not end within the limit of " + std::to_string(cap) +
                                     " bytes per input file (raise it with --max-file-bytes)");
    }
    text.append(buf, static_cast<size_t>(n));
  }
}

Result<std::string> ReadOpenFile(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Status::InvalidArgument(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return Status::InvalidArgument("is a folder, not a file");
  // A regular file says its size: one above the limit is never read (a sparse
  // file of a terabyte costs nothing to refuse).
  if (S_ISREG(st.st_mode) && st.st_size > MaxInputFileBytes())
    return Status::InvalidArgument(AboveFileLimit("is " + std::to_string(st.st_size) + " bytes"));
  // Reads block again: a pipe with a writer is read to its end; without one,
  // read() says end of file at once.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return ReadCapped(fd);
}

}  // namespace

int64_t MaxInputFileBytes() { return max_input_file_bytes.load(std::memory_order_relaxed); }

void SetMaxInputFileBytes(int64_t bytes) {
  max_input_file_bytes.store(bytes, std::memory_order_relaxed);
}

Result<std::string> ReadWholeFile(const std::string& path) {
  // O_NONBLOCK: opening a pipe nobody writes to would otherwise wait forever.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Status::InvalidArgument(std::strerror(errno));
  Result<std::string> text = ReadOpenFile(fd);
  ::close(fd);
  return text;
}

Result<std::string> ReadStandardInput() { return ReadOpenFile(STDIN_FILENO); }

std::optional<std::string> ReadFileText(const std::string& path) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return std::nullopt;
  return std::move(*text);
}

Result<std::string> ReadFileOrError(const std::string& path, std::string_view what) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    return Status::InvalidArgument(path + ": cannot read " + std::string(what) + ": " +
                                   text.status().message());
  }
  return std::move(*text);
}

}  // namespace basalt
