// The paper's baseline policies (Random, DotProd, GpuClustering, GpuPacking,
// BestFit), the shared selection step and the policy factory. FGD, FGD-Mem and
// FGD-Units are in fgd_policies.cc.
#include <algorithm>

#include "sim/fgd/policy.h"

namespace basalt::fgd {

uint64_t UniformBelow(Rng& rng, uint64_t n) {
  // Rejection keeps every value equally likely: draws in the ragged top
  // [limit, 2^64) are redrawn.
  const uint64_t limit = (~uint64_t{0}) - (~uint64_t{0}) % n;
  for (;;) {
    uint64_t v = rng();
    if (v < limit) return v % n;
  }
}

size_t Policy::SelectNode(const Cluster& c, const std::vector<int>& feasible, const PodSpec& pod) {
  size_t best = 0;
  double best_score = Score(c, feasible[0], pod);
  for (size_t i = 1; i < feasible.size(); ++i) {
    double s = Score(c, feasible[i], pod);
    if (s > best_score) {  // strict: ties keep the lower node index
      best_score = s;
      best = i;
    }
  }
  return best;
}

int Policy::ChooseCard(const Cluster& c, int node, const PodSpec& pod) {
  return BestFitCard(c.node(node), pod.gpu_milli);
}

int64_t DotProductScore(const NodeState& n, const PodSpec& pod) {
  // Tetris's alignment, as the simulator runs it ("merge" GPU dimension,
  // "max" normalisation): the free vector (CPU, all free GPU milli) and the
  // request vector, both divided by the largest node, dotted and halved. The
  // SMALLER the product the higher the score.
  const double free_cpu = static_cast<double>(n.cpu_left) / kMaxSpecCpuMilli;
  const double free_gpu = static_cast<double>(n.GpuLeftTotal()) / kMaxSpecGpuMilli;
  const double req_cpu = static_cast<double>(pod.cpu_milli) / kMaxSpecCpuMilli;
  const double req_gpu = static_cast<double>(pod.TotalGpuMilli()) / kMaxSpecGpuMilli;
  const double product = (free_cpu * req_cpu + free_gpu * req_gpu) / 2.0;
  return static_cast<int64_t>(100.0 * (1.0 - product));
}

int64_t GpuClusteringScore(const NodeState& n, const PodSpec& pod) {
  // Four bands of 25 points, best first: the node runs only pods of this
  // pod's kind (share / n whole cards); it runs this kind among others; it is
  // idle; it runs other kinds only. Within a band, less free GPU scores higher.
  const int tag = AffinityTag(pod);
  if (tag < 0) return 0;
  const int64_t fill = 25 * (static_cast<int64_t>(kMaxSpecGpuMilli) - n.GpuLeftTotal()) /
                       static_cast<int64_t>(kMaxSpecGpuMilli);
  const int kinds = n.DistinctTags();
  if (n.pods_by_tag[static_cast<size_t>(tag)] > 0) return fill + (kinds == 1 ? 75 : 50);
  return fill + (kinds == 0 ? 25 : 0);
}

int64_t GpuPackingScore(const NodeState& n, const PodSpec& pod) {
  // Best first: fill partly used cards (100 minus a tenth of the free percent
  // left on the cards used, at least 50); take whole free cards on a node that
  // is already in use (50 minus the cards taken, at least 33); open an idle
  // node (33 minus its free cards, at least that count).
  if (pod.num_gpu == 0) return 0;
  const int free_cards = n.FullyFreeCards();
  if (free_cards == n.gpus) return std::max<int64_t>(33 - free_cards, free_cards);
  // The cards the pod would use: the fullest that still fit, in order.
  std::array<int, kMaxGpusPerNode> order{};
  for (int g = 0; g < n.gpus; ++g) order[static_cast<size_t>(g)] = g;
  std::stable_sort(order.begin(), order.begin() + n.gpus, [&n](int a, int b) {
    return n.gpu_left[static_cast<size_t>(a)] < n.gpu_left[static_cast<size_t>(b)];
  });
  int needed = pod.num_gpu;
  int whole_cards_used = 0;
  int64_t free_pct_on_used = 0;
  for (int i = 0; i < n.gpus && needed > 0; ++i) {
    const int left = n.gpu_left[static_cast<size_t>(order[static_cast<size_t>(i)])];
    if (left < pod.gpu_milli) continue;
    --needed;
    if (left == kMilliPerGpu) ++whole_cards_used;
    free_pct_on_used += int64_t{left} * 100 / kMilliPerGpu;
  }
  if (needed > 0) return 0;
  if (whole_cards_used > 0) return std::max<int64_t>(50 - whole_cards_used, 33);
  return std::max<int64_t>(100 - free_pct_on_used / 10, 50);
}

int64_t BestFitScore(const NodeState& n, const PodSpec& pod) {
  // Half CPU, half GPU: what would be left after placing the pod, as a share
  // of the largest node; less left scores higher.
  const double left_cpu = static_cast<double>(n.cpu_left - pod.cpu_milli) / kMaxSpecCpuMilli;
  const double left_gpu =
      static_cast<double>(n.GpuLeftTotal() - pod.TotalGpuMilli()) / kMaxSpecGpuMilli;
  const double waste = 0.5 * left_cpu + 0.5 * left_gpu;
  return static_cast<int64_t>((1.0 - waste) * 100.0);
}

namespace {

// Any feasible node with equal probability; any card that fits likewise.
class RandomPolicy : public Policy {
 public:
  explicit RandomPolicy(Rng& rng) : rng_(rng) {}
  std::string_view Name() const override { return "Random"; }
  double Score(const Cluster&, int, const PodSpec&) override { return 0; }
  size_t SelectNode(const Cluster&, const std::vector<int>& feasible, const PodSpec&) override {
    return static_cast<size_t>(UniformBelow(rng_, feasible.size()));
  }
  int ChooseCard(const Cluster& c, int node, const PodSpec& pod) override {
    const NodeState& n = c.node(node);
    int fitting = n.CardsWithAtLeast(pod.gpu_milli);
    int pick = static_cast<int>(UniformBelow(rng_, static_cast<uint64_t>(fitting)));
    for (int g = 0; g < n.gpus; ++g) {
      if (n.gpu_left[static_cast<size_t>(g)] >= pod.gpu_milli && pick-- == 0) return g;
    }
    return -1;
  }

