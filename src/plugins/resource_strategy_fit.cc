// resource-strategy-fit: scores nodes per resource with kube-scheduler's
// MostAllocated or LeastAllocated strategy, each resource with its own
// weight, plus two optional parts, sra and proportional
// (docs/plugins/resource-strategy-fit.md; Volcano v1.15.1
// pkg/scheduler/plugins/resource-strategy-fit).
//
// Arguments:
//   resourceStrategyFitWeight (10)  scales the strategy score; 0 turns it off
//                                   (a negative value or a wrong type: 10)
//   resources.<name>.type           MostAllocated or LeastAllocated (anything else: LeastAllocated)
//   resources.<name>.weight (1)     a weight <= 0 becomes 1; <name> may end in one
//                                   '*' ("nvidia.com/*"), the longest prefix wins
//   (no resources: cpu and memory, LeastAllocated, weight 1)
//   sra.enable, sra.resources ("a,b"), sra.weight, sra.resourceWeight.<name> (1)
//   proportional.enable, proportional.resources ("a,b"),
//   proportional.resourceProportion.<name>.cpu / .memory (1)
//
// Strategy score, over the resources the task requests (cpu, memory, scalars;
// not pods) that have a configuration (or, with the pod annotation
// volcano.sh/resource-strategy-scoring-type, a weight in the JSON map of
// volcano.sh/resource-strategy-weight):
//   Most:  (req + used) * w / alloc      Least: (alloc - req - used) * w / alloc
//   score = Σ / Σ w * 100 * resourceStrategyFitWeight
// alloc 0 or w 0 scores 0 (its weight still counts); req + used > alloc on any
// resource makes the whole score 0, as does an annotation without its weights.
//
// sra (keep nodes with scarce resources for the pods that need them): 0 when
// the node lacks a resource the task requests; else
//   (1 - Σ weights of sra resources the node has / Σ all sra weights) * 100 * sra.weight.
// proportional: a predicate. A task asking for none of the listed resources
// fits a node only if, for each listed resource the node has, its idle cpu and
// memory after the task stay above idle-amount × the configured cpu (cores)
// and memory (GB, 10^9 bytes) per unit.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/log.h"
#include "api/text.h"
#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/unknown_arguments.h"

