// capacity-card: per-card-model queue quotas and tidal reclaim between
// inference and training (docs/plugins/capacity-card.md).
//
// Quotas. A queue's card quota is its `volcano.sh/card.quota` annotation
// (model -> count; a model it does not name has quota 0); its cpu and memory
// quota are `spec.capability` (absent = 0). Nothing else is limited. With
// `cardUnlimitedCpuMemory: true` a pod that asks for cards is neither checked
// nor charged against cpu / memory.
//
// What a pod asks of the quota: its cpu and memory requests, and, when it has
// `volcano.sh/card.name` (one model, or `A|B|C` preferred first), the amount
// of the models' Kubernetes resource it requests. The resource of a model is
// learnt from the nodes (card_discovery.h), else told from the name (MIG, MPS),
// else it is the pod's only extended resource. Alternatives on different
// resources, a card the pod does not request, or a malformed annotation make
// the request unreadable: the pod is refused with a GetTaskRequestResourceFailed
// event.
//
// Registered functions:
//   JobEnqueueable  allocated + inqueue - elastic + request <= capability x
//                   overCommitFactor, for cpu and memory (when requested) and for
//                   each card entry; an `A|B` entry sums both sides: used(A) +
//                   used(B) + n <= quota(A) + quota(B). The request is the
//                   PodGroup's minResources (cpu, memory) and the card requests
//                   of its first minMember pods in task order, or, before any
//                   pod exists, its `volcano.sh/card.request` annotation. A job
//                   whose cards come only from minResources (`nvidia.com/gpu`)
//                   counts as a card job for cardUnlimitedCpuMemory.
//   Allocatable,    queue Open and allocated + request <= capability (no
//   Preemptive      overcommit; Preemptive also refuses a training task), cpu / memory when
//   requested; for `A|B` any one
//                   model that fits passes. An empty request is refused by an
//                   empty capability, else passes while the queue's allocation
//                   is within its capability.
//   NodeOrder       for `A|B|C` pods: 100 x 0.5^i x nodeOrderWeight on a node
//                   offering the i-th model; single-model pods score 0.
//   QueueOrder      higher spec.priority first, then lower share of capability.
//   Reclaimable     training never reclaims (its Preemptive check refuses a
//                   training reclaimer, which holds in any tier layout);
//                   inference and unknown-type pods are never victims; training
//                   pods are.
//   events          allocate / pipeline / unevict add, evict / unpipeline /
//                   unallocate subtract, charging the model of the task's node
//                   (the first of its alternatives the node offers).
// Every refusal is recorded as an event with the numbers: cpu in millicores,
// memory in Mi, cards in whole cards.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "api/card_annotations.h"
#include "framework/session.h"
#include "plugins/builtin.h"
#include "plugins/card_discovery.h"
#include "plugins/queue_share.h"

