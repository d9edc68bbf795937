#include "live/volcano_metrics.h"

#include <algorithm>
#include <chrono>

#include "api/check.h"
#include "live/render.h"

namespace basalt {
namespace {

// Volcano registers every family under the "volcano" subsystem.
const std::string kPrefix = "volcano_";

std::string Name(const std::string& suffix) { return kPrefix + suffix; }

// The three resource families of each queue quantity: cpu, memory, the rest.
const char* const kQueueQuantities[] = {"allocated", "request", "deserved", "capacity",
                                        "real_capacity"};

}  // namespace

// Go's math.Pow is not C's pow: the two differ in the last bit for most of
// these bounds. A bound is also a label (`le`), and a dashboard or recording
// rule that names one must find it, so the bounds are the values Prometheus'
// Go client (v1.23) computes, as it prints them; the unit test recomputes each
// layout from its formula and checks they agree to the last few bits.
std::vector<double> VolcanoBuckets(const std::string& layout) {
  static const std::map<std::string, std::vector<double>> kLayouts = {
      {"range(1,5000,20)",
       {1,
        1.5656065579430964,
        2.45112389427443,
        3.8374956432070686,
        6.008008345083047,
        9.406177265238869,
        14.726372811633231,
        23.055705848607904,
        36.09616427458753,
        56.51239150488555,
        88.47617074509654,
        138.51887314021627,
        216.86605618721043,
        339.5269197619527,
        531.5655721775325,
        832.2225457779193,
        1302.933075338009,
        2039.8805673101535,
        3193.65039360146,
        4999.999999999997}},
      {"range(100,120000,30)",
       {100,
        127.6964028795552,
        163.06371308377672,
        208.22649600982146,
        265.8977452466826,
        339.54185601785707,
        433.582736405282,
        553.6695578962887,
        707.0161092726969,
        902.8341393202192,
        1152.886719880512,
        1472.1948705635073,
        1879.9398930869224,
        2400.6156197697555,
        3065.4997934107178,
        3914.532966465682,
        4998.717787711021,
        6383.182805007454,
        8151.09483122081,
        10408.654894770323,
        13291.477888768455,
        16972.739153488765,
        21673.57736913502,
        27676.378675702752,
        35341.74001619669,
        45130.13071572749,
        57629.55353882527,
        73590.86686462727,
        93972.88983401153,
        119999.99999999991}},
      {"range(0.1,100,15)",
       {0.1, 0.16378937069540644, 0.2682695795279726, 0.4393970560760792, 0.7196856730011522,
        1.1787686347935875, 1.9306977288832508, 3.1622776601683804, 5.1794746792312125,
        8.483428982440724, 13.894954943731381, 22.758459260747898, 37.27593720314942,
        61.054022965853314, 100.00000000000006}},
      {"range(1,2000,20)",
       {1,
        1.4918955578206108,
        2.2257523554448713,
        3.3205900518969647,
        4.953973547768393,
        7.390811129476477,
        11.026318292757086,
        16.45011528008044,
        24.541853911988955,
        36.6138828319787,
        54.624089151593346,
        81.49343595525913,
        121.57969509318953,
        181.38420703071378,
        270.60629272793585,
        403.71632603911144,
        602.3025934374076,
        898.5725636131018,
        1340.5764160338647,
        1999.9999999999977}},
      {"range(50,60000,30)",
       {50,
        63.8482014397776,
        81.53185654188836,
        104.11324800491073,
        132.9488726233413,
        169.77092800892854,
        216.791368202641,
        276.83477894814433,
        353.50805463634845,
        451.4170696601096,
        576.443359940256,
        736.0974352817536,
        939.9699465434612,
        1200.3078098848778,
        1532.7498967053589,
        1957.266483232841,
        2499.3588938555104,
        3191.591402503727,
        4075.547415610405,
        5204.327447385162,
        6645.738944384228,
        8486.369576744382,
        10836.78868456751,
        13838.189337851376,
        17670.870008098344,
        22565.065357863747,
        28814.776769412634,
        36795.433432313635,
        46986.44491700576,
        59999.999999999956}},
      {"range(0.1,500,20)",
       {0.1,
        0.15656065579430967,
        0.245112389427443,
        0.3837495643207069,
        0.6008008345083047,
        0.9406177265238869,
        1.4726372811633233,
        2.3055705848607904,
        3.609616427458753,
        5.651239150488555,
        8.847617074509655,
        13.851887314021628,
        21.686605618721046,
        33.95269197619527,
        53.15655721775326,
        83.22225457779194,
        130.2933075338009,
        203.98805673101538,
        319.36503936014606,
        499.9999999999998}},
      {"exponential(5,2,15)",
       {5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 40960, 81920}},
  };
  auto it = kLayouts.find(layout);
  BASALT_CHECK(it != kLayouts.end()) << "unknown bucket layout " << layout;
  return it->second;
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double MillisecondsSince(int64_t created, double now_seconds) {
  return std::max(0.0, (now_seconds - static_cast<double>(created)) * 1000.0);
}

void DeclareVolcanoSchedulerMetrics(kube::Metrics& m) {
  m.Histogram(Name("e2e_scheduling_latency_milliseconds"),
              "Duration of one scheduling session: open, actions, close (milliseconds).",
              VolcanoBuckets("range(1,5000,20)"));
  m.Histogram(Name("open_session_duration_milliseconds"),
              "Duration of opening a session: snapshot and plugins' OnSessionOpen (milliseconds).",
              VolcanoBuckets("range(1,5000,20)"));
  m.Histogram(Name("update_snapshot_duration_milliseconds"),
              "Duration of bringing the scheduling snapshot up to date with the store "
              "(patched, or built in full) (milliseconds).",
              VolcanoBuckets("exponential(5,2,15)"));
  m.Histogram(Name("e2e_job_scheduling_latency_milliseconds"),
              "Per placed task: time from its job's creation to the placement (milliseconds).",
              VolcanoBuckets("range(100,120000,30)"));
  m.Gauge(Name("e2e_job_scheduling_duration"),
          "Per job: time from creation to its last task placed (milliseconds).",
          {"job_name", "queue", "job_namespace"});
  m.Gauge(Name("e2e_job_scheduling_start_time"), "Per job: creation time (Unix seconds).",
          {"job_name", "queue", "job_namespace"});
  m.Gauge(Name("e2e_job_scheduling_last_time"),
          "Per job: when its last task was placed (Unix seconds).",
          {"job_name", "queue", "job_namespace"});
  m.Histogram(Name("plugin_scheduling_latency_milliseconds"),
              "A plugin's OnSessionOpen or OnSessionClose (milliseconds).",
              VolcanoBuckets("range(0.1,100,15)"), {"plugin", "OnSession"});
  m.Histogram(Name("action_scheduling_latency_milliseconds"),
              "One action within a session (milliseconds).", VolcanoBuckets("range(1,2000,20)"),
              {"action"});
  m.Histogram(Name("task_scheduling_latency_milliseconds"),
              "Per pod: time from its creation to a stage (Watched, Assumed, PreBound, Bound) "
              "(milliseconds).",
              VolcanoBuckets("range(50,60000,30)"), {"stage"});
  m.Histogram(Name("scheduling_stage_duration_milliseconds"),
              "Per pod: duration of a bind stage (PreBind, Bind) (milliseconds).",
              VolcanoBuckets("range(0.1,500,20)"), {"stage"});
  m.Counter(Name("schedule_attempts_total"),
            "Pods of ours a session placed (scheduled) or left pending (unschedulable), and binds "
            "that came back without a verdict (error).",
            {"result"});
  m.Gauge(Name("pod_preemption_victims"), "Victims named by the last preemption vote.");
  m.Counter(Name("total_preemption_attempts"), "Preemptors that looked for victims.");
  m.Gauge(Name("unschedule_task_count"), "Per job: tasks missing for its gang at the last close.",
          {"job_id"});
  m.Gauge(Name("unschedule_job_count"), "Jobs whose gang was not ready at the last close.");
  m.Counter(Name("job_retry_counts"), "Per job: sessions that closed with its gang not ready.",
            {"job_id"});
  m.Gauge(Name("job_share"), "Per job: its dominant resource share (drf).", {"job_ns", "job_id"});
  for (const char* q : kQueueQuantities) {
    const std::string base = std::string("queue_") + q;
    m.Gauge(Name(base + "_milli_cpu"), std::string("Queue ") + q + ": cpu (millicores).",
            {"queue_name"});
    m.Gauge(Name(base + "_memory_bytes"), std::string("Queue ") + q + ": memory (bytes).",
            {"queue_name"});
    m.Gauge(Name(base + "_scalar_resources"),
            std::string("Queue ") + q + ": other resources (thousandths of a unit).",
            {"queue_name", "resource"});
  }
  m.Gauge(Name("queue_share"), "Per queue: its share (proportion, capacity).", {"queue_name"});
  m.Gauge(Name("queue_weight"), "Per queue: its weight (proportion).", {"queue_name"});
  m.Gauge(Name("queue_overused"), "Per queue: 1 when overused at the last close.", {"queue_name"});
  for (const char* phase : {"inqueue", "pending", "running", "unknown", "completed"}) {
    m.Gauge(Name(std::string("queue_pod_group_") + phase + "_count"),
            std::string("Per queue: PodGroups in phase ") + phase + ".", {"queue_name"});
  }
}

void DeclareVolcanoControllerMetrics(kube::Metrics& m) {
  m.Histogram(Name("controller_job_to_pod_creation_latency_milliseconds"),
              "Per pod a Volcano Job's controller created: time from the Job's creation to the "
              "pod's (milliseconds).",
              VolcanoBuckets("range(50,60000,30)"));
}

void ObserveJobToPodCreation(kube::Metrics& m, int64_t job_created, int64_t pod_created) {
  m.Observe(Name("controller_job_to_pod_creation_latency_milliseconds"),
            std::max<double>(0, static_cast<double>(pod_created - job_created) * 1000.0));
}

void SetQueuePodGroupCounts(kube::Metrics& m, const ClusterState& state,
                            const std::string& default_queue) {
  // Every queue shows every phase, 0 included, as Volcano's queue controller writes them.
  std::map<std::string, std::map<PodGroupPhase, int>> counts;
  for (const auto& [name, queue] : state.queues()) counts[name];
  for (const auto& [key, group] : state.podgroups()) {
    const std::string& queue = group.queue.empty() ? default_queue : group.queue;
    auto it = counts.find(queue);
    if (it != counts.end()) ++it->second[group.phase];
  }
  const std::pair<PodGroupPhase, const char*> phases[] = {{PodGroupPhase::kInqueue, "inqueue"},
                                                          {PodGroupPhase::kPending, "pending"},
                                                          {PodGroupPhase::kRunning, "running"},
                                                          {PodGroupPhase::kUnknown, "unknown"},
                                                          {PodGroupPhase::kCompleted, "completed"}};
  for (const auto& [phase, name] : phases) {
    const std::string family = Name(std::string("queue_pod_group_") + name + "_count");
    m.ClearGauge(family);
    for (const auto& [queue, by_phase] : counts) {
      auto n = by_phase.find(phase);
      m.Set(family, {queue}, n == by_phase.end() ? 0 : n->second);
    }
  }
}

VolcanoSchedulerMetrics::VolcanoSchedulerMetrics(kube::Metrics* metrics) : m_(metrics) {
  DeclareVolcanoSchedulerMetrics(*m_);
}

void VolcanoSchedulerMetrics::ObserveAction(const std::string& action, double seconds) {
  m_->Observe(Name("action_scheduling_latency_milliseconds"), {action}, seconds * 1000.0);
}

void VolcanoSchedulerMetrics::ObserveSession(const SessionStats& stats, double e2e_seconds) {
  m_->Observe(Name("e2e_scheduling_latency_milliseconds"), e2e_seconds * 1000.0);
  m_->Observe(Name("open_session_duration_milliseconds"), stats.open_seconds * 1000.0);
  m_->Observe(Name("update_snapshot_duration_milliseconds"), stats.snapshot_seconds * 1000.0);
  const std::string plugin_family = Name("plugin_scheduling_latency_milliseconds");
  for (const PluginTiming& t : stats.plugin_open)
    m_->Observe(plugin_family, {t.plugin, "OnSessionOpen"}, t.seconds * 1000.0);
  for (const PluginTiming& t : stats.plugin_close)
    m_->Observe(plugin_family, {t.plugin, "OnSessionClose"}, t.seconds * 1000.0);
  if (stats.preemption_attempts > 0)
    m_->Inc(Name("total_preemption_attempts"), {}, static_cast<double>(stats.preemption_attempts));
  if (stats.last_preemption_victims)
    m_->Set(Name("pod_preemption_victims"), static_cast<double>(*stats.last_preemption_victims));
  SetQueueGauges(stats.queues);
  SetGangGauges(stats);
  for (const std::string& key : share_series_) {
    if (!stats.job_shares.count(key)) {
      auto [ns, name] = SplitKey(key);
      m_->Erase(Name("job_share"), {ns, name});
    }
  }
  share_series_.clear();
  for (const auto& [key, share] : stats.job_shares) {
    auto [ns, name] = SplitKey(key);
    m_->Set(Name("job_share"), {ns, name}, share);
    share_series_.insert(key);
  }
}

void VolcanoSchedulerMetrics::SetResourceGauges(const std::string& quantity,
                                                const std::string& queue,
                                                const ResourceFigures& figures) {
  const std::string base = Name("queue_" + quantity);
  m_->Set(base + "_milli_cpu", {queue}, figures.milli_cpu);
  m_->Set(base + "_memory_bytes", {queue}, figures.memory);
  std::set<std::string>& known = known_scalars_[quantity][queue];
  for (const auto& [resource, v] : figures.scalars) {
    m_->Set(base + "_scalar_resources", {queue, resource}, v);
    known.insert(resource);
  }
  for (const std::string& resource : known) {
    if (!figures.scalars.count(resource)) m_->Set(base + "_scalar_resources", {queue, resource}, 0);
  }
}

// The gauges show the queues of the last session: a queue that is gone (or
// that no fairness plugin reports any more) loses its series.
void VolcanoSchedulerMetrics::SetQueueGauges(const std::map<std::string, QueueReport>& queues) {
  for (const char* q : kQueueQuantities) {
    const std::string base = Name(std::string("queue_") + q);
    for (const char* suffix : {"_milli_cpu", "_memory_bytes", "_scalar_resources"})
      m_->ClearGauge(base + suffix);
    auto& known = known_scalars_[q];
    for (auto it = known.begin(); it != known.end();)
      it = queues.count(it->first) ? std::next(it) : known.erase(it);
  }
  for (const char* family : {"queue_share", "queue_weight", "queue_overused"})
    m_->ClearGauge(Name(family));
  for (const auto& [queue, r] : queues) {
    const std::pair<const char*, const std::optional<ResourceFigures>*> quantities[] = {
        {"allocated", &r.allocated},
        {"request", &r.request},
        {"deserved", &r.deserved},
        {"capacity", &r.capability},
        {"real_capacity", &r.real_capability}};
    for (const auto& [quantity, figures] : quantities) {
      if (*figures) SetResourceGauges(quantity, queue, **figures);
    }
    if (r.share) m_->Set(Name("queue_share"), {queue}, *r.share);
    if (r.weight) m_->Set(Name("queue_weight"), {queue}, *r.weight);
    if (r.overused) m_->Set(Name("queue_overused"), {queue}, *r.overused ? 1 : 0);
  }
}

void VolcanoSchedulerMetrics::SetGangGauges(const SessionStats& stats) {
  if (!stats.gang_reported) return;
  int64_t unready_jobs = 0;
  std::set<std::string> seen;
  for (const GangReport& g : stats.gangs) {
    m_->Set(Name("unschedule_task_count"), {g.name}, g.unready_tasks);
    seen.insert(g.name);
    if (g.ready) continue;
    ++unready_jobs;
    m_->Inc(Name("job_retry_counts"), {g.name});
  }
  m_->Set(Name("unschedule_job_count"), static_cast<double>(unready_jobs));
  gang_series_.insert(seen.begin(), seen.end());
}

void VolcanoSchedulerMetrics::ObserveTaskStage(const char* stage, int64_t pod_created,
                                               double now_seconds) {
  m_->Observe(Name("task_scheduling_latency_milliseconds"), {stage},
              MillisecondsSince(pod_created, now_seconds));
}

void VolcanoSchedulerMetrics::ObserveStageDuration(const char* stage, double seconds) {
  m_->Observe(Name("scheduling_stage_duration_milliseconds"), {stage}, seconds * 1000.0);
}

void VolcanoSchedulerMetrics::JobTaskPlaced(const PodGroup& group, const std::string& queue,
                                            double now_seconds) {
  const double ms = MillisecondsSince(group.meta.creation_timestamp, now_seconds);
  const std::vector<std::string> labels = {group.meta.name, queue, group.meta.namespace_};
  m_->Set(Name("e2e_job_scheduling_duration"), labels, ms);
  m_->Set(Name("e2e_job_scheduling_last_time"), labels,
          static_cast<double>(static_cast<int64_t>(now_seconds)));
  m_->Observe(Name("e2e_job_scheduling_latency_milliseconds"), ms);
}

void VolcanoSchedulerMetrics::CountAttempts(const char* result, int64_t n) {
  if (n > 0) m_->Inc(Name("schedule_attempts_total"), {result}, static_cast<double>(n));
}

// As Volcano's cache does when a job leaves it: the job's series go, its
// gang series (labelled by name alone) with them. Only new or re-queued
// PodGroups are written: an idle cycle over many jobs costs lookups only.
void VolcanoSchedulerMetrics::SyncJobs(const ClusterState& state,
                                       const std::string& default_queue) {
  static const char* const kJobFamilies[] = {"e2e_job_scheduling_duration",
                                             "e2e_job_scheduling_start_time",
                                             "e2e_job_scheduling_last_time"};
  for (auto it = job_series_.begin(); it != job_series_.end();) {
    if (state.FindPodGroup(it->first) != nullptr) {
      ++it;
      continue;
    }
    for (const char* family : kJobFamilies) m_->Erase(Name(family), it->second.labels);
    const std::string& name = it->second.labels[0];
    if (gang_series_.erase(name)) {
      m_->Erase(Name("unschedule_task_count"), {name});
      m_->Erase(Name("job_retry_counts"), {name});
    }
    it = job_series_.erase(it);
  }
  for (const auto& [key, group] : state.podgroups()) {
    const std::string& queue = group.queue.empty() ? default_queue : group.queue;
    auto known = job_series_.find(key);
    if (known != job_series_.end() && known->second.labels[1] == queue &&
        known->second.created == group.meta.creation_timestamp) {
      continue;
    }
    if (known != job_series_.end()) {
      for (const char* family : kJobFamilies) m_->Erase(Name(family), known->second.labels);
    }
    JobSeries series{{group.meta.name, queue, group.meta.namespace_},
                     group.meta.creation_timestamp};
    m_->Set(Name("e2e_job_scheduling_start_time"), series.labels,
            static_cast<double>(series.created));
    job_series_[key] = std::move(series);
  }
}

}  // namespace basalt
