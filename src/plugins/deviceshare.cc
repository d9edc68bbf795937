// deviceshare: GPUs shared by memory and compute (Volcano
// pkg/scheduler/plugins/deviceshare; docs/plugins/deviceshare.md).
//
// Per node the plugin keeps the cards of each enabled family (vGPU from the
// node's `volcano.sh/node-vgpu-register` annotation, gpushare from its
// `volcano.sh/gpu-memory` / `volcano.sh/gpu-number` capacity; see
// plugins/gpu_devices.h) and what every pod on the node holds on them:
//  * at session open, pods already on a node count with the cards their
//    annotation names (`volcano.sh/vgpu-ids-new`, `volcano.sh/gpu-index`);
//    a pod without one (placed outside basalt) gets cards by the same walk
//    as a new pod, in name order, so the accounting is never short;
//  * allocate / deallocate events of the session add and remove the cards a
//    pod takes, so two pods placed in one session see each other — Volcano
//    only learns them when the bind patches the pod;
//  * the cards of a bound pod go out with its bind as the same annotations,
//    which the next session reads.
//
// Predicate: a pod that asks a family's resources needs the node to have that
// family ("node not initialized with device ...") and the cards to fit it
// (each requested vGPU on a distinct card). NodeOrder: with
// deviceshare.SchedulePolicy binpack or spread, the vGPU score of the cards
// the pod would take, rounded, times deviceshare.ScheduleWeight.
#include <algorithm>
#include <cmath>
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

constexpr const char* kArgGpuSharing = "deviceshare.GPUSharingEnable";
constexpr const char* kArgNodeLock = "deviceshare.NodeLockEnable";
constexpr const char* kArgGpuNumber = "deviceshare.GPUNumberEnable";
constexpr const char* kArgVgpu = "deviceshare.VGPUEnable";
constexpr const char* kArgPolicy = "deviceshare.SchedulePolicy";
constexpr const char* kArgWeight = "deviceshare.ScheduleWeight";

// Volcano's device names, used in its "not initialized" reason.
constexpr const char* kShareDeviceName = "GpuShare";
constexpr const char* kVgpuDeviceName = "hamivgpu";

constexpr const char* kDevicesToAllocateAnnotation = "volcano.sh/devices-to-allocate";
constexpr const char* kBindPhaseAnnotation = "volcano.sh/bind-phase";

struct DeviceShareOptions {
  bool gpu_sharing = false;
  bool gpu_number = false;
  bool node_lock =
      false;  // serialises binds with the device plugin on a live cluster; no effect on decisions
  bool vgpu = false;
  DevicePolicy policy = DevicePolicy::kNone;
  int64_t weight = 0;
};

// What one pod asks of the two families.
struct PodDeviceRequest {
  int64_t share_memory = 0;         // gpushare memory (MiB), counted when GPUSharingEnable
  int64_t share_number = 0;         // gpushare whole cards, counted when GPUNumberEnable
  std::optional<VgpuRequest> vgpu;  // counted when VGPUEnable
  bool AsksShare() const { return share_memory > 0 || share_number > 0; }
};

struct NodeDevices {
  std::optional<GpuCards> share;
  std::optional<GpuCards> vgpu;
};

// The cards one pod holds (or held, while evicted inside the session).
struct Holding {
  NodeId node = kNone;
  CardUses share, vgpu;
  bool active = false;
  // The pod was on the node when the session opened: its cards are facts
  // (from its annotations), restored as they were when it is un-evicted.
  bool recorded = false;
};

int64_t ScalarUnits(const Resource& r, const char* name) {
  ResourceId id;
  if (!ResourceNames::Lookup(name, &id)) return 0;
  return r.Get(id) / 1000;
}

bool HasScalar(const Resource& r, const char* name) {
  ResourceId id;
  return ResourceNames::Lookup(name, &id) && r.Has(id);
}

const std::string* Annotation(const TaskInfo& task, const char* key) {
  if (!task.pod) return nullptr;
  auto it = task.pod->meta.annotations.find(key);
  return it == task.pod->meta.annotations.end() ? nullptr : &it->second;
}

