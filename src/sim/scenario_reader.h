// The YAML reading helpers of the scenario parser (sim/scenario.cc) and of its
// sections in files of their own (sim/topology_section.cc): typed reads of
// scalars, mappings and durations whose errors read `file:line: field:
// problem`, the line being the YAML line of the field.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <string>

#include "api/decode.h"
#include "api/status.h"
#include "sim/scenario.h"

namespace basalt::scenario_yaml {

// Every error carries `file:line: field: problem`; the line is the YAML line
// (1-based) of the node being read, so a user can jump straight to it.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  Status Error(const YAML::Node& n, const std::string& field, const std::string& problem) const {
    int line = n.IsDefined() ? n.Mark().line + 1 : 0;
    return Status::InvalidArgument(file_ + ":" + std::to_string(line) + ": " + field + ": " +
                                   problem);
  }

  // Fails on keys the schema does not know: a typo must not silently drop a setting.
  Status KnownKeys(const YAML::Node& map, const std::string& field,
                   std::initializer_list<const char*> keys) const {
    if (!map.IsMap()) return Error(map, field, "must be a mapping");
    for (const auto& kv : map) {
      const std::string k = kv.first.Scalar();
      if (std::none_of(keys.begin(), keys.end(), [&](const char* key) { return k == key; })) {
        std::string valid;
        for (const char* key : keys) valid += (valid.empty() ? "" : ", ") + std::string(key);
        return Error(kv.first, Join(field, k), "unknown field (valid: " + valid + ")");
      }
    }
    return Status::Ok();
  }

  static std::string Join(const std::string& a, const std::string& b) {
    return a.empty() ? b : a + "." + b;
  }

  Result<std::string> String(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) return Error(n, field, "must be a string");
    return n.Scalar();
  }
  Result<int64_t> Int(const YAML::Node& n, const std::string& field, int64_t lo, int64_t hi) const {
    if (!n.IsScalar()) return Error(n, field, "must be an integer");
    const std::string& s = n.Scalar();
    size_t pos = 0;
    long long v = 0;
    try {
      v = std::stoll(s, &pos);
    } catch (...) {
      pos = 0;
    }
    if (pos == 0 || pos != s.size())
      return Error(n, field, "must be an integer, got \"" + s + "\"");
    if (v < lo || v > hi) {
      return Error(n, field,
                   "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + s);
    }
    return static_cast<int64_t>(v);
  }
  Result<double> Double(const YAML::Node& n, const std::string& field, double lo, double hi) const {
    if (!n.IsScalar()) return Error(n, field, "must be a number");
    const std::string& s = n.Scalar();
    size_t pos = 0;
    double v = 0;
    try {
      v = std::stod(s, &pos);
    } catch (...) {
      pos = 0;
    }
    if (pos == 0 || pos != s.size() || !std::isfinite(v))
      return Error(n, field, "must be a number, got \"" + s + "\"");
    if (v < lo || v > hi) return Error(n, field, "out of range, got " + s);
    return v;
  }
  Result<bool> Bool(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) return Error(n, field, "must be true or false");
    auto b = ParseYamlBool(n.Scalar());
    if (!b) return Error(n, field, "must be true or false, got \"" + n.Scalar() + "\"");
    return *b;
  }
  // Durations: "90s", "15m", "2h", "1d", "1w" or plain seconds.
  Result<int64_t> Duration(const YAML::Node& n, const std::string& field, int64_t lo) const {
    if (!n.IsScalar()) return Error(n, field, "must be a duration such as 90s, 15m, 2h, 1d");
    auto d = ParseSimDuration(n.Scalar());
    if (!d.ok()) return Error(n, field, d.status().message());
    if (*d < lo) return Error(n, field, "must be at least " + std::to_string(lo) + "s");
    return *d;
  }
  Result<Resource> Resources(const YAML::Node& n, const std::string& field) const {
    auto r = DecodeResourceList(n, field);
    if (!r.ok()) return Error(n, field, r.status().message());
    return *r;
  }
  Result<std::map<std::string, std::string>> StringMap(const YAML::Node& n,
                                                       const std::string& field) const {
    std::map<std::string, std::string> out;
    if (!n.IsMap()) return Error(n, field, "must be a mapping of strings");
    for (const auto& kv : n) {
      if (!kv.second.IsScalar())
        return Error(kv.second, Join(field, kv.first.Scalar()), "must be a string");
      out[kv.first.Scalar()] = kv.second.Scalar();
    }
    return out;
  }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// Assigns a successful result; a statement of its own, so it fits under an `if`.
template <typename T, typename U>
Status Assign(Result<U> r, T* out) {
  if (!r.ok()) return r.status();
  *out = static_cast<T>(std::move(r).value());
  return Status::Ok();
}

#define SIM_READ(lhs, expr) BASALT_RETURN_IF_ERROR(Assign((expr), &(lhs)))

inline std::string Idx(const std::string& field, size_t i) {
  return field + "[" + std::to_string(i) + "]";
}

}  // namespace basalt::scenario_yaml
