#include "sim/placement_quality.h"

#include <algorithm>
#include <climits>
#include <set>
#include <sstream>

#include "api/hypernode.h"
#include "sim/metrics.h"

namespace basalt {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kJobNameAnnotation = "volcano.sh/job-name";

// How many pods of `request` fit on an empty node of `allocatable`.
int64_t PodsThatFit(const Resource& allocatable, const Resource& request) {
  int64_t fit = INT64_MAX;
  auto limit = [&](int64_t have, int64_t need) {
    if (need > 0) fit = std::min(fit, have / need);
  };
  limit(allocatable.milli_cpu(), request.milli_cpu());
  limit(allocatable.memory(), request.memory());
  for (const auto& [id, need] : request.scalars()) limit(allocatable.Get(id), need);
  return fit == INT64_MAX ? 0 : fit;
}

// The job's largest pod (most GPUs, then cpu, then memory): the one the
// fewest-leaves bound is computed for.
Resource LargestPod(const VcJob& job) {
  const ResourceId gpu = ResourceNames::Intern("nvidia.com/gpu");
  Resource best;
  auto key = [&](const Resource& r) {
    return std::make_tuple(r.Get(gpu), r.milli_cpu(), r.memory());
  };
  for (const JobTask& t : job.tasks) {
    if (key(t.template_spec.request) > key(best)) best = t.template_spec.request;
  }
  return best;
}

std::string ModeOf(const std::optional<NetworkTopologySpec>& spec) {
  if (!spec) return "none";
  return spec->mode == NetworkTopologySpec::Mode::kSoft ? "soft" : "hard";
}

double Share(int64_t part, int64_t whole) {
  return whole > 0 ? Round4(static_cast<double>(part) / static_cast<double>(whole)) : 0.0;
}

// Aggregates over a set of placed jobs.
struct Tally {
  int64_t submitted = 0, placed = 0, one_leaf = 0, minimal = 0, above_allowed = 0;
  int64_t tier_sum = 0, leaves_sum = 0, extra_leaves_sum = 0;
  std::map<int32_t, int64_t> by_tier;
  std::vector<int64_t> waits;

  void Add(const JobPlacement& p) {
    ++submitted;
    if (p.started < 0) return;
    ++placed;
    one_leaf += p.leaves == 1;
    minimal += p.leaves <= p.min_leaves;
    tier_sum += p.tier_spanned;
    leaves_sum += p.leaves;
    extra_leaves_sum += std::max(0, p.leaves - p.min_leaves);
    ++by_tier[p.tier_spanned];
    if (p.mode == "hard" && p.highest_tier && p.tier_spanned > *p.highest_tier) ++above_allowed;
    waits.push_back(p.started - p.arrived);
  }

  Json ToJson() const {
    std::vector<int64_t> sorted = waits;
    std::sort(sorted.begin(), sorted.end());
    const double n = static_cast<double>(std::max<int64_t>(placed, 1));
    Json tiers = Json::object();
    for (const auto& [tier, count] : by_tier) tiers[std::to_string(tier)] = count;
    return {{"jobs_submitted", submitted},
            {"jobs_placed", placed},
            {"jobs_never_placed", submitted - placed},
            {"within_one_leaf", Share(one_leaf, placed)},
            {"fewest_leaves", Share(minimal, placed)},
            {"mean_tier_spanned", Round4(static_cast<double>(tier_sum) / n)},
            {"mean_leaves", Round4(static_cast<double>(leaves_sum) / n)},
            {"mean_extra_leaves", Round4(static_cast<double>(extra_leaves_sum) / n)},
            {"hard_above_allowed_tier", above_allowed},
            {"jobs_by_tier_spanned", tiers},
            {"wait_seconds",
             {{"p50", Percentile(sorted, 50)},
              {"p90", Percentile(sorted, 90)},
              {"max", sorted.empty() ? 0 : sorted.back()}}}};
  }
};

}  // namespace

