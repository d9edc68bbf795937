// The small field helpers every manifest decoder of this layer shares (core
// objects, vcjobs, Numatopology, JobFlow): field paths, error statuses in the
// shape docs/ and the tests expect ("spec.tasks[0].replicas: ..."), and typed
// readers (an absent or null field is "unset"; a wrong type is an error).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/status.h"

namespace basalt::decode_fields {

inline Status FieldError(const std::string& field, const std::string& problem) {
  return Status::InvalidArgument(field + ": " + problem);
}

// "parent.key", or "key" at the top.
inline std::string Join(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

// A field given with a value (absent and `null` both count as not given).
inline bool Present(const YAML::Node& n) { return n.IsDefined() && !n.IsNull(); }

// "parent[i]".
inline std::string Index(const std::string& parent, size_t i) {
  return parent + "[" + std::to_string(i) + "]";
}

// "an object", "a list", "a scalar", "null" or "nothing", for messages.
std::string KindOf(const YAML::Node& n);
Status ExpectMap(const YAML::Node& n, const std::string& field);
Status ExpectList(const YAML::Node& n, const std::string& field);
// The text of a mapping key (non-scalar keys are refused).
Result<std::string> KeyText(const YAML::Node& key, const std::string& field);
Result<std::string> GetString(const YAML::Node& n, const std::string& field);
Status ReadString(const YAML::Node& parent, const char* key, const std::string& path,
                  std::string* out);
// A decimal integer with an optional sign, within [lo, hi]. YAML's other integer
// spellings (0x1F, 1e3, 1_000) are refused, as Kubernetes' JSON decoding refuses them.
Result<int64_t> GetInt(const YAML::Node& n, const std::string& field, int64_t lo, int64_t hi);
template <typename T>
Status ReadInt(const YAML::Node& parent, const char* key, const std::string& path, T* out,
               int64_t lo = INT32_MIN, int64_t hi = INT32_MAX) {
  YAML::Node n = parent[key];
  if (!Present(n)) return Status::Ok();
  BASALT_ASSIGN_OR_RETURN(int64_t v, GetInt(n, Join(path, key), lo, hi));
  *out = static_cast<T>(v);
  return Status::Ok();
}
Result<bool> GetBool(const YAML::Node& n, const std::string& field);
Status ReadBool(const YAML::Node& parent, const char* key, const std::string& path, bool* out);
Status ReadStringMap(const YAML::Node& n, const std::string& field,
                     std::map<std::string, std::string>* out);
Result<std::vector<std::string>> ReadStringList(const YAML::Node& n, const std::string& field);

}  // namespace basalt::decode_fields
