#include "sim/topology_section.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "sim/scenario.h"
#include "sim/scenario_reader.h"

namespace basalt {
namespace {

using scenario_yaml::Assign;
using scenario_yaml::Idx;
using scenario_yaml::Reader;

constexpr int32_t kMaxFanOut = 100000;

Status ParseTopologyPool(const Reader& r, const YAML::Node& n, const std::string& f,
                         const std::vector<NodePool>& pools, TopologyPool* p) {
  BASALT_RETURN_IF_ERROR(
      r.KnownKeys(n, f, {"pool", "nodes_per_leaf", "leaves_per_spine", "spines_per_core"}));
  if (!n["pool"]) return r.Error(n, f + ".pool", "required (a pool under nodes:)");
  SIM_READ(p->pool, r.String(n["pool"], f + ".pool"));
  const bool known = std::any_of(pools.begin(), pools.end(),
                                 [&](const NodePool& pool) { return pool.name == p->pool; });
  if (!known) {
    return r.Error(n["pool"], f + ".pool",
                   "unknown pool \"" + p->pool + "\" (declare it under nodes:)");
  }
  if (!n["nodes_per_leaf"]) return r.Error(n, f + ".nodes_per_leaf", "required");
  SIM_READ(p->nodes_per_leaf, r.Int(n["nodes_per_leaf"], f + ".nodes_per_leaf", 1, kMaxFanOut));
  if (n["leaves_per_spine"]) {
    SIM_READ(p->leaves_per_spine,
             r.Int(n["leaves_per_spine"], f + ".leaves_per_spine", 1, kMaxFanOut));
  }
  if (n["spines_per_core"]) {
    if (!n["leaves_per_spine"]) {
      return r.Error(n["spines_per_core"], f + ".spines_per_core",
                     "needs leaves_per_spine (a core switch joins spines)");
    }
    SIM_READ(p->spines_per_core,
             r.Int(n["spines_per_core"], f + ".spines_per_core", 1, kMaxFanOut));
  }
  return Status::Ok();
}

Status ParseTierNames(const Reader& r, const YAML::Node& n, std::vector<std::string>* out) {
  const std::string f = "topology.tier_names";
  if (!n.IsSequence() || n.size() == 0 || n.size() > 3)
    return r.Error(n, f, "must list one to three names, lowest tier first");
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string name;
    SIM_READ(name, r.String(n[i], Idx(f, i)));
    if (name.empty()) return r.Error(n[i], Idx(f, i), "must not be empty");
    if (!seen.insert(name).second) return r.Error(n[i], Idx(f, i), "duplicate tier name");
    names.push_back(name);
  }
  // Tiers the list leaves out keep their default names.
  for (size_t i = 0; i < names.size(); ++i) (*out)[i] = names[i];
  return Status::Ok();
}

std::string Numbered(const std::string& pool, const char* kind, int32_t i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%02d", i);
  return pool + "-" + kind + "-" + buf;
}

HyperNode MakeHyperNode(const std::string& name, int32_t tier, const std::string& tier_name,
                        HyperNodeMember::Type type, const std::vector<std::string>& members) {
  HyperNode h;
  h.meta.name = name;
  h.meta.source = "simulate: topology";
  h.tier = tier;
  h.tier_name = tier_name;
  for (const std::string& m : members) {
    HyperNodeMember member;
    member.type = type;
    member.exact_name = m;
    h.members.push_back(std::move(member));
  }
  return h;
}

// Groups `children` into runs of `per_group`, one HyperNode of `tier` each.
std::vector<std::string> Group(const std::vector<std::string>& children, int32_t per_group,
                               const std::string& pool, const char* kind, int32_t tier,
                               const std::string& tier_name, HyperNodeMember::Type type,
                               std::vector<HyperNode>* out) {
  std::vector<std::string> names;
  for (size_t start = 0; start < children.size(); start += static_cast<size_t>(per_group)) {
    const size_t end = std::min(children.size(), start + static_cast<size_t>(per_group));
    std::vector<std::string> members(children.begin() + static_cast<std::ptrdiff_t>(start),
                                     children.begin() + static_cast<std::ptrdiff_t>(end));
    names.push_back(Numbered(pool, kind, static_cast<int32_t>(names.size())));
    out->push_back(MakeHyperNode(names.back(), tier, tier_name, type, members));
  }
  return names;
}

}  // namespace

bool IsTopologyJobMode(const std::string& mode) {
  return std::any_of(std::begin(kTopologyJobModes), std::end(kTopologyJobModes),
                     [&](const char* m) { return mode == m; });
}

