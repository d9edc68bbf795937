#include "cli/agent.h"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <thread>

#include "agent/agent.h"
#include "agent/node_api.h"
#include "api/log.h"
#include "kube/client.h"
#include "kube/endpoint_server.h"
#include "kube/kubeconfig.h"
#include "kube/metrics.h"

namespace basalt {
namespace {

constexpr int kExitBadInput = 2;

std::atomic<bool> g_agent_signalled{false};
extern "C" void OnAgentSignal(int) { g_agent_signalled = true; }

int64_t MonotonicNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The configuration file's modification time, for reloads (0 when unreadable).
int64_t ModifiedAt(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

Result<std::unique_ptr<kube::Client>> MakeClient(const AgentRequest& req) {
  std::string path = kube::KubeconfigPathAsVcctl(req.kubeconfig);
  auto config = path.empty() ? kube::InClusterConfig() : kube::LoadKubeconfig(path, req.context);
  if (!config.ok()) return config.status();
  kube::ClientOptions opt;
  opt.server = config->server;
  opt.bearer_token = config->token;
  opt.user_agent = "basalt-agent/0.1.0";
  opt.qps = 5;  // one node's agent: a few calls per period
  opt.burst = 10;
  kube::CurlOptions curl;
  curl.tls = config->tls;
  return std::make_unique<kube::Client>(opt, std::make_unique<kube::CurlTransport>(curl));
}

void SleepUnlessSignalled(int64_t nanos) {
  auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(nanos);
  while (!g_agent_signalled && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void LogTick(const agent::TickReport& r) {
  Log("agent").debug(
      "msg=\"period\" node_cpu={}m online_cpu={}m online_pods={} be_pods={} throttled={} "
      "be_budget={}m be_quota_us={} evicted={}",
      r.node ? r.node->cpu_used_milli : -1, r.online_cpu_milli, r.online_pods, r.be_pods,
      r.throttled, r.be_budget_milli, r.be_quota_us, r.evicted.size());
}

}  // namespace

CLI::App* AddAgentCommand(CLI::App& app, AgentRequest* r) {
  CLI::App* cmd = app.add_subcommand(
      "agent",
      "Colocation node agent: QoS isolation, oversubscription reports, BE eviction (one per node)");
  cmd->add_option("--config", r->config_path,
                  "Agent configuration file (YAML), reloaded when it changes (docs/agent.md)");
  cmd->add_option("--node-name", r->node_name, "This node's name (default: $NODE_NAME)");
  cmd->add_option("--kubeconfig", r->kubeconfig,
                  "kubeconfig file (default: $KUBECONFIG, else the in-cluster service account)");
  cmd->add_option("--context", r->context, "kubeconfig context (default: current-context)");
  cmd->add_option("--pods-file", r->pods_file,
                  "Standalone: read the node's pods from this file and talk to no API server "
                  "(reports and evictions are logged only)");
  cmd->add_option("--listen", r->listen, "Address of /healthz and /metrics (\"\" to disable)")
      ->capture_default_str();
  cmd->add_option("--proc-root", r->proc_root, "Where the node's /proc is")->capture_default_str();
  cmd->add_option("--mountinfo", r->mountinfo, "Mount table to find the cgroup hierarchies in")
      ->capture_default_str();
  cmd->add_option("--cgroup-prefix", r->cgroup_prefix,
                  "Prefix of the host's cgroup mount points as this process sees them (e.g. "
                  "/host)");
  cmd->add_option("--ticks", r->ticks,
                  "Stop after this many sampling periods (0: run until "
                  "SIGTERM)")
      ->check(CLI::NonNegativeNumber);
  cmd->footer(
      "Exit code 2 on a bad flag, configuration or kubeconfig; 0 after SIGTERM (cgroup values "
      "restored).\n\nExamples:\n  basalt agent --config /etc/basalt-agent/agent.yaml   # in the "
      "DaemonSet, NODE_NAME from the downward API\n"
      "  basalt agent --pods-file pods.yaml --listen '' --ticks 10   # standalone, no cluster");
  return cmd;
}

int RunAgent(const AgentRequest& req) {
  auto config = agent::LoadAgentConfig(req.config_path);
  if (!config.ok()) {
    CliLog().error("{}", config.status().message());
    return kExitBadInput;
  }
  auto layout = agent::DetectCgroupLayout(req.mountinfo, req.cgroup_prefix);
  if (!layout.ok()) {
    CliLog().error("{}", layout.status().message());
    return kExitBadInput;
  }
  std::unique_ptr<kube::Client> client;
  std::unique_ptr<agent::NodeApi> api;
  if (!req.pods_file.empty()) {
    api = std::make_unique<agent::StandaloneNodeApi>(req.pods_file);
    // Read every period (the file stands for the kubelet's list, which may
    // fail for a while); one that cannot be read at start is an input error.
    if (auto pods = api->ListPods(); !pods.ok()) {
      CliLog().error("agent: --pods-file: {}", pods.status().message());
      return kExitBadInput;
    }
  } else {
    std::string node = req.node_name;
    if (node.empty()) {
      if (const char* env = std::getenv("NODE_NAME")) node = env;
    }
    if (node.empty()) {
      CliLog().error("agent: --node-name (or $NODE_NAME) is required without --pods-file");
      return kExitBadInput;
    }
    auto made = MakeClient(req);
    if (!made.ok()) {
      CliLog().error("{}", made.status().message());
      return kExitBadInput;
    }
    client = std::move(*made);
    api = std::make_unique<agent::KubeNodeApi>(client.get(), node);
  }
  agent::Cgroups cgroups(*layout);
  agent::NodeSampler node_sampler(req.proc_root);
  kube::Metrics metrics;
  agent::Agent core(*config, &cgroups, &node_sampler, api.get(), &metrics);
  Log("agent").info("msg=\"started\" cgroup={} mode={} period_ms={}",
                    cgroups.version() == agent::CgroupVersion::kV1 ? "v1" : "v2",
                    config->mode == agent::ReportMode::kExtend ? "extend" : "native",
                    config->sampling_period_nanos / 1'000'000);

  std::atomic<int64_t> last_tick{MonotonicNanos()};
  // Read by the endpoint thread; the loop changes it on a reload.
  std::atomic<int64_t> period{config->sampling_period_nanos};
  kube::EndpointServer endpoints;
  if (!req.listen.empty()) {
    endpoints.Handle("/healthz", [&] {
      // Healthy while periods keep coming: three missed ones is a stuck loop.
      int64_t age = MonotonicNanos() - last_tick.load();
      bool ok = age < 3 * period.load() + 5'000'000'000;
      return kube::EndpointReply{ok ? 200 : 503, "text/plain; charset=utf-8",
                                 ok ? "ok\n" : "stale\n"};
    });
    endpoints.Handle("/metrics", [&] {
      return kube::EndpointReply{200, "text/plain; version=0.0.4; charset=utf-8", metrics.Render()};
    });
    Status st = endpoints.Start(req.listen);
    if (!st.ok()) {
      CliLog().error("{}", st.message());
      return kExitBadInput;
    }
  }
  struct sigaction sa {};
  sa.sa_handler = OnAgentSignal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);

  int64_t config_mtime = ModifiedAt(req.config_path);
  for (int tick = 0; !g_agent_signalled && (req.ticks == 0 || tick < req.ticks); ++tick) {
    if (int64_t m = ModifiedAt(req.config_path); m != config_mtime) {
      config_mtime = m;
      auto reloaded = agent::LoadAgentConfig(req.config_path);
      if (reloaded.ok()) {
        core.SetConfig(*reloaded);
        period = reloaded->sampling_period_nanos;
        Log("agent").info("msg=\"configuration reloaded\" file={}", req.config_path);
      } else {
        Log("agent").warn("msg=\"configuration not reloaded, keeping the last good one\" error={}",
                          LogValue(reloaded.status().message()));
      }
    }
    LogTick(core.Tick(MonotonicNanos()));
    last_tick = MonotonicNanos();
    if (req.ticks == 0 || tick + 1 < req.ticks)
      SleepUnlessSignalled(core.config().sampling_period_nanos);
  }
  Status restored = core.RestoreAll();
  if (!restored.ok())
    Log("agent").warn("msg=\"restore failed\" error={}", LogValue(restored.message()));
  endpoints.Stop();
  Log("agent").info("msg=\"stopped\"");
  return 0;
}

}  // namespace basalt