namespace basalt {
namespace {

constexpr char kPluginName[] = "capacity-card";
constexpr char kServiceTypeAnnotation[] = "volcano.sh/service.type";
constexpr char kWarning[] = "Warning";

enum class ServiceType { kUnknown, kInference, kTraining };

std::optional<ServiceType> ParseServiceType(const std::string& s) {
  if (s == "inference") return ServiceType::kInference;
  if (s == "training") return ServiceType::kTraining;
  return std::nullopt;
}

using CardMap = std::map<std::string, int64_t>;  // model (or "A|B" key) -> milli-cards

std::string JoinModels(const std::vector<std::string>& models) {
  std::string s;
  for (const std::string& m : models) s += (s.empty() ? "" : "|") + m;
  return s;
}

// Milli-cards as whole cards: "3", "0.5".
std::string Cards(int64_t milli) {
  std::string s = std::to_string(milli / 1000);
  int64_t frac = std::abs(milli % 1000);
  if (frac == 0) return s;
  if (milli < 0 && milli > -1000) s = "-" + s;
  std::string f = std::to_string(frac);
  f.insert(0, 3 - f.size(), '0');
  while (f.back() == '0') f.pop_back();
  return s + "." + f;
}

int64_t Mi(int64_t bytes) { return bytes / 1024 / 1024; }

int64_t Scale(int64_t v, double factor) {
  const long double r = static_cast<long double>(v) * factor;
  if (r >= static_cast<long double>(INT64_MAX)) return INT64_MAX;
  return static_cast<int64_t>(std::floor(r));
}

int64_t Get(const CardMap& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? 0 : it->second;
}

// What one pod asks of its queue's quota.
struct TaskRequest {
  std::string error;  // non-empty: the request could not be read
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  std::vector<std::string> models;  // alternatives, preferred first; empty = no cards
  int64_t card_milli = 0;
  bool Empty() const { return milli_cpu <= 0 && memory <= 0 && card_milli <= 0; }
};

// What one job asks at enqueue.
struct JobRequest {
  std::string error;         // non-empty: unreadable (event already names the object)
  std::string error_object;  // "Pod/ns/name" or "PodGroup/ns/name"
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  std::vector<CardRequestEntry> cards;  // milli-cards per entry
};

struct Usage {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  CardMap cards;
};

struct QueueQuota {
  std::string name;
  int64_t cap_cpu = 0;
  int64_t cap_memory = 0;
  CardMap cap_cards;                            // milli-cards per model
  Usage allocated;                              // cards by model
  Usage inqueue;                                // cpu and memory of Inqueue jobs (cards below)
  std::vector<CardRequestEntry> inqueue_cards;  // card entries of Inqueue jobs
  Usage elastic;                                // cards by model
};

struct Options {
  bool card_unlimited_cpu_memory = false;
  double node_order_weight = 1.0;
  double over_commit_factor = 1.0;
  std::map<std::string, ServiceType> owner_kind_service_type;
};

// The cards one pod uses once placed.
struct CardDemand {
  std::vector<std::string> models;  // `card.name` alternatives, preferred first; empty: no cards
  int64_t milli = 0;                // milli-cards of the model's resource
};

class CapacityCardPlugin : public Plugin {
 public:
  explicit CapacityCardPlugin(Options opts) : opts_(std::move(opts)) {}

  std::string_view Name() const override { return kPluginName; }

  void OnSessionOpen(Session& ssn) override {
    ssn_ = &ssn;
    DiscoverCards(ssn);
    BuildQueues(ssn);
    Register(ssn);
  }

  // Check 9 of framework/invariants.h. Per queue and model, the cards this
  // plugin counts as used (kept by allocate / deallocate events) equal a
  // recount over the queue's placed pods: a missed or doubled event would
  // otherwise drift the quotas silently. The recount reads only the tasks'
  // statuses and nodes, not the plugin's per-task bookkeeping.
  void CheckInvariants(const Session& ssn, std::vector<std::string>* violations) const override {
    const std::vector<CardMap> recount = RecountCards(ssn);
    for (const QueueInfo& q : ssn.queues()) {
      const CardMap charged = ChargedCards(q.id);
      std::set<std::string> models;
      for (const auto& [m, v] : charged) models.insert(m);
      for (const auto& [m, v] : recount[q.id]) models.insert(m);
      for (const std::string& m : models) {
        const int64_t have = charged.count(m) ? charged.at(m) : 0;
        const int64_t want = recount[q.id].count(m) ? recount[q.id].at(m) : 0;
        if (have == want) continue;
        std::ostringstream os;
        os << kPluginName << ": queue " << q.name << " card " << m << " accounted " << have
           << "m (milli-cards), its placed pods use " << want << "m";
        violations->push_back(os.str());
        return;
      }
    }
  }

 private:
  // Per queue, the cards of every task its quota counts (allocated statuses
  // and Pipelined), charged to the first of its models its node offers, else
  // its preferred one.
  std::vector<CardMap> RecountCards(const Session& ssn) const {
    std::vector<CardMap> recount(ssn.queues().size());
    for (const TaskInfo& t : ssn.tasks()) {
      if (t.job == kNone || ssn.job(t.job).queue == kNone) continue;
      if (!IsAllocatedStatus(t.status) && t.status != TaskStatus::kPipelined) continue;
      CardDemand d = TaskCards(t);
      if (d.models.empty()) continue;
      std::string model = d.models.front();
      for (const std::string& m : d.models) {
        if (NodeOffers(t.node, m)) {
          model = m;
          break;
        }
      }
      recount[ssn.job(t.job).queue][model] += d.milli;
    }
    return recount;
  }

