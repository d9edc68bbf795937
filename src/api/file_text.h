// Reading a whole file as text: the one helper behind every loader (traces,
// scenarios, scheduler configurations, kubeconfigs, job files). What the file
// is for belongs in the error, so callers name it.
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "api/status.h"

namespace basalt {

// The file's bytes, or nullopt when it cannot be opened.
inline std::optional<std::string> ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The file's bytes, or InvalidArgument "<path>: cannot read <what>", `what`
// saying what the file is for ("trace file", "scheduler configuration").
inline Result<std::string> ReadFileOrError(const std::string& path, std::string_view what) {
  std::optional<std::string> text = ReadFileText(path);
  if (!text) return Status::InvalidArgument(path + ": cannot read " + std::string(what));
  return std::move(*text);
}

}  // namespace basalt
