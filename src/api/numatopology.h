// Numatopology (nodeinfo.volcano.sh/v1alpha1): the NUMA layout of one node, as
// Volcano's resource exporter reports it. One object per node, named after the
// node; cluster-scoped. The numa-aware plugin reads it.
//
//   apiVersion: nodeinfo.volcano.sh/v1alpha1
//   kind: Numatopology
//   metadata: {name: node-1}
//   spec:
//     policies: {CPUManagerPolicy: static, TopologyManagerPolicy: single-numa-node}
//     resReserved: {cpu: "1", memory: 1Gi}
//     numares:
//       cpu: {allocatable: "0-7", capacity: 8}
//     cpuDetail:
//       "0": {numa: 0, socket: 0, core: 0}
//       ...
//
// Field names and shapes follow volcano.sh/apis pkg/apis/nodeinfo/v1alpha1
// (NumatopoSpec). basalt is stricter than the Go types where a typo would
// silently change placements: the kubelet policy values are checked against the
// names kubelet knows, cpu sets must parse, and every CPU of
// `numares.cpu.allocatable` must be described in `cpuDetail`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/objects.h"
#include "api/status.h"

namespace YAML {
class Node;
}

namespace basalt {

class JsonField;  // api/json_field.h

// The policy keys of spec.policies (Volcano's PolicyName constants).
inline constexpr const char* kCpuManagerPolicyKey = "CPUManagerPolicy";
inline constexpr const char* kTopologyManagerPolicyKey = "TopologyManagerPolicy";
inline constexpr const char* kMemoryManagerPolicyKey = "MemoryManagerPolicy";

// Where a logical CPU sits (CPUInfo). Absent fields are 0, as with Go's omitempty.
struct CpuPlacement {
  int32_t numa = 0;
  int32_t socket = 0;
  int32_t core = 0;
};

// One entry of spec.numares (ResourceInfo).
struct NumaResourceInfo {
  std::vector<int32_t> allocatable;  // the parsed cpu-set list, ascending, unique
  int64_t capacity = 0;
};

struct Numatopology {
  ObjectMeta meta;  // cluster-scoped; the name is the node's
  std::map<std::string, std::string> policies;
  // spec.resReserved, resource name -> quantity text (validated as a quantity).
  std::map<std::string, std::string> res_reserved;
  // spec.resReserved.cpu in milli-CPU (0 when absent).
  int64_t reserved_milli_cpu = 0;
  std::map<std::string, NumaResourceInfo> numa_resources;  // spec.numares
  std::map<int32_t, CpuPlacement> cpu_detail;              // spec.cpuDetail, by cpu id

  // The value of a policy key, or "" when absent.
  const std::string& Policy(const char* key) const;
};

// Parses a Linux cpu-set list ("0-3,8,10-11"; "" is the empty set) into
// ascending, unique ids. Errors name the offending part.
Result<std::vector<int32_t>> ParseCpuSetList(const std::string& text);

// Decodes `spec` of a Numatopology into `out` (whose meta is already decoded).
// `path` is the field path of the spec in messages ("spec").
Status DecodeNumatopologySpec(const YAML::Node& spec, const std::string& path, Numatopology* out);

// Reads what CPU pinning needs from a pod spec's containers (already decoded
// and checked by the pod decoder, so reading cannot fail): whether the pod is
// of the Guaranteed QoS class (every container and init container has cpu and
// memory limits, and requests, when given, equal them) and each app
// container's CPU request in milli-CPU. Fills `out->qos_guaranteed` and
// `out->container_milli_cpu`.
void DecodeCpuPinningInputs(const YAML::Node& spec, PodSpec* out);
void DecodeCpuPinningInputs(const JsonField& spec, PodSpec* out);

}  // namespace basalt