namespace basalt {
namespace {

constexpr double kMaxNodeScore = 100;
constexpr int64_t kDefaultWeight = 10;
constexpr const char* kScoringTypeAnnotation = "volcano.sh/resource-strategy-scoring-type";
constexpr const char* kScoringWeightAnnotation = "volcano.sh/resource-strategy-weight";

enum class Strategy { kLeast, kMost, kOther };

struct ResourceStrategy {
  Strategy strategy = Strategy::kLeast;
  int64_t weight = 1;
};

struct Proportion {
  double cpu = 1, memory = 1;
};

struct Config {
  int64_t weight = kDefaultWeight;
  std::map<std::string, ResourceStrategy> resources;  // exact names and "prefix*" patterns
  int64_t sra_weight = 0;                             // 0: sra off
  std::map<std::string, int64_t> sra_resources;
  int64_t sra_weight_sum = 0;
  std::optional<std::map<std::string, Proportion>> proportional;  // set: predicate on
};

// The configuration entry for `name`: exact, else the longest matching "prefix*".
const ResourceStrategy* FindStrategy(const Config& c, const std::string& name) {
  auto exact = c.resources.find(name);
  if (exact != c.resources.end()) return &exact->second;
  const ResourceStrategy* best = nullptr;
  size_t best_len = 0;
  for (const auto& [pattern, s] : c.resources) {
    if (pattern.empty() || pattern.back() != '*') continue;
    const std::string prefix = pattern.substr(0, pattern.size() - 1);
    if (name.compare(0, prefix.size(), prefix) == 0 && (!best || prefix.size() > best_len)) {
      best = &s;
      best_len = prefix.size();
    }
  }
  return best;
}

// The requested dimensions Volcano lists (cpu, memory, scalars; not pods), in a fixed order.
std::vector<std::pair<ResourceId, int64_t>> Requested(const Resource& r) {
  std::vector<std::pair<ResourceId, int64_t>> out;
  if (r.milli_cpu() > 0) out.push_back({ResourceNames::kCpu, r.milli_cpu()});
  if (r.memory() > 0) out.push_back({ResourceNames::kMemory, r.memory()});
  for (const auto& [id, v] : r.scalars()) {
    if (id != ResourceNames::kPods && v > 0) out.push_back({id, v});
  }
  return out;
}

// The pod's own strategy and weights (annotations); nullopt when it has none.
// An annotated pod without a readable weight map scores 0 (`*unusable`).
std::optional<std::pair<Strategy, std::map<std::string, int64_t>>> PodStrategy(const Pod& pod,
                                                                               bool* unusable) {
  auto type = pod.meta.annotations.find(kScoringTypeAnnotation);
  if (type == pod.meta.annotations.end() || type->second.empty()) return std::nullopt;
  const Strategy s = type->second == "MostAllocated"    ? Strategy::kMost
                     : type->second == "LeastAllocated" ? Strategy::kLeast
                                                        : Strategy::kOther;
  std::map<std::string, int64_t> weights;
  auto w = pod.meta.annotations.find(kScoringWeightAnnotation);
  nlohmann::json parsed = w == pod.meta.annotations.end()
                              ? nlohmann::json()
                              : nlohmann::json::parse(w->second, nullptr, false);
  if (!parsed.is_object()) {
    *unusable = true;
    return std::nullopt;
  }
  for (const auto& [name, v] : parsed.items()) {
    if (!v.is_number_integer()) {
      *unusable = true;
      return std::nullopt;
    }
    weights[name] = v.get<int64_t>();
  }
  return std::make_pair(s, std::move(weights));
}

double StrategyScore(const Config& c, const TaskInfo& task, const NodeInfo& node) {
  bool unusable = false;
  const auto pod_strategy = PodStrategy(*task.pod, &unusable);
  if (unusable) return 0;
  double score = 0;
  int64_t weight_sum = 0;
  for (const auto& [id, req] : Requested(task.request)) {
    const std::string& name = ResourceNames::Name(id);
    ResourceStrategy rs;
    if (pod_strategy) {
      auto it = pod_strategy->second.find(name);
      if (it == pod_strategy->second.end()) continue;
      rs = {pod_strategy->first, it->second};
    } else {
      const ResourceStrategy* found = FindStrategy(c, name);
      if (found == nullptr) continue;
      rs = *found;
    }
    const int64_t alloc = node.allocatable.Get(id);
    weight_sum += rs.weight;
    if (rs.strategy == Strategy::kOther || rs.weight == 0 || alloc == 0) continue;
    const int64_t used_finally = req + node.used().Get(id);
    if (used_finally > alloc) return 0;  // the node cannot hold it: no score at all
    const double kept = rs.strategy == Strategy::kMost ? static_cast<double>(used_finally)
                                                       : static_cast<double>(alloc - used_finally);
    score += kept * static_cast<double>(rs.weight) / static_cast<double>(alloc);
  }
  if (weight_sum > 0) score /= static_cast<double>(weight_sum);
  return score * kMaxNodeScore * static_cast<double>(c.weight);
}

double SraScore(const Config& c, const TaskInfo& task, const NodeInfo& node) {
  for (const auto& [id, req] : Requested(task.request)) {
    if (node.allocatable.Get(id) == 0) return 0;
  }
  double score = 0;
  for (const auto& [name, weight] : c.sra_resources) {
    ResourceId id;
    if (ResourceNames::Lookup(name, &id) && node.allocatable.Get(id) > 0) score += weight;
  }
  if (c.sra_weight_sum > 0) score = 1.0 - score / static_cast<double>(c.sra_weight_sum);
  return score * kMaxNodeScore * static_cast<double>(c.sra_weight);
}

PredicateStatus ProportionalFit(const std::map<std::string, Proportion>& proportional,
                                const TaskInfo& task, const NodeInfo& node) {
  for (const auto& [name, p] : proportional) {
    ResourceId id;
    if (ResourceNames::Lookup(name, &id) && task.request.Get(id) > 0)
      return PredicateStatus::Success();
  }
  const Resource& idle = node.idle();
  for (const auto& [name, p] : proportional) {
    ResourceId id;
    if (!ResourceNames::Lookup(name, &id) || !idle.Has(id)) continue;
    const double amount = static_cast<double>(idle.Get(id));  // thousandths of a unit
    const double cpu_left = static_cast<double>(idle.milli_cpu() - task.request.milli_cpu());
    const double memory_left = static_cast<double>(idle.memory() - task.request.memory());
    if (cpu_left < amount * p.cpu || memory_left < amount * p.memory * 1e6)
      return PredicateStatus::Unresolvable("proportional of resource " + name + " check failed");
  }
  return PredicateStatus::Success();
}

class ResourceStrategyFitPlugin : public Plugin {
 public:
  explicit ResourceStrategyFitPlugin(Config c) : c_(std::move(c)) {}
  std::string_view Name() const override { return "resource-strategy-fit"; }

