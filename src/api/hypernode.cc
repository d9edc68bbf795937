#include "api/hypernode.h"

#include <yaml-cpp/yaml.h>

#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>

#include "api/decode_fields.h"
#include "api/decode_objects.h"
#include "api/go_regex.h"

namespace basalt {

using namespace decode_fields;  // NOLINT: the shared field readers

namespace {

// A regular expression as Volcano's webhook accepts it (Go's regexp.Compile).
Status CheckRegex(const std::string& pattern, const std::string& path) {
  if (pattern.empty()) return FieldError(path, "missing");
  Result<GoRegex> re = GoRegex::Compile(pattern);
  if (!re.ok()) {
    // Volcano's webhook words it so; the reason is RE2's (Go's syntax).
    return FieldError(path, "member regexMatch pattern is invalid: " + re.status().message());
  }
  return Status::Ok();
}

// The compiled form of `pattern` (nullptr when it does not compile), kept so
// a pattern matched against every node of every cycle compiles once. Bounded:
// emptied when it holds more patterns than any real cluster has.
std::shared_ptr<const GoRegex> CompiledRegex(const std::string& pattern) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::shared_ptr<const GoRegex>> cache;
  constexpr size_t kMaxPatterns = 4096;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(pattern);
  if (it != cache.end()) return it->second;
  if (cache.size() >= kMaxPatterns) cache.clear();
  Result<GoRegex> re = GoRegex::Compile(pattern);
  auto compiled = re.ok() ? std::make_shared<const GoRegex>(std::move(*re)) : nullptr;
  cache.emplace(pattern, compiled);
  return compiled;
}

Status DecodeSelector(const YAML::Node& sel, const std::string& path, HyperNodeMember* m) {
  if (!Present(sel)) return FieldError(path, "missing");
  BASALT_RETURN_IF_ERROR(ExpectMap(sel, path));
  int given = 0;
  if (Present(sel["exactMatch"])) {
    ++given;
    std::string p = Join(path, "exactMatch");
    BASALT_RETURN_IF_ERROR(ExpectMap(sel["exactMatch"], p));
    BASALT_RETURN_IF_ERROR(ReadString(sel["exactMatch"], "name", p, &m->exact_name));
    if (m->exact_name.empty()) return FieldError(Join(p, "name"), "missing");
  }
  if (Present(sel["regexMatch"])) {
    ++given;
    std::string p = Join(path, "regexMatch");
    BASALT_RETURN_IF_ERROR(ExpectMap(sel["regexMatch"], p));
    BASALT_RETURN_IF_ERROR(ReadString(sel["regexMatch"], "pattern", p, &m->regex));
    BASALT_RETURN_IF_ERROR(CheckRegex(m->regex, Join(p, "pattern")));
  }
  if (Present(sel["labelMatch"])) {
    ++given;
    std::string p = Join(path, "labelMatch");
    BASALT_RETURN_IF_ERROR(ExpectMap(sel["labelMatch"], p));
    if (Present(sel["labelMatch"]["matchExpressions"])) {
      return FieldError(Join(p, "matchExpressions"), "not supported by basalt (use matchLabels)");
    }
    BASALT_RETURN_IF_ERROR(
        ReadStringMap(sel["labelMatch"]["matchLabels"], Join(p, "matchLabels"), &m->match_labels));
    if (m->match_labels.empty()) return FieldError(Join(p, "matchLabels"), "missing");
    m->has_label_match = true;
  }
  if (given != 1) {
    return FieldError(path, "exactly one of exactMatch, regexMatch and labelMatch must be set");
  }
  if (m->type == HyperNodeMember::Type::kHyperNode && m->exact_name.empty()) {
    return FieldError(path, "a member of type HyperNode is selected by exactMatch only");
  }
  return Status::Ok();
}

Status DecodeMember(const YAML::Node& n, const std::string& path, HyperNodeMember* m) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  std::string type;
  BASALT_RETURN_IF_ERROR(ReadString(n, "type", path, &type));
  if (type == "Node") {
    m->type = HyperNodeMember::Type::kNode;
  } else if (type == "HyperNode") {
    m->type = HyperNodeMember::Type::kHyperNode;
  } else {
    return FieldError(Join(path, "type"), type.empty() ? "missing (want Node or HyperNode)"
                                                       : "unknown member type \"" + type +
                                                             "\" (want Node or HyperNode)");
  }
  return DecodeSelector(n["selector"], Join(path, "selector"), m);
}

}  // namespace

Status DecodeHyperNode(const YAML::Node& doc, HyperNode* out) {
  BASALT_RETURN_IF_ERROR(decode_internal::DecodeMeta(doc, false, &out->meta));
  YAML::Node spec = doc["spec"];
  if (!Present(spec)) return FieldError("spec", "missing");
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, "spec"));
  if (!Present(spec["tier"])) return FieldError("spec.tier", "missing");
  BASALT_RETURN_IF_ERROR(ReadInt(spec, "tier", "spec", &out->tier, 0, INT32_MAX));
  BASALT_RETURN_IF_ERROR(ReadString(spec, "tierName", "spec", &out->tier_name));
  YAML::Node members = spec["members"];
  BASALT_RETURN_IF_ERROR(ExpectList(members, "spec.members"));
  if (!Present(members)) return Status::Ok();
  for (size_t i = 0; i < members.size(); ++i) {
    HyperNodeMember m;
    BASALT_RETURN_IF_ERROR(DecodeMember(members[i], Index("spec.members", i), &m));
    out->members.push_back(std::move(m));
  }
  return Status::Ok();
}

