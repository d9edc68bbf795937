#include "admission/queue_rules.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "api/card_annotations.h"
#include "api/quantity.h"
#include "api/text.h"

namespace basalt {
namespace {

constexpr char kHierarchyAnnotation[] = "volcano.sh/hierarchy";
constexpr char kHierarchyWeightsAnnotation[] = "volcano.sh/hierarchy-weights";

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string AnnotationField(const std::string& key) { return "metadata.annotations[" + key + "]"; }

// Collects the problems of one queue.
class QueueReport {
 public:
  QueueReport(std::vector<AdmissionProblem>* out, const Queue& q)
      : out_(out), object_("Queue " + q.meta.name), source_(q.meta.source) {}
  void Add(std::string field, std::string message) {
    out_->push_back({object_, source_, std::move(field), std::move(message)});
  }

 private:
  std::vector<AdmissionProblem>* out_;
  std::string object_;
  std::string source_;
};

// ---- quantities as Volcano prints them ----

// A quantity of the resource list as Kubernetes' Quantity.String() prints it.
// The stored integer has lost the suffix's family, so memory is printed with a
// binary suffix when it is a multiple of 1024 and a decimal one otherwise
// ("1Gi", "1G", "1500M"), the form the manifest almost always used.
std::string QuantityText(ResourceId id, int64_t v) {
  if (id == ResourceNames::kMemory)
    return v % 1024 == 0 && v != 0 ? FormatBinaryBytes(v) : FormatDecimalUnits(v);
  if (id == ResourceNames::kPods) return FormatDecimalUnits(v);
  return FormatMilliDecimal(v);
}

// Volcano's float form of a resource amount ("%.2f" of milli-cpu, bytes,
// milli-units of a scalar, pods).
std::string FloatText(int64_t v) { return std::to_string(v) + ".00"; }

// Volcano's `Resource.String()`: cpu and memory always, then the scalars by name.
std::string ResourceText(const Resource& r) {
  std::string out = "cpu " + FloatText(r.milli_cpu()) + ", memory " + FloatText(r.memory());
  std::vector<std::pair<std::string, int64_t>> scalars;
  for (const auto& [id, v] : r.scalars()) scalars.emplace_back(ResourceNames::Name(id), v);
  std::sort(scalars.begin(), scalars.end());
  for (const auto& [name, v] : scalars) out += ", " + name + " " + FloatText(v);
  return out;
}

// `formatResourceWithType`: a capability amount in a hierarchy message.
std::string TypedText(ResourceId id, int64_t v) {
  if (id == ResourceNames::kCpu) return FormatMilliDecimal(v);
  if (id == ResourceNames::kMemory) return FormatBinaryBytes(v);
  return FloatText(v);
}

// The resources a list names: cpu and memory when non-zero (the decoded list
// cannot tell `cpu: 0` from no cpu), then the scalars by name.
std::vector<ResourceId> NamedResources(const std::optional<Resource>& r) {
  std::vector<ResourceId> out;
  if (!r) return out;
  if (r->milli_cpu() != 0) out.push_back(ResourceNames::kCpu);
  if (r->memory() != 0) out.push_back(ResourceNames::kMemory);
  std::vector<ResourceId> scalars;
  for (const auto& [id, v] : r->scalars()) scalars.push_back(id);
  std::sort(scalars.begin(), scalars.end(), [](ResourceId a, ResourceId b) {
    return ResourceNames::Name(a) < ResourceNames::Name(b);
  });
  out.insert(out.end(), scalars.begin(), scalars.end());
  return out;
}

bool Names(const std::optional<Resource>& r, ResourceId id) {
  if (!r) return false;
  if (id == ResourceNames::kCpu) return r->milli_cpu() != 0;
  if (id == ResourceNames::kMemory) return r->memory() != 0;
  return r->Has(id);
}

// guarantee <= deserved for every guaranteed resource (a deserved resource
// missing counts as too little); deserved <= capability where capability
// names the resource (missing = unlimited).
void CheckResourceLists(const Queue& q, QueueReport& r) {
  for (ResourceId id : NamedResources(q.guarantee)) {
    const std::string& name = ResourceNames::Name(id);
    const std::string g = QuantityText(id, q.guarantee->Get(id));
    if (!Names(q.deserved, id)) {
      r.Add("spec.deserved." + name,
            "deserved[" + name + "] must be >= guarantee[" + name + "]=" + g);
    } else if (q.deserved->Get(id) < q.guarantee->Get(id)) {
      r.Add("spec.deserved." + name, "deserved[" + name +
                                         "]=" + QuantityText(id, q.deserved->Get(id)) +
                                         " must be >= guarantee[" + name + "]=" + g);
    }
  }
  for (ResourceId id : NamedResources(q.deserved)) {
    if (!Names(q.capability, id) || q.deserved->Get(id) <= q.capability->Get(id)) continue;
    const std::string& name = ResourceNames::Name(id);
    r.Add("spec.deserved." + name,
          "deserved[" + name + "]=" + QuantityText(id, q.deserved->Get(id)) +
              " must be <= capability[" + name + "]=" + QuantityText(id, q.capability->Get(id)));
  }
}

// ---- the hierarchy annotations ----

// Go's strconv.ParseFloat error for the common forms (one leading sign,
// decimal or exponent notation, "inf" and "nan").
std::optional<std::string> ParseFloatError(const std::string& s, double* out) {
  std::string_view v = s;
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);  // from_chars takes '-' only
  const bool bad_sign = !s.empty() && s.front() == '+' && !v.empty() && v.front() == '-';
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), *out);
  if (ec == std::errc::result_out_of_range)
    return "strconv.ParseFloat: parsing " + Quote(s) + ": value out of range";
  if (v.empty() || bad_sign || ec != std::errc() || end != v.data() + v.size())
    return "strconv.ParseFloat: parsing " + Quote(s) + ": invalid syntax";
  return std::nullopt;
}