// Unknown arguments are ignored, as Volcano does, with one warning per key and
// process (sessions are built every cycle).
void WarnUnknownDeviceShareArguments(const Arguments& args) {
  static const std::set<std::string> kKnown = {kArgGpuSharing, kArgNodeLock, kArgGpuNumber,
                                               kArgVgpu,       kArgPolicy,   kArgWeight};
  WarnUnknownArguments(
      args,
      [](const std::string& key) {
        // Nested values are flattened to "key.a" / "key[0]": report the key as given.
        std::string top = KeyPrefix(key, "[");
        return kKnown.count(top) || kKnown.count(key) ? std::string() : top;
      },
      "deviceshare.GPUSharingEnable, deviceshare.NodeLockEnable, deviceshare.GPUNumberEnable, "
      "deviceshare.VGPUEnable, deviceshare.SchedulePolicy, deviceshare.ScheduleWeight");
}

class DeviceSharePlugin : public Plugin {
 public:
  explicit DeviceSharePlugin(DeviceShareOptions o) : opts_(o) {}
  std::string_view Name() const override { return "deviceshare"; }

  void OnSessionOpen(Session& ssn) override {
    ssn_ = &ssn;
    requests_.clear();
    requests_.reserve(ssn.tasks().size());
    for (const TaskInfo& t : ssn.tasks()) requests_.push_back(ReadRequest(t));
    BuildNodes(ssn);
    AccountPlacedPods(ssn);
    if (opts_.vgpu) SplitClassesByDeviceAnnotations(ssn);

    ssn.AddPredicateFn(
        [this](const TaskInfo& task, const NodeInfo& node) { return Predicate(task, node); });
    if (opts_.vgpu && opts_.policy != DevicePolicy::kNone && opts_.weight != 0) {
      ssn.AddNodeOrderFn(
          [this](const TaskInfo& task, const NodeInfo& node) { return Score(task, node); });
    }
    ssn.AddEventHandler(EventHandler{[this](const TaskInfo& task) { OnAllocate(task); },
                                     [this](const TaskInfo& task) { OnDeallocate(task); }});
    ssn.AddBindAnnotationsFn([this](const TaskInfo& task, std::map<std::string, std::string>* out) {
      BindAnnotations(task, out);
    });
  }

 private:
  const PodDeviceRequest& RequestOf(const TaskInfo& task) const { return requests_.at(task.id); }

  PodDeviceRequest ReadRequest(const TaskInfo& task) const {
    PodDeviceRequest r;
    if (!task.pod) return r;
    const Resource& req = task.pod->spec.request;  // unstripped: per-card quantities included
    // gpushare counts max(Σ containers, largest init container), sidecars included in neither.
    const Resource& share = task.pod->spec.device_request;
    if (opts_.gpu_sharing) r.share_memory = ScalarUnits(share, kShareMemoryResource);
    if (opts_.gpu_number) r.share_number = ScalarUnits(share, kShareNumberResource);
    if (opts_.vgpu) r.vgpu = VgpuRequestOf(req, task.pod->meta.annotations);
    return r;
  }

  void BuildNodes(Session& ssn) {
    devices_.assign(ssn.nodes().size(), NodeDevices{});
    for (const NodeInfo& n : ssn.nodes()) {
      if (!n.node) continue;
      NodeDevices& d = devices_[n.id];
      if (opts_.gpu_sharing || opts_.gpu_number) {
        const int64_t memory = ScalarUnits(n.node->capacity, kShareMemoryResource);
        const int64_t number = ScalarUnits(n.node->capacity, kShareNumberResource);
        auto unhealthy = n.node->meta.annotations.find(kUnhealthyGpuIdsAnnotation);
        // No gpu-memory capacity: Volcano builds no shared-GPU device, whatever the number.
        if (number > 0 && HasScalar(n.node->capacity, kShareMemoryResource)) {
          GpuCards cards = GpuCards::Uniform(
              number, memory, unhealthy == n.node->meta.annotations.end() ? "" : unhealthy->second);
          if (!cards.empty()) d.share = std::move(cards);
        }
      }
      if (opts_.vgpu) d.vgpu = VgpuCardsOf(ssn, n);
    }
  }

