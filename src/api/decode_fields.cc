#include "api/decode_fields.h"

#include "api/decode.h"  // ParseYamlBool

namespace basalt::decode_fields {

std::string KindOf(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return "an object";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Null:
      return "null";
    default:
      return "nothing";
  }
}

Status ExpectMap(const YAML::Node& n, const std::string& field) {
  if (n && !n.IsNull() && !n.IsMap())
    return FieldError(field, "expected an object, got " + KindOf(n));
  return Status::Ok();
}
Status ExpectList(const YAML::Node& n, const std::string& field) {
  if (n && !n.IsNull() && !n.IsSequence())
    return FieldError(field, "expected a list, got " + KindOf(n));
  return Status::Ok();
}
// `CheckYamlTree` already refuses non-scalar keys; this keeps `DecodeObject` /
// `DecodeResourceList` safe when called directly.
Result<std::string> KeyText(const YAML::Node& key, const std::string& field) {
  if (!key.IsScalar()) return FieldError(field, "keys must be strings, got " + KindOf(key));
  return key.Scalar();
}

Result<std::string> GetString(const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) return FieldError(field, "expected a string, got " + KindOf(n));
  return n.Scalar();
}

Status ReadString(const YAML::Node& parent, const char* key, const std::string& path,
                  std::string* out) {
  YAML::Node n = parent[key];
  if (!Present(n)) return Status::Ok();
  BASALT_ASSIGN_OR_RETURN(*out, GetString(n, Join(path, key)));
  return Status::Ok();
}

Result<int64_t> GetInt(const YAML::Node& n, const std::string& field, int64_t lo, int64_t hi) {
  if (!n.IsScalar()) return FieldError(field, "expected an integer, got " + KindOf(n));
  const std::string& s = n.Scalar();
  auto not_int = [&] { return FieldError(field, "expected an integer, got \"" + s + "\""); };
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return not_int();
  bool negative = s[0] == '-';
  // Accumulate the magnitude as unsigned; anything beyond 2^63 is out of every range.
  constexpr uint64_t kCap = uint64_t{1} << 63;
  uint64_t mag = 0;
  bool overflow = false;
  for (size_t k = i; k < s.size(); ++k) {
    if (s[k] < '0' || s[k] > '9') return not_int();
    if (mag > (kCap - (s[k] - '0')) / 10) {
      overflow = true;
    } else {
      mag = mag * 10 + static_cast<uint64_t>(s[k] - '0');
    }
  }
  auto out_of_range = [&] {
    return FieldError(field, "value " + s + " out of range [" + std::to_string(lo) + ", " +
                                 std::to_string(hi) + "]");
  };
  if (overflow || (!negative && mag == kCap)) return out_of_range();
  int64_t v = negative ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
  if (v < lo || v > hi) return out_of_range();
  return v;
}

Result<bool> GetBool(const YAML::Node& n, const std::string& field) {
  if (n.IsScalar()) {
    if (std::optional<bool> b = ParseYamlBool(n.Scalar())) return *b;
  }
  return FieldError(field, "expected true or false, got " +
                               (n.IsScalar() ? "\"" + n.Scalar() + "\"" : KindOf(n)));
}

Status ReadBool(const YAML::Node& parent, const char* key, const std::string& path, bool* out) {
  YAML::Node n = parent[key];
  if (!Present(n)) return Status::Ok();
  BASALT_ASSIGN_OR_RETURN(*out, GetBool(n, Join(path, key)));
  return Status::Ok();
}

Status ReadStringMap(const YAML::Node& n, const std::string& field,
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
    (*out)[key] = v;
  }
  return Status::Ok();
}

Result<std::vector<std::string>> ReadStringList(const YAML::Node& n, const std::string& field) {
  std::vector<std::string> out;
  if (!Present(n)) return out;
  BASALT_RETURN_IF_ERROR(ExpectList(n, field));
  for (size_t i = 0; i < n.size(); ++i) {
    BASALT_ASSIGN_OR_RETURN(std::string v, GetString(n[i], Index(field, i)));
    out.push_back(v);
  }
  return out;
}

}  // namespace basalt::decode_fields
