#include "actions/victim_sets.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "actions/hypernode_search.h"
#include "actions/node_selection.h"
#include "api/log.h"

namespace basalt {
namespace {

// How many whole gangs seed a search of their own (the greedy pass from the
// empty set finds single-pod plans; a seeded pass finds plans where one whole
// gang beats many spare pods).
constexpr size_t kWholeGangSeeds = 8;

bool IsVictimStatus(TaskStatus s, bool reclaim) {
  return s == TaskStatus::kRunning || (!reclaim && s == TaskStatus::kBound);
}

// What a victim set costs, compared field by field.
struct Cost {
  int64_t pods = 0;
  int32_t max_priority = INT32_MIN;
  int64_t priority_sum = 0;
  int64_t lost = 0;  // seconds the victims have existed
  void Add(const Cost& o) {
    pods += o.pods;
    max_priority = std::max(max_priority, o.max_priority);
    priority_sum += o.priority_sum;
    lost += o.lost;
  }
  bool operator<(const Cost& o) const {
    return std::tie(pods, max_priority, priority_sum, lost) <
           std::tie(o.pods, o.max_priority, o.priority_sum, o.lost);
  }
};

// A single spare pod of a gang, or a whole gang.
struct Unit {
  JobId job = kNone;
  bool whole = false;
  std::vector<const TaskInfo*> tasks;
  Cost cost;
};

// One domain's data for the search.
struct Domain {
  HyperNodeId id = kNone;
  std::vector<NodeId> nodes;            // in id order
  std::vector<int32_t> index;           // NodeId -> position in `nodes`, -1 outside
  std::vector<Resource> free;           // FutureIdle per position
  std::vector<std::vector<char>> fits;  // per needed pod, per position: predicates allow it
  Resource free_total;
};

struct Choice {
  std::vector<const TaskInfo*> victims;
  Cost cost;
  std::vector<std::pair<TaskId, NodeId>> placements;
};

// The pods the gang still needs to be pipelined: each role's shortfall first,
// then the best pending pods (TaskOrder) up to minMember.
std::vector<TaskId> NeededTasks(const Session& ssn, const JobInfo& job) {
  std::vector<TaskId> pending;
  std::map<std::string, int32_t> placed;
  for (TaskId id : job.tasks) {
    const TaskInfo& t = ssn.task(id);
    if (t.status == TaskStatus::kPending && !t.gated && !t.best_effort) pending.push_back(id);
    if (IsAllocatedStatus(t.status) || t.status == TaskStatus::kSucceeded ||
        t.status == TaskStatus::kPipelined) {
      ++placed[t.role];
    }
  }
  std::stable_sort(pending.begin(), pending.end(),
                   [&](TaskId a, TaskId b) { return ssn.TaskOrderLess(ssn.task(a), ssn.task(b)); });
  std::vector<char> take(pending.size(), 0);
  size_t taken = 0;
  for (const auto& [role, min] : job.min_task_member) {
    int32_t short_by = min - placed[role];
    for (size_t i = 0; i < pending.size() && short_by > 0; ++i) {
      if (take[i] || ssn.task(pending[i]).role != role) continue;
      take[i] = 1;
      ++taken;
      --short_by;
    }
  }
  const int32_t need = job.min_member - job.ReadyTaskNum() - job.WaitingTaskNum();
  for (size_t i = 0; i < pending.size() && static_cast<int32_t>(taken) < need; ++i) {
    if (!take[i]) take[i] = 1, ++taken;
  }
  std::vector<TaskId> out;
  for (size_t i = 0; i < pending.size(); ++i) {
    if (take[i]) out.push_back(pending[i]);
  }
  return out;
}

// The HyperNode the job's placed pods span; `*placed` says whether any is.
HyperNodeId PlacedSpan(const Session& ssn, const JobInfo& job, bool* placed) {
  HyperNodeId span = JobSpan(ssn, job);
  *placed = span != kNone;
  if (*placed) return span;
  for (TaskId id : job.tasks) {
    const TaskInfo& t = ssn.task(id);
    if (t.node != kNone && IsOnNodeStatus(t.status) && !t.best_effort &&
        ssn.hypernodes().LeafOf(t.node) != kNone) {
      *placed = true;  // in separate trees: no HyperNode holds them all
    }
  }
  return kNone;
}

// The domains to try, tier by tier from the lowest: the HyperNodes within the
// highest allowed tier that, with the pods the job already runs, stay within
// it (each tier by HyperNode-order score, then name); then, for a job
// without a hard constraint, the whole cluster.
std::vector<std::vector<HyperNodeId>> DomainTiers(const Session& ssn, const JobInfo& job) {
  std::vector<std::vector<HyperNodeId>> tiers;
  const HyperNodeTree& tree = ssn.hypernodes();
  const TopologyConstraint c = ConstraintOf(job, tree);
  if (c.kind != TopologyConstraint::Kind::kNone && !tree.empty() &&
      c.unresolved_tier_name.empty()) {
    bool placed = false;
    const HyperNodeId span = PlacedSpan(ssn, job, &placed);
    auto within = [&](int32_t tier) { return !c.highest_tier || tier <= *c.highest_tier; };
    for (int32_t tier : tree.tiers()) {
      if (!within(tier)) break;
      std::vector<HyperNodeId> list;
      for (HyperNodeId h : tree.OfTier(tier)) {
        if (placed) {
          const HyperNodeId lca = span == kNone ? kNone : tree.Lca(h, span);
          if (lca == kNone || !within(tree.at(lca).tier)) continue;
        }
        list.push_back(h);
      }
      std::vector<double> scores = ssn.HyperNodeScores(job, list);
      std::vector<size_t> order(list.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return scores[a] > scores[b]; });
      std::vector<HyperNodeId> sorted;
      for (size_t i : order) sorted.push_back(list[i]);
      tiers.push_back(std::move(sorted));
    }
  }
  if (c.kind != TopologyConstraint::Kind::kHard) tiers.push_back({kNone});
  return tiers;
}

Domain MakeDomain(Session& ssn, HyperNodeId id, const std::vector<TaskId>& needed) {
  Domain d;
  d.id = id;
  if (id == kNone) {
    for (const NodeInfo& n : ssn.nodes()) d.nodes.push_back(n.id);
  } else {
    d.nodes = ssn.hypernodes().at(id).nodes;
    std::sort(d.nodes.begin(), d.nodes.end());
  }
  d.index.assign(ssn.nodes().size(), -1);
  for (size_t i = 0; i < d.nodes.size(); ++i) {
    d.index[d.nodes[i]] = static_cast<int32_t>(i);
    d.free.push_back(ssn.node(d.nodes[i]).FutureIdle());
    d.free_total += d.free.back();
  }
  // Predicates as preempt reads them: a plain Unschedulable may be fixed by evictions.
  std::map<int32_t, size_t> row_of_class;
  for (TaskId id : needed) {
    const TaskInfo& t = ssn.task(id);
    auto it = row_of_class.find(t.equivalence_class);
    if (t.equivalence_class != kNone && it != row_of_class.end()) {
      d.fits.push_back(d.fits[it->second]);
      continue;
    }
    std::vector<char> row(d.nodes.size(), 0);
    for (size_t i = 0; i < d.nodes.size(); ++i) {
      PredicateStatus st = ssn.Predicate(t, ssn.node(d.nodes[i]));
      row[i] = st.ok() || st.code == PredicateStatus::Code::kUnschedulable;
    }
    row_of_class[t.equivalence_class] = d.fits.size();
    d.fits.push_back(std::move(row));
  }
  return d;
}

Cost CostOf(const Session& ssn, const std::vector<const TaskInfo*>& tasks) {
  Cost c;
  for (const TaskInfo* t : tasks) {
    c.pods += 1;
    c.max_priority = std::max(c.max_priority, t->priority);
    c.priority_sum += t->priority;
    c.lost += std::max<int64_t>(0, ssn.options().now - t->creation);
  }
  return c;
}

// The running tasks the request may take: on the domain's nodes, and the
// other running pods of their gangs (a whole gang goes everywhere at once).
// `*partial` collects the jobs with a running pod the request may not take.
std::vector<const TaskInfo*> Candidates(const Session& ssn, const GangEvictionRequest& req,
                                        const Domain& d, std::set<JobId>* partial) {
  std::vector<const TaskInfo*> out;
  std::set<JobId> jobs;
  for (NodeId n : d.nodes) {
    for (TaskId id : ssn.node(n).tasks) {
      const TaskInfo& t = ssn.task(id);
      if (t.job == req.job->id || t.job == kNone) continue;
      if (!IsVictimStatus(t.status, req.reclaim) || !req.may_take(t)) continue;
      out.push_back(&t);
      jobs.insert(t.job);
    }
  }
  if (!req.options.allow_whole_gangs) return out;
  for (JobId j : jobs) {
    for (TaskId id : ssn.job(j).tasks) {
      const TaskInfo& t = ssn.task(id);
      if (!IsAllocatedStatus(t.status) || (t.node != kNone && d.index[t.node] >= 0)) continue;
      if (IsVictimStatus(t.status, req.reclaim) && req.may_take(t)) {
        out.push_back(&t);
      } else {
        partial->insert(j);
      }
    }
  }
  return out;
}

// The units of one victim job: its spare pods inside the domain (the gang
// keeps minMember and each role minimum), and the whole gang when every
// running pod of it may go.
void AddUnitsOfJob(const Session& ssn, const JobInfo& job, const Domain& d,
                   const std::vector<const TaskInfo*>& allowed, bool whole_ok,
                   std::vector<Unit>* units) {
  int32_t ready = job.ReadyTaskNum();
  std::map<std::string, int32_t> role_ready;
  int32_t allocated = 0;
  for (TaskId id : job.tasks) {
    const TaskInfo& t = ssn.task(id);
    if (IsAllocatedStatus(t.status) || t.status == TaskStatus::kSucceeded) ++role_ready[t.role];
    if (IsAllocatedStatus(t.status)) ++allocated;
  }
  size_t spare = 0;
  for (const TaskInfo* t : allowed) {
    if (t->node == kNone || d.index[t->node] < 0) continue;
    auto role_min = job.min_task_member.find(t->role);
    if (ready <= job.min_member) break;
    if (role_min != job.min_task_member.end() && role_ready[t->role] <= role_min->second) continue;
    --ready;
    --role_ready[t->role];
    units->push_back(Unit{job.id, false, {t}, CostOf(ssn, {t})});
    ++spare;
  }
  if (!whole_ok || static_cast<int32_t>(allowed.size()) != allocated || spare == allowed.size())
    return;
  units->push_back(Unit{job.id, true, allowed, CostOf(ssn, allowed)});
}

std::vector<Unit> BuildUnits(Session& ssn, const GangEvictionRequest& req, const TaskInfo& evictor,
                             const Domain& d) {
  std::set<JobId> partial;
  std::vector<const TaskInfo*> cands = Candidates(ssn, req, d, &partial);
  std::vector<Unit> units;
  if (cands.empty()) return units;
  SortVictims(ssn, ssn.queue(req.job->queue), cands);
  // One vote over every candidate, in victim order: plugins that count what
  // they give away (capacity, proportion) see the whole list at once.
  std::vector<const TaskInfo*> allowed = ssn.VictimVoteWithout(evictor, cands, req.reclaim, "gang");
  std::set<const TaskInfo*> ok(allowed.begin(), allowed.end());
  std::map<JobId, std::vector<const TaskInfo*>> by_job;  // victim order kept
  for (const TaskInfo* c : cands) {
    if (ok.count(c)) by_job[c->job].push_back(c);
  }
  for (const auto& [j, tasks] : by_job) {
    const bool whole_ok = req.options.allow_whole_gangs && !partial.count(j);
    AddUnitsOfJob(ssn, ssn.job(j), d, tasks, whole_ok, &units);
  }
  return units;
}

// Places the needed pods `which` (positions in `needed`), largest first, each
// on the allowed node of the domain where it leaves the least cpu then memory
// (ties: the earliest node), taking from `free` and writing `out`. False when
// some pod finds no room (then `free` and `out` are partly written).
bool PlaceEach(const Session& ssn, const Domain& d, const std::vector<TaskId>& needed,
               std::vector<size_t> which, const std::function<bool(size_t)>& allowed,
               std::vector<Resource>& free, std::vector<std::pair<TaskId, NodeId>>& out) {
  auto bigger = [&](size_t a, size_t b) {
    const Resource& x = ssn.task(needed[a]).request;
    const Resource& y = ssn.task(needed[b]).request;
    return std::make_pair(x.milli_cpu(), x.memory()) > std::make_pair(y.milli_cpu(), y.memory());
  };
  std::stable_sort(which.begin(), which.end(), bigger);
  for (size_t i : which) {
    const Resource& r = ssn.task(needed[i]).request;
    int64_t best = -1;
    std::pair<int64_t, int64_t> best_left;
    for (size_t n = 0; n < d.nodes.size(); ++n) {
      if (!d.fits[i][n] || !allowed(n) || !LessEqual(r, free[n])) continue;
      std::pair<int64_t, int64_t> left{free[n].milli_cpu() - r.milli_cpu(),
                                       free[n].memory() - r.memory()};
      if (best < 0 || left < best_left) best = static_cast<int64_t>(n), best_left = left;
    }
    if (best < 0) return false;
    free[best] -= r;
    out[i] = {needed[i], d.nodes[best]};
  }
  return true;
}

// Whether every pod of SubGroup `g` already on a node is on a node of `h`.
bool HoldsPlacedPods(const Session& ssn, HyperNodeId h, const SubGroupInfo& g) {
  for (TaskId id : g.tasks) {
    const TaskInfo& t = ssn.task(id);
    if (t.node != kNone && IsOnNodeStatus(t.status) && !t.best_effort &&
        !ssn.hypernodes().Holds(h, t.node)) {
      return false;
    }
  }
  return true;
}

// The needed pods of each SubGroup with a hard networkTopology go together
// inside one HyperNode of its allowed tier (the lowest tier first, then name
// order, the one holding its running pods), as allocate would place them: a
// plan whose pods allocate could not keep would evict for nothing. `*done`
// marks them. False when some SubGroup finds no HyperNode with room.
bool PlaceSubGroups(const Session& ssn, const Domain& d, const std::vector<TaskId>& needed,
                    std::vector<Resource>& free, std::vector<std::pair<TaskId, NodeId>>& out,
                    std::vector<char>* done) {
  const SubGroupIndex& index = ssn.subgroups();
  const HyperNodeTree& tree = ssn.hypernodes();
  if (index.empty() || tree.empty()) return true;
  std::map<int32_t, std::vector<size_t>> by_group;  // SubGroup -> positions in `needed`
  for (size_t i = 0; i < needed.size(); ++i) {
    if (int32_t g = index.OfTask(needed[i]); g != kNone) by_group[g].push_back(i);
  }
  for (const auto& [g, members] : by_group) {
    const SubGroupInfo& info = index.at(g);
    const PodGroup& pg = *ssn.job(info.job).podgroup;
    TopologyConstraint c =
        ConstraintOfSpec(pg.sub_group_policy[info.policy].network_topology, tree);
    if (c.kind != TopologyConstraint::Kind::kHard || !c.highest_tier) continue;
    bool placed = false;
    for (int32_t tier : tree.tiers()) {
      if (placed || tier > *c.highest_tier) break;
      for (HyperNodeId h : tree.OfTier(tier)) {
        if (!HoldsPlacedPods(ssn, h, info)) continue;
        std::vector<Resource> trial = free;
        auto in_h = [&](size_t n) { return tree.Holds(h, d.nodes[n]); };
        if (!PlaceEach(ssn, d, needed, members, in_h, trial, out)) continue;
        free = std::move(trial);
        placed = true;
        break;
      }
    }
    if (!placed) return false;
    for (size_t i : members) (*done)[i] = 1;
  }
  return true;
}

// Places the needed pods after evicting `units`' tasks: the hard SubGroups'
// pods first (PlaceSubGroups), then the others (PlaceEach over the domain).
// Empty when some pod finds no room.
std::optional<std::vector<std::pair<TaskId, NodeId>>> Place(const Session& ssn, const Domain& d,
                                                            const std::vector<TaskId>& needed,
                                                            const std::vector<const Unit*>& units) {
  Resource freed;
  std::vector<Resource> free = d.free;
  for (const Unit* u : units) {
    for (const TaskInfo* t : u->tasks) {
      if (t->node == kNone || d.index[t->node] < 0) continue;
      free[d.index[t->node]] += t->request;
      freed += t->request;
    }
  }
  Resource need;
  for (TaskId id : needed) need += ssn.task(id).request;
  if (!LessEqual(need, d.free_total + freed)) return std::nullopt;
  std::vector<std::pair<TaskId, NodeId>> out(needed.size());
  std::vector<char> done(needed.size(), 0);
  if (!PlaceSubGroups(ssn, d, needed, free, out, &done)) return std::nullopt;
  std::vector<size_t> rest;
  for (size_t i = 0; i < needed.size(); ++i) {
    if (!done[i]) rest.push_back(i);
  }
  if (!PlaceEach(
          ssn, d, needed, rest, [](size_t) { return true; }, free, out))
    return std::nullopt;
  return out;
}

// From `seed`, adds units in cost order until the needed pods fit, then drops
// every unit (most expensive first) whose removal still lets them fit.
std::optional<Choice> GrowAndTrim(const Session& ssn, const Domain& d,
                                  const std::vector<TaskId>& needed, const std::vector<Unit>& units,
                                  const std::vector<size_t>& order, std::optional<size_t> seed) {
  std::vector<char> in(units.size(), 0);
  auto selected = [&]() {
    std::vector<const Unit*> out;
    for (size_t i : order) {
      if (in[i]) out.push_back(&units[i]);
    }
    return out;
  };
  auto whole_of = [&](JobId j) {
    for (size_t i = 0; i < units.size(); ++i) {
      if (in[i] && units[i].whole && units[i].job == j) return true;
    }
    return false;
  };
  if (seed) in[*seed] = 1;
  auto placed = Place(ssn, d, needed, selected());
  for (size_t k = 0; !placed && k < order.size(); ++k) {
    const size_t i = order[k];
    if (in[i] || whole_of(units[i].job)) continue;
    if (units[i].whole) {
      for (size_t s = 0; s < units.size(); ++s) {
        if (units[s].job == units[i].job) in[s] = 0;  // the whole gang covers its spare pods
      }
    }
    in[i] = 1;
    placed = Place(ssn, d, needed, selected());
  }
  if (!placed) return std::nullopt;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (!in[*it]) continue;
    in[*it] = 0;
    if (auto without = Place(ssn, d, needed, selected())) {
      placed = std::move(without);
    } else {
      in[*it] = 1;
    }
  }
  Choice c;
  for (const Unit* u : selected()) {
    c.cost.Add(u->cost);
    c.victims.insert(c.victims.end(), u->tasks.begin(), u->tasks.end());
  }
  c.placements = std::move(*placed);
  return c;
}