  CardMap ChargedCards(QueueId q) const {
    return q >= 0 && q < static_cast<QueueId>(quotas_.size()) ? quotas_[q].allocated.cards
                                                              : CardMap();
  }

  // What `t` uses when placed (models empty when it asks for no cards or its
  // request cannot be read, which charges no card).
  CardDemand TaskCards(const TaskInfo& t) const {
    const bool cached =
        static_cast<size_t>(t.id) < task_requests_.size() && task_requests_[t.id].has_value();
    const TaskRequest r = cached ? *task_requests_[t.id] : ReadTaskRequest(t);
    if (!r.error.empty()) return {};
    return {r.models, r.card_milli};
  }

  // True when `node` offers `model` (from the node's labels and allocatable).
  bool NodeOffers(NodeId node, const std::string& model) const {
    if (node == kNone || static_cast<size_t>(node) >= node_cards_.size()) return false;
    for (const NodeCard& c : node_cards_[node]) {
      if (c.model == model) return true;
    }
    return false;
  }

  // ---- cards on nodes ----

  void DiscoverCards(const Session& ssn) {
    node_cards_.assign(ssn.nodes().size(), {});
    for (const NodeInfo& n : ssn.nodes()) {
      if (!n.node) continue;
      node_cards_[n.id] = DiscoverNodeCards(*n.node);
      for (const NodeCard& c : node_cards_[n.id]) {
        model_resource_.try_emplace(c.model, c.resource);
        card_resources_.insert(c.resource);
      }
    }
  }

  // The Kubernetes resource of `model`, or "" when it cannot be told.
  std::string ResourceOf(const std::string& model, const Resource& request) const {
    if (auto it = model_resource_.find(model); it != model_resource_.end()) return it->second;
    std::string r = CardResourceFromName(model);
    if (!r.empty()) return r;
    std::string only;
    for (const auto& [id, v] : request.scalars()) {
      if (id == ResourceNames::kPods || v <= 0) continue;
      if (!only.empty()) return "";
      only = ResourceNames::Name(id);
    }
    return only;
  }

  // ---- requests ----

  const TaskRequest& RequestOf(const TaskInfo& t) {
    if (task_requests_.size() < ssn_->tasks().size()) task_requests_.resize(ssn_->tasks().size());
    std::optional<TaskRequest>& slot = task_requests_[t.id];
    if (!slot) slot = ReadTaskRequest(t);
    return *slot;
  }

  TaskRequest ReadTaskRequest(const TaskInfo& t) const {
    TaskRequest r;
    r.milli_cpu = t.request.milli_cpu();
    r.memory = t.request.memory();
    if (!t.pod) return r;
    auto it = t.pod->meta.annotations.find(kCardNameAnnotation);
    if (it == t.pod->meta.annotations.end()) return r;
    Result<std::vector<std::string>> models = ParseCardName(it->second);
    if (!models.ok()) {
      r.error = std::string(kCardNameAnnotation) + ": " + models.status().message();
      return r;
    }
    std::string resource;
    for (const std::string& m : *models) {
      const std::string res = ResourceOf(m, t.request);
      if (res.empty()) {
        r.error = "card <" + m + "> is on no node and the pod's requests do not tell its resource";
        return r;
      }
      if (!resource.empty() && res != resource) {
        r.error = "card alternatives <" + it->second + "> use different resources <" + resource +
                  "> and <" + res + ">";
        return r;
      }
      resource = res;
    }
    ResourceId id;
    const int64_t milli = ResourceNames::Lookup(resource, &id) ? t.request.Get(id) : 0;
    if (milli <= 0) {
      r.error = "card <" + it->second + "> named but no <" + resource + "> requested";
      return r;
    }
    r.models = std::move(*models);
    r.card_milli = milli;
    if (opts_.card_unlimited_cpu_memory) r.milli_cpu = r.memory = 0;
    return r;
  }

