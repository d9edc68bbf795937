// Decoding Kubernetes and Volcano manifests (YAML or JSON, multi-document) into
// the object model. Every failure names the file (and line), the object and the
// field: "cluster/a.yaml:12: Pod default/p1: spec.containers[0].resources.requests.cpu:
// invalid quantity \"x\": unknown suffix \"x\"".
#pragma once

#include <string>
#include <vector>

#include "api/objects.h"
#include "api/status.h"

namespace YAML {
class Node;
}

namespace basalt {

// Everything read from a set of manifests, in input order.
struct ClusterObjects {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<PriorityClass> priority_classes;
  std::vector<Queue> queues;
  std::vector<PodGroup> podgroups;
  std::vector<VcJob> jobs;
  std::vector<OwnerObject> owners;
  // Namespace name -> annotations (for scheduling.volcano.sh/queue-name).
  std::vector<ObjectMeta> namespaces;
};

// Decodes one document. `source` names the file and line for messages.
Status DecodeObject(const YAML::Node& doc, const std::string& source, ClusterObjects* out);

// Decodes every document of a YAML or JSON text.
Status DecodeText(const std::string& text, const std::string& file, ClusterObjects* out);

// Loads a file, or every *.yaml, *.yml and *.json file below a folder (sorted by path).
Status LoadPath(const std::string& path, ClusterObjects* out);

// Decodes a Kubernetes resource list ({cpu: "2", memory: 1Gi, nvidia.com/gpu: 1}) with
// basalt's units. `field` is the path used in messages.
Result<Resource> DecodeResourceList(const YAML::Node& node, const std::string& field);

// Parses an RFC 3339 time ("2024-05-01T10:00:00Z") into seconds since the epoch.
Result<int64_t> ParseTimestamp(const std::string& text);

}  // namespace basalt
