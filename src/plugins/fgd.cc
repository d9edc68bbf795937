// fgd: node order by fragmentation gradient descent over shared vGPU cards
// (docs/plugins/fgd.md; the policy and its measurements are in docs/fgd.md).
//
// A node's fragment, seen by one pod shape, is the idle GPU the shape could
// not use there; the node's fragment F is its expectation over the target
// workload. A pod scores a node by how much placing it there lowers F:
//   score = floor(100 * sigmoid((F_before - F_after) / 1000)) * fgd.weight
// with F in milli-cards (a card's idle share is its free memory over its
// memory). This is `basalt fgd`'s FGD-Units policy on live cards; with
// fgd.unitCounting false it is the paper's FGD.
//
// Cards and what pods hold on them come from the same accounting deviceshare
// keeps (plugins/gpu_devices.h): the node's `volcano.sh/node-vgpu-register`,
// the `volcano.sh/vgpu-ids-new` annotation of pods already placed (a pod
// without one takes cards by Volcano's walk, in name order), and the
// session's allocate / deallocate events. The card a new pod would take is the
// one deviceshare's walk gives it, so the score measures the placement that
// will happen. Fitting is deviceshare's job: a node where the pod does not fit
// scores 0 here.
//
// The target workload is the session's own pods (every task, placed or not):
// their shapes (CPU, memory, vGPU count, memory, memory percentage, cores and
// card-type annotations), most common first, kept 10 at a time until 95% of
// the pods are covered, weighted by pod count (as `basalt fgd` builds it from
// the trace). Shapes without vGPU count all idle GPU as fragment.
//
// Pods that ask no vGPU score 0 on every node: the plugin orders GPU pods only.
//
// Arguments: fgd.weight (int, 1; 0 registers nothing), fgd.unitCounting
// (bool, true).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/gpu_devices.h"
#include "plugins/unknown_arguments.h"

namespace basalt {
namespace {

constexpr const char* kArgWeight = "fgd.weight";
constexpr const char* kArgUnitCounting = "fgd.unitCounting";
constexpr int64_t kMilliPerCard = 1000;
constexpr double kCoveragePct = 95.0;
constexpr size_t kShapeStep = 10;
// A node hosts at most this many units of one shape in the count; more only
// happens with shapes asking nearly nothing, whose fragment is 0 long before.
constexpr int kMaxUnits = 64;

struct FgdOptions {
  int64_t weight = 1;
  bool unit_counting = true;
};

// One pod shape of the target workload.
struct Shape {
  int64_t cpu = 0;                  // milli
  int64_t memory = 0;               // bytes
  std::optional<VgpuRequest> vgpu;  // none or count 0: asks no card
  double weight = 0;
};

// What a node offers the measure: its cards and idle CPU and memory.
struct NodeState {
  GpuCards cards;
  int64_t cpu = 0;
  int64_t memory = 0;
};

const std::string* Annotation(const TaskInfo& task, const char* key) {
  if (!task.pod) return nullptr;
  auto it = task.pod->meta.annotations.find(key);
  return it == task.pod->meta.annotations.end() ? nullptr : &it->second;
}

std::optional<VgpuRequest> VgpuOf(const TaskInfo& task) {
  if (!task.pod) return std::nullopt;
  auto r = VgpuRequestOf(task.pod->spec.request, task.pod->meta.annotations);
  if (r && r->count <= 0) return std::nullopt;
  return r;
}

// Idle share of a card in milli: free memory over memory. An unhealthy card
// or one without memory offers nothing.
int64_t IdleMilli(const GpuCard& card) {
  if (!card.healthy || card.memory <= 0) return 0;
  const int64_t free = std::max<int64_t>(0, card.memory - card.used_memory);
  return free * kMilliPerCard / card.memory;
}

void WarnUnknownFgdArguments(const Arguments& args) {
  WarnUnknownArguments(
      args,
      [](const std::string& key) {
        std::string top = KeyPrefix(key, "[");
        return top == kArgWeight || top == kArgUnitCounting ? std::string() : top;
      },
      "fgd.weight, fgd.unitCounting");
}

class FgdPlugin : public Plugin {
 public:
  explicit FgdPlugin(FgdOptions o) : opts_(o) {}
  std::string_view Name() const override { return "fgd"; }

  void OnSessionOpen(Session& ssn) override {
    if (opts_.weight == 0) return;
    BuildShapes(ssn);
    BuildNodes(ssn);
    AccountPlacedPods(ssn);
    ssn.AddNodeOrderFn(
        [this](const TaskInfo& task, const NodeInfo& node) { return Score(task, node); });
    ssn.AddEventHandler(EventHandler{[this](const TaskInfo& task) { OnAllocate(task); },
                                     [this](const TaskInfo& task) { OnDeallocate(task); }});
  }

 private:
  using ShapeKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                              std::vector<std::string>, std::vector<std::string>, std::string>;