Status ParseTopologySection(const Reader& r, const YAML::Node& n,
                            const std::vector<NodePool>& pools, TopologySection* out) {
  const std::string f = "topology";
  BASALT_RETURN_IF_ERROR(
      r.KnownKeys(n, f, {"jobs", "highest_tier", "highest_tier_name", "tier_names", "pools"}));
  out->present = true;
  out->yaml_line = n.Mark().line + 1;
  if (n["jobs"]) {
    out->jobs_line = n["jobs"].Mark().line + 1;
    SIM_READ(out->jobs, r.String(n["jobs"], f + ".jobs"));
    if (!IsTopologyJobMode(out->jobs)) {
      return r.Error(n["jobs"], f + ".jobs",
                     "unknown mode \"" + out->jobs + "\" (hard, soft, none, as_written)");
    }
  }
  if (n["highest_tier"] && n["highest_tier_name"]) {
    return r.Error(n["highest_tier_name"], f + ".highest_tier_name",
                   "highest_tier and highest_tier_name cannot both be set");
  }
  if (n["highest_tier"] || n["highest_tier_name"]) {
    const YAML::Node given = n["highest_tier"] ? n["highest_tier"] : n["highest_tier_name"];
    out->highest_tier_line = given.Mark().line + 1;
  }
  if (n["highest_tier"]) {
    int32_t tier = 0;
    SIM_READ(tier, r.Int(n["highest_tier"], f + ".highest_tier", 0, INT32_MAX));
    out->highest_tier = tier;
  }
  if (n["highest_tier_name"])
    SIM_READ(out->highest_tier_name, r.String(n["highest_tier_name"], f + ".highest_tier_name"));
  if (n["tier_names"]) BASALT_RETURN_IF_ERROR(ParseTierNames(r, n["tier_names"], &out->tier_names));
  if (const YAML::Node ps = n["pools"]) {
    if (!ps.IsSequence()) return r.Error(ps, f + ".pools", "must be a list of {pool, ...}");
    std::set<std::string> seen;
    for (size_t i = 0; i < ps.size(); ++i) {
      TopologyPool p;
      BASALT_RETURN_IF_ERROR(ParseTopologyPool(r, ps[i], Idx(f + ".pools", i), pools, &p));
      if (!seen.insert(p.pool).second) {
        return r.Error(ps[i]["pool"], Idx(f + ".pools", i) + ".pool",
                       "pool \"" + p.pool + "\" is listed twice");
      }
      out->pools.push_back(std::move(p));
    }
  }
  return Status::Ok();
}

Status ParseWorkloadTopology(const Reader& r, const YAML::Node& node, const std::string& field,
                             std::optional<NetworkTopologySpec>* out) {
  Status decoded = DecodeNetworkTopology(node, field, out);
  if (decoded.ok()) return decoded;
  // The decoder's message already names the field (`field.mode: ...`).
  return Status::InvalidArgument(r.file() + ":" + std::to_string(node.Mark().line + 1) + ": " +
                                 decoded.message());
}

std::vector<HyperNode> GenerateHyperNodes(
    const TopologySection& section, const std::vector<NodePool>& pools,
    const std::function<std::string(const std::string&, int32_t)>& node_name) {
  std::vector<HyperNode> out;
  for (const TopologyPool& tp : section.pools) {
    auto pool = std::find_if(pools.begin(), pools.end(),
                             [&](const NodePool& p) { return p.name == tp.pool; });
    if (pool == pools.end()) continue;  // checked when parsed
    std::vector<std::string> nodes;
    for (int32_t i = 0; i < pool->count; ++i) nodes.push_back(node_name(pool->name, i));
    std::vector<std::string> leaves =
        Group(nodes, tp.nodes_per_leaf, tp.pool, section.tier_names[0].c_str(), 1,
              section.tier_names[0], HyperNodeMember::Type::kNode, &out);
    if (tp.leaves_per_spine == 0) continue;
    std::vector<std::string> spines =
        Group(leaves, tp.leaves_per_spine, tp.pool, section.tier_names[1].c_str(), 2,
              section.tier_names[1], HyperNodeMember::Type::kHyperNode, &out);
    if (tp.spines_per_core == 0) continue;
    Group(spines, tp.spines_per_core, tp.pool, section.tier_names[2].c_str(), 3,
          section.tier_names[2], HyperNodeMember::Type::kHyperNode, &out);
  }
  return out;
}

std::optional<NetworkTopologySpec> EffectiveJobTopology(
    const TopologySection& section, const std::optional<NetworkTopologySpec>& own,
    int32_t default_tier) {
  if (section.jobs == "none") return std::nullopt;
  if (section.jobs == "as_written") return own;
  NetworkTopologySpec spec;
  spec.mode =
      section.jobs == "soft" ? NetworkTopologySpec::Mode::kSoft : NetworkTopologySpec::Mode::kHard;
  if (own && (own->highest_tier_allowed || !own->highest_tier_name.empty())) {
    spec.highest_tier_allowed = own->highest_tier_allowed;
    spec.highest_tier_name = own->highest_tier_name;
  } else if (section.highest_tier || !section.highest_tier_name.empty()) {
    spec.highest_tier_allowed = section.highest_tier;
    spec.highest_tier_name = section.highest_tier_name;
  } else {
    spec.highest_tier_allowed = default_tier;
  }
  return spec;
}

}  // namespace basalt