  JobRequest ReadJobRequest(const JobInfo& job) {
    JobRequest r;
    if (job.min_resources) {
      r.milli_cpu = job.min_resources->milli_cpu();
      r.memory = job.min_resources->memory();
    }
    if (!job.tasks.empty()) {
      std::vector<TaskId> order = job.tasks;
      std::sort(order.begin(), order.end(), [this](TaskId a, TaskId b) {
        return ssn_->TaskOrderLess(ssn_->task(a), ssn_->task(b));
      });
      size_t n = order.size();
      if (job.min_member > 0 && static_cast<size_t>(job.min_member) < n) n = job.min_member;
      std::map<std::string, size_t> index;
      for (size_t i = 0; i < n; ++i) {
        const TaskInfo& t = ssn_->task(order[i]);
        const TaskRequest& tr = RequestOf(t);
        if (!tr.error.empty()) {
          r.error = tr.error;
          r.error_object = "Pod/" + t.key;
          return r;
        }
        if (tr.models.empty()) continue;
        auto [pos, fresh] = index.try_emplace(JoinModels(tr.models), r.cards.size());
        if (fresh) r.cards.push_back({tr.models, 0});
        r.cards[pos->second].second += tr.card_milli;
      }
    } else if (job.podgroup) {
      auto it = job.podgroup->meta.annotations.find(kCardRequestAnnotation);
      if (it != job.podgroup->meta.annotations.end()) {
        Result<std::vector<CardRequestEntry>> entries = ParseCardRequest(it->second);
        if (!entries.ok()) {
          r.error = std::string(kCardRequestAnnotation) + ": " + entries.status().message();
          r.error_object = "PodGroup/" + job.key;
          return r;
        }
        for (CardRequestEntry& e : *entries)
          r.cards.push_back({std::move(e.first), e.second * 1000});
      }
    }
    if (opts_.card_unlimited_cpu_memory && (!r.cards.empty() || MinResourcesNameCards(job)))
      r.milli_cpu = r.memory = 0;
    return r;
  }

  // A job without pods or card.request may still ask for cards in its
  // minResources (`nvidia.com/gpu: 8`): it is a card job for cardUnlimitedCpuMemory.
  bool MinResourcesNameCards(const JobInfo& job) const {
    if (!job.min_resources) return false;
    for (const auto& [id, v] : job.min_resources->scalars()) {
      if (v > 0 && card_resources_.count(ResourceNames::Name(id))) return true;
    }
    return false;
  }

  // ---- queues ----

  void BuildQueues(Session& ssn) {
    quotas_.assign(ssn.queues().size(), QueueQuota());
    for (const QueueInfo& q : ssn.queues()) {
      QueueQuota& a = quotas_[q.id];
      a.name = q.name;
      if (!q.queue) continue;
      if (q.queue->capability) {
        a.cap_cpu = q.queue->capability->milli_cpu();
        a.cap_memory = q.queue->capability->memory();
      }
      auto it = q.queue->meta.annotations.find(kCardQuotaAnnotation);
      if (it == q.queue->meta.annotations.end()) continue;
      Result<std::map<std::string, int64_t>> quota = ParseCardQuota(it->second);
      if (!quota.ok()) {
        // Bad quota text: the queue gets no cards until it is fixed.
        ssn.RecordEvent("Queue/" + q.name, kWarning, "InvalidCardQuota",
                        std::string(kCardQuotaAnnotation) + ": " + quota.status().message());
        continue;
      }
      for (const auto& [model, count] : *quota) a.cap_cards[model] = count * 1000;
    }
    for (const JobInfo& job : ssn.jobs()) {
      if (job.queue == kNone) continue;
      QueueQuota& a = quotas_[job.queue];
      CardMap job_cards;
      for (TaskId id : job.tasks) {
        const TaskInfo& t = ssn.task(id);
        if (!IsAllocatedStatus(t.status)) continue;
        Charge(a, t, +1);
        if (auto it = charged_.find(t.id); it != charged_.end())
          job_cards[it->second] += RequestOf(t).card_milli;
      }
      // The job's request is read once, and only when something needs it.
      std::optional<JobRequest> jr;
      if (job.phase == PodGroupPhase::kInqueue) {
        jr = ReadJobRequest(job);
        if (jr->error.empty()) AddInqueue(a, *jr);
      }
      // Elastic: what the job holds beyond its minimum. Cards only against
      // single-model entries; a model of an `A|B` entry is never elastic.
      if (job.min_resources) {
        a.elastic.milli_cpu +=
            std::max<int64_t>(job.allocated.milli_cpu() - job.min_resources->milli_cpu(), 0);
        a.elastic.memory +=
            std::max<int64_t>(job.allocated.memory() - job.min_resources->memory(), 0);
      }
      if (!job_cards.empty()) {
        if (!jr) jr = ReadJobRequest(job);
        for (const auto& [model, milli] : job_cards) {
          int64_t min = 0;
          bool pooled = false;
          for (const auto& [models, n] : jr->cards) {
            if (std::find(models.begin(), models.end(), model) == models.end()) continue;
            if (models.size() == 1)
              min += n;
            else
              pooled = true;
          }
          if (!pooled && milli > min) a.elastic.cards[model] += milli - min;
        }
      }
    }
  }

