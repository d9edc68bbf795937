#include "framework/arguments.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace basalt {

Status Arguments::TypeError(const std::string& key, const std::string& want) const {
  return Status::InvalidArgument(owner_ + ": arguments." + key + ": expected " + want + ", got \"" +
                                 values_.at(key) + "\"");
}

Status Arguments::GetBool(const std::string& key, bool* out) const {
  auto it = values_.find(key);
  if (it == values_.end()) return Status::Ok();
  const std::string& v = it->second;
  if (v == "true" || v == "True" || v == "TRUE") {
    *out = true;
  } else if (v == "false" || v == "False" || v == "FALSE") {
    *out = false;
  } else {
    return TypeError(key, "true or false");
  }
  return Status::Ok();
}

Status Arguments::GetInt(const std::string& key, int64_t* out) const {
  auto it = values_.find(key);
  if (it == values_.end()) return Status::Ok();
  const std::string& v = it->second;
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno == ERANGE) return TypeError(key, "an integer");
  *out = x;
  return Status::Ok();
}

Status Arguments::GetDouble(const std::string& key, double* out) const {
  auto it = values_.find(key);
  if (it == values_.end()) return Status::Ok();
  const std::string& v = it->second;
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(x)) return TypeError(key, "a number");
  *out = x;
  return Status::Ok();
}

Status Arguments::GetString(const std::string& key, std::string* out) const {
  auto it = values_.find(key);
  if (it != values_.end()) *out = it->second;
  return Status::Ok();
}

std::map<std::string, std::string> Arguments::WithPrefix(const std::string& prefix) const {
  std::map<std::string, std::string> out;
  for (auto it = values_.lower_bound(prefix); it != values_.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    out[it->first.substr(prefix.size())] = it->second;
  }
  return out;
}

}  // namespace basalt
