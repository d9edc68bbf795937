#include "sim/fgd/fragmentation.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace basalt::fgd {
namespace {

using ShapeKey = std::tuple<int64_t, int, int, uint32_t>;  // cpu, gpu_milli, num_gpu, models

// Shapes added per step while covering the requested share of pods (the
// paper's simulator grows its list 10 shapes at a time).
constexpr size_t kShapeStep = 10;

}  // namespace

std::vector<PodShape> TargetWorkload(const std::vector<PodSpec>& pods, double coverage_pct) {
  std::map<ShapeKey, int64_t> counts;
  std::map<ShapeKey, std::vector<int64_t>> memories;
  for (const auto& p : pods) {
    const ShapeKey key{p.cpu_milli, p.gpu_milli, p.num_gpu, p.models};
    ++counts[key];
    memories[key].push_back(p.memory_mib);
  }
  std::vector<std::pair<ShapeKey, int64_t>> ranked(counts.begin(), counts.end());
  // Most common first; among equal counts the larger shape first (cpu, then
  // gpu_milli, then num_gpu, then models), so the order is total.
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first > b.first;
  });
  const double total = static_cast<double>(pods.size());
  const double wanted = coverage_pct * total / 100.0;
  size_t kept = 0;
  double covered = 0;
  while (covered < wanted && kept < ranked.size()) {
    size_t step_end = std::min(ranked.size(), kept + kShapeStep);
    for (; kept < step_end; ++kept) covered += static_cast<double>(ranked[kept].second);
  }
  std::vector<PodShape> shapes;
  shapes.reserve(kept);
  for (size_t i = 0; i < kept; ++i) {
    const auto& [key, count] = ranked[i];
    PodShape s;
    s.cpu_milli = std::get<0>(key);
    s.gpu_milli = std::get<1>(key);
    s.num_gpu = std::get<2>(key);
    s.models = std::get<3>(key);
    s.weight = static_cast<double>(count) / covered;
    auto& mem = memories[key];
    std::nth_element(mem.begin(), mem.begin() + static_cast<std::ptrdiff_t>(mem.size() / 2), mem.end());
    s.memory_mib = mem[mem.size() / 2];
    shapes.push_back(s);
  }
  return shapes;
}

FragmentationMeter::FragmentationMeter(std::vector<PodShape> shapes, int model_count, bool count_memory)
    : shapes_(std::move(shapes)),
      always_idle_weight_(static_cast<size_t>(model_count) + 1, 0.0),
      checks_(static_cast<size_t>(model_count) + 1) {
  for (int slot = 0; slot <= model_count; ++slot) {
    const int model = slot - 1;
    for (const auto& s : shapes_) {
      bool usable = s.num_gpu > 0 && model >= 0 && (s.models == 0 || (s.models >> model) & 1u);
      if (usable) {
        checks_[static_cast<size_t>(slot)].push_back(
            Check{s.cpu_milli, s.num_gpu, s.gpu_milli, s.weight, count_memory ? s.memory_mib : 0});
      } else {
        always_idle_weight_[static_cast<size_t>(slot)] += s.weight;
      }
    }
  }
}

double FragmentationMeter::NodeFragment(const NodeState& n) const {
  int64_t idle = n.GpuLeftTotal();
  if (idle == 0) return 0;
  const size_t slot = static_cast<size_t>(n.model + 1);
  double fragment = always_idle_weight_[slot] * static_cast<double>(idle);
  for (const auto& c : checks_[slot]) {
    int cards = 0;
    int64_t below = 0;  // free milli on cards that cannot host one unit of c
    for (int g = 0; g < n.gpus; ++g) {
      int left = n.gpu_left[static_cast<size_t>(g)];
      if (left >= c.gpu_milli) {
        ++cards;
      } else {
        below += left;
      }
    }
    bool fits = cards >= c.num_gpu && n.cpu_left >= c.cpu_milli && n.memory_left >= c.memory_mib;
    fragment += c.weight * static_cast<double>(fits ? below : idle);
  }
  return fragment;
}

double FragmentationMeter::ClusterFragment(const Cluster& c) const {
  double total = 0;
  for (const auto& n : c.nodes()) total += NodeFragment(n);
  return total;
}

}  // namespace basalt::fgd