  static void AddInqueue(QueueQuota& a, const JobRequest& jr) {
    a.inqueue.milli_cpu += jr.milli_cpu;
    a.inqueue.memory += jr.memory;
    a.inqueue_cards.insert(a.inqueue_cards.end(), jr.cards.begin(), jr.cards.end());
  }

  // The model a placed task is charged for: the first alternative its node offers.
  std::string ModelCharged(const TaskInfo& t, const TaskRequest& r) const {
    for (const std::string& m : r.models) {
      if (NodeOffers(t.node, m)) return m;
    }
    return r.models.front();
  }

  void Charge(QueueQuota& a, const TaskInfo& t, int sign) {
    const TaskRequest& r = RequestOf(t);
    if (!r.error.empty()) {  // unreadable card request: cpu and memory still count
      a.allocated.milli_cpu += sign * t.request.milli_cpu();
      a.allocated.memory += sign * t.request.memory();
      return;
    }
    a.allocated.milli_cpu += sign * r.milli_cpu;
    a.allocated.memory += sign * r.memory;
    if (r.models.empty()) return;
    std::string model;
    if (sign > 0) {
      model = ModelCharged(t, r);
      charged_[t.id] = model;
    } else {
      auto it = charged_.find(t.id);
      model = it != charged_.end() ? it->second : ModelCharged(t, r);
      if (it != charged_.end()) charged_.erase(it);
    }
    a.allocated.cards[model] += sign * r.card_milli;
  }

  // ---- checks ----

  // allocated + request <= capability for one task (Allocatable, Preemptive).
  bool TaskFits(const QueueQuota& a, const TaskInfo& t) {
    const TaskRequest& r = RequestOf(t);
    const std::string pod = "Pod/" + t.key;
    if (!r.error.empty()) {
      ssn_->RecordEvent(
          pod, kWarning, "GetTaskRequestResourceFailed",
          "Get request resource failed, Queue <" + a.name + ">, error: <" + r.error + ">");
      return false;
    }
    if (r.Empty()) {
      if (!CapabilityEmpty(a) && WithinCapability(a)) return true;
      ssn_->RecordEvent(pod, kWarning, "EmptyQueueCapability",
                        "Queue <" + a.name + "> capability <" + CapabilityText(a) +
                            "> is empty, deny it to preempt");
      return false;
    }
    const int64_t cpu = a.allocated.milli_cpu + r.milli_cpu;
    if (r.milli_cpu > 0 && cpu > a.cap_cpu) {
      ssn_->RecordEvent(pod, kWarning, "InsufficientCPUQuota",
                        "Queue <" + a.name + "> has insufficient CPU quota: requested <" +
                            std::to_string(r.milli_cpu) + ">, total would be <" +
                            std::to_string(cpu) + ">, but capability is <" +
                            std::to_string(a.cap_cpu) + ">");
      return false;
    }
    const int64_t mem = a.allocated.memory + r.memory;
    if (r.memory > 0 && mem > a.cap_memory) {
      ssn_->RecordEvent(pod, kWarning, "InsufficientMemoryQuota",
                        "Queue <" + a.name + "> has insufficient memory quota: requested <" +
                            std::to_string(Mi(r.memory)) + " Mi>, total would be <" +
                            std::to_string(Mi(mem)) + " Mi>, but capability is <" +
                            std::to_string(Mi(a.cap_memory)) + " Mi>");
      return false;
    }
    if (r.models.empty()) return true;
    for (const std::string& m : r.models) {
      if (Get(a.allocated.cards, m) + r.card_milli <= Get(a.cap_cards, m)) return true;
    }
    const std::string& first = r.models.front();
    RecordCardShortage(pod, a, JoinModels(r.models), r.card_milli,
                       Get(a.allocated.cards, first) + r.card_milli, Get(a.cap_cards, first));
    return false;
  }