  void BuildShapes(const Session& ssn) {
    std::map<ShapeKey, int64_t> counts;
    std::map<ShapeKey, Shape> shapes;
    int64_t total = 0;
    for (const TaskInfo& t : ssn.tasks()) {
      if (!t.pod) continue;
      Shape s;
      s.cpu = t.request.milli_cpu();
      s.memory = t.request.memory();
      s.vgpu = VgpuOf(t);
      ShapeKey key{s.cpu, s.memory, 0, 0, 0, 0, {}, {}, {}};
      if (s.vgpu) {
        key = ShapeKey{s.cpu,
                       s.memory,
                       s.vgpu->count,
                       s.vgpu->memory,
                       s.vgpu->memory_percent,
                       s.vgpu->cores,
                       s.vgpu->use_types,
                       s.vgpu->nouse_types,
                       s.vgpu->mode};
      }
      ++counts[key];
      shapes.emplace(key, std::move(s));
      ++total;
    }
    std::vector<std::pair<ShapeKey, int64_t>> ranked(counts.begin(), counts.end());
    // Most common first; equal counts in key order, so the list is the same
    // whatever order the tasks came in.
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    const double wanted = kCoveragePct * static_cast<double>(total) / 100.0;
    size_t kept = 0;
    int64_t covered = 0;
    while (static_cast<double>(covered) < wanted && kept < ranked.size()) {
      const size_t end = std::min(ranked.size(), kept + kShapeStep);
      for (; kept < end; ++kept) covered += ranked[kept].second;
    }
    shapes_.clear();
    for (size_t i = 0; i < kept; ++i) {
      Shape s = shapes.at(ranked[i].first);
      s.weight = static_cast<double>(ranked[i].second) / static_cast<double>(covered);
      shapes_.push_back(std::move(s));
    }
  }

  void BuildNodes(Session& ssn) {
    cards_.assign(ssn.nodes().size(), std::nullopt);
    fragment_.assign(ssn.nodes().size(), -1.0);
    for (const NodeInfo& n : ssn.nodes()) {
      if (!n.node) continue;
      const auto& annotations = n.node->meta.annotations;
      auto reg = annotations.find(kVgpuRegisterAnnotation);
      if (reg == annotations.end()) continue;
      auto handshake = annotations.find(kVgpuHandshakeAnnotation);
      if (handshake != annotations.end() && handshake->second.rfind("Deleted", 0) == 0) continue;
      // A malformed registration is reported by deviceshare; here the node
      // simply has no cards to measure.
      Result<GpuCards> cards = GpuCards::FromVgpuRegister(reg->second);
      if (cards.ok()) cards_[n.id] = std::move(*cards);
    }
  }

  // Pods on a node at session open: recorded cards first, then the others by
  // Volcano's walk in name order (deviceshare's order, so both agree).
  void AccountPlacedPods(const Session& ssn) {
    holdings_.clear();
    std::vector<const TaskInfo*> placed;
    for (const TaskInfo& t : ssn.tasks()) {
      if (t.node != kNone && IsOnNodeStatus(t.status) && cards_[t.node] && VgpuOf(t))
        placed.push_back(&t);
    }
    std::sort(placed.begin(), placed.end(),
              [](const TaskInfo* a, const TaskInfo* b) { return a->key < b->key; });
    std::vector<const TaskInfo*> unrecorded;
    for (const TaskInfo* t : placed) {
      GpuCards& cards = *cards_[t->node];
      const std::string* ids = Annotation(*t, kVgpuIdsAnnotation);
      Result<CardUses> uses = ids ? DecodeVgpuIds(cards, *ids) : Result<CardUses>(CardUses{});
      if (ids && uses.ok()) {
        cards.Add(*uses);
        holdings_[t->id] = Holding{t->node, std::move(*uses), /*recorded=*/true, /*active=*/true};
      } else {
        unrecorded.push_back(t);
      }
    }
    for (const TaskInfo* t : unrecorded) {
      GpuCards& cards = *cards_[t->node];
      CardUses uses;
      std::string reason;
      if (FitVgpu(cards, *VgpuOf(*t), &uses, &reason)) {
        cards.Add(uses);
        holdings_[t->id] = Holding{t->node, std::move(uses), /*recorded=*/true, /*active=*/true};
      }
    }
  }

