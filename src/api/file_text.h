// Reading a whole file as text: the one helper behind every loader (traces,
// scenarios, scheduler configurations, kubeconfigs, job files). Callers word
// their own error, since what the file is for belongs in the message.
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace basalt {

// The file's bytes, or nullopt when it cannot be opened.
inline std::optional<std::string> ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace basalt