  static std::optional<GpuCards> VgpuCardsOf(Session& ssn, const NodeInfo& n) {
    const auto& annotations = n.node->meta.annotations;
    auto reg = annotations.find(kVgpuRegisterAnnotation);
    if (reg == annotations.end()) return std::nullopt;
    // The device plugin marks a node it left "Deleted_<time>"; its cards are gone.
    auto handshake = annotations.find(kVgpuHandshakeAnnotation);
    if (handshake != annotations.end() && handshake->second.rfind("Deleted", 0) == 0)
      return std::nullopt;
    Result<GpuCards> cards = GpuCards::FromVgpuRegister(reg->second);
    if (!cards.ok()) {
      ssn.RecordEvent("Node/" + n.name, "Warning", "InvalidDeviceRegistration",
                      std::string("annotation ") + kVgpuRegisterAnnotation + ": " +
                          cards.status().message() + "; the node's vGPU cards are ignored");
      return std::nullopt;
    }
    return std::move(*cards);
  }

  // Pods already on a node when the session opens. Recorded placements first
  // (they are facts), then the unrecorded ones in name order.
  void AccountPlacedPods(Session& ssn) {
    holdings_.clear();
    std::vector<const TaskInfo*> unrecorded;
    std::vector<const TaskInfo*> placed;
    for (const TaskInfo& t : ssn.tasks()) {
      if (t.node != kNone && IsOnNodeStatus(t.status)) placed.push_back(&t);
    }
    std::sort(placed.begin(), placed.end(),
              [](const TaskInfo* a, const TaskInfo* b) { return a->key < b->key; });
    for (const TaskInfo* t : placed) {
      const PodDeviceRequest& req = RequestOf(*t);
      if (!req.AsksShare() && !(req.vgpu && req.vgpu->count > 0)) continue;
      NodeDevices& d = devices_[t->node];
      Holding h;
      h.node = t->node;
      h.active = true;
      h.recorded = true;
      bool complete = true;
      if (req.AsksShare() && d.share) {
        const std::string* index = Annotation(*t, kGpuIndexAnnotation);
        Result<CardUses> uses = index ? DecodeGpuIndex(*d.share, *index, req.share_memory)
                                      : Result<CardUses>(CardUses{});
        if (index && !uses.ok())
          BadAnnotation(ssn, *t, kGpuIndexAnnotation, uses.status().message());
        if (index && uses.ok())
          h.share = std::move(*uses);
        else
          complete = false;
      }
      if (req.vgpu && req.vgpu->count > 0 && d.vgpu) {
        const std::string* ids = Annotation(*t, kVgpuIdsAnnotation);
        Result<CardUses> uses = ids ? DecodeVgpuIds(*d.vgpu, *ids) : Result<CardUses>(CardUses{});
        if (ids && !uses.ok()) BadAnnotation(ssn, *t, kVgpuIdsAnnotation, uses.status().message());
        if (ids && uses.ok())
          h.vgpu = std::move(*uses);
        else
          complete = false;
      }
      if (d.share) d.share->Add(h.share);
      if (d.vgpu) d.vgpu->Add(h.vgpu);
      holdings_[t->id] = std::move(h);
      if (!complete) unrecorded.push_back(t);
    }
    for (const TaskInfo* t : unrecorded) {
      Holding& h = holdings_[t->id];
      NodeDevices& d = devices_[t->node];
      const PodDeviceRequest& req = RequestOf(*t);
      std::string reason;
      if (req.AsksShare() && d.share && h.share.empty()) {
        if (Choose(*d.share, req, &h.share, &reason)) d.share->Add(h.share);
      }
      if (req.vgpu && d.vgpu && h.vgpu.empty()) {
        if (FitVgpu(*d.vgpu, *req.vgpu, &h.vgpu, &reason)) d.vgpu->Add(h.vgpu);
      }
    }
  }

