// The small field helpers every manifest decoder of this layer shares (core
// objects, Numatopology, JobFlow): field paths and error statuses in the shape
// docs/ and the tests expect ("spec.tasks[0].replicas: ...").
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

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

}  // namespace basalt::decode_fields
