#include "profiles.h"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <thread>

#include "actions/builtin.h"
#include "engine/session_runner.h"
#include "framework/config.h"
#include "framework/session.h"
#include "framework/snapshot_cache.h"
#include "plugins/builtin.h"

namespace basalt::bench {
namespace {

std::vector<Profile> MakeProfiles() {
  std::vector<Profile> out;
  {
    Profile p;
    p.name = "alloc-1k";
    p.description = "1,000 nodes, 4,000 pending pods in gangs of 8, 4 queues";
    p.cluster.nodes = 1000;
    p.workload.queues = 4;
    p.workload.pending_pods = 4000;
    out.push_back(p);
  }
  {
    Profile p;
    p.name = "alloc-5k";
    p.description = "5,000 nodes, 20,000 pending pods in gangs of 8, 4 queues";
    p.cluster.nodes = 5000;
    p.workload.queues = 4;
    p.workload.pending_pods = 20000;
    out.push_back(p);
  }
  {
    Profile p;
    p.name = "alloc-10k";
    p.description =
        "10,000 nodes, 100,000 pending pods in 12,500 gangs across 100 queues, 1.25x "
        "oversubscribed";
    p.cluster.nodes = 10000;
    p.workload.queues = 100;
    p.workload.pending_pods = 100000;
    out.push_back(p);
  }
  {
    Profile p;
    p.name = "topology-10k";
    p.description =
        "alloc-10k on a three-tier HyperNode tree (8 nodes per leaf, 16 leaves per spine, a "
        "root); every gang hard-constrained, highestTierAllowed 1 or 2";
    p.cluster.nodes = 10000;
    p.cluster.nodes_per_leaf = 8;
    p.cluster.leaves_per_spine = 16;
    p.workload.queues = 100;
    p.workload.pending_pods = 100000;
    p.workload.pending_highest_tier = 2;
    p.network_topology_aware = true;
    out.push_back(p);
  }
  {
    Profile p;
    p.name = "preempt-1k";
    p.description =
        "1,000 nodes full of 8,000 low-priority running pods (gangs of 8, minMember 1), 4,000 "
        "high-priority "
        "pending pods in the same queue";
    p.cluster.nodes = 1000;
    p.actions = "enqueue, allocate, preempt";
    p.workload.queues = 1;
    p.workload.running_pods = 8000;
    p.workload.running_queue = "queue-0";
    p.workload.running_min_member = 1;
    p.workload.pending_pods = 4000;
    p.workload.pending_queue = "queue-0";
    p.workload.pending_priority_class = "high";
    out.push_back(p);
  }
  {
    Profile p;
    p.name = "reclaim-5k";
    p.description =
        "5,000 nodes full of 40,000 running pods of queue-0 (minMember 1), 5,000 pending pods in "
        "queue-1";
    p.cluster.nodes = 5000;
    p.actions = "enqueue, allocate, reclaim";
    p.workload.queues = 2;
    p.workload.running_pods = 40000;
    p.workload.running_queue = "queue-0";
    p.workload.running_min_member = 1;
    p.workload.pending_pods = 5000;
    p.workload.pending_queue = "queue-1";
    out.push_back(p);
  }
  {
    Profile p;
    p.name = "idle-10k";
    p.description =
        "10,000 nodes, 100,000 running pods (10 per node: 2 CPU, 16 Gi, no GPU, so that they fit), "
        "nothing pending";
    p.cluster.nodes = 10000;
    p.workload.queues = 4;
    p.workload.pending_pods = 0;
    p.workload.running_pods = 100000;
    p.workload.running_pod = PodShape{"2", "16Gi", 0};
    p.steady = true;
    out.push_back(p);
  }
  {
    Profile p = out.back();
    p.name = "churn-10k";
    p.description =
        "idle-10k with 1% of the pods (125 whole gangs of 8) finishing and 125 new gangs arriving "
        "per cycle";
    p.churn_gangs = 125;
    out.push_back(p);
  }
  return out;
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

double CpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The decisions applied as a cluster would: binds start running at once,
// evicted pods go, PodGroup phases are written.
void Apply(const Decisions& d, ClusterState* state) {
  for (const BindDecision& b : d.binds) {
    if (Pod* pod = state->EditPod(b.pod)) {
      pod->spec.node_name = b.node;
      pod->phase = "Running";
    }
  }
  for (const EvictDecision& e : d.evictions) state->DeletePod(e.pod);
  for (const auto& [key, phase] : d.podgroup_phases) {
    const PodGroup* pg = state->FindPodGroup(key);
    if (pg && pg->phase != phase) state->EditPodGroup(key)->phase = phase;
  }
}

}  // namespace

const std::vector<Profile>& Profiles() {
  static const std::vector<Profile> profiles = MakeProfiles();
  return profiles;
}

const Profile* FindProfile(const std::string& name) {
  for (const Profile& p : Profiles()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

Profile Scaled(int nodes, int pending_pods) {
  Profile p = *FindProfile("alloc-1k");
  p.name = "scale-" + std::to_string(nodes) + "x" + std::to_string(pending_pods);
  p.description =
      std::to_string(nodes) + " nodes, " + std::to_string(pending_pods) + " pending pods, 4 queues";
  p.cluster.nodes = nodes;
  p.workload.pending_pods = pending_pods;
  return p;
}

std::string ConfText(const Profile& p) {
  return "actions: \"" + p.actions + R"("
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
)" + (p.network_topology_aware ? "  - name: network-topology-aware\n" : "");
}

Result<ProfileResult> RunProfile(const Profile& profile, const RunOptions& options) {
  PluginRegistry plugins;
  RegisterBuiltinPlugins(plugins);
  ActionRegistry action_registry;
  RegisterBuiltinActions(action_registry);
  auto conf = ParseSchedulerConfig(ConfText(profile), profile.name + ".conf", plugins.Names(),
                                   action_registry.Names());
  if (!conf.ok()) return conf.status();
  auto actions = BuildActions(conf->actions, *conf, action_registry);
  if (!actions.ok()) return actions.status();
  ProfileResult result;
  result.profile = &profile;
  std::unique_ptr<ClusterState> state;
  std::mt19937_64 churn_rng(profile.workload.seed + 1);
  int serial = 0;
  // Only cycles on one store can patch the previous snapshot; the cache is
  // not kept across regenerated clusters (it would only add to peak RSS).
  SnapshotCache cache;
  const bool use_cache = profile.steady && !options.full_snapshots;
  for (int run = 0; run < std::max(1, options.runs); ++run) {
    if (!state || !profile.steady) {
      state.reset();  // free the previous cluster first: peak RSS is one cluster's
      state = std::make_unique<ClusterState>();
      Generate(profile.cluster, profile.workload, state.get());
    }
    if (profile.churn_gangs > 0)
      Churn(profile.workload, profile.churn_gangs, run + 1, churn_rng, &serial, state.get());
    if (run == 0) {
      result.nodes = static_cast<int64_t>(state->nodes().size());
      result.pods = static_cast<int64_t>(state->pods().size());
    }
    SessionOptions opts;
    opts.cycle = run + 1;
    opts.reference_node_selection = options.reference;
    if (use_cache) opts.snapshot_cache = &cache;
    const int64_t patched_before = cache.patched_builds();
    CycleStats stats;
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = CpuNow();
    auto t = start;
    SessionHooks timed;
    timed.opened = [&](Session&) {
      t = std::chrono::steady_clock::now();
      stats.open = Seconds(t - start);
      return true;
    };
    timed.after_action = [&](Session&, const Action& action) {
      auto now = std::chrono::steady_clock::now();
      stats.actions.emplace_back(std::string(action.Name()), Seconds(now - t));
      t = now;
    };
    // The session's teardown is not part of the cycle.
    timed.closed = [&](Session&, const Decisions&) {
      auto end = std::chrono::steady_clock::now();
      stats.close = Seconds(end - t);
      stats.wall = Seconds(end - start);
      stats.cpu = CpuNow() - cpu_start;
    };
    auto decided = RunSession(*state, *conf, plugins, *actions, opts, timed);
    if (!decided.ok()) return decided.status();
    const Decisions& d = *decided;
    stats.patched_snapshot = cache.patched_builds() > patched_before;
    stats.bound = static_cast<int64_t>(d.binds.size());
    stats.evicted = static_cast<int64_t>(d.evictions.size());
    stats.pipelined = static_cast<int64_t>(d.pipelined.size());
    Apply(d, state.get());
    result.cycles.push_back(std::move(stats));
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  result.peak_rss_bytes = static_cast<int64_t>(usage.ru_maxrss) * 1024;
  return result;
}

nlohmann::ordered_json ResultJson(const ProfileResult& r, const RunOptions& options) {
  std::vector<double> wall, cpu, open, close;
  std::vector<double> bound, evicted, pipelined;
  int64_t patched = 0;
  std::vector<std::string> action_names;
  std::map<std::string, std::vector<double>> per_action;
  for (const CycleStats& c : r.cycles) {
    wall.push_back(c.wall);
    cpu.push_back(c.cpu);
    open.push_back(c.open);
    close.push_back(c.close);
    bound.push_back(static_cast<double>(c.bound));
    evicted.push_back(static_cast<double>(c.evicted));
    pipelined.push_back(static_cast<double>(c.pipelined));
    patched += c.patched_snapshot ? 1 : 0;
    for (const auto& [name, s] : c.actions) {
      if (!per_action.count(name)) action_names.push_back(name);
      per_action[name].push_back(s);
    }
  }
  nlohmann::ordered_json j;
  j["profile"] = r.profile->name;
  j["description"] = r.profile->description;
  j["nodes"] = r.nodes;
  j["pods"] = r.pods;
  j["runs"] = r.cycles.size();
  j["node_selection"] = options.reference ? "reference" : "fast";
  // Cycles whose session patched the previous cycle's snapshot (the others built it in full).
  j["patched_snapshot_cycles"] = patched;
  j["bound"] = static_cast<int64_t>(Median(bound));
  j["evicted"] = static_cast<int64_t>(Median(evicted));
  j["pipelined"] = static_cast<int64_t>(Median(pipelined));
  j["cycle_seconds_median"] = Median(wall);
  j["cycle_seconds_max"] = wall.empty() ? 0 : *std::max_element(wall.begin(), wall.end());
  j["cycle_cpu_seconds_median"] = Median(cpu);
  j["open_seconds_median"] = Median(open);
  nlohmann::ordered_json acts = nlohmann::ordered_json::object();
  for (const std::string& name : action_names)
    acts[name + "_seconds_median"] = Median(per_action[name]);
  j["actions"] = acts;
  j["close_seconds_median"] = Median(close);
  const double med = Median(wall);
  j["pods_bound_per_second"] = med > 0 ? Median(bound) / med : 0;
  j["peak_rss_bytes"] = r.peak_rss_bytes;
  j["machine"] = MachineJson();
  return j;
}

nlohmann::ordered_json MachineJson() {
  nlohmann::ordered_json m;
  std::string model;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  m["cpu"] = model;
  m["cores"] = std::thread::hardware_concurrency();
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind("MemTotal:", 0) == 0) {
      m["memory_bytes"] = std::stoll(line.substr(9)) * 1024;
      break;
    }
  }
  utsname u{};
  if (uname(&u) == 0) m["kernel"] = std::string(u.sysname) + " " + u.release;
  m["compiler"] = std::string("g++ ") + __VERSION__;
#ifdef NDEBUG
  m["assertions"] = false;
#else
  m["assertions"] = true;
#endif
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) == 3) m["load_average"] = {load[0], load[1], load[2]};
  return m;
}

}  // namespace basalt::bench
