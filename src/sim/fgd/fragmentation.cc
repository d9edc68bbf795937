#include "sim/fgd/fragmentation.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

namespace basalt::fgd {
namespace {

using ShapeKey = std::tuple<int64_t, int, int, uint32_t>;  // cpu, gpu_milli, num_gpu, models

// Shapes added per step while covering the requested share of pods (the
// paper's simulator grows its list 10 shapes at a time).
constexpr size_t kShapeStep = 10;

}  // namespace

std::vector<PodShape> TargetWorkload(const std::vector<PodSpec>& pods, double coverage_pct,
                                     bool by_gpu_demand) {
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
  double total_weight = 0;
  for (size_t i = 0; i < kept; ++i) {
    const auto& [key, count] = ranked[i];
    PodShape s;
    s.cpu_milli = std::get<0>(key);
    s.gpu_milli = std::get<1>(key);
    s.num_gpu = std::get<2>(key);
    s.models = std::get<3>(key);
    s.weight = static_cast<double>(count) *
               (by_gpu_demand ? static_cast<double>(s.num_gpu) * s.gpu_milli : 1.0);
    total_weight += s.weight;
    auto& mem = memories[key];
    std::nth_element(mem.begin(), mem.begin() + static_cast<std::ptrdiff_t>(mem.size() / 2),
                     mem.end());
    s.memory_mib = mem[mem.size() / 2];
    shapes.push_back(s);
  }
  if (total_weight > 0) {
    for (auto& s : shapes) s.weight /= total_weight;
  }
  return shapes;
}

FragmentationMeter::FragmentationMeter(std::vector<PodShape> shapes, int model_count,
                                       bool count_memory, bool count_units)
    : shapes_(std::move(shapes)),
      count_memory_(count_memory),
      count_units_(count_units),
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
  for (const auto& c : checks_[slot]) fragment += c.weight * ShapeFragment(n, c, idle);
  return fragment;
}

double FragmentationMeter::ShapeFragment(const NodeState& n, const Check& c, int64_t idle) const {
  int cards = 0;
  int64_t below = 0;  // free milli on cards that cannot host one unit of c
  std::array<int, kMaxGpusPerNode> usable{};
  for (int g = 0; g < n.gpus; ++g) {
    const int left = n.gpu_left[static_cast<size_t>(g)];
    if (left >= c.gpu_milli) {
      usable[static_cast<size_t>(cards++)] = left;
    } else {
      below += left;
    }
  }
  const bool fits =
      cards >= c.num_gpu && n.cpu_left >= c.cpu_milli && n.memory_left >= c.memory_mib;
  if (!fits) return static_cast<double>(idle);
  if (!count_units_) return static_cast<double>(below);
  // How many units of c the node can still host; each takes num_gpu of the
  // usable cards (a sharing unit one card, counted whole: what is left on it
  // stays usable by the other shapes).
  int64_t units = cards / c.num_gpu;
  if (c.cpu_milli > 0) units = std::min<int64_t>(units, n.cpu_left / c.cpu_milli);
  if (c.memory_mib > 0) units = std::min<int64_t>(units, n.memory_left / c.memory_mib);
  const int64_t used_cards = units * c.num_gpu;
  if (used_cards >= cards) return static_cast<double>(below);
  // The units take the cards with the most free first: sum the used_cards
  // largest of the (at most 8) usable amounts.
  int64_t reachable = 0;
  for (int64_t taken = 0; taken < used_cards; ++taken) {
    int largest = 0;
    for (int i = 1; i < cards; ++i) {
      if (usable[static_cast<size_t>(i)] > usable[static_cast<size_t>(largest)]) largest = i;
    }
    reachable += usable[static_cast<size_t>(largest)];
    usable[static_cast<size_t>(largest)] = -1;
  }
  return static_cast<double>(idle - reachable);
}

double FragmentationMeter::ClusterFragment(const Cluster& c) const {
  double total = 0;
  for (const auto& n : c.nodes()) total += NodeFragment(n);
  return total;
}

}  // namespace basalt::fgd
