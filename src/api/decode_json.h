// Decoding objects as the API server returns them (already parsed JSON), for
// the informers of `basalt serve`: the same rules and messages as a manifest
// (api/decode.h), so a listed or watched object means exactly what the same
// object in a file means.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "api/decode.h"
#include "api/status.h"

namespace basalt {

// Decodes one object (not a List). `source` prefixes messages and becomes
// `meta.source`. Pods and Nodes, nearly all the objects of a large cluster,
// are read straight from the JSON (api/json_field.h); other kinds through a
// YAML tree built from it (`JsonToYamlNode`), `metadata.managedFields` left
// out either way.
Status DecodeJsonObject(const nlohmann::json& object, const std::string& source,
                        ClusterObjects* out);

}  // namespace basalt
