// Card discovery for the capacity-card plugin (docs/plugins/capacity-card.md):
// which accelerator card models a node offers, and how many of each, read from
// its labels and `status.allocatable`.
//
// A label `<domain>/<type>.product` (e.g. `nvidia.com/gpu.product:
// NVIDIA-H200`) names the node's card family; `<domain>/<type>` is its base
// resource. Each positive allocatable resource then maps to a model:
//
//   <base>.shared              MPS    <product>/mps-<GiB>g*1/<replicas>
//                                     GiB = round(<base>.memory MiB / 1024),
//                                     replicas = label <base>.replicas
//   <domain>/mig-<profile>     MIG    <product>/mig-<profile>-mixed
//   <base>, <base>...          whole  <product>
//
// Anything else (cpu, rdma, hugepages, ...) is not a card. A label or value
// that does not fit (an MPS resource without the memory or replicas label, a
// product that is not a valid model name) leaves that resource out: a node
// whose cards disappear or are re-partitioned simply offers other models.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/objects.h"

namespace basalt {

struct NodeCard {
  std::string model;        // "NVIDIA-H200", "NVIDIA-H200/mig-1g.18gb-mixed"
  std::string resource;     // "nvidia.com/gpu", "nvidia.com/mig-1g.18gb"
  int64_t milli_count = 0;  // allocatable, in milli-cards
};

// The node's card models, in the order of its allocatable resources (by name).
std::vector<NodeCard> DiscoverNodeCards(const Node& node);

// Sum of milli-cards per model over `nodes`.
std::map<std::string, int64_t> ClusterCardTotals(const std::vector<const Node*>& nodes);

}  // namespace basalt