  static void BadAnnotation(Session& ssn, const TaskInfo& t, const char* key,
                            const std::string& message) {
    ssn.RecordEvent(
        "Pod/" + t.key, "Warning", "InvalidDeviceAnnotation",
        std::string("annotation ") + key + ": " + message + "; cards reassigned for accounting");
  }

  // gpushare: memory sharing first, then whole cards (Volcano's order).
  static bool Choose(const GpuCards& cards, const PodDeviceRequest& req, CardUses* uses,
                     std::string* reason) {
    uses->clear();
    CardUses part;
    if (req.share_memory > 0) {
      if (!FitShareMemory(cards, req.share_memory, &part, reason)) return false;
      uses->insert(uses->end(), part.begin(), part.end());
    }
    if (req.share_number > 0) {
      if (!FitShareNumber(cards, req.share_number, &part, reason)) return false;
      uses->insert(uses->end(), part.begin(), part.end());
    }
    return true;
  }

  PredicateStatus Predicate(const TaskInfo& task, const NodeInfo& node) const {
    const PodDeviceRequest& req = RequestOf(task);
    const NodeDevices& d = devices_[node.id];
    std::string reason;
    CardUses uses;
    if (req.AsksShare()) {
      if (!d.share)
        return PredicateStatus::Unschedulable(std::string("node not initialized with device ") +
                                              kShareDeviceName);
      if (!Choose(*d.share, req, &uses, &reason)) return PredicateStatus::Unschedulable(reason);
    }
    if (req.vgpu) {
      if (!d.vgpu)
        return PredicateStatus::Unschedulable(std::string("node not initialized with device ") +
                                              kVgpuDeviceName);
      if (!FitVgpu(*d.vgpu, *req.vgpu, &uses, &reason))
        return PredicateStatus::Unschedulable(reason);
    }
    return PredicateStatus::Success();
  }

  double Score(const TaskInfo& task, const NodeInfo& node) const {
    const PodDeviceRequest& req = RequestOf(task);
    const NodeDevices& d = devices_[node.id];
    if (!req.vgpu || !d.vgpu) return 0;
    CardUses uses;
    std::string reason;
    if (!FitVgpu(*d.vgpu, *req.vgpu, &uses, &reason)) return 0;
    // Volcano rounds the device score to an integer before weighting it.
    return std::floor(VgpuScore(*d.vgpu, uses, opts_.policy) + 0.5) *
           static_cast<double>(opts_.weight);
  }

  void OnAllocate(const TaskInfo& task) {
    if (task.node == kNone) return;
    NodeDevices& d = devices_[task.node];
    auto it = holdings_.find(task.id);
    if (it != holdings_.end() && it->second.recorded && it->second.node == task.node) {
      // Un-evicted inside the session: it takes back the cards it had.
      Holding& h = it->second;
      if (h.active) return;
      if (d.share) d.share->Add(h.share);
      if (d.vgpu) d.vgpu->Add(h.vgpu);
      h.active = true;
      return;
    }
    const PodDeviceRequest& req = RequestOf(task);
    if (!req.AsksShare() && !req.vgpu) return;
    Holding h;
    h.node = task.node;
    h.active = true;
    std::string reason;
    // The predicate passed on this node state; a placement that skipped it
    // (none does today) simply takes no cards.
    if (req.AsksShare() && d.share && Choose(*d.share, req, &h.share, &reason))
      d.share->Add(h.share);
    if (req.vgpu && d.vgpu && FitVgpu(*d.vgpu, *req.vgpu, &h.vgpu, &reason)) d.vgpu->Add(h.vgpu);
    holdings_[task.id] = std::move(h);
  }

  void OnDeallocate(const TaskInfo& task) {
    auto it = holdings_.find(task.id);
    if (it == holdings_.end() || !it->second.active) return;
    Holding& h = it->second;
    NodeDevices& d = devices_[h.node];
    if (d.share) d.share->Remove(h.share);
    if (d.vgpu) d.vgpu->Remove(h.vgpu);
    h.active = false;
    if (!h.recorded) holdings_.erase(it);
  }