  void RecordCardShortage(const std::string& object, const QueueQuota& a, const std::string& name,
                          int64_t requested, int64_t total, int64_t capability) {
    ssn_->RecordEvent(object, kWarning, "InsufficientScalarQuota",
                      "Queue <" + a.name + "> has insufficient <" + name + "> quota: requested <" +
                          Cards(requested) + ">, total would be <" + Cards(total) +
                          ">, but capability is <" + Cards(capability) + ">");
  }

  static bool WithinCapability(const QueueQuota& a) {
    if (a.allocated.milli_cpu > a.cap_cpu || a.allocated.memory > a.cap_memory) return false;
    for (const auto& [m, v] : a.allocated.cards) {
      if (v > Get(a.cap_cards, m)) return false;
    }
    return true;
  }

  static bool CapabilityEmpty(const QueueQuota& a) {
    if (a.cap_cpu > 0 || a.cap_memory > 0) return false;
    for (const auto& [m, v] : a.cap_cards) {
      if (v > 0) return false;
    }
    return true;
  }

  static std::string CapabilityText(const QueueQuota& a) {
    std::string s = "cpu " + std::to_string(a.cap_cpu) + "m, memory " +
                    std::to_string(Mi(a.cap_memory)) + " Mi";
    for (const auto& [m, v] : a.cap_cards) s += ", " + m + " " + Cards(v);
    return s;
  }

  Vote Enqueueable(const JobInfo& job) {
    const QueueInfo& q = ssn_->queue(job.queue);
    if (!q.IsOpen()) return Vote::kReject;
    QueueQuota& a = quotas_[job.queue];
    JobRequest jr = ReadJobRequest(job);
    const std::string pg = "PodGroup/" + job.key;
    if (!jr.error.empty()) {
      ssn_->RecordEvent(
          jr.error_object, kWarning, "GetTaskRequestResourceFailed",
          "Get request resource failed, Queue <" + a.name + ">, error: <" + jr.error + ">");
      return Vote::kReject;
    }
    const double f = opts_.over_commit_factor;
    const int64_t cpu =
        a.allocated.milli_cpu + a.inqueue.milli_cpu - a.elastic.milli_cpu + jr.milli_cpu;
    if (jr.milli_cpu > 0 && cpu > Scale(a.cap_cpu, f)) {
      ssn_->RecordEvent(pg, kWarning, "InsufficientCPUQuota",
                        "Queue <" + a.name + "> has insufficient CPU quota: requested <" +
                            std::to_string(jr.milli_cpu) + ">, total would be <" +
                            std::to_string(cpu) + ">, but capability is <" +
                            std::to_string(Scale(a.cap_cpu, f)) + ">");
      return Vote::kReject;
    }
    const int64_t mem = a.allocated.memory + a.inqueue.memory - a.elastic.memory + jr.memory;
    if (jr.memory > 0 && mem > Scale(a.cap_memory, f)) {
      ssn_->RecordEvent(pg, kWarning, "InsufficientMemoryQuota",
                        "Queue <" + a.name + "> has insufficient memory quota: requested <" +
                            std::to_string(Mi(jr.memory)) + " Mi>, total would be <" +
                            std::to_string(Mi(mem)) + " Mi>, but capability is <" +
                            std::to_string(Mi(Scale(a.cap_memory, f))) + " Mi>");
      return Vote::kReject;
    }
    for (const auto& [models, n] : jr.cards) {
      int64_t used = 0, cap = 0;
      for (const std::string& m : models) {
        used += Get(a.allocated.cards, m) - Get(a.elastic.cards, m);
        cap += Scale(Get(a.cap_cards, m), f);
      }
      // Inqueue entries count against every check that shares a model with them.
      // (A named entry, not a structured binding: clang 14, which builds the
      // fuzz targets, cannot capture a binding in a lambda.)
      for (const CardRequestEntry& queued : a.inqueue_cards) {
        const std::vector<std::string>& queued_models = queued.first;
        const bool shares =
            std::any_of(models.begin(), models.end(), [&queued_models](const std::string& m) {
              return std::find(queued_models.begin(), queued_models.end(), m) !=
                     queued_models.end();
            });
        if (shares) used += queued.second;
      }
      if (used + n > cap) {
        RecordCardShortage(pg, a, JoinModels(models), n, used + n, cap);
        return Vote::kReject;
      }
    }
    AddInqueue(a, jr);
    return Vote::kPermit;
  }