// `volcano.sh/hierarchy` as stored after the mutating webhook (a `root/` prefix).
std::string NormalizedHierarchy(const std::string& h) {
  return h == "root" || h.rfind("root/", 0) == 0 ? h : "root/" + h;
}

std::string AnnotationOf(const Queue& q, const char* key) {
  auto it = q.meta.annotations.find(key);
  return it == q.meta.annotations.end() ? "" : it->second;
}

// As Volcano: the first problem only (the lengths, then each weight in order).
void CheckHierarchyAnnotations(const Queue& q, QueueReport& r) {
  const std::string hs = AnnotationOf(q, kHierarchyAnnotation);
  const std::string ws = AnnotationOf(q, kHierarchyWeightsAnnotation);
  if (hs.empty() && ws.empty()) return;
  if (Split(hs, '/').size() != Split(ws, '/').size()) {
    r.Add(AnnotationField(kHierarchyAnnotation), std::string(kHierarchyAnnotation) +
                                                     " must have the same length with " +
                                                     kHierarchyWeightsAnnotation);
    return;
  }
  for (const std::string& weight : Split(ws, '/')) {
    double v = 0;
    if (std::optional<std::string> err = ParseFloatError(weight, &v)) {
      r.Add(AnnotationField(kHierarchyWeightsAnnotation),
            weight + " in the " + ws + " is invalid number: " + *err);
      return;
    }
    if (v <= 0) {  // as Go compares: "nan" passes
      r.Add(AnnotationField(kHierarchyWeightsAnnotation),
            weight + " in the " + ws + " must be larger than 0");
      return;
    }
  }
}

// "root/sci" may not be created beside an existing "root/sci/dev".
void CheckSubPath(const Queue& q, const std::vector<Queue>& all, QueueReport& r) {
  const std::string hs = AnnotationOf(q, kHierarchyAnnotation);
  if (hs.empty()) return;
  const std::string path = NormalizedHierarchy(hs);
  std::vector<std::pair<std::string, std::string>> below;  // (path, queue), sorted
  for (const Queue& other : all) {
    const std::string oh = AnnotationOf(other, kHierarchyAnnotation);
    if (oh.empty() || other.meta.name == q.meta.name) continue;
    const std::string op = NormalizedHierarchy(oh);
    if (op.rfind(path + "/", 0) == 0) below.emplace_back(op, other.meta.name);
  }
  if (below.empty()) return;
  std::sort(below.begin(), below.end());
  r.Add(AnnotationField(kHierarchyAnnotation), path + " is not allowed to be in the sub path of " +
                                                   below[0].first + " of queue " + below[0].second);
}

// ---- spec.parent ----

std::string NotFound(const std::string& name) {
  return "queue.scheduling.volcano.sh " + Quote(name) + " not found";
}

