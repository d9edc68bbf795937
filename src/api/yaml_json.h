// YAML <-> JSON: the one converter, for the manifests the job and queue
// commands read and write and for the test suites' expectations and fixtures.
// Scalars follow YAML 1.2's core schema:
//   - a quoted scalar is a string ("1", "true");
//   - plain null, Null, NULL, ~ and the empty scalar are null;
//   - plain true/True/TRUE and false/False/FALSE are booleans;
//   - a plain integer ([-+]?[0-9]+) is an int64 (text kept when out of range);
//   - a plain decimal or exponent number (1.5, .5, 1e3) is a double;
//   - anything else (0x1A, inf, yes, 1_000) is a string.
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
// The YAML tree `value` reads as, built directly (no text in between), with
// strings tagged as quoted scalars so they mean what they would in the text.
// `metadata.managedFields` (server bookkeeping, often most of an object's
// bytes) is left out when `skip_managed_fields`. Depth beyond 100 is refused.
Status JsonToYamlNode(const nlohmann::json& value, YAML::Node* out,
                      bool skip_managed_fields = false);
// Block-style YAML of `value`, keys in the JSON object's (sorted) order;
// strings that would read back as another type are quoted. Ends in a newline.
std::string JsonToYaml(const nlohmann::json& value);

}  // namespace basalt
