// Reading a whole file as text: the one helper behind every loader (manifests,
// traces, scenarios, scheduler configurations, kubeconfigs, job files, the
// agent's configuration). What the file is for belongs in the error, so
// callers name it, and why it could not be read follows (a folder given for a
// file, a file above the size limit, binary content, what the OS said).
//
// Every input is text, and none is larger than `MaxInputFileBytes()`
// (--max-file-bytes, docs/limits.md): a regular file is measured before a byte
// is read, so a 1 GiB or sparse 1 TiB file is refused at once; a stream that
// may never end (a pipe, /dev/zero, /dev/urandom, a terminal) is read up to
// the limit and refused beyond it; a NUL byte, which no YAML, JSON or CSV
// text holds, stops the read where it is found.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/status.h"

namespace basalt {

// The most bytes one input file may hold (--max-file-bytes); 256 MiB unless set.
inline constexpr int64_t kDefaultMaxInputFileBytes = int64_t{256} << 20;
int64_t MaxInputFileBytes();
void SetMaxInputFileBytes(int64_t bytes);

// The file's bytes, or why they could not be read: "is a folder, not a file",
// "is 1073741824 bytes, above the limit of ...", "holds a NUL byte at offset
// 0: not a text file", or the OS's words ("No such file or directory"). A
// named pipe is read as its writer writes; one without a writer reads as empty
// instead of waiting forever for one.
Result<std::string> ReadWholeFile(const std::string& path);

// Standard input ("-"), read as `ReadWholeFile` reads a pipe.
Result<std::string> ReadStandardInput();

// The file's bytes, or nullopt when it cannot be read.
std::optional<std::string> ReadFileText(const std::string& path);

// The file's bytes, or InvalidArgument "<path>: cannot read <what>: <why>",
// `what` saying what the file is for ("trace file", "scheduler configuration").
Result<std::string> ReadFileOrError(const std::string& path, std::string_view what);

}  // namespace basalt