PlacementQuality::PlacementQuality(const ClusterState& state, std::string jobs_mode)
    : jobs_mode_(std::move(jobs_mode)) {
  // A node's leaf: the lowest-tier HyperNode selecting it (earliest name on a tie).
  std::map<std::string, std::pair<int32_t, std::string>> leaf;
  for (const auto& [name, h] : state.hypernodes()) {
    tier_of_[name] = h.tier;
    tier_name_of_[name] = h.tier_name;
    top_tier_ = std::max(top_tier_, h.tier);
    for (const HyperNodeMember& m : h.members) {
      if (m.type == HyperNodeMember::Type::kHyperNode) {
        parent_of_[m.exact_name] = name;
        continue;
      }
      for (const auto& [node_name, node] : state.nodes()) {
        if (!MemberMatchesNode(m, node)) continue;
        auto it = leaf.find(node_name);
        if (it == leaf.end() || h.tier < it->second.first) leaf[node_name] = {h.tier, name};
      }
    }
  }
  for (const auto& [node_name, tier_and_leaf] : leaf) {
    leaf_of_node_[node_name] = tier_and_leaf.second;
    allocatable_of_leaf_[tier_and_leaf.second].push_back(state.nodes().at(node_name).allocatable);
  }
}

std::optional<int32_t> PlacementQuality::TierNamed(const std::string& name) const {
  std::optional<int32_t> tier;
  for (const auto& [h, tier_name] : tier_name_of_) {
    if (tier_name == name && (!tier || tier_of_.at(h) < *tier)) tier = tier_of_.at(h);
  }
  return tier;
}

void PlacementQuality::OnJobSubmitted(const VcJob& job, const std::string& workload, int64_t t) {
  JobPlacement p;
  p.workload = workload;
  p.mode = ModeOf(job.network_topology);
  if (job.network_topology) {
    p.highest_tier = job.network_topology->highest_tier_allowed;
    if (!job.network_topology->highest_tier_name.empty())
      p.highest_tier = TierNamed(job.network_topology->highest_tier_name);
  }
  for (const JobTask& task : job.tasks) p.pods += task.replicas;
  p.arrived = t;
  p.min_leaves = MinLeaves(LargestPod(job), p.pods);
  jobs_[job.meta.Key()] = std::move(p);
}

void PlacementQuality::OnGangStarted(const std::string& key, const ClusterState& state, int64_t t) {
  auto it = jobs_.find(key);
  const VcJob* job = state.FindJob(key);
  if (it == jobs_.end() || it->second.started >= 0 || !job) return;
  std::set<std::string> nodes, leaves;
  bool outside = false;  // a pod on a node in no HyperNode
  const std::string prefix = key + "-";
  for (auto p = state.pods().lower_bound(prefix);
       p != state.pods().end() && p->first.starts_with(prefix); ++p) {
    const Pod& pod = p->second;
    auto jn = pod.meta.annotations.find(kJobNameAnnotation);
    if (jn == pod.meta.annotations.end() || jn->second != job->meta.name) continue;
    if (pod.spec.node_name.empty() || pod.meta.deleting || pod.phase != "Running") continue;
    nodes.insert(pod.spec.node_name);
    auto l = leaf_of_node_.find(pod.spec.node_name);
    if (l == leaf_of_node_.end()) {
      outside = true;
    } else {
      leaves.insert(l->second);
    }
  }
  JobPlacement& placement = it->second;
  placement.started = t;
  placement.nodes = static_cast<int32_t>(nodes.size());
  placement.leaves = static_cast<int32_t>(leaves.size());
  const Span span = SpanOf({leaves.begin(), leaves.end()}, outside);
  placement.tier_spanned = span.tier;
  placement.spanned_hypernode = span.hypernode;
}

// The lowest HyperNode that is an ancestor (or self) of every leaf.
PlacementQuality::Span PlacementQuality::SpanOf(const std::vector<std::string>& leaves,
                                                bool outside) const {
  const Span above{top_tier_ + 1, ""};
  if (outside || leaves.empty()) return above;
  std::vector<std::string> chain;  // the first leaf and its ancestors, lowest first
  for (std::string h = leaves.front(); !h.empty();) {
    chain.push_back(h);
    auto p = parent_of_.find(h);
    h = p == parent_of_.end() ? "" : p->second;
    if (chain.size() > tier_of_.size()) break;  // the tree was validated; never loop
  }
  size_t lowest = 0;
  for (const std::string& leaf : leaves) {
    std::set<std::string> ancestors;
    for (std::string h = leaf; !h.empty() && ancestors.size() <= tier_of_.size();) {
      ancestors.insert(h);
      auto p = parent_of_.find(h);
      h = p == parent_of_.end() ? "" : p->second;
    }
    while (lowest < chain.size() && !ancestors.count(chain[lowest])) ++lowest;
    if (lowest == chain.size()) return above;
  }
  auto tier = tier_of_.find(chain[lowest]);
  return {tier == tier_of_.end() ? top_tier_ + 1 : tier->second, chain[lowest]};
}

