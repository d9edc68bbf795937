#include "sim/colocation.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "agent/pod_qos.h"
#include "agent/policy.h"
#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/scenario_reader.h"
#include "sim/workload.h"
#include "state/cluster_state.h"

namespace basalt {
namespace {

constexpr int64_t kNanos = 1'000'000'000;
constexpr double kGiB = 1024.0 * 1024 * 1024;

// The scenario parser's reader (errors read `file:line: field: problem`) with
// the two reads this section adds.
class SectionReader : public scenario_yaml::Reader {
 public:
  explicit SectionReader(const std::string& file) : Reader(file) {}
  static int Line(const YAML::Node& n) { return n.IsDefined() ? n.Mark().line + 1 : 0; }
  // A share of requests in [0, hi], with the range in the message.
  Status Share(const YAML::Node& n, const std::string& field, double hi, double* out) const {
    if (!n.IsScalar()) return Error(n, field, "must be a number");
    auto v = Double(n, field, 0, hi);
    if (!v.ok()) {
      return Error(n, field,
                   "must be a number from 0 to " + Trim(hi) + ", got \"" + n.Scalar() + "\"");
    }
    *out = *v;
    return Status::Ok();
  }
  Status Seconds(const YAML::Node& n, const std::string& field, int64_t lo, int64_t* out) const {
    BASALT_ASSIGN_OR_RETURN(*out, Duration(n, field, lo));
    return Status::Ok();
  }
  static std::string Trim(double v) {
    std::string s = std::to_string(v);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }
};

// A share of requests: at most 4 (a pod may use more than it requests).
constexpr double kMaxShare = 4.0;

Status ParseCurve(const SectionReader& r, const YAML::Node& n, const std::string& f,
                  UsageCurve* c) {
  if (n.IsScalar()) {
    c->kind = "constant";
    return r.Share(n, f, kMaxShare, &c->value);
  }
  BASALT_RETURN_IF_ERROR(r.KnownKeys(n, f, {"curve", "min", "max", "period", "peak_at", "points"}));
  if (!n["curve"] || !n["curve"].IsScalar())
    return r.Error(n, f + ".curve", "required (sine or table)");
  c->kind = n["curve"].Scalar();
  if (n["period"]) BASALT_RETURN_IF_ERROR(r.Seconds(n["period"], f + ".period", 60, &c->period));
  if (c->kind == "sine") {
    if (!n["min"] || !n["max"]) return r.Error(n, f, "curve sine needs min and max");
    BASALT_RETURN_IF_ERROR(r.Share(n["min"], f + ".min", kMaxShare, &c->min));
    BASALT_RETURN_IF_ERROR(r.Share(n["max"], f + ".max", kMaxShare, &c->max));
    if (c->min > c->max) return r.Error(n["min"], f + ".min", "must not exceed max");
    if (n["peak_at"])
      BASALT_RETURN_IF_ERROR(r.Seconds(n["peak_at"], f + ".peak_at", 0, &c->peak_at));
    return Status::Ok();
  }
  if (c->kind != "table")
    return r.Error(n["curve"], f + ".curve", "unknown curve \"" + c->kind + "\" (sine or table)");
  const YAML::Node pts = n["points"];
  if (!pts || !pts.IsSequence() || pts.size() == 0)
    return r.Error(n, f + ".points", "curve table needs a non-empty list of [time, share]");
  for (size_t i = 0; i < pts.size(); ++i) {
    const std::string pf = f + ".points[" + std::to_string(i) + "]";
    if (!pts[i].IsSequence() || pts[i].size() != 2)
      return r.Error(pts[i], pf, "must be [time, share]");
    int64_t at = 0;
    double share = 0;
    BASALT_RETURN_IF_ERROR(r.Seconds(pts[i][0], pf + "[0]", 0, &at));
    BASALT_RETURN_IF_ERROR(r.Share(pts[i][1], pf + "[1]", kMaxShare, &share));
    if (!c->points.empty() && at <= c->points.back().first)
      return r.Error(pts[i], pf, "times must increase");
    c->points.emplace_back(at, share);
  }
  if (!n["period"]) c->period = 0;  // a table repeats only when asked to
  return Status::Ok();
}

Status ParseOnline(const SectionReader& r, const YAML::Node& n, const std::string& f,
                   OnlineUsage* u) {
  BASALT_RETURN_IF_ERROR(r.KnownKeys(n, f, {"workload", "cpu", "memory", "noise"}));
  u->yaml_line = SectionReader::Line(n);
  if (!n["workload"] || !n["workload"].IsScalar())
    return r.Error(n, f + ".workload", "required (a workload name of this scenario)");
  u->workload = n["workload"].Scalar();
  if (n["cpu"]) BASALT_RETURN_IF_ERROR(ParseCurve(r, n["cpu"], f + ".cpu", &u->cpu));
  if (n["memory"]) BASALT_RETURN_IF_ERROR(ParseCurve(r, n["memory"], f + ".memory", &u->memory));
  if (n["noise"]) BASALT_RETURN_IF_ERROR(r.Share(n["noise"], f + ".noise", 1.0, &u->noise));
  return Status::Ok();
}

// Simulated seconds -> the agent's monotonic nanoseconds.
int64_t Nanos(int64_t t) { return t * kNanos; }

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t HashText(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a: the same on every platform
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

agent::AgentPod AsAgentPod(const Pod& pod) {
  static const ResourceId batch_cpu = ResourceNames::Intern(agent::kBatchCpuResource);
  static const ResourceId batch_memory = ResourceNames::Intern(agent::kBatchMemoryResource);
  agent::AgentPod p;
  p.namespace_ = pod.meta.namespace_;
  p.name = pod.meta.name;
  p.uid = pod.meta.uid;
  p.node_name = pod.spec.node_name;
  p.phase = pod.phase;
  p.priority = pod.spec.has_priority ? pod.spec.priority : 0;
  p.annotations = pod.meta.annotations;
  p.cpu_request_milli = pod.spec.request.milli_cpu();
  p.memory_request_bytes = pod.spec.request.memory();
  // Extended resources are stored in milli-units: batch-cpu counts millicores.
  p.batch_cpu_request_milli = pod.spec.request.Get(batch_cpu) / 1000;
  p.batch_memory_request_bytes = pod.spec.request.Get(batch_memory) / 1000;
  p.qos_class = p.cpu_request_milli == 0 && p.memory_request_bytes == 0 ? "BestEffort"
                : pod.spec.qos_guaranteed                               ? "Guaranteed"
                                                                        : "Burstable";
  return p;
}

std::string WorkloadOf(const Pod& pod) {
  constexpr std::string_view kPrefix = "simulate:";
  const std::string& s = pod.meta.source;
  return s.starts_with(kPrefix) ? s.substr(kPrefix.size()) : "";
}

}  // namespace

double UsageCurve::At(int64_t t) const {
  if (kind == "constant") return value;
  if (kind == "sine") {
    const double phase =
        2 * std::numbers::pi * static_cast<double>(t - peak_at) / static_cast<double>(period);
    return min + (max - min) * (1 + std::cos(phase)) / 2;
  }
  if (points.empty()) return 0;
  const int64_t x = period > 0 ? ((t % period) + period) % period : t;
  double v = points.front().second;
  for (const auto& [at, share] : points) {
    if (at > x) break;
    v = share;
  }
  return v;
}

Status ParseColocation(const YAML::Node& n, const std::string& file, ColocationSpec* out) {
  SectionReader r(file);
  const std::string f = "colocation";
  BASALT_RETURN_IF_ERROR(r.KnownKeys(n, f, {"agent", "pools", "online", "offline"}));
  out->yaml_line = SectionReader::Line(n);
  if (const YAML::Node a = n["agent"]) {
    // The agent's own decoder: the same fields, defaults and checks as its file.
    YAML::Emitter text;
    text << a;
    auto config = agent::ParseAgentConfig(
        text.c_str(), file + ":" + std::to_string(SectionReader::Line(a)), f + ".agent");
    if (!config.ok()) return config.status();
    out->agent = *config;
  }
  if (const YAML::Node p = n["pools"]) {
    if (!p.IsSequence()) return r.Error(p, f + ".pools", "must be a list of pool names");
    for (size_t i = 0; i < p.size(); ++i) {
      if (!p[i].IsScalar())
        return r.Error(p[i], f + ".pools[" + std::to_string(i) + "]", "must be a pool name");
      out->pools.push_back(p[i].Scalar());
      out->pool_lines.push_back(SectionReader::Line(p[i]));
    }
  }
  if (const YAML::Node o = n["online"]) {
    if (!o.IsSequence()) return r.Error(o, f + ".online", "must be a list of {workload, cpu, ...}");
    std::set<std::string> seen;
    for (size_t i = 0; i < o.size(); ++i) {
      const std::string of = f + ".online[" + std::to_string(i) + "]";
      OnlineUsage u;
      BASALT_RETURN_IF_ERROR(ParseOnline(r, o[i], of, &u));
      if (!seen.insert(u.workload).second)
        return r.Error(o[i]["workload"], of + ".workload", "listed twice");
      out->online.push_back(std::move(u));
    }
  }
  if (const YAML::Node b = n["offline"]) {
    BASALT_RETURN_IF_ERROR(r.KnownKeys(b, f + ".offline", {"cpu", "memory"}));
    if (b["cpu"])
      BASALT_RETURN_IF_ERROR(r.Share(b["cpu"], f + ".offline.cpu", kMaxShare, &out->offline_cpu));
    if (b["memory"]) {
      BASALT_RETURN_IF_ERROR(
          r.Share(b["memory"], f + ".offline.memory", kMaxShare, &out->offline_memory));
    }
  }
  return Status::Ok();
}

Result<ColocationModel> ColocationModel::Create(const ColocationSpec& spec, const std::string& file,
                                                uint64_t seed,
                                                const std::vector<const Node*>& nodes,
                                                const std::set<std::string>& workloads) {
  ColocationModel m;
  m.spec_ = spec;
  m.seed_ = seed;
  m.period_ = std::max<int64_t>(1, spec.agent.sampling_period_nanos / kNanos);
  for (size_t i = 0; i < spec.online.size(); ++i) {
    const OnlineUsage& u = spec.online[i];
    if (!workloads.count(u.workload)) {
      return Status::InvalidArgument(
          file + ":" + std::to_string(u.yaml_line) + ": colocation.online[" + std::to_string(i) +
          "].workload: unknown workload \"" + u.workload + "\" (name one under workloads:)");
    }
    m.usage_of_workload_[u.workload] = i;
  }
  for (const Node* n : nodes) {
    NodeAgent a;
    a.name = n->meta.name;
    a.base_allocatable = n->allocatable;
    a.online_cpu.set_window(spec.agent.window_nanos);
    a.online_memory.set_window(spec.agent.window_nanos);
    m.node_index_[a.name] = m.nodes_.size();
    m.nodes_.push_back(std::move(a));
  }
  return m;
}

ColocationModel::PodUse ColocationModel::FactsOf(const Pod& pod, int64_t t) const {
  const agent::AgentPod ap = AsAgentPod(pod);
  PodUse u;
  u.key = ap.Key();
  u.key_hash = Mix(HashText(u.key));
  u.level = agent::QosLevelOf(ap);
  u.priority = ap.priority;
  u.start_time = kSimEpoch + t;
  u.cpu_requested = ap.cpu_request_milli + ap.batch_cpu_request_milli;
  u.memory_requested = ap.memory_request_bytes + ap.batch_memory_request_bytes;
  if (agent::IsOnline(u.level)) {
    auto w = usage_of_workload_.find(WorkloadOf(pod));
    if (w != usage_of_workload_.end()) u.usage = static_cast<int>(w->second);
  }
  return u;
}

std::vector<ColocationModel::PodUse> ColocationModel::UsesOn(const std::vector<const Pod*>& pods,
                                                             int64_t t) {
  std::vector<PodUse> uses;
  uses.reserve(pods.size());
  for (const Pod* pod : pods) {
    // A pod's facts are taken the first period it is seen Running (its start).
    auto [it, fresh] = facts_.try_emplace(pod->meta.Key());
    if (fresh) it->second = FactsOf(*pod, t);
    PodUse u = it->second;
    double cpu_share = spec_.offline_cpu, memory_share = spec_.offline_memory;
    if (agent::IsOnline(u.level)) {
      cpu_share = memory_share = 1.0;  // no curve: a pod uses what it requests
      if (u.usage >= 0) {
        const OnlineUsage& ou = spec_.online[static_cast<size_t>(u.usage)];
        const uint64_t h = Mix(seed_ ^ u.key_hash ^ Mix(static_cast<uint64_t>(t)));
        const double jitter = 1.0 + ou.noise * (static_cast<double>(h >> 11) * 0x1.0p-52 - 1.0);
        cpu_share = ou.cpu.At(t) * jitter;
        memory_share = ou.memory.At(t);
      }
    }
    u.cpu_used = std::llround(static_cast<double>(u.cpu_requested) * std::max(0.0, cpu_share));
    u.memory_used =
        std::llround(static_cast<double>(u.memory_requested) * std::max(0.0, memory_share));
    uses.push_back(std::move(u));
  }
  return uses;
}

Node ColocationModel::Reported(const NodeAgent& n, const Node& current,
                               const agent::OversoldFigures& f) const {
  static const ResourceId batch_cpu = ResourceNames::Intern(agent::kBatchCpuResource);
  static const ResourceId batch_memory = ResourceNames::Intern(agent::kBatchMemoryResource);
  Node node = current;
  if (spec_.agent.mode == agent::ReportMode::kExtend) {
    // The quantities the agent writes ("4200" millicores, bytes) in milli-units.
    for (Resource* r : {&node.allocatable, &node.capacity}) {
      r->Set(batch_cpu, f.cpu_milli * 1000);
      r->Set(batch_memory, f.memory_bytes * 1000);
    }
  } else {
    node.allocatable.set_milli_cpu(n.base_allocatable.milli_cpu() + f.cpu_milli);
    node.allocatable.Set(ResourceNames::kMemory, n.base_allocatable.memory() + f.memory_bytes);
  }
  return node;
}

// As the agent does: the CPU pass first; its victims count as freed (leaving)
// in the memory pass.
void ColocationModel::EvictUnderPressure(const std::vector<PodUse>& uses, int64_t node_cpu,
                                         int64_t cpu_capacity, int64_t node_memory,
                                         int64_t memory_capacity, AgentPeriodResult* result) {
  const agent::AgentConfig& c = spec_.agent;
  std::vector<agent::EvictionCandidate> by_cpu, by_memory;
  for (const PodUse& u : uses) {
    by_cpu.push_back({u.key, u.level, u.priority, u.start_time, u.cpu_used, false});
  }
  auto cpu_victims = agent::PickEvictionVictims(by_cpu, node_cpu, cpu_capacity, c.cpu_watermarks);
  std::set<std::string> leaving(cpu_victims.begin(), cpu_victims.end());
  for (const PodUse& u : uses) {
    by_memory.push_back(
        {u.key, u.level, u.priority, u.start_time, u.memory_used, leaving.count(u.key) > 0});
  }
  auto memory_victims =
      agent::PickEvictionVictims(by_memory, node_memory, memory_capacity, c.memory_watermarks);
  evictions_ += static_cast<int64_t>(cpu_victims.size() + memory_victims.size());
  evictions_memory_ += static_cast<int64_t>(memory_victims.size());
  for (auto& v : cpu_victims) result->evict.push_back(std::move(v));
  for (auto& v : memory_victims) result->evict.push_back(std::move(v));
}

std::optional<agent::OversoldFigures> ColocationModel::TickNode(NodeAgent& n,
                                                                const std::vector<PodUse>& uses,
                                                                int64_t t,
                                                                AgentPeriodResult* result) {
  const agent::AgentConfig& c = spec_.agent;
  const int64_t cpu_capacity = n.base_allocatable.milli_cpu();
  const int64_t memory_capacity = n.base_allocatable.memory();
  agent::OnlineDemand demand;
  int64_t online_cpu = 0, online_memory = 0, be_cpu = 0, be_memory = 0, be_requested = 0;
  for (const PodUse& u : uses) {
    if (agent::IsOnline(u.level)) {
      demand.cpu_requested_milli += u.cpu_requested;
      demand.memory_requested_bytes += u.memory_requested;
      online_cpu += u.cpu_used;
      online_memory += u.memory_used;
    } else {
      be_requested += u.cpu_requested;
      be_cpu += u.cpu_used;
      be_memory += u.memory_used;
    }
  }
  // The node cannot run more CPU than it has; memory has no such ceiling.
  const int64_t node_cpu = std::min(cpu_capacity, online_cpu + be_cpu);
  const int64_t node_memory = online_memory + be_memory;
  n.online_cpu.Add(Nanos(t), online_cpu);
  n.online_memory.Add(Nanos(t), online_memory);
  demand.cpu_peak_milli = n.online_cpu.Max();
  demand.memory_peak_bytes = n.online_memory.Max();
  std::optional<agent::OversoldFigures> due;
  if (c.oversubscription) {
    due = agent::OversoldReportDue(c.oversold_policy(), n.last, demand, Nanos(t));
    if (due) {
      n.last.Record(*due, Nanos(t));
      ++reports_;
    }
  }
  if (c.eviction) {
    EvictUnderPressure(uses, node_cpu, cpu_capacity, node_memory, memory_capacity, result);
  }
  if (cpu_capacity > 0 && node_cpu * 100 >= cpu_capacity * c.cpu_watermarks.high_percent)
    ++node_periods_at_high_watermark_;
  now_.cpu_capacity += cpu_capacity;
  now_.cpu_online_requested += demand.cpu_requested_milli;
  now_.cpu_online_used += online_cpu;
  now_.cpu_oversold += n.last.cpu_milli.value_or(0);
  now_.cpu_be_requested += be_requested;
  now_.cpu_be_used += std::min(be_cpu, cpu_capacity - std::min(cpu_capacity, online_cpu));
  now_.memory_capacity += memory_capacity;
  now_.memory_online_requested += demand.memory_requested_bytes;
  now_.memory_online_used += online_memory;
  now_.memory_oversold += n.last.memory_bytes.value_or(0);
  now_.memory_be_used += be_memory;
  if (cpu_capacity > 0) {
    now_.node_cpu_peak_percent =
        std::max(now_.node_cpu_peak_percent, node_cpu * 100 / cpu_capacity);
  }
  return due;
}

AgentPeriodResult ColocationModel::Tick(int64_t t, const ClusterState& state) {
  AgentPeriodResult result;
  std::vector<std::vector<const Pod*>> on_node(nodes_.size());
  for (const auto& [key, pod] : state.pods()) {
    if (pod.spec.node_name.empty() || pod.meta.deleting || pod.phase != "Running") continue;
    auto it = node_index_.find(pod.spec.node_name);
    if (it != node_index_.end()) on_node[it->second].push_back(&pod);
  }
  // A pod that stopped Running starts again when it is next seen.
  std::erase_if(facts_, [&](const auto& kv) {
    const Pod* p = state.FindPod(kv.first);
    return !p || p->meta.deleting || p->phase != "Running";
  });
  now_ = Totals{};
  for (size_t i = 0; i < nodes_.size(); ++i) {
    auto found = state.nodes().find(nodes_[i].name);
    if (found == state.nodes().end() || !found->second.ready) continue;  // a failed node: no agent
    const Node* node = &found->second;
    auto due = TickNode(nodes_[i], UsesOn(on_node[i], t), t, &result);
    if (due) result.node_updates.push_back(Reported(nodes_[i], *node, *due));
  }
  Accumulate(t);
  return result;
}

void ColocationModel::Accumulate(int64_t t) {
  ++periods_;
  sums_.cpu_capacity += now_.cpu_capacity;
  sums_.cpu_online_requested += now_.cpu_online_requested;
  sums_.cpu_online_used += now_.cpu_online_used;
  sums_.cpu_oversold += now_.cpu_oversold;
  sums_.cpu_be_requested += now_.cpu_be_requested;
  sums_.cpu_be_used += now_.cpu_be_used;
  sums_.memory_capacity += now_.memory_capacity;
  sums_.memory_online_requested += now_.memory_online_requested;
  sums_.memory_online_used += now_.memory_online_used;
  sums_.memory_oversold += now_.memory_oversold;
  sums_.memory_be_used += now_.memory_be_used;
  sums_.node_cpu_peak_percent = std::max(sums_.node_cpu_peak_percent, now_.node_cpu_peak_percent);
  if (now_.cpu_online_used > online_cpu_peak_) {
    online_cpu_peak_ = now_.cpu_online_used;
    online_cpu_peak_t_ = t;
    online_cpu_peak_capacity_ = now_.cpu_capacity;
  }
}

std::map<std::string, double> ColocationModel::SampleValues() const {
  auto cores = [](int64_t milli) { return Round4(static_cast<double>(milli) / 1000.0); };
  auto gib = [](int64_t bytes) { return Round4(static_cast<double>(bytes) / kGiB); };
  return {
      {"cpu_capacity", cores(now_.cpu_capacity)},
      {"cpu_online_requested", cores(now_.cpu_online_requested)},
      {"cpu_online_used", cores(now_.cpu_online_used)},
      {"cpu_oversold", cores(now_.cpu_oversold)},
      {"cpu_be_requested", cores(now_.cpu_be_requested)},
      {"cpu_be_used", cores(now_.cpu_be_used)},
      {"memory_online_used_gib", gib(now_.memory_online_used)},
      {"memory_oversold_gib", gib(now_.memory_oversold)},
      {"memory_be_used_gib", gib(now_.memory_be_used)},
      {"node_cpu_peak_percent", static_cast<double>(now_.node_cpu_peak_percent)},
      {"agent_evictions", static_cast<double>(evictions_)},
  };
}

nlohmann::ordered_json ColocationModel::SummaryJson() const {
  using Json = nlohmann::ordered_json;
  const double periods = static_cast<double>(std::max<int64_t>(1, periods_));
  const double hours_per_period = static_cast<double>(period_) / 3600.0;
  auto mean_cores = [&](int64_t sum) { return Round4(static_cast<double>(sum) / periods / 1000); };
  auto core_hours = [&](int64_t sum) {
    return Round4(static_cast<double>(sum) / 1000.0 * hours_per_period);
  };
  auto mean_gib = [&](int64_t sum) { return Round4(static_cast<double>(sum) / periods / kGiB); };
  auto share = [](int64_t a, int64_t b) {
    return b > 0 ? Round4(static_cast<double>(a) / static_cast<double>(b)) : 0.0;
  };
  Json out = Json::object();
  out["mode"] = spec_.agent.mode == agent::ReportMode::kExtend ? "extend" : "native";
  out["nodes"] = nodes_.size();
  out["agent_period_seconds"] = period_;
  out["agent_periods"] = periods_;
  out["cpu_core_hours"] = {{"capacity", core_hours(sums_.cpu_capacity)},
                           {"online_requested", core_hours(sums_.cpu_online_requested)},
                           {"online_used", core_hours(sums_.cpu_online_used)},
                           {"oversold", core_hours(sums_.cpu_oversold)},
                           {"be_requested", core_hours(sums_.cpu_be_requested)},
                           {"be_used", core_hours(sums_.cpu_be_used)}};
  out["cpu_cores_mean"] = {{"capacity", mean_cores(sums_.cpu_capacity)},
                           {"online_requested", mean_cores(sums_.cpu_online_requested)},
                           {"online_used", mean_cores(sums_.cpu_online_used)},
                           {"oversold", mean_cores(sums_.cpu_oversold)},
                           {"be_requested", mean_cores(sums_.cpu_be_requested)},
                           {"be_used", mean_cores(sums_.cpu_be_used)}};
  out["memory_gib_mean"] = {{"capacity", mean_gib(sums_.memory_capacity)},
                            {"online_requested", mean_gib(sums_.memory_online_requested)},
                            {"online_used", mean_gib(sums_.memory_online_used)},
                            {"oversold", mean_gib(sums_.memory_oversold)},
                            {"be_used", mean_gib(sums_.memory_be_used)}};
  out["cpu_used_share"] = {
      {"online", share(sums_.cpu_online_used, sums_.cpu_capacity)},
      {"online_and_be", share(sums_.cpu_online_used + sums_.cpu_be_used, sums_.cpu_capacity)},
      {"oversold_used_by_be", share(sums_.cpu_be_used, sums_.cpu_oversold)}};
  out["online_cpu_peak"] = {
      {"cores", Round4(static_cast<double>(online_cpu_peak_) / 1000.0)},
      {"t", online_cpu_peak_t_},
      {"share_of_capacity", share(online_cpu_peak_, online_cpu_peak_capacity_)}};
  out["node_cpu_peak_percent"] = sums_.node_cpu_peak_percent;
  out["node_periods_at_cpu_high_watermark"] = node_periods_at_high_watermark_;
  out["reports"] = reports_;
  out["be_evictions"] = {{"cpu", evictions_ - evictions_memory_},
                         {"memory", evictions_memory_},
                         {"total", evictions_}};
  return out;
}

}  // namespace basalt
