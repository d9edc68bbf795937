#include "framework/arguments.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "api/decode.h"

namespace basalt {

Status Arguments::TypeError(const std::string& key, const std::string& want) const {
  auto it = values_.find(key);
  std::string got = it != values_.end() ? "\"" + it->second + "\"" : NestedKind(key);
  return Status::InvalidArgument(owner_ + ": arguments." + key + ": expected " + want + ", got " +
                                 got);
}

std::string Arguments::NestedKind(const std::string& key) const {
  // Flattening turned `key: {a: 1}` into "key.a" and `key: [1]` into "key[0]".
  auto dot = values_.lower_bound(key + ".");
  if (dot != values_.end() && dot->first.compare(0, key.size() + 1, key + ".") == 0)
    return "an object";
  auto bracket = values_.lower_bound(key + "[");
  if (bracket != values_.end() && bracket->first.compare(0, key.size() + 1, key + "[") == 0)
    return "a list";
  return "";
}

const std::string* Arguments::Find(const std::string& key, const std::string& want,
                                   Status* st) const {
  auto it = values_.find(key);
  if (it != values_.end()) return &it->second;
  if (!NestedKind(key).empty()) *st = TypeError(key, want);
  return nullptr;
}

Status Arguments::GetBool(const std::string& key, bool* out) const {
  Status st;
  const std::string* v = Find(key, "true or false", &st);
  if (v == nullptr) return st;
  std::optional<bool> b = ParseYamlBool(*v);
  if (!b) return TypeError(key, "true or false");
  *out = *b;
  return Status::Ok();
}

Status Arguments::GetInt(const std::string& key, int64_t* out) const {
  Status st;
  const std::string* v = Find(key, "an integer", &st);
  if (v == nullptr) return st;
  // strtoll would skip leading whitespace; a YAML scalar never has any unquoted.
  if (v->empty() || std::isspace(static_cast<unsigned char>((*v)[0])))
    return TypeError(key, "an integer");
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v->c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return TypeError(key, "an integer");
  *out = x;
  return Status::Ok();
}

Status Arguments::GetDouble(const std::string& key, double* out) const {
  Status st;
  const std::string* v = Find(key, "a number", &st);
  if (v == nullptr) return st;
  // strtod also reads hexadecimal floats, "inf" and "nan": not numbers a user means.
  if (v->empty() || std::isspace(static_cast<unsigned char>((*v)[0])) ||
      v->find_first_of("xXnN") != std::string::npos) {
    return TypeError(key, "a number");
  }
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(v->c_str(), &end);
  if (*end != '\0' || errno == ERANGE || !std::isfinite(x)) return TypeError(key, "a number");
  *out = x;
  return Status::Ok();
}

Status Arguments::GetString(const std::string& key, std::string* out) const {
  Status st;
  const std::string* v = Find(key, "a string", &st);
  if (v != nullptr) *out = *v;
  return st;
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