int32_t PlacementQuality::MinLeaves(const Resource& pod_request, int32_t pods) {
  const std::string cache_key = pod_request.ToString() + "|" + std::to_string(pods);
  auto cached = min_leaves_cache_.find(cache_key);
  if (cached != min_leaves_cache_.end()) return cached->second;
  std::vector<int64_t> capacity;
  for (const auto& [leaf, nodes] : allocatable_of_leaf_) {
    int64_t fit = 0;
    for (const Resource& alloc : nodes) fit += PodsThatFit(alloc, pod_request);
    capacity.push_back(fit);
  }
  std::sort(capacity.rbegin(), capacity.rend());
  int32_t leaves = 0;
  int64_t held = 0;
  for (int64_t c : capacity) {
    if (held >= pods || c == 0) break;
    held += c;
    ++leaves;
  }
  return min_leaves_cache_[cache_key] = leaves;
}

Json PlacementQuality::SummaryJson() const {
  Tally all;
  std::map<int32_t, Tally> by_size;
  std::map<std::string, Tally> by_workload;
  for (const auto& [key, p] : jobs_) {
    all.Add(p);
    by_size[p.pods].Add(p);
    by_workload[p.workload].Add(p);
  }
  Json out = {{"jobs", jobs_mode_}, {"top_tier", top_tier_}, {"hypernodes", tier_of_.size()}};
  out["tier_names"] = TierNamesJson();
  const Json totals = all.ToJson();  // items() would not keep a temporary alive
  for (const auto& [k, v] : totals.items()) out[k] = v;
  Json sizes = Json::array();
  for (const auto& [pods, tally] : by_size) {
    Json row = {{"pods", pods}};
    const Json totals_of_size = tally.ToJson();
    for (const auto& [k, v] : totals_of_size.items()) row[k] = v;
    sizes.push_back(std::move(row));
  }
  out["by_gang_size"] = std::move(sizes);
  Json workloads = Json::object();
  for (const auto& [name, tally] : by_workload) workloads[name] = tally.ToJson();
  out["by_workload"] = std::move(workloads);
  out["placement_columns"] = {"job",
                              "workload",
                              "mode",
                              "highest_tier_allowed",
                              "pods",
                              "wait_seconds",
                              "nodes",
                              "leaves",
                              "min_leaves",
                              "tier_spanned",
                              "spanned_hypernode"};
  out["placements"] = PlacementsJson();
  return out;
}

// One compact row per job, in `placement_columns` order (the report's per-job
// table; topology.csv holds the same rows).
Json PlacementQuality::PlacementsJson() const {
  Json rows = Json::array();
  for (const auto& [key, p] : jobs_) {
    const bool placed = p.started >= 0;
    rows.push_back({key, p.workload, p.mode, p.highest_tier ? Json(*p.highest_tier) : Json(nullptr),
                    p.pods, placed ? Json(p.started - p.arrived) : Json(nullptr),
                    placed ? Json(p.nodes) : Json(nullptr), placed ? Json(p.leaves) : Json(nullptr),
                    p.min_leaves, placed ? Json(p.tier_spanned) : Json(nullptr),
                    p.spanned_hypernode});
  }
  return rows;
}

// Tier -> spec.tierName (the first name in HyperNode name order).
Json PlacementQuality::TierNamesJson() const {
  std::map<int32_t, std::string> names;
  for (const auto& [h, name] : tier_name_of_) {
    if (!name.empty()) names.emplace(tier_of_.at(h), name);
  }
  Json out = Json::object();
  for (const auto& [tier, name] : names) out[std::to_string(tier)] = name;
  return out;
}

std::string PlacementQuality::Csv() const {
  std::ostringstream os;
  os << "job,workload,mode,highest_tier_allowed,pods,arrived,started,wait_seconds,nodes,leaves,"
        "min_leaves,tier_spanned,spanned_hypernode\n";
  for (const auto& [key, p] : jobs_) {
    os << key << "," << p.workload << "," << p.mode << ","
       << (p.highest_tier ? std::to_string(*p.highest_tier) : "") << "," << p.pods << ","
       << p.arrived << ",";
    if (p.started < 0) {
      os << ",,,," << p.min_leaves << ",,\n";
      continue;
    }
    os << p.started << "," << p.started - p.arrived << "," << p.nodes << "," << p.leaves << ","
       << p.min_leaves << "," << p.tier_spanned << "," << p.spanned_hypernode << "\n";
  }
  return os.str();
}

}  // namespace basalt