// The cheapest choice in one domain.
std::optional<Choice> Cheapest(const Session& ssn, const Domain& d,
                               const std::vector<TaskId>& needed, const std::vector<Unit>& units) {
  std::vector<size_t> order(units.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return units[a].cost < units[b].cost; });
  std::optional<Choice> best = GrowAndTrim(ssn, d, needed, units, order, std::nullopt);
  size_t seeds = 0;
  for (size_t i : order) {
    if (!units[i].whole || seeds++ >= kWholeGangSeeds) continue;
    auto c = GrowAndTrim(ssn, d, needed, units, order, i);
    if (c && (!best || c->cost < best->cost)) best = std::move(c);
  }
  return best;
}

}  // namespace

Status ReadGangEvictionArguments(const Arguments& args, bool gang_aware, GangEvictionOptions* out) {
  if (!gang_aware) return Status::Ok();
  constexpr int64_t kDefaultMaxDomains = 8;  // Volcano's default
  out->max_domains = kDefaultMaxDomains;
  BASALT_RETURN_IF_ERROR(args.GetInt("maxDomains", &out->max_domains));
  if (out->max_domains <= 0) {
    const int64_t given = out->max_domains;
    out->max_domains = kDefaultMaxDomains;
    BASALT_RETURN_IF_ERROR(args.Invalid(
        "maxDomains",
        Status::InvalidArgument(args.owner() + ": arguments.maxDomains: must be positive, got " +
                                std::to_string(given)),
        std::to_string(kDefaultMaxDomains)));
  }
  return args.GetBool("allowWholeBundle", &out->allow_whole_gangs);
}

