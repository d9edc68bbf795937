// Reading a whole file as text: the one helper behind every loader (traces,
// scenarios, scheduler configurations, kubeconfigs, job files). What the file
// is for belongs in the error, so callers name it, and why it could not be
// read follows (a folder given for a file, what the OS said).
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "api/status.h"

namespace basalt {

// The file's bytes, or why they could not be read: "is a folder, not a file",
// or the OS's words ("No such file or directory"). A named pipe is read as
// its writer writes; one without a writer reads as empty instead of waiting
// forever for one.
inline Result<std::string> ReadWholeFile(const std::string& path) {
  // O_NONBLOCK: opening a pipe nobody writes to would otherwise wait forever.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Status::InvalidArgument(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument("is a folder, not a file");
  }
  // Reads block again: a pipe with a writer is read to its end; without one,
  // read() says end of file at once.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string why = std::strerror(errno);
      ::close(fd);
      return Status::InvalidArgument(why);
    }
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

// The file's bytes, or nullopt when it cannot be read.
inline std::optional<std::string> ReadFileText(const std::string& path) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return std::nullopt;
  return std::move(*text);
}

// The file's bytes, or InvalidArgument "<path>: cannot read <what>: <why>",
// `what` saying what the file is for ("trace file", "scheduler configuration").
inline Result<std::string> ReadFileOrError(const std::string& path, std::string_view what) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    return Status::InvalidArgument(path + ": cannot read " + std::string(what) + ": " +
                                   text.status().message());
  }
  return std::move(*text);
}

}  // namespace basalt
