// YAML <-> JSON for the manifests the job and queue commands read and write.
// Scalars keep their YAML type: a quoted "1" stays a string, a plain 1 becomes
// a number, true/false/null as in YAML 1.2's core schema.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "api/status.h"

namespace YAML {
class Node;
}

namespace basalt {

// Converts a parsed YAML document; `where` prefixes error messages.
Result<nlohmann::json> YamlToJson(const YAML::Node& node, const std::string& where);
// Parses one YAML/JSON document from `text`.
Result<nlohmann::json> ParseYamlDocument(const std::string& text, const std::string& where);
// Block-style YAML of `value`, keys in the JSON object's (sorted) order;
// strings that would read back as another type are quoted. Ends in a newline.
std::string JsonToYaml(const nlohmann::json& value);

}  // namespace basalt