  void BindAnnotations(const TaskInfo& task, std::map<std::string, std::string>* out) const {
    auto it = holdings_.find(task.id);
    if (it == holdings_.end() || !it->second.active) return;
    const Holding& h = it->second;
    const NodeDevices& d = devices_[h.node];
    if (!h.vgpu.empty() && d.vgpu) {
      const std::string ids = EncodeVgpuIds(*d.vgpu, h.vgpu);
      (*out)[kVgpuIdsAnnotation] = ids;
      (*out)[kDevicesToAllocateAnnotation] = ids;
      (*out)[kVgpuNodeAnnotation] = ssn_->node(h.node).name;
      (*out)[kBindPhaseAnnotation] = "allocating";
    }
    if (!h.share.empty() && d.share)
      (*out)[kGpuIndexAnnotation] = EncodeGpuIndex(*d.share, h.share);
  }

  // Pending tasks of one class whose card-type or mode annotations differ get
  // different classes, so node selection's per-class caches stay exact.
  static void SplitClassesByDeviceAnnotations(Session& ssn) {
    int32_t next = 0;
    for (const TaskInfo& t : ssn.tasks()) next = std::max(next, t.equivalence_class + 1);
    std::map<std::tuple<int32_t, std::string, std::string, std::string>, int32_t> split;
    auto value = [](const TaskInfo& t, const char* key) {
      const std::string* v = Annotation(t, key);
      return v ? "=" + *v : std::string();
    };
    for (TaskInfo& t : ssn.tasks()) {
      if (t.equivalence_class == kNone) continue;
      auto key = std::make_tuple(t.equivalence_class, value(t, kUseGpuTypeAnnotation),
                                 value(t, kNoUseGpuTypeAnnotation), value(t, kVgpuModeAnnotation));
      if (std::get<1>(key).empty() && std::get<2>(key).empty() && std::get<3>(key).empty())
        continue;
      auto [it, fresh] = split.try_emplace(key, next);
      if (fresh) ++next;
      t.equivalence_class = it->second;
    }
  }

  DeviceShareOptions opts_;
  Session* ssn_ = nullptr;
  std::vector<PodDeviceRequest> requests_;  // by task id (pods do not change within a session)
  std::vector<NodeDevices> devices_;        // by node id
  std::map<TaskId, Holding> holdings_;      // pods holding (or having held) cards
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewDeviceSharePlugin(const Arguments& args) {
  DeviceShareOptions o;
  BASALT_RETURN_IF_ERROR(args.GetBool(kArgGpuSharing, &o.gpu_sharing));
  BASALT_RETURN_IF_ERROR(args.GetBool(kArgNodeLock, &o.node_lock));
  BASALT_RETURN_IF_ERROR(args.GetBool(kArgGpuNumber, &o.gpu_number));
  BASALT_RETURN_IF_ERROR(args.GetBool(kArgVgpu, &o.vgpu));
  std::string policy;
  BASALT_RETURN_IF_ERROR(args.GetString(kArgPolicy, &policy));
  std::optional<DevicePolicy> parsed = ParseDevicePolicy(policy);
  if (!parsed) {
    return Status::InvalidArgument(args.owner() + ": arguments." + kArgPolicy +
                                   ": expected \"binpack\" or \"spread\", got \"" + policy + "\"");
  }
  o.policy = *parsed;
  BASALT_RETURN_IF_ERROR(args.GetInt(kArgWeight, &o.weight));
  // Volcano refuses to start with these combinations.
  if (o.gpu_sharing && o.gpu_number) {
    return Status::InvalidArgument(args.owner() + ": arguments: " + kArgGpuSharing + " and " +
                                   kArgGpuNumber + " cannot both be true");
  }
  if ((o.gpu_sharing || o.gpu_number) && o.vgpu) {
    return Status::InvalidArgument(args.owner() + ": arguments: " + kArgVgpu +
                                   " cannot be true with " + kArgGpuSharing + " or " +
                                   kArgGpuNumber + " (gpu-share and vgpu can't be used together)");
  }
  WarnUnknownDeviceShareArguments(args);
  return std::unique_ptr<Plugin>(new DeviceSharePlugin(o));
}

}  // namespace basalt
