// The small field helpers every manifest decoder of this layer shares (core
// objects, vcjobs, Numatopology, JobFlow): field paths, error statuses in the
// shape docs/ and the tests expect ("spec.tasks[0].replicas: ..."), and typed
// readers (an absent or null field is "unset"; a wrong type is an error).
//
// The readers take any node with the part of yaml-cpp's `YAML::Node`
// interface they use: a `YAML::Node` of a manifest, or a `JsonField` of an
// object the API server returned (api/json_field.h). Both read alike: the
// rules are written once.
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
template <typename NodeT>
bool Present(const NodeT& n) {
  return n.IsDefined() && !n.IsNull();
}

// "parent[i]".
inline std::string Index(const std::string& parent, size_t i) {
  return parent + "[" + std::to_string(i) + "]";
}

// "an object", "a list", "a scalar", "null" or "nothing", for messages.
template <typename NodeT>
std::string KindOf(const NodeT& n) {
  if (!n.IsDefined()) return "nothing";
  if (n.IsMap()) return "an object";
  if (n.IsSequence()) return "a list";
  if (n.IsScalar()) return "a scalar";
  if (n.IsNull()) return "null";
  return "nothing";
}

template <typename NodeT>
Status ExpectMap(const NodeT& n, const std::string& field) {
  if (n && !n.IsNull() && !n.IsMap())
    return FieldError(field, "expected an object, got " + KindOf(n));
  return Status::Ok();
}
template <typename NodeT>
Status ExpectList(const NodeT& n, const std::string& field) {
  if (n && !n.IsNull() && !n.IsSequence())
    return FieldError(field, "expected a list, got " + KindOf(n));
  return Status::Ok();
}
// The text of a mapping key (non-scalar keys are refused). `CheckYamlTree`
// already refuses them in manifests; this keeps `DecodeObject` and
// `DecodeResourceList` safe when called directly.
template <typename KeyT>
Result<std::string> KeyText(const KeyT& key, const std::string& field) {
  if (!key.IsScalar()) return FieldError(field, "keys must be strings, got " + KindOf(key));
  return std::string(key.Scalar());
}

template <typename NodeT>
Result<std::string> GetString(const NodeT& n, const std::string& field) {
  if (!n.IsScalar()) return FieldError(field, "expected a string, got " + KindOf(n));
  return std::string(n.Scalar());
}
template <typename NodeT>
Status ReadString(const NodeT& parent, const char* key, const std::string& path, std::string* out) {
  auto n = parent[key];
  if (!Present(n)) return Status::Ok();
  BASALT_ASSIGN_OR_RETURN(*out, GetString(n, Join(path, key)));
  return Status::Ok();
}

// The integer `text` spells, for `GetInt`.
Result<int64_t> ParseIntField(const std::string& text, const std::string& field, int64_t lo,
                              int64_t hi);
// A decimal integer with an optional sign, within [lo, hi]. YAML's other integer
// spellings (0x1F, 1e3, 1_000) are refused, as Kubernetes' JSON decoding refuses them.
template <typename NodeT>
Result<int64_t> GetInt(const NodeT& n, const std::string& field, int64_t lo, int64_t hi) {
  if (!n.IsScalar()) return FieldError(field, "expected an integer, got " + KindOf(n));
  return ParseIntField(n.Scalar(), field, lo, hi);
}
template <typename T, typename NodeT>
Status ReadInt(const NodeT& parent, const char* key, const std::string& path, T* out,
               int64_t lo = INT32_MIN, int64_t hi = INT32_MAX) {
  auto n = parent[key];
  if (!Present(n)) return Status::Ok();
  BASALT_ASSIGN_OR_RETURN(int64_t v, GetInt(n, Join(path, key), lo, hi));
  *out = static_cast<T>(v);
  return Status::Ok();
}

// A YAML 1.1 boolean (`ParseYamlBool`), for `GetBool`.
Result<bool> ParseBoolField(const std::string& text, const std::string& field);
template <typename NodeT>
Result<bool> GetBool(const NodeT& n, const std::string& field) {
  if (n.IsScalar()) return ParseBoolField(n.Scalar(), field);
  return FieldError(field, "expected true or false, got " + KindOf(n));
}
template <typename NodeT>
Status ReadBool(const NodeT& parent, const char* key, const std::string& path, bool* out) {
  auto n = parent[key];
  if (!Present(n)) return Status::Ok();
  BASALT_ASSIGN_OR_RETURN(*out, GetBool(n, Join(path, key)));
  return Status::Ok();
}

template <typename NodeT>
Status ReadStringMap(const NodeT& n, const std::string& field,
                     std::map<std::string, std::string>* out) {
  if (!Present(n)) return Status::Ok();
  BASALT_RETURN_IF_ERROR(ExpectMap(n, field));
  for (const auto& kv : n) {
    BASALT_ASSIGN_OR_RETURN(std::string key, KeyText(kv.first, field));
    if (!Present(kv.second)) {
      (*out)[key] = "";
      continue;
    }
    BASALT_ASSIGN_OR_RETURN(std::string v, GetString(kv.second, field + "." + key));
    (*out)[key] = std::move(v);
  }
  return Status::Ok();
}

template <typename NodeT>
Result<std::vector<std::string>> ReadStringList(const NodeT& n, const std::string& field) {
  std::vector<std::string> out;
  if (!Present(n)) return out;
  BASALT_RETURN_IF_ERROR(ExpectList(n, field));
  for (size_t i = 0; i < n.size(); ++i) {
    BASALT_ASSIGN_OR_RETURN(std::string v, GetString(n[i], Index(field, i)));
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace basalt::decode_fields
