#include "api/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <regex>

namespace basalt {
namespace {

using Json = nlohmann::json;

// YAML 1.2 core schema: what a plain scalar means.
Json PlainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  static const std::regex kInt("[-+]?[0-9]+");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (std::regex_match(s, kInt)) {
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno == 0 && end && *end == 0) return static_cast<int64_t>(v);
    return s;  // out of range: keep the text
  }
  if (std::regex_match(s, kFloat)) return std::strtod(s.c_str(), nullptr);
  return s;
}

Status Convert(const YAML::Node& node, const std::string& where, int depth, Json* out) {
  if (depth > 100) return Status::InvalidArgument(where + ": nested too deeply");
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      *out = nullptr;
      return Status::Ok();
    case YAML::NodeType::Scalar:
      // Tag "!" marks a quoted scalar: always a string.
      *out = node.Tag() == "!" ? Json(node.Scalar()) : PlainScalar(node.Scalar());
      return Status::Ok();
    case YAML::NodeType::Sequence: {
      *out = Json::array();
      for (const YAML::Node& item : node) {
        Json v;
        BASALT_RETURN_IF_ERROR(Convert(item, where, depth + 1, &v));
        out->push_back(std::move(v));
      }
      return Status::Ok();
    }
    case YAML::NodeType::Map: {
      *out = Json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          return Status::InvalidArgument(where + ":" + std::to_string(kv.first.Mark().line + 1) +
                                         ": a mapping key must be a scalar");
        }
        Json v;
        BASALT_RETURN_IF_ERROR(Convert(kv.second, where, depth + 1, &v));
        (*out)[kv.first.Scalar()] = std::move(v);
      }
      return Status::Ok();
    }
  }
  return Status::Ok();
}

Status BuildNode(const Json& v, int depth, bool skip_managed_fields, YAML::Node* out) {
  if (depth > 100) return Status::InvalidArgument("nested too deeply");
  switch (v.type()) {
    case Json::value_t::object: {
      *out = YAML::Node(YAML::NodeType::Map);
      for (const auto& [key, child] : v.items()) {
        if (skip_managed_fields && depth == 1 && key == "managedFields") continue;
        YAML::Node c;
        BASALT_RETURN_IF_ERROR(BuildNode(child, depth + 1, skip_managed_fields, &c));
        out->force_insert(key, c);
      }
      return Status::Ok();
    }
    case Json::value_t::array: {
      *out = YAML::Node(YAML::NodeType::Sequence);
      for (const Json& child : v) {
        YAML::Node c;
        BASALT_RETURN_IF_ERROR(BuildNode(child, depth + 1, skip_managed_fields, &c));
        out->push_back(c);
      }
      return Status::Ok();
    }
    case Json::value_t::string:
      *out = YAML::Node(v.get_ref<const std::string&>());
      out->SetTag("!");  // as a quoted scalar: always a string
      return Status::Ok();
    case Json::value_t::null:
    case Json::value_t::discarded:
      *out = YAML::Node(YAML::NodeType::Null);
      return Status::Ok();
    default:  // numbers and booleans: their JSON text is their plain YAML scalar
      *out = YAML::Node(v.dump());
      return Status::Ok();
  }
}

bool NeedsQuotes(const std::string& s) {
  if (!PlainScalar(s).is_string()) return true;
  // YAML 1.1 booleans: Kubernetes' reader would take these for true/false.
  static const std::regex kYaml11Bool("y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF");
  if (std::regex_match(s, kYaml11Bool)) return true;
  if (s.front() == ' ' || s.back() == ' ') return true;
  return false;
}

void Emit(YAML::Emitter& e, const Json& v) {
  if (v.is_object()) {
    e << YAML::BeginMap;
    for (auto it = v.begin(); it != v.end(); ++it) {
      e << YAML::Key << it.key() << YAML::Value;
      Emit(e, it.value());
    }
    e << YAML::EndMap;
  } else if (v.is_array()) {
    e << YAML::BeginSeq;
    for (const Json& item : v) Emit(e, item);
    e << YAML::EndSeq;
  } else if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s.empty() || NeedsQuotes(s)) {
      e << YAML::DoubleQuoted << s;
    } else {
      e << s;
    }
  } else if (v.is_null()) {
    e << YAML::Null;
  } else if (v.is_boolean()) {
    e << (v.get<bool>() ? "true" : "false");
  } else {
    e << v.dump();  // numbers exactly as JSON prints them
  }
}

}  // namespace

Status JsonToYamlNode(const Json& value, YAML::Node* out, bool skip_managed_fields) {
  return BuildNode(value, 0, skip_managed_fields, out);
}

Result<Json> YamlToJson(const YAML::Node& node, const std::string& where) {
  Json out;
  BASALT_RETURN_IF_ERROR(Convert(node, where, 0, &out));
  return out;
}

Result<Json> ParseYamlDocument(const std::string& text, const std::string& where) {
  YAML::Node node;
  try {
    node = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(where + ":" + std::to_string(e.mark.line + 1) +
                                   ": malformed YAML/JSON: " + e.msg);
  }
  return YamlToJson(node, where);
}

std::string JsonToYaml(const Json& value) {
  YAML::Emitter e;
  e.SetIndent(2);
  e.SetMapFormat(YAML::Block);
  e.SetSeqFormat(YAML::Block);
  Emit(e, value);
  std::string out = e.c_str();
  if (out.empty() || out.back() != '\n') out += '\n';
  return out;
}

}  // namespace basalt
