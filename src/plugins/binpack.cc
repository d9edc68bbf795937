// binpack: prefer nodes that the task fills up (docs/plugins/binpack.md; Volcano
// pkg/scheduler/plugins/binpack).
//
// Arguments (integers; a wrong type is an error):
//   binpack.weight (1)        scales the whole score; 0 registers no node order;
//   binpack.cpu (1), binpack.memory (1)
//   binpack.resources ("")    comma-separated extra resource names, e.g.
//                             "nvidia.com/gpu, example.com/foo";
//   binpack.resources.<name> (1) the weight of each listed resource.
// A negative per-resource weight becomes 1. binpack.cpu / binpack.memory win
// over a "cpu" / "memory" entry in binpack.resources.
//
// Score(task, node), over the resources the task requests (> 0) that have a
// weight (`pods` has none unless listed):
//   used_r  = node.used()[r]   (Bound, Binding, Running, Allocated and Releasing
//                               tasks; pipelined ones excluded)
//   s_r     = (req_r + used_r) * w_r / alloc_r
//   score   = Σ s_r / Σ w_r * 100 * binpack.weight
// A resource the node does not have (alloc 0) scores 0 but its weight stays in
// the denominator. If any resource would overflow the node (req + used > alloc)
// the whole score is 0 (Volcano v1.13 returns early there).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/text.h"
#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/resource_weights.h"

namespace basalt {
namespace {

constexpr int64_t kMaxNodeScore = 100;

struct BinpackWeights {
  int64_t weight = 1;
  std::map<ResourceId, int64_t> resources;  // cpu and memory always present
};

class BinpackPlugin : public Plugin {
 public:
  explicit BinpackPlugin(BinpackWeights w) : w_(std::move(w)) {}
  std::string_view Name() const override { return "binpack"; }

  void OnSessionOpen(Session& ssn) override {
    if (w_.weight == 0) return;  // disabled, as in Volcano
    ssn.AddNodeOrderFn(
        [this](const TaskInfo& task, const NodeInfo& node) { return Score(task, node); });
  }

 private:
  double Score(const TaskInfo& task, const NodeInfo& node) const {
    // Dimensions in a fixed order (cpu, memory, scalars by id) so the float
    // sum is reproducible.
    std::vector<std::pair<ResourceId, int64_t>> requested;
    requested.push_back({ResourceNames::kCpu, task.request.milli_cpu()});
    requested.push_back({ResourceNames::kMemory, task.request.memory()});
    for (const auto& s : task.request.scalars()) requested.push_back(s);

    double score = 0;
    int64_t weight_sum = 0;
    for (const auto& [id, req] : requested) {
      if (req <= 0) continue;
      auto it = w_.resources.find(id);
      if (it == w_.resources.end()) continue;
      const int64_t weight = it->second;
      const int64_t alloc = node.allocatable.Get(id);
      weight_sum += weight;
      if (alloc == 0 || weight == 0) continue;  // contributes 0
      const int64_t used_finally = req + node.used().Get(id);
      if (used_finally > alloc) return 0;
      score += static_cast<double>(used_finally) * static_cast<double>(weight) /
               static_cast<double>(alloc);
    }
    if (weight_sum > 0) score /= static_cast<double>(weight_sum);
    return score * static_cast<double>(kMaxNodeScore * w_.weight);
  }

  BinpackWeights w_;
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewBinpackPlugin(const Arguments& args) {
  BinpackWeights w;
  int64_t cpu = 1, memory = 1;
  BASALT_RETURN_IF_ERROR(args.GetInt("binpack.weight", &w.weight));
  BASALT_RETURN_IF_ERROR(args.GetInt("binpack.cpu", &cpu));
  BASALT_RETURN_IF_ERROR(args.GetInt("binpack.memory", &memory));
  if (cpu < 0) cpu = 1;
  if (memory < 0) memory = 1;
  if (args.Has("binpack.resources[0]")) {
    return Status::InvalidArgument(
        args.owner() +
        ": arguments.binpack.resources: expected a comma-separated string of resource "
        "names, got a list");
  }
  BASALT_RETURN_IF_ERROR(ReadResourceWeightList(args, "binpack.", &w.resources));
  w.resources[ResourceNames::kCpu] = cpu;
  w.resources[ResourceNames::kMemory] = memory;
  return std::unique_ptr<Plugin>(new BinpackPlugin(std::move(w)));
}

}  // namespace basalt
