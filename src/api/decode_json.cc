#include "api/decode_json.h"

#include <yaml-cpp/yaml.h>

#include <exception>

#include "api/decode_objects.h"
#include "api/json_field.h"
#include "api/yaml_json.h"

namespace basalt {

Status DecodeJsonObject(const nlohmann::json& object, const std::string& source,
                        ClusterObjects* out) {
  try {
    const JsonField doc(object);
    std::string kind, api_version;
    if (decode_internal::ReadTypeMeta(doc, source, &kind, &api_version).ok() &&
        (kind == "Pod" || kind == "Node")) {
      return decode_internal::DecodePodOrNode(doc, kind, api_version, source, out);
    }
  } catch (const std::exception& e) {
    return Status::InvalidArgument(source + ": malformed document: " + e.what());
  }
  // Every other kind, and every malformed object (the manifest decoder words
  // the message).
  YAML::Node node;
  Status built = JsonToYamlNode(object, &node, /*skip_managed_fields=*/true);
  if (!built.ok()) return Status::InvalidArgument(source + ": " + built.message());
  return DecodeObject(node, source, out);
}

}  // namespace basalt