 private:
  Rng& rng_;
};

// A policy that is just one of the integer score functions above.
class ScoreFunctionPolicy : public Policy {
 public:
  using Fn = int64_t (*)(const NodeState&, const PodSpec&);
  ScoreFunctionPolicy(std::string_view name, Fn fn) : name_(name), fn_(fn) {}
  std::string_view Name() const override { return name_; }
  double Score(const Cluster& c, int node, const PodSpec& pod) override {
    return static_cast<double>(fn_(c.node(node), pod));
  }

 private:
  std::string_view name_;
  Fn fn_;
};

}  // namespace

std::unique_ptr<Policy> MakeRandomPolicy(Rng& rng) { return std::make_unique<RandomPolicy>(rng); }
std::unique_ptr<Policy> MakeDotProductPolicy() {
  return std::make_unique<ScoreFunctionPolicy>("DotProd", &DotProductScore);
}
std::unique_ptr<Policy> MakeGpuClusteringPolicy() {
  return std::make_unique<ScoreFunctionPolicy>("Clustering", &GpuClusteringScore);
}
std::unique_ptr<Policy> MakeGpuPackingPolicy() {
  return std::make_unique<ScoreFunctionPolicy>("Packing", &GpuPackingScore);
}
std::unique_ptr<Policy> MakeBestFitPolicy() {
  return std::make_unique<ScoreFunctionPolicy>("BestFit", &BestFitScore);
}

const std::vector<std::string>& PolicyNames() {
  static const std::vector<std::string> kNames = {"Random",  "DotProd", "Clustering", "Packing",
                                                  "BestFit", "FGD",     "FGD-Mem",    "FGD-Units"};
  return kNames;
}

Result<std::unique_ptr<Policy>> MakePolicy(std::string_view name, Rng& rng,
                                           const FragmentationMeter& meter) {
  if (name == "Random") return MakeRandomPolicy(rng);
  if (name == "DotProd") return MakeDotProductPolicy();
  if (name == "Clustering") return MakeGpuClusteringPolicy();
  if (name == "Packing") return MakeGpuPackingPolicy();
  if (name == "BestFit") return MakeBestFitPolicy();
  if (name == "FGD") return MakeFgdPolicy(meter);
  if (name == "FGD-Mem") return MakeFgdMemoryPolicy(meter);
  if (name == "FGD-Units") return MakeFgdUnitsPolicy(meter);
  std::string known;
  for (const auto& n : PolicyNames()) known += (known.empty() ? "" : ", ") + n;
  return Status::InvalidArgument("unknown policy \"" + std::string(name) + "\" (known: " + known +
                                 ")");
}

}  // namespace basalt::fgd
