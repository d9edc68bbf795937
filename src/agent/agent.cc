#include "agent/agent.h"

#include <algorithm>

#include "api/log.h"
#include "api/quantity.h"

namespace basalt::agent {
namespace {

spdlog::logger& AgentLog() { return Log("agent"); }

std::string Percent(int64_t used, int64_t capacity) {
  return capacity <= 0 ? "?" : std::to_string(used * 100 / capacity) + "%";
}

void DeclareMetrics(kube::Metrics& m) {
  m.Gauge("basalt_agent_pod_cpu_millicores", "CPU a pod used over the last period.",
          {"namespace", "pod", "qos"});
  m.Gauge("basalt_agent_pod_memory_bytes", "Memory a pod uses.", {"namespace", "pod", "qos"});
  m.Gauge("basalt_agent_pod_cpu_throttled_seconds",
          "CFS throttled time of a BE pod's group, as the kernel counts it.", {"namespace", "pod"});
  m.Gauge("basalt_agent_node_cpu_millicores", "CPU the node used over the last period.");
  m.Gauge("basalt_agent_node_memory_bytes", "Memory the node uses (MemTotal - MemAvailable).");
  m.Gauge("basalt_agent_online_cpu_millicores", "CPU the online (LC, HLS, LS) pods used.");
  m.Gauge("basalt_agent_oversold",
          "Oversold amount last reported (cpu: millicores, memory: bytes).", {"resource"});
  m.Counter("basalt_agent_evictions_total", "BE pods evicted, by the resource under pressure.",
            {"resource"});
  m.Gauge("basalt_agent_be_throttled", "1 while BE pods are CPU-throttled.");
  m.Gauge("basalt_agent_be_cpu_budget_millicores", "CPU budget of the BE pods (-1: unlimited).");
}

}  // namespace

Agent::Agent(AgentConfig config, const Cgroups* cgroups, NodeSampler* node, NodeApi* api,
             kube::Metrics* metrics)
    : config_(std::move(config)),
      cgroups_(cgroups),
      node_(node),
      api_(api),
      metrics_(metrics),
      setter_(cgroups),
      online_cpu_(config_.window_nanos),
      online_memory_(config_.window_nanos) {
  if (metrics_) DeclareMetrics(*metrics_);
}

void Agent::SetConfig(const AgentConfig& config) {
  config_ = config;
  online_cpu_.set_window(config_.window_nanos);
  online_memory_.set_window(config_.window_nanos);
}

void Agent::Warn(const std::string& key, const Status& status) {
  // Keys name pods; with pods coming and going, forget them now and then
  // rather than grow without bound (a cause still present warns again).
  if (warned_.size() > 1000) warned_.clear();
  if (warned_.insert(key).second) {
    AgentLog().warn("msg=\"{}\" error={}", key, LogValue(status.message()));
  }
}

std::vector<Agent::PodSample> Agent::SamplePods(const std::vector<AgentPod>& pods,
                                                int64_t now_nanos) {
  std::vector<PodSample> samples;
  const bool memory = cgroups_->Has(Controller::kMemory, "pod memory usage");
  for (const AgentPod& pod : pods) {
    if (pod.phase != "Running") continue;
    PodSample s;
    s.pod = &pod;
    s.level = QosLevelOf(pod);
    s.group = PodCgroup(pod, config_.cgroup_driver, config_.cgroup_parent);
    auto cpu = cpu_sampler_.Sample(*cgroups_, s.group, now_nanos);
    if (!cpu.ok()) {
      Warn("pod cgroup unreadable: " + pod.Key(), cpu.status());
    } else if (cpu->has_value()) {
      s.cpu_milli = **cpu;
    }
    if (memory) {
      auto mem = cgroups_->MemoryUsageBytes(s.group);
      if (mem.ok()) s.memory_bytes = *mem;
    }
    samples.push_back(s);
  }
  cpu_sampler_.Forget(now_nanos);
  return samples;
}

void Agent::IsolateBe(const PodSample& s, const std::optional<NodeUsage>& node) {
  Status shares = setter_.SetCpuShares(s.group, config_.be_cpu_shares);
  if (!shares.ok()) Warn("cpu weight not set for " + s.pod->Key(), shares);
  if (config_.be_cpu_idle) {
    Status idle = setter_.SetCpuIdle(s.group, true);
    if (!idle.ok()) Warn("cpu.idle not available", idle);
  }
  // Most kernels lack cpu.qos_level: its absence is not worth a warning.
  if (config_.be_cpu_qos_level && !cpu_qos_level_absent_) {
    Status level = setter_.SetCpuQosLevel(s.group, -1);
    if (level.code() == Status::Code::kFailedPrecondition) {
      cpu_qos_level_absent_ = true;
      AgentLog().info(R"(msg="cpu.qos_level not available, feature off")");
    }
  }
  if (config_.be_memory_high_percent > 0 && node) {
    Status high = setter_.SetMemoryHigh(
        s.group, node->memory_total_bytes * config_.be_memory_high_percent / 100);
    if (!high.ok()) Warn("memory high not set for " + s.pod->Key(), high);
  }
  if (config_.be_oom_kill_first && node_) {
    Status oom = setter_.SetOomScoreAdj(s.group, node_->proc_root(), 1000);
    if (!oom.ok()) Warn("oom_score_adj not set for " + s.pod->Key(), oom);
  }
}

void Agent::Isolate(const std::vector<PodSample>& samples, const std::optional<NodeUsage>& node) {
  std::set<std::string> be_groups;
  for (const auto& s : samples) {
    if (s.level != QosLevel::kBE) continue;
    be_groups.insert(s.group);
    IsolateBe(s, node);
    isolated_.insert(s.group);
  }
  // Pods that left, or are no longer BE, get their values back.
  for (auto it = isolated_.begin(); it != isolated_.end();) {
    if (be_groups.count(*it)) {
      ++it;
      continue;
    }
    Status st = setter_.Restore(*it);
    if (!st.ok()) Warn("restore failed for " + *it, st);
    throttled_.erase(*it);
    it = isolated_.erase(it);
  }
}

void Agent::Throttle(const std::vector<PodSample>& samples, int64_t capacity_milli,
                     TickReport* report) {
  std::vector<const PodSample*> be;
  for (const auto& s : samples) {
    if (s.level == QosLevel::kBE) be.push_back(&s);
  }
  ThrottleDecision d;
  if (config_.throttling && capacity_milli > 0 &&
      cgroups_->Has(Controller::kCpu, "BE cpu throttling")) {
    d = DecideThrottle(config_.throttle, throttle_engaged_, report->online_cpu_milli,
                       capacity_milli);
  }
  if (d.engaged != throttle_engaged_) {
    AgentLog().info("msg=\"BE cpu throttling {}\" online_cpu={}m capacity={}m budget={}m",
                    d.engaged ? "engaged" : "lifted", report->online_cpu_milli, capacity_milli,
                    d.be_budget_milli);
  }
  throttle_engaged_ = d.engaged;
  report->throttled = d.engaged;
  report->be_budget_milli = d.be_budget_milli;
  if (!d.engaged) {
    for (const auto& group : throttled_) {
      Status st = setter_.RestoreCpuQuota(group);
      if (!st.ok()) Warn("quota restore failed for " + group, st);
    }
    throttled_.clear();
    return;
  }
  int64_t quota =
      QuotaPerPod(d.be_budget_milli, static_cast<int>(be.size()), config_.cfs_period_us);
  report->be_quota_us = quota;
  for (const PodSample* s : be) {
    Status st = setter_.SetCpuQuota(s->group, CpuQuota{quota, config_.cfs_period_us});
    if (!st.ok()) {
      Warn("cpu quota not set for " + s->pod->Key(), st);
      continue;
    }
    throttled_.insert(s->group);
  }
}

void Agent::Report(const std::vector<PodSample>& samples, int64_t now_nanos, TickReport* report) {
  if (!config_.oversubscription || !api_) return;
  int64_t cpu_requested = 0, memory_requested = 0;
  for (const auto& s : samples) {
    if (!IsOnline(s.level)) continue;
    cpu_requested += s.pod->cpu_request_milli;
    memory_requested += s.pod->memory_request_bytes;
  }
  // The window's peak: what online pods used at their busiest lately.
  OnlineDemand demand{cpu_requested, online_cpu_.Max(), memory_requested, online_memory_.Max()};
  auto due = OversoldReportDue(config_.oversold_policy(), last_report_, demand, now_nanos);
  if (!due) return;
  const int64_t cpu = due->cpu_milli, memory = due->memory_bytes;
  Status st = api_->ReportOversold(config_.mode, cpu, memory);
  if (!st.ok()) {
    AgentLog().warn("msg=\"oversubscription report failed\" error={}", LogValue(st.message()));
    return;
  }
  AgentLog().info(
      "msg=\"oversubscription reported\" mode={} cpu={} memory={} online_requested_cpu={}m "
      "online_peak_cpu={}m",
      config_.mode == ReportMode::kExtend ? "extend" : "native", FormatMilliDecimal(cpu),
      FormatBinaryBytes(memory), cpu_requested, online_cpu_.Max());
  last_report_.Record(*due, now_nanos);
  report->oversold_cpu_milli = cpu;
  report->oversold_memory_bytes = memory;
}

std::vector<std::string> Agent::PickFor(const std::vector<PodSample>& samples, int64_t used,
                                        int64_t capacity, const Watermarks& marks, bool cpu,
                                        std::map<std::string, const PodSample*>* by_key) {
  std::vector<EvictionCandidate> candidates;
  for (const auto& s : samples) {
    int64_t usage = cpu ? s.cpu_milli : s.memory_bytes;
    // A pod already asked to leave still counts in the node's usage until it
    // is gone; it counts as freed rather than another being evicted for it.
    const bool leaving = evicting_.count(s.pod->uid) > 0;
    candidates.push_back(
        {s.pod->Key(), s.level, s.pod->priority, s.pod->start_time, usage, leaving});
    if (!leaving) (*by_key)[s.pod->Key()] = &s;
  }
  return PickEvictionVictims(std::move(candidates), used, capacity, marks);
}

void Agent::EvictUnderPressure(const std::vector<PodSample>& samples, const NodeUsage& node,
                               TickReport* report) {
  // Forget pods that have left.
  std::set<std::string> present;
  for (const auto& s : samples) present.insert(s.pod->uid);
  std::erase_if(evicting_, [&](const std::string& uid) { return !present.count(uid); });
  if (!config_.eviction || !api_) return;
  struct Pressure {
    const char* resource;
    int64_t used, capacity;
    Watermarks marks;
    bool cpu;
  };
  const Pressure pressures[] = {
      {"cpu", node.cpu_used_milli, node.cpu_capacity_milli, config_.cpu_watermarks, true},
      {"memory", node.memory_used_bytes, node.memory_total_bytes, config_.memory_watermarks, false},
  };
  for (const auto& p : pressures) {
    std::map<std::string, const PodSample*> by_key;
    for (const std::string& key : PickFor(samples, p.used, p.capacity, p.marks, p.cpu, &by_key)) {
      const PodSample* s = by_key.at(key);
      std::string used = p.cpu ? FormatMilliDecimal(p.used) : FormatBinaryBytes(p.used);
      std::string cap = p.cpu ? FormatMilliDecimal(p.capacity) : FormatBinaryBytes(p.capacity);
      std::string pod_use =
          p.cpu ? FormatMilliDecimal(s->cpu_milli) : FormatBinaryBytes(s->memory_bytes);
      std::string note = std::string("node ") + p.resource + " " + used + " of " + cap + " (" +
                         Percent(p.used, p.capacity) + ") at or above the high watermark " +
                         std::to_string(p.marks.high_percent) + "%; evicting BE pod " + key +
                         " (priority " + std::to_string(s->pod->priority) + ", using " + pod_use +
                         ") to get below " + std::to_string(p.marks.low_percent) + "%";
      Status st = api_->Evict(*s->pod, note);
      if (!st.ok()) {
        AgentLog().warn("msg=\"eviction failed\" pod={} error={}", key, LogValue(st.message()));
        continue;
      }
      AgentLog().info("msg=\"evicted\" pod={} resource={} note={}", key, p.resource,
                      LogValue(note));
      evicting_.insert(s->pod->uid);
      report->evicted.push_back(key);
      if (metrics_) metrics_->Inc("basalt_agent_evictions_total", {p.resource});
    }
  }
}

TickReport Agent::Tick(int64_t now_nanos) {
  TickReport report;
  auto pods = api_ ? api_->ListPods() : Result<std::vector<AgentPod>>(std::vector<AgentPod>{});
  if (!pods.ok()) {
    AgentLog().warn("msg=\"pod list failed\" error={}", LogValue(pods.status().message()));
    return report;
  }
  auto node = node_ ? node_->Sample() : Result<std::optional<NodeUsage>>(std::nullopt);
  if (!node.ok()) Warn("node usage unreadable", node.status());
  if (node.ok()) report.node = *node;
  std::vector<PodSample> samples = SamplePods(*pods, now_nanos);
  for (const auto& s : samples) {
    if (IsOnline(s.level)) {
      report.online_cpu_milli += s.cpu_milli;
      report.online_memory_bytes += s.memory_bytes;
      ++report.online_pods;
    } else {
      ++report.be_pods;
    }
  }
  online_cpu_.Add(now_nanos, report.online_cpu_milli);
  online_memory_.Add(now_nanos, report.online_memory_bytes);
  Isolate(samples, report.node);
  int64_t capacity = report.node ? report.node->cpu_capacity_milli : 0;
  Throttle(samples, capacity, &report);
  Report(samples, now_nanos, &report);
  if (report.node) EvictUnderPressure(samples, *report.node, &report);
  ExportMetrics(samples, report);
  return report;
}

void Agent::ExportMetrics(const std::vector<PodSample>& samples, const TickReport& report) {
  if (!metrics_) return;
  metrics_->ClearGauge("basalt_agent_pod_cpu_millicores");
  metrics_->ClearGauge("basalt_agent_pod_memory_bytes");
  metrics_->ClearGauge("basalt_agent_pod_cpu_throttled_seconds");
  for (const auto& s : samples) {
    std::vector<std::string> labels = {s.pod->namespace_, s.pod->name, QosLevelName(s.level)};
    metrics_->Set("basalt_agent_pod_cpu_millicores", labels, s.cpu_milli);
    metrics_->Set("basalt_agent_pod_memory_bytes", labels, s.memory_bytes);
    if (s.level != QosLevel::kBE) continue;
    auto stat = cgroups_->CpuStat(s.group);
    if (stat.ok()) {
      metrics_->Set("basalt_agent_pod_cpu_throttled_seconds", {s.pod->namespace_, s.pod->name},
                    stat->throttled_nanos / 1e9);
    }
  }
  if (report.node) {
    metrics_->Set("basalt_agent_node_cpu_millicores", report.node->cpu_used_milli);
    metrics_->Set("basalt_agent_node_memory_bytes", report.node->memory_used_bytes);
  }
  metrics_->Set("basalt_agent_online_cpu_millicores", report.online_cpu_milli);
  if (report.oversold_cpu_milli)
    metrics_->Set("basalt_agent_oversold", {"cpu"}, *report.oversold_cpu_milli);
  if (report.oversold_memory_bytes) {
    metrics_->Set("basalt_agent_oversold", {"memory"}, *report.oversold_memory_bytes);
  }
  metrics_->Set("basalt_agent_be_throttled", report.throttled ? 1 : 0);
  metrics_->Set("basalt_agent_be_cpu_budget_millicores", report.be_budget_milli);
}

Status Agent::RestoreAll() {
  Status first = Status::Ok();
  for (const auto& group : isolated_) {
    Status st = setter_.Restore(group);
    if (!st.ok() && first.ok()) first = st;
  }
  isolated_.clear();
  throttled_.clear();
  return first;
}

}  // namespace basalt::agent