// Volcano's validateHierarchicalQueue: not itself, every ancestor exists, at
// most kMaxQueueDepth levels (a cycle among the ancestors ends here too).
// Whether the queue may be checked further against its tree.
bool CheckParent(const Queue& q, const QueueIndex& queues, QueueReport& r) {
  if (q.parent.empty() || q.parent == "root") return true;
  if (q.parent == q.meta.name) {
    r.Add("spec.parent", "queue " + q.meta.name + " cannot use itself as parent");
    return false;
  }
  int depth = 1;
  for (std::string parent = q.parent; !parent.empty() && parent != "root";) {
    if (++depth > kMaxQueueDepth) {
      r.Add("spec.parent", "queue " + q.meta.name + " exceeds the maximum allowed depth of " +
                               std::to_string(kMaxQueueDepth));
      return false;
    }
    const Queue* p = queues.Find(parent);
    if (p == nullptr) {
      r.Add("spec.parent", "failed to get parent queue " + parent + " of queue " + q.meta.name +
                               ": " + NotFound(parent));
      return false;
    }
    parent = p->parent;
  }
  return true;
}

// ---- hierarchical resources ----

int64_t Amount(const std::optional<Resource>& r, ResourceId id) {
  return r && (id == ResourceNames::kCpu || id == ResourceNames::kMemory || r->Has(id)) ? r->Get(id)
                                                                                        : 0;
}

// Volcano's `LessPartly(..., Zero)`: some dimension of `limit` is below `sum`,
// a scalar of `sum` absent from `limit` counting as below.
bool BelowSomewhere(const Resource& limit, const Resource& sum) {
  if (limit.milli_cpu() < sum.milli_cpu() || limit.memory() < sum.memory()) return true;
  for (const auto& [id, v] : sum.scalars()) {
    if (!limit.Has(id) || limit.Get(id) < v) return true;
  }
  for (const auto& [id, v] : limit.scalars()) {
    if (v < (sum.Has(id) ? sum.Get(id) : 0)) return true;
  }
  return false;
}

// The capability of the nearest ancestor below root that sets `id` above 0.
std::optional<int64_t> AncestorCapability(const Queue& q, ResourceId id, const QueueIndex& queues) {
  std::set<std::string> seen;
  for (std::string parent = q.parent; !parent.empty() && parent != "root";) {
    const Queue* p = queues.Find(parent);
    if (p == nullptr || !seen.insert(parent).second) return std::nullopt;
    if (int64_t v = Amount(p->capability, id); v > 0) return v;
    parent = p->parent;
  }
  return std::nullopt;
}

// The largest capability of `id` in the subtree: a queue's own when set above
// 0, else the largest of its children's subtrees.
int64_t SubtreeMaxCapability(const Queue& q, ResourceId id, const QueueIndex& queues,
                             std::set<std::string>& seen) {
  if (int64_t v = Amount(q.capability, id); v > 0) return v;
  if (!seen.insert(q.meta.name).second) return 0;
  int64_t best = 0;
  for (const Queue* c : queues.Children(q.meta.name))
    best = std::max(best, SubtreeMaxCapability(*c, id, queues, seen));
  return best;
}

struct SumPart {
  const char* name;  // "guarantee" | "deserved"
  const char* field;
  std::optional<Resource> Queue::*member;
};
constexpr SumPart kSumParts[] = {{"guarantee", "spec.guarantee.resource", &Queue::guarantee},
                                 {"deserved", "spec.deserved", &Queue::deserved}};

Resource Or0(const std::optional<Resource>& r) { return r ? *r : Resource(); }

// Adds the queues one at a time, guarantee then deserved, and stops at the
// first sum the parent's own value does not cover (as Volcano does).
std::optional<std::pair<const SumPart*, std::pair<Resource, Resource>>> FirstExceededSum(
    const Queue& parent, const std::vector<const Queue*>& members) {
  Resource total[2];
  const Resource limit[2] = {Or0(parent.guarantee), Or0(parent.deserved)};
  for (const Queue* m : members) {
    for (int k = 0; k < 2; ++k) {
      total[k] += Or0(m->*kSumParts[k].member);
      if (BelowSomewhere(limit[k], total[k]))
        return std::make_pair(&kSumParts[k], std::make_pair(total[k], limit[k]));
    }
  }
  return std::nullopt;
}

