// Network topology objects: topology.volcano.sh/v1alpha1 HyperNode, and the
// `networkTopology` constraint of PodGroups and vcjobs (api/objects.h holds
// the constraint's struct, since PodGroup and VcJob carry it).
//
// A HyperNode is one performance domain (a switch, a rack, an NVLink domain):
// its members are nodes (by exact name, regular expression or labels) or other
// HyperNodes (by exact name), so HyperNodes form a tree whose tier grows
// towards the root. docs/topology.md describes the objects and what basalt
// does with them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/objects.h"
#include "api/status.h"

namespace YAML {
class Node;
}

namespace basalt {

// One entry of spec.members: exactly one selector is set.
struct HyperNodeMember {
  enum class Type { kNode, kHyperNode };
  Type type = Type::kNode;
  std::string exact_name;                           // selector.exactMatch.name
  std::string regex;                                // selector.regexMatch.pattern
  std::map<std::string, std::string> match_labels;  // selector.labelMatch.matchLabels
  bool has_label_match = false;
};

struct HyperNode {
  ObjectMeta meta;  // cluster-scoped
  int32_t tier = 0;
  std::string tier_name;  // spec.tierName (optional)
  std::vector<HyperNodeMember> members;
};

// Decodes a HyperNode document (metadata and spec); errors name the field
// ("spec.members[1].selector.regexMatch.pattern: ...").
Status DecodeHyperNode(const YAML::Node& doc, HyperNode* out);

// Decodes `spec.networkTopology` at `path` into `*out` (left unset when the
// field is absent): mode hard (the default) or soft, highestTierAllowed (>= 0)
// or highestTierName (not both, as Volcano's webhook requires).
Status DecodeNetworkTopology(const YAML::Node& node, const std::string& path,
                             std::optional<NetworkTopologySpec>* out);

// Whether a node matches a member of type Node. Regexes (Go's syntax, RE2:
// api/go_regex.h) match anywhere in the name, as Go's MatchString in Volcano.
bool MemberMatchesNode(const HyperNodeMember& member, const Node& node);

// Checks the HyperNodes together: every HyperNode member names its child once,
// a HyperNode has at most one parent, a child's tier is below its parent's,
// and no chain of members returns to where it started. Members naming a
// HyperNode that is not there are allowed (it may be created later). Errors
// name the HyperNode, its source and the field.
Status ValidateHyperNodeTree(const std::map<std::string, HyperNode>& hypernodes);

}  // namespace basalt