bool UsesGangEviction(const Session& ssn, const JobInfo& job, bool gang_aware) {
  if (gang_aware) return true;
  const HyperNodeTree& tree = ssn.hypernodes();
  if (tree.empty()) return false;
  if (ConstraintOf(job, tree).kind != TopologyConstraint::Kind::kNone) return true;
  // A hard SubGroup needs its pods planned together too (PlaceSubGroups).
  for (int32_t g : ssn.subgroups().OfJob(job.id)) {
    const SubGroupInfo& info = ssn.subgroups().at(g);
    const auto& spec = job.podgroup->sub_group_policy[info.policy].network_topology;
    if (ConstraintOfSpec(spec, tree).kind == TopologyConstraint::Kind::kHard) return true;
  }
  return false;
}

std::optional<GangEvictionPlan> PlanGangEviction(Session& ssn, const GangEvictionRequest& req) {
  const std::vector<TaskId> needed = NeededTasks(ssn, *req.job);
  if (needed.empty()) return std::nullopt;
  const TaskInfo& evictor = ssn.task(needed.front());
  for (TaskId id : needed) {
    if (!ssn.PrePredicate(ssn.task(id)).ok()) return std::nullopt;
  }
  int64_t tried = 0;
  for (const std::vector<HyperNodeId>& tier : DomainTiers(ssn, *req.job)) {
    std::optional<Choice> best;
    HyperNodeId best_domain = kNone;
    for (HyperNodeId h : tier) {
      if (req.options.max_domains > 0 && tried >= req.options.max_domains) break;
      ++tried;
      Domain d = MakeDomain(ssn, h, needed);
      std::vector<Unit> units = BuildUnits(ssn, req, evictor, d);
      std::optional<Choice> c = Cheapest(ssn, d, needed, units);
      if (c && (!best || c->cost < best->cost)) best = std::move(c), best_domain = h;
    }
    if (!best) continue;
    GangEvictionPlan plan;
    plan.domain = best_domain;
    plan.victims = std::move(best->victims);
    SortVictims(ssn, ssn.queue(req.job->queue), plan.victims);
    plan.placements = std::move(best->placements);
    Log(req.reclaim ? "reclaim" : "preempt")
        .debug("msg=\"gang eviction planned\" job={} domain={} victims={} pods={}",
               LogValue(req.job->key), LogValue(DomainName(ssn, plan.domain)), plan.victims.size(),
               plan.placements.size());
    return plan;
  }
  return std::nullopt;
}