void CheckAgainstParent(const Queue& q, const Queue& parent, const QueueIndex& queues,
                        QueueReport& r) {
  for (ResourceId id : NamedResources(q.capability)) {
    const int64_t mine = Amount(q.capability, id);
    if (mine <= 0) continue;
    std::optional<int64_t> limit = AncestorCapability(q, id, queues);
    if (!limit || mine <= *limit) continue;
    const std::string& name = ResourceNames::Name(id);
    r.Add("spec.capability." + name,
          "queue " + q.meta.name + " capability[" + name + "]=" + TypedText(id, mine) +
              " exceeds its ancestor's capability=" + TypedText(id, *limit));
    return;
  }
  std::vector<const Queue*> members;
  for (const Queue* s : queues.Children(parent.meta.name)) {
    if (s->meta.name != q.meta.name) members.push_back(s);
  }
  members.push_back(&q);
  if (auto hit = FirstExceededSum(parent, members)) {
    const std::string part = hit->first->name;
    r.Add(hit->first->field, "parent queue " + parent.meta.name +
                                 " validation failed: sum of children's " + part + " (" +
                                 ResourceText(hit->second.first) + ") exceeds parent's " + part +
                                 " limit (" + ResourceText(hit->second.second) + ")");
  }
}

void CheckAgainstChildren(const Queue& q, const QueueIndex& queues, QueueReport& r) {
  const std::vector<const Queue*>& children = queues.Children(q.meta.name);
  if (children.empty()) return;
  for (ResourceId id : NamedResources(q.capability)) {
    const int64_t mine = Amount(q.capability, id);
    if (mine <= 0) continue;
    int64_t child_max = 0;
    for (const Queue* c : children) {
      std::set<std::string> seen = {q.meta.name};
      child_max = std::max(child_max, SubtreeMaxCapability(*c, id, queues, seen));
    }
    if (mine >= child_max) continue;
    const std::string& name = ResourceNames::Name(id);
    r.Add("spec.capability." + name,
          "queue " + q.meta.name + " capability[" + name + "]=" + TypedText(id, mine) +
              " is smaller than its descendants' max capability=" + TypedText(id, child_max));
    return;
  }
  if (auto hit = FirstExceededSum(q, children)) {
    const std::string part = hit->first->name;
    r.Add(hit->first->field, "queue " + q.meta.name + " validation failed: sum of children's " +
                                 part + " (" + ResourceText(hit->second.first) +
                                 ") exceeds parent's " + part + " limit (" +
                                 ResourceText(hit->second.second) + ")");
  }
}

void ValidateOneQueue(const Queue& q, const std::vector<Queue>& all, const QueueIndex& queues,
                      QueueReport& r) {
  if (q.state != "Open" && q.state != "Closed")
    r.Add("status.state", "queue state must be in [Open Closed]");
  // The decoder turns 0 into 1 (the mutating webhook) and refuses negatives;
  // this guards objects built in code.
  if (q.weight <= 0)
    r.Add("spec.weight",
          "queue weight must be a positive integer, got " + std::to_string(q.weight));
  CheckResourceLists(q, r);
  CheckHierarchyAnnotations(q, r);
  CheckSubPath(q, all, r);
  if (!CheckParent(q, queues, r) || q.meta.name == "root") return;
  if (!q.parent.empty() && q.parent != "root")
    CheckAgainstParent(q, *queues.Find(q.parent), queues, r);
  CheckAgainstChildren(q, queues, r);
}

}  // namespace

void ValidateQueues(const std::vector<Queue>& all, const QueueIndex& queues,
                    std::vector<AdmissionProblem>* out) {
  for (const Queue& q : all) {
    QueueReport r(out, q);
    const Queue* first = queues.Find(q.meta.name);
    if (first != &q) {
      r.Add("metadata.name",
            "duplicate Queue " + Quote(q.meta.name) + ": already defined at " + first->meta.source);
      continue;
    }
    ValidateOneQueue(q, all, queues, r);
    auto it = q.meta.annotations.find(kCardQuotaAnnotation);
    if (it != q.meta.annotations.end()) {
      Status st = ParseCardQuota(it->second).status();
      if (!st.ok()) r.Add(AnnotationField(kCardQuotaAnnotation), st.message());
    }
  }
}

}  // namespace basalt