  // The idle GPU (milli) shape `s` cannot use on `n`.
  double ShapeFragment(const NodeState& n, const Shape& s, int64_t idle) const {
    if (!s.vgpu) return static_cast<double>(idle);
    const std::vector<GpuCard>& all = n.cards.cards();
    std::vector<bool> usable(all.size(), false);
    CardUses uses;
    std::string reason;
    if (opts_.unit_counting) {
      // Units of the shape while CPU, memory and cards last; the cards they
      // land on (by Volcano's walk) are the ones the shape can use.
      GpuCards left = n.cards;
      for (int units = 1; units <= kMaxUnits; ++units) {
        if (s.cpu * units > n.cpu || s.memory * units > n.memory) break;
        if (!FitVgpu(left, *s.vgpu, &uses, &reason)) break;
        left.Add(uses);
        for (const CardUse& u : uses) usable[static_cast<size_t>(u.card)] = true;
      }
    } else {
      // The paper's measure: one unit must fit the node; then every card
      // that alone could host one card's share of it is usable.
      if (s.cpu > n.cpu || s.memory > n.memory || !FitVgpu(n.cards, *s.vgpu, &uses, &reason)) {
        return static_cast<double>(idle);
      }
      VgpuRequest one = *s.vgpu;
      one.count = 1;
      for (size_t g = 0; g < all.size(); ++g) {
        usable[g] = FitVgpu(GpuCards({all[g]}), one, &uses, &reason);
      }
    }
    int64_t reachable = 0;
    for (size_t g = 0; g < all.size(); ++g) {
      if (usable[g]) reachable += IdleMilli(all[g]);
    }
    return static_cast<double>(idle - reachable);
  }

  double Fragment(const NodeState& n) const {
    int64_t idle = 0;
    for (const GpuCard& c : n.cards.cards()) idle += IdleMilli(c);
    if (idle == 0) return 0;
    double f = 0;
    for (const Shape& s : shapes_) f += s.weight * ShapeFragment(n, s, idle);
    return f;
  }

  NodeState StateOf(const NodeInfo& node) const {
    return NodeState{*cards_[node.id], node.idle().milli_cpu(), node.idle().memory()};
  }

  double Score(const TaskInfo& task, const NodeInfo& node) {
    if (!cards_[node.id]) return 0;
    const std::optional<VgpuRequest> request = VgpuOf(task);
    if (!request) return 0;
    NodeState now = StateOf(node);
    CardUses uses;
    std::string reason;
    if (!FitVgpu(now.cards, *request, &uses, &reason)) return 0;
    double& before = fragment_[node.id];
    if (before < 0) before = Fragment(now);
    NodeState after = now;
    after.cards.Add(uses);
    after.cpu -= task.request.milli_cpu();
    after.memory -= task.request.memory();
    const double decrease = (before - Fragment(after)) / static_cast<double>(kMilliPerCard);
    const double sigmoid = 1.0 / (1.0 + std::exp(-decrease));
    return std::floor(sigmoid * 100.0) * static_cast<double>(opts_.weight);
  }

  void OnAllocate(const TaskInfo& task) {
    if (task.node == kNone) return;
    fragment_[task.node] = -1.0;  // CPU and memory moved even for a pod without cards
    if (!cards_[task.node]) return;
    auto held = holdings_.find(task.id);
    if (held != holdings_.end()) {
      // A pod evicted and restored inside the session takes back its cards.
      Holding& h = held->second;
      if (!h.active && h.node == task.node) {
        cards_[task.node]->Add(h.uses);
        h.active = true;
      }
      return;
    }
    const std::optional<VgpuRequest> request = VgpuOf(task);
    if (!request) return;
    GpuCards& cards = *cards_[task.node];
    CardUses uses;
    std::string reason;
    if (!FitVgpu(cards, *request, &uses, &reason)) return;
    cards.Add(uses);
    holdings_[task.id] = Holding{task.node, std::move(uses), /*recorded=*/false, /*active=*/true};
  }

  void OnDeallocate(const TaskInfo& task) {
    if (task.node != kNone) fragment_[task.node] = -1.0;
    auto it = holdings_.find(task.id);
    if (it == holdings_.end() || !it->second.active) return;
    Holding& h = it->second;
    fragment_[h.node] = -1.0;
    if (cards_[h.node]) cards_[h.node]->Remove(h.uses);
    h.active = false;
    // A pod that was on the node at session open keeps its cards on record
    // (deviceshare restores the same ones if it comes back).
    if (!h.recorded) holdings_.erase(it);
  }

  struct Holding {
    NodeId node = kNone;
    CardUses uses;
    bool recorded = false;  // on the node when the session opened
    bool active = true;     // currently counted on the cards
  };

  FgdOptions opts_;
  std::vector<Shape> shapes_;
  std::vector<std::optional<GpuCards>> cards_;  // by node id; none: the node registers no vGPU
  std::vector<double> fragment_;                // by node id; F now, or < 0 when not yet known
  std::map<TaskId, Holding> holdings_;
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewFgdPlugin(const Arguments& args) {
  FgdOptions o;
  BASALT_RETURN_IF_ERROR(args.GetInt(kArgWeight, &o.weight));
  BASALT_RETURN_IF_ERROR(args.GetBool(kArgUnitCounting, &o.unit_counting));
  if (o.weight < 0) {
    return Status::InvalidArgument(args.owner() + ": arguments." + kArgWeight +
                                   ": must not be negative, got " + std::to_string(o.weight));
  }
  WarnUnknownFgdArguments(args);
  return std::unique_ptr<Plugin>(new FgdPlugin(o));
}

}  // namespace basalt