  // ---- service types and reclaim ----

  ServiceType ServiceTypeOf(const TaskInfo& t) const {
    if (t.job != kNone) {
      const JobInfo& job = ssn_->job(t.job);
      if (job.podgroup) {
        auto it = job.podgroup->meta.annotations.find(kServiceTypeAnnotation);
        if (it != job.podgroup->meta.annotations.end() && !it->second.empty()) {
          return ParseServiceType(it->second).value_or(ServiceType::kUnknown);
        }
      }
    }
    if (!t.pod || t.pod->meta.owner_references.empty()) return ServiceType::kUnknown;
    auto it = opts_.owner_kind_service_type.find(t.pod->meta.owner_references.front().kind);
    return it == opts_.owner_kind_service_type.end() ? ServiceType::kUnknown : it->second;
  }

  std::vector<const TaskInfo*> Reclaimable(const TaskInfo& reclaimer,
                                           const std::vector<const TaskInfo*>& cands) const {
    std::vector<const TaskInfo*> victims;
    if (ServiceTypeOf(reclaimer) == ServiceType::kTraining)
      return victims;  // training never reclaims
    for (const TaskInfo* c : cands) {
      // Inference never evicts inference; a pod of unknown type is never a victim.
      if (ServiceTypeOf(*c) == ServiceType::kTraining) victims.push_back(c);
    }
    return victims;
  }

  // ---- ordering ----

  share::Fraction Share(const QueueQuota& a) const {
    share::Fraction best;
    auto consider = [&best](int64_t used, int64_t cap) {
      if (cap <= 0) return;
      share::Fraction f{used, cap};
      if (best < f) best = f;
    };
    consider(a.allocated.milli_cpu, a.cap_cpu);
    consider(a.allocated.memory, a.cap_memory);
    for (const auto& [m, cap] : a.cap_cards) consider(Get(a.allocated.cards, m), cap);
    return best;
  }

  double NodeScore(const TaskInfo& t, const NodeInfo& n) {
    const TaskRequest& r = RequestOf(t);
    if (r.models.size() < 2) return 0;
    double base = 100;
    for (const std::string& m : r.models) {
      if (NodeOffers(n.id, m)) return base * opts_.node_order_weight;
      base *= 0.5;
    }
    return 0;
  }