Status DecodeNetworkTopology(const YAML::Node& node, const std::string& path,
                             std::optional<NetworkTopologySpec>* out) {
  if (!Present(node)) return Status::Ok();
  BASALT_RETURN_IF_ERROR(ExpectMap(node, path));
  NetworkTopologySpec spec;
  std::string mode;
  BASALT_RETURN_IF_ERROR(ReadString(node, "mode", path, &mode));
  if (mode == "soft") {
    spec.mode = NetworkTopologySpec::Mode::kSoft;
  } else if (!mode.empty() && mode != "hard") {
    return FieldError(Join(path, "mode"), "unknown mode \"" + mode + "\" (want hard or soft)");
  }
  if (Present(node["highestTierAllowed"])) {
    int32_t tier = 0;
    BASALT_RETURN_IF_ERROR(ReadInt(node, "highestTierAllowed", path, &tier, 0, INT32_MAX));
    spec.highest_tier_allowed = tier;
  }
  BASALT_RETURN_IF_ERROR(ReadString(node, "highestTierName", path, &spec.highest_tier_name));
  if (spec.highest_tier_allowed && !spec.highest_tier_name.empty()) {
    return FieldError(Join(path, "highestTierName"),
                      "highestTierAllowed and highestTierName cannot both be set");
  }
  *out = spec;
  return Status::Ok();
}

bool MemberMatchesNode(const HyperNodeMember& member, const Node& node) {
  if (member.type != HyperNodeMember::Type::kNode) return false;
  if (!member.exact_name.empty()) return node.meta.name == member.exact_name;
  if (!member.regex.empty()) {
    // Refused when decoded; one that still does not compile (a member built
    // in code) matches nothing, as in Volcano.
    std::shared_ptr<const GoRegex> re = CompiledRegex(member.regex);
    return re && re->Search(node.meta.name);
  }
  if (!member.has_label_match) return false;
  for (const auto& [k, v] : member.match_labels) {
    auto it = node.meta.labels.find(k);
    if (it == node.meta.labels.end() || it->second != v) return false;
  }
  return true;
}

namespace {

// "file:line: HyperNode name", as decode errors begin.
std::string Where(const HyperNode& h) {
  return (h.meta.source.empty() ? "" : h.meta.source + ": ") + "HyperNode " + h.meta.name;
}

// The child HyperNode names of `h`, with the field of each.
std::vector<std::pair<std::string, std::string>> Children(const HyperNode& h) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < h.members.size(); ++i) {
    if (h.members[i].type != HyperNodeMember::Type::kHyperNode) continue;
    out.emplace_back(h.members[i].exact_name,
                     Index("spec.members", i) + ".selector.exactMatch.name");
  }
  return out;
}

}  // namespace

namespace {

// Member HyperNode -> parent name; errors for self members, repeats and
// second parents.
Status ParentsOf(const std::map<std::string, HyperNode>& hypernodes,
                 std::map<std::string, std::string>* parent_of) {
  for (const auto& entry : hypernodes) {
    // Plain references, not structured bindings: the lambda below captures
    // them, which clang before 16 refuses for bindings.
    const std::string& name = entry.first;
    const HyperNode& h = entry.second;
    std::set<std::string> seen;
    for (const auto& child_and_field : Children(h)) {
      const std::string& child = child_and_field.first;
      const std::string& field = child_and_field.second;
      auto fail = [&](const std::string& why) {
        return Status::InvalidArgument(Where(h) + ": " + field + ": " + why);
      };
      if (child == name) return fail("a HyperNode cannot be its own member");
      if (!seen.insert(child).second) return fail("HyperNode " + child + " is listed twice");
      auto [it, fresh] = parent_of->emplace(child, name);
      if (!fresh) {
        return fail("HyperNode " + child + " is already a member of HyperNode " + it->second +
                    " (a HyperNode has at most one parent)");
      }
    }
  }
  return Status::Ok();
}

// "a -> b -> a" when following parents from `start` comes back to it.
std::string CycleFrom(const std::string& start, const std::map<std::string, std::string>& parent_of,
                      size_t limit) {
  std::string path = start, at = start;
  for (size_t steps = 0; steps <= limit; ++steps) {
    auto it = parent_of.find(at);
    if (it == parent_of.end()) return "";
    at = it->second;
    path += " -> " + at;
    if (at == start) return path;
  }
  return "";
}

}  // namespace

Status ValidateHyperNodeTree(const std::map<std::string, HyperNode>& hypernodes) {
  std::map<std::string, std::string> parent_of;
  BASALT_RETURN_IF_ERROR(ParentsOf(hypernodes, &parent_of));
  for (const auto& [name, h] : hypernodes) {
    std::string cycle = CycleFrom(name, parent_of, hypernodes.size());
    if (!cycle.empty()) {
      return Status::InvalidArgument(Where(h) + ": spec.members: the HyperNode tree has a cycle (" +
                                     cycle + ", each a member of the next)");
    }
  }
  for (const auto& [name, h] : hypernodes) {
    for (const auto& [child, field] : Children(h)) {
      auto c = hypernodes.find(child);
      if (c == hypernodes.end() || c->second.tier < h.tier) continue;
      return Status::InvalidArgument(Where(h) + ": " + field + ": member HyperNode " + child +
                                     " has tier " + std::to_string(c->second.tier) +
                                     ", not below this HyperNode's tier " + std::to_string(h.tier));
    }
  }
  return Status::Ok();
}

}  // namespace basalt
