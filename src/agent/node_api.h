// The two `NodeApi`s of `basalt agent`: the API server (pods of the node,
// the Node's status, the eviction API and Events) and a standalone pod list
// read from a file, for a node without a cluster (the cgroup demonstration):
// there, reports and evictions are only logged.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/agent.h"
#include "kube/client.h"

namespace basalt::agent {

// Extended resource names of extend mode (Volcano's): batch CPU counted in
// millicores, batch memory in bytes.
inline constexpr char kOversoldCpuAnnotation[] = "volcano.sh/oversubscription-cpu";
inline constexpr char kOversoldMemoryAnnotation[] = "volcano.sh/oversubscription-memory";

class KubeNodeApi : public NodeApi {
 public:
  KubeNodeApi(kube::Client* client, std::string node_name)
      : client_(client), node_(std::move(node_name)) {}

  Result<std::vector<AgentPod>> ListPods() override;
  Status ReportOversold(ReportMode mode, int64_t cpu_milli, int64_t memory_bytes) override;
  Status Evict(const AgentPod& pod, const std::string& note) override;

 private:
  Status ReportNative(int64_t cpu_milli, int64_t memory_bytes);

  kube::Client* client_;
  std::string node_;
  // Native mode: the allocatable the kubelet reported (before anything was
  // added) and what the agent last wrote, to tell a kubelet reset from its own write.
  std::optional<std::pair<int64_t, int64_t>> base_allocatable_;
  std::optional<std::pair<int64_t, int64_t>> written_allocatable_;
};

// The JSON merge patch of the Node's status for extend mode.
nlohmann::json ExtendStatusPatch(int64_t cpu_milli, int64_t memory_bytes);

// A pod list in a file:
//   pods:
//   - {name: web, namespace: demo, qos: LS, priority: 100, cgroup: basalt-demo/online,
//      cpuRequest: "2", memoryRequest: 1Gi, startTime: "2026-11-26T00:00:00Z"}
// `qos` becomes the volcano.sh/qos-level annotation; `cgroup` is the group
// below the hierarchy root. Read again on every list, so it can change.
class StandaloneNodeApi : public NodeApi {
 public:
  explicit StandaloneNodeApi(std::string path) : path_(std::move(path)) {}
  Result<std::vector<AgentPod>> ListPods() override;
  Status ReportOversold(ReportMode mode, int64_t cpu_milli, int64_t memory_bytes) override;
  Status Evict(const AgentPod& pod, const std::string& note) override;

 private:
  std::string path_;
};

Result<std::vector<AgentPod>> ParseStandalonePods(const std::string& text,
                                                  const std::string& where);

}  // namespace basalt::agent