  void Register(Session& ssn) {
    ssn.AddQueueOrderFn([this](const QueueInfo& a, const QueueInfo& b) {
      if (a.priority != b.priority) return a.priority > b.priority ? -1 : 1;
      return share::Compare(Share(quotas_[a.id]), Share(quotas_[b.id]));
    });
    ssn.AddJobEnqueueableFn([this](const JobInfo& job) { return Enqueueable(job); });
    ssn.AddAllocatableFn([this](const QueueInfo& q, const TaskInfo& t) {
      return q.IsOpen() && TaskFits(quotas_[q.id], t);
    });
    // Training never reclaims. Said here, in the check reclaim requires of every
    // plugin, the policy holds in any tier layout; the empty Reclaimable answer
    // below only ends its own tier, and a later tier could name victims.
    ssn.AddPreemptiveFn([this](const QueueInfo& q, const TaskInfo& t) {
      if (ServiceTypeOf(t) == ServiceType::kTraining) return false;
      return q.IsOpen() && TaskFits(quotas_[q.id], t);
    });
    ssn.AddNodeOrderFn([this](const TaskInfo& t, const NodeInfo& n) { return NodeScore(t, n); });
    ssn.AddReclaimableFn(
        [this](const TaskInfo& reclaimer, const std::vector<const TaskInfo*>& cands) {
          return std::make_pair(Reclaimable(reclaimer, cands), Vote::kPermit);
        });
    EventHandler handler;
    handler.allocate = [this](const TaskInfo& t) { Move(t, +1); };
    handler.deallocate = [this](const TaskInfo& t) { Move(t, -1); };
    ssn.AddEventHandler(std::move(handler));
  }

  void Move(const TaskInfo& t, int sign) {
    if (t.job == kNone) return;
    const QueueId q = ssn_->job(t.job).queue;
    if (q == kNone) return;
    Charge(quotas_[q], t, sign);
  }

  Options opts_;
  Session* ssn_ = nullptr;
  std::vector<std::vector<NodeCard>> node_cards_;  // by NodeId
  std::map<std::string, std::string> model_resource_;
  std::set<std::string> card_resources_;  // Kubernetes resources that are cards on some node
  std::vector<std::optional<TaskRequest>> task_requests_;  // by TaskId, read on first use
  std::map<TaskId, std::string> charged_;                  // placed task -> model charged
  std::vector<QueueQuota> quotas_;                         // by QueueId
};

}  // namespace

Result<std::unique_ptr<Plugin>> NewCapacityCardPlugin(const Arguments& args) {
  Options o;
  BASALT_RETURN_IF_ERROR(args.GetBool("cardUnlimitedCpuMemory", &o.card_unlimited_cpu_memory));
  BASALT_RETURN_IF_ERROR(args.GetDouble("nodeOrderWeight", &o.node_order_weight));
  BASALT_RETURN_IF_ERROR(args.GetDouble("overCommitFactor", &o.over_commit_factor));
  if (!(o.node_order_weight > 0)) {
    return Status::InvalidArgument(args.owner() +
                                   ": arguments.nodeOrderWeight: must be positive, got " +
                                   args.values().at("nodeOrderWeight"));
  }
  if (!(o.over_commit_factor > 0)) {
    return Status::InvalidArgument(args.owner() +
                                   ": arguments.overCommitFactor: must be positive, got " +
                                   args.values().at("overCommitFactor"));
  }
  const std::string prefix = "podOwnerReferenceToServiceType";
  if (args.Has(prefix) || args.Has(prefix + "[0]")) {
    std::string v;
    BASALT_RETURN_IF_ERROR(args.GetString(prefix, &v));
    if (!v.empty()) {
      return Status::InvalidArgument(args.owner() + ": arguments." + prefix +
                                     ": expected a map of owner kind to inference or training");
    }
  }
  for (const auto& [kind, value] : args.WithPrefix(prefix + ".")) {
    std::optional<ServiceType> st = ParseServiceType(value);
    if (!st || kind.find('.') != std::string::npos || kind.find('[') != std::string::npos) {
      return Status::InvalidArgument(args.owner() + ": arguments." + prefix + "." + kind +
                                     ": expected inference or training, got \"" + value + "\"");
    }
    o.owner_kind_service_type[kind] = *st;
  }
  return std::unique_ptr<Plugin>(new CapacityCardPlugin(std::move(o)));
}

}  // namespace basalt