  void OnSessionOpen(Session& ssn) override {
    if (c_.proportional) {
      ssn.AddPredicateFn([this](const TaskInfo& task, const NodeInfo& node) {
        return ProportionalFit(*c_.proportional, task, node);
      });
    }
    if (c_.weight <= 0 && c_.sra_weight <= 0) return;
    ssn.AddNodeOrderFn([this](const TaskInfo& task, const NodeInfo& node) {
      double score = 0;
      if (c_.weight > 0) score += StrategyScore(c_, task, node);
      if (c_.sra_weight > 0) score += SraScore(c_, task, node);
      return score;
    });
  }

 private:
  Config c_;
};

// ---- arguments ----

// A pattern Volcano accepts: no '*', or one '*' at the end after something.
bool ValidPattern(const std::string& p) {
  const auto stars = std::count(p.begin(), p.end(), '*');
  return stars == 0 || (stars == 1 && p.size() > 1 && p.back() == '*');
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// resources.<name>.type / .weight. Volcano reads the map as a whole: one value
// of the wrong type and the defaults apply.
Status ReadResources(const Arguments& args, Config* c) {
  std::map<std::string, ResourceStrategy> out;
  for (const auto& [key, value] : args.WithPrefix("resources.")) {
    const bool is_type = EndsWith(key, ".type"), is_weight = EndsWith(key, ".weight");
    if (!is_type && !is_weight) continue;  // reported as unknown
    const std::string name = key.substr(0, key.rfind('.'));
    ResourceStrategy& rs = out[name];
    if (is_type) {
      rs.strategy = value == "MostAllocated" ? Strategy::kMost : Strategy::kLeast;
      if (value != "MostAllocated" && value != "LeastAllocated")
        CliLog().warn(
            "warning: {}: arguments.resources.{}.type: unknown type \"{}\", "
            "LeastAllocated is used",
            args.owner(), name, value);
      continue;
    }
    int64_t w = INT64_MIN;  // stays so when lenient reading keeps a wrong type
    BASALT_RETURN_IF_ERROR(args.GetInt("resources." + key, &w));
    if (w == INT64_MIN) return Status::Ok();  // wrong type: Volcano keeps the defaults
    rs.weight = w <= 0 ? 1 : w;
  }
  const bool given = !out.empty();
  for (auto it = out.begin(); it != out.end();) {
    if (ValidPattern(it->first)) {
      ++it;
      continue;
    }
    CliLog().warn(
        "warning: {}: arguments.resources.{}: not a valid resource pattern (one '*', "
        "at the end, after a prefix), ignored",
        args.owner(), it->first);
    it = out.erase(it);
  }
  if (given) c->resources = std::move(out);
  return Status::Ok();
}

// Names of a comma-separated list, trimmed, empty ones skipped.
std::vector<std::string> NameList(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& piece : Split(text, ',')) {
    std::string name(Trim(piece));
    if (!name.empty()) out.push_back(std::move(name));
  }
  return out;
}

// sra.*: Volcano reads it as one object; a wrong type anywhere leaves sra off.
Status ReadSra(const Arguments& args, Config* c) {
  bool enable = false;
  std::string names;
  int64_t weight = 0;
  BASALT_RETURN_IF_ERROR(args.GetBool("sra.enable", &enable));
  BASALT_RETURN_IF_ERROR(args.GetString("sra.resources", &names));
  BASALT_RETURN_IF_ERROR(args.GetInt("sra.weight", &weight));
  const std::map<std::string, std::string> given = args.WithPrefix("sra.resourceWeight.");
  if (!enable) return Status::Ok();
  for (const std::string& name : NameList(names)) {
    int64_t w = 1;
    if (given.count(name)) BASALT_RETURN_IF_ERROR(args.GetInt("sra.resourceWeight." + name, &w));
    if (w < 0) w = 1;
    c->sra_resources[name] = w;
    c->sra_weight_sum += w;
  }
  c->sra_weight = weight;
  return Status::Ok();
}

Status ReadProportional(const Arguments& args, Config* c) {
  bool enable = false;
  std::string names;
  BASALT_RETURN_IF_ERROR(args.GetBool("proportional.enable", &enable));
  BASALT_RETURN_IF_ERROR(args.GetString("proportional.resources", &names));
  args.WithPrefix("proportional.resourceProportion.");  // read per name below
  if (!enable) return Status::Ok();
  std::map<std::string, Proportion> out;
  for (const std::string& name : NameList(names)) {
    Proportion p;
    const std::string base = "proportional.resourceProportion." + name;
    BASALT_RETURN_IF_ERROR(args.GetDouble(base + ".cpu", &p.cpu));
    BASALT_RETURN_IF_ERROR(args.GetDouble(base + ".memory", &p.memory));
    if (p.cpu < 0) p.cpu = 1;
    if (p.memory < 0) p.memory = 1;
    out[name] = p;
  }
  c->proportional = std::move(out);
  return Status::Ok();
}

// The part of `key` to name as unknown, or "" when the plugin reads it.
std::string UnknownPart(const std::string& key) {
  auto starts = [&key](const char* p) { return key.rfind(p, 0) == 0; };
  if (key == "resourceStrategyFitWeight") return "";
  if (starts("resources.")) return EndsWith(key, ".type") || EndsWith(key, ".weight") ? "" : key;
  if (key == "sra.enable" || key == "sra.resources" || key == "sra.weight" ||
      starts("sra.resourceWeight."))
    return "";
  if (key == "proportional.enable" || key == "proportional.resources") return "";
  if (starts("proportional.resourceProportion."))
    return EndsWith(key, ".cpu") || EndsWith(key, ".memory") ? "" : key;
  return key;
}

}  // namespace

Result<std::unique_ptr<Plugin>> NewResourceStrategyFitPlugin(const Arguments& args) {
  Config c;
  c.resources = {{"cpu", {Strategy::kLeast, 1}}, {"memory", {Strategy::kLeast, 1}}};
  BASALT_RETURN_IF_ERROR(args.GetInt("resourceStrategyFitWeight", &c.weight));
  if (c.weight < 0) c.weight = kDefaultWeight;
  BASALT_RETURN_IF_ERROR(ReadResources(args, &c));
  BASALT_RETURN_IF_ERROR(ReadSra(args, &c));
  BASALT_RETURN_IF_ERROR(ReadProportional(args, &c));
  WarnUnknownArguments(args, UnknownPart,
                       "resourceStrategyFitWeight, resources.<name>.type, "
                       "resources.<name>.weight, sra.enable, sra.resources, sra.weight, "
                       "sra.resourceWeight.<name>, proportional.enable, proportional.resources, "
                       "proportional.resourceProportion.<name>.cpu and .memory");
  return std::unique_ptr<Plugin>(new ResourceStrategyFitPlugin(std::move(c)));
}

}  // namespace basalt
