// ResourceQuota (v1), as the `resourcequota` scheduler plugin reads it:
//
//   apiVersion: v1
//   kind: ResourceQuota
//   metadata: {name: team-a, namespace: team-a}
//   spec:
//     hard: {cpu: "8", requests.memory: 16Gi, requests.nvidia.com/gpu: "4", pods: "10"}
//   status:                      # written by the quota controller
//     hard: {cpu: "8", ...}
//     used: {cpu: "3", ...}
//
// Quota names are kept as written ("cpu", "requests.cpu", "limits.memory",
// "count/pods", "requests.nvidia.com/gpu"), each quantity in thousandths of
// its unit (so memory in milli-bytes), which compares every name exactly.
// `spec.scopes` and `spec.scopeSelector` are read past: Volcano's plugin does
// not support scopes either.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "api/objects.h"
#include "api/resource.h"
#include "api/status.h"

namespace YAML {
class Node;
}

namespace basalt {

// Quota name -> quantity in thousandths.
using QuotaList = std::map<std::string, int64_t>;

struct ResourceQuota {
  ObjectMeta meta;
  QuotaList spec_hard;
  // status.hard and status.used; `has_status` is false when the object has no
  // status.hard (a hand-written manifest).
  bool has_status = false;
  QuotaList status_hard;
  QuotaList status_used;
  bool operator==(const ResourceQuota&) const = default;
};

// Decodes metadata, spec.hard and status. Errors name the field.
Status DecodeResourceQuota(const YAML::Node& doc, ResourceQuota* out);

// A request as the quota system counts it: each resource under its own name
// and under "requests.<name>" (cpu, memory, hugepages and extended resources;
// pods as "pods" and "count/pods"). This is how Volcano's job controller
// writes a PodGroup's minResources and how the quota controller counts a pod.
QuotaList QuotaUsageOf(const Resource& request);

// Adds `b` into `a`, name by name (saturating).
void AddQuota(QuotaList* a, const QuotaList& b);

// "map[cpu:2 requests.memory:1Gi]": the names in byte order, as Go prints a
// ResourceList, each quantity in its canonical Kubernetes form.
std::string FormatQuotaList(const QuotaList& list);

}  // namespace basalt
