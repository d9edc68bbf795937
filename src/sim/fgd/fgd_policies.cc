// Fragmentation gradient descent (FGD, the paper's policy) and our variants of
// it, FGD-Mem and FGD-Units. All place a pod where the node's expected
// fragment F(n) (fragmentation.h) grows least; FGD-Mem also counts memory in
// F, FGD-Units counts the units of each shape a node can still host.
#include <cmath>

#include "sim/fgd/policy.h"

namespace basalt::fgd {
namespace {

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// `n` after hosting `pod`; for a sharing pod on `card`. Whole cards are taken
// from the free ones (which of them does not change F).
NodeState After(const NodeState& n, const PodSpec& pod, int card) {
  NodeState a = n;
  a.cpu_left -= pod.cpu_milli;
  a.memory_left -= pod.memory_mib;
  if (pod.num_gpu == 0) return a;
  if (pod.SharesGpu()) {
    a.gpu_left[static_cast<size_t>(card)] -= pod.gpu_milli;
    return a;
  }
  int needed = pod.num_gpu;
  for (int g = 0; g < a.gpus && needed > 0; ++g) {
    if (a.gpu_left[static_cast<size_t>(g)] == kMilliPerGpu) {
      a.gpu_left[static_cast<size_t>(g)] = 0;
      --needed;
    }
  }
  return a;
}

// Cards a sharing pod could take, one per distinct free amount (cards with
// the same free milli give the same F); the lowest index of each amount, in
// index order, so "first best" matches a scan over all cards.
int DistinctCandidateCards(const NodeState& n, int milli, std::array<int, kMaxGpusPerNode>& out) {
  int count = 0;
  for (int g = 0; g < n.gpus; ++g) {
    const int left = n.gpu_left[static_cast<size_t>(g)];
    if (left < milli) continue;
    bool seen = false;
    for (int i = 0; i < count && !seen; ++i)
      seen = n.gpu_left[static_cast<size_t>(out[static_cast<size_t>(i)])] == left;
    if (!seen) out[static_cast<size_t>(count++)] = g;
  }
  return count;
}

int64_t QuantisedDecrease(double before, double after) {
  // The simulator's score: the decrease in GPUs through a sigmoid, times the
  // maximum node score 100, truncated.
  return static_cast<int64_t>(Sigmoid((before - after) / 1000.0) * 100.0);
}

int64_t FgdScoreWithBefore(const FragmentationMeter& meter, const NodeState& n, double before,
                           const PodSpec& pod, int* card) {
  if (!pod.SharesGpu()) {
    if (card != nullptr) *card = -1;
    return QuantisedDecrease(before, meter.NodeFragment(After(n, pod, -1)));
  }
  std::array<int, kMaxGpusPerNode> cards{};
  const int count = DistinctCandidateCards(n, pod.gpu_milli, cards);
  int64_t best = 0;
  int best_card = -1;
  for (int i = 0; i < count; ++i) {
    const int g = cards[static_cast<size_t>(i)];
    const int64_t s = QuantisedDecrease(before, meter.NodeFragment(After(n, pod, g)));
    if (best_card < 0 || s > best) {
      best = s;
      best_card = g;
    }
  }
  if (card != nullptr) *card = best_card;
  return best;
}

// F(n) of every node, kept current as pods are placed so a score costs one
// evaluation of F per candidate placement instead of two.
class FragmentCache {
 public:
  explicit FragmentCache(const FragmentationMeter& meter) : meter_(meter) {}
  double Get(const Cluster& c, int node) {
    if (values_.empty()) {
      values_.reserve(static_cast<size_t>(c.size()));
      for (const auto& n : c.nodes()) values_.push_back(meter_.NodeFragment(n));
    }
    return values_[static_cast<size_t>(node)];
  }
  void Refresh(const Cluster& c, int node) {
    if (!values_.empty()) values_[static_cast<size_t>(node)] = meter_.NodeFragment(c.node(node));
  }

 private:
  const FragmentationMeter& meter_;
  std::vector<double> values_;
};

class FgdPolicy : public Policy {
 public:
  explicit FgdPolicy(const FragmentationMeter& meter, std::string_view name = "FGD")
      : meter_(meter), cache_(meter), name_(name) {}
  std::string_view Name() const override { return name_; }
  double Score(const Cluster& c, int node, const PodSpec& pod) override {
    return static_cast<double>(
        FgdScoreWithBefore(meter_, c.node(node), cache_.Get(c, node), pod, nullptr));
  }
  int ChooseCard(const Cluster& c, int node, const PodSpec& pod) override {
    int card = -1;
    FgdScoreWithBefore(meter_, c.node(node), cache_.Get(c, node), pod, &card);
    return card;
  }
  void Placed(const Cluster& c, int node) override { cache_.Refresh(c, node); }

 private:
  const FragmentationMeter& meter_;
  FragmentCache cache_;
  std::string_view name_;
};

// FGD-Mem: FGD measuring fragments with memory as a third dimension. The
// paper's shapes are CPU x GPU only, yet memory is filtered on: a node whose
// memory is nearly used up cannot host the common shapes any more, and its
// idle cards are lost just like cards behind a CPU shortage. Each shape needs
// the median memory of its pods. (The variants' own meter is a base listed
// before FgdPolicy, so it exists before FgdPolicy binds to it.)
struct OwnMeter {
  FragmentationMeter meter;
};
class FgdMemoryPolicy : private OwnMeter, public FgdPolicy {
 public:
  explicit FgdMemoryPolicy(const FragmentationMeter& paper_meter)
      : OwnMeter{FragmentationMeter(paper_meter.shapes(), paper_meter.model_count(),
                                    /*count_memory=*/true)},
        FgdPolicy(OwnMeter::meter, "FGD-Mem") {}
};

// FGD-Units: FGD whose fragment counts, for each shape, only the cards that
// the units the node can still host would take (fragmentation.h, "Unit-
// counting meters"). The paper's measure calls a node with eight idle cards
// and CPU for one more pod "fit" and counts none of its cards; after that pod
// seven cards are stranded. Counting them steers CPU-heavy pods away from
// nodes whose cards would be left without CPU (measured in docs/fgd.md).
// Same score, quantisation and tie-breaking as FGD; only the meter differs.
class FgdUnitsPolicy : private OwnMeter, public FgdPolicy {
 public:
  explicit FgdUnitsPolicy(const FragmentationMeter& paper_meter)
      : OwnMeter{FragmentationMeter(paper_meter.shapes(), paper_meter.model_count(),
                                    /*count_memory=*/false,
                                    /*count_units=*/true)},
        FgdPolicy(OwnMeter::meter, "FGD-Units") {}
};

}  // namespace

int64_t FgdScore(const FragmentationMeter& meter, const NodeState& n, const PodSpec& pod,
                 int* card) {
  return FgdScoreWithBefore(meter, n, meter.NodeFragment(n), pod, card);
}

std::unique_ptr<Policy> MakeFgdPolicy(const FragmentationMeter& meter) {
  return std::make_unique<FgdPolicy>(meter);
}
std::unique_ptr<Policy> MakeFgdMemoryPolicy(const FragmentationMeter& meter) {
  return std::make_unique<FgdMemoryPolicy>(meter);
}
std::unique_ptr<Policy> MakeFgdUnitsPolicy(const FragmentationMeter& meter) {
  return std::make_unique<FgdUnitsPolicy>(meter);
}

}  // namespace basalt::fgd