bool CommitGangEvictionPlan(Session& ssn, JobInfo& job, const QueueInfo& queue,
                            const GangEvictionPlan& plan, const GangEvictionCommit& how) {
  const bool evicts = !plan.victims.empty();
  const std::string reason = std::string(how.verb) + " by " + job.key + " (queue " + queue.name +
                             ", " + DomainName(ssn, plan.domain) + ")";
  Statement stmt(ssn);
  for (const TaskInfo* v : plan.victims)
    stmt.Evict(ssn.task(v->id), std::string(how.action), reason);
  for (const auto& [tid, nid] : plan.placements) {
    TaskInfo& t = ssn.task(tid);
    NodeInfo& node = ssn.node(nid);
    const bool allowed = !(evicts && t.preempt_never) && how.queue_allows(t) &&
                         LessEqual(t.request, node.FutureIdle());
    if (!allowed) {
      stmt.Discard();
      return false;
    }
    stmt.Pipeline(t, node, evicts && how.nominate_when_evicting);
  }
  if (!ssn.JobPipelined(job)) {
    stmt.Discard();
    return false;
  }
  stmt.Commit();
  return true;
}

std::string DomainName(const Session& ssn, HyperNodeId domain) {
  return domain == kNone ? "the cluster" : "HyperNode " + ssn.hypernodes().at(domain).name;
}

}  // namespace basalt
