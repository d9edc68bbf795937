#include "sim/idle_reasons.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/report_format.h"

namespace basalt {
namespace {

using Json = nlohmann::ordered_json;

constexpr double kMilli = 1000.0;

// "4", "0.5": GPUs from milli-GPUs, as short as exact.
std::string Gpus(int64_t milli) {
  Json v = milli % 1000 == 0 ? Json(milli / 1000) : Json(static_cast<double>(milli) / kMilli);
  return v.dump();
}

// "1 GPU", "4 GPUs".
std::string GpuCount(int64_t milli) { return Gpus(milli) + (milli == 1000 ? " GPU" : " GPUs"); }

int64_t Smallest(const std::vector<int64_t>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

int64_t Sum(const std::vector<int64_t>& v) { return std::accumulate(v.begin(), v.end(), 0LL); }

bool QuotaReached(const IdleSnapshot::QueueGpus& q, int64_t smallest) {
  if (q.capability > 0 && q.allocated + smallest > q.capability) return true;
  return q.deserved > 0 && q.allocated >= q.deserved;
}

std::string Detail(const IdleSnapshot& s, const IdleSnapshot::WaitingJob& job, IdleReason reason,
                   int64_t free_total, int64_t max_node_free) {
  const std::string head = GpuCount(free_total) + " free; ";
  switch (reason) {
    case IdleReason::kQuota: {
      const auto& q = s.queues.at(job.queue);
      return head + "queue " + job.queue + " holds " + GpuCount(q.allocated) + " (deserved " +
             Gpus(q.deserved) + ", capability " +
             (q.capability > 0 ? Gpus(q.capability) : std::string("unlimited")) + "), job " +
             job.name + " waits for " + GpuCount(Sum(job.pod_gpu_milli));
    }
    case IdleReason::kGangSize:
      return head + "job " + job.name + " needs " + GpuCount(Sum(job.pod_gpu_milli)) + " for " +
             std::to_string(job.pod_gpu_milli.size()) + " pods at once";
    case IdleReason::kFragmentation:
      return head + "at most " + Gpus(max_node_free) + " on one node, the smallest pod of job " +
             job.name + " needs " + Gpus(Smallest(job.pod_gpu_milli));
    default:
      return head + "job " + job.name + " waits for " + GpuCount(Sum(job.pod_gpu_milli)) +
             " that would fit (selectors, CPU, memory or the next cycle)";
  }
}

}  // namespace

const char* IdleReasonName(IdleReason r) {
  switch (r) {
    case IdleReason::kQuota:
      return "quota";
    case IdleReason::kGangSize:
      return "gang_size";
    case IdleReason::kFragmentation:
      return "fragmentation";
    default:
      return "other";
  }
}

IdleReason ClassifyWaitingJob(const IdleSnapshot& s, const IdleSnapshot::WaitingJob& job) {
  const int64_t smallest = Smallest(job.pod_gpu_milli);
  auto q = s.queues.find(job.queue);
  if (q != s.queues.end() && QuotaReached(q->second, smallest)) return IdleReason::kQuota;
  const int64_t free_total = Sum(s.node_free_gpu_milli);
  if (Sum(job.pod_gpu_milli) > free_total) return IdleReason::kGangSize;
  const int64_t max_node_free =
      s.node_free_gpu_milli.empty()
          ? 0
          : *std::max_element(s.node_free_gpu_milli.begin(), s.node_free_gpu_milli.end());
  if (smallest > max_node_free) return IdleReason::kFragmentation;
  return IdleReason::kOther;
}

IdleVerdict ExplainIdle(const IdleSnapshot& s) {
  IdleVerdict v;
  v.free_gpu_milli = Sum(s.node_free_gpu_milli);
  if (v.free_gpu_milli <= 0 || s.waiting.empty()) return v;
  v.idle_while_waiting = true;
  std::array<int64_t, static_cast<size_t>(IdleReason::kCount)> votes{};
  std::array<const IdleSnapshot::WaitingJob*, static_cast<size_t>(IdleReason::kCount)> first{};
  for (const auto& job : s.waiting) {
    const auto r = static_cast<size_t>(ClassifyWaitingJob(s, job));
    if (votes[r]++ == 0) first[r] = &job;
  }
  size_t best = 0;
  for (size_t r = 1; r < votes.size(); ++r) {
    if (votes[r] > votes[best]) best = r;
  }
  v.reason = static_cast<IdleReason>(best);
  const int64_t max_node_free =
      *std::max_element(s.node_free_gpu_milli.begin(), s.node_free_gpu_milli.end());
  v.detail = Detail(s, *first[best], v.reason, v.free_gpu_milli, max_node_free) + " (" +
             std::to_string(votes[best]) + " of " + std::to_string(s.waiting.size()) +
             " waiting jobs alike)";
  return v;
}

void IdleRecorder::Add(int64_t t, int64_t interval, const IdleVerdict& v) {
  if (!v.idle_while_waiting) return;
  ++samples_;
  PerReason& r = reasons_[static_cast<size_t>(v.reason)];
  ++r.samples;
  r.gpu_milli_seconds += v.free_gpu_milli * interval;
  if (v.free_gpu_milli > r.max_free_gpu_milli) {
    r.max_free_gpu_milli = v.free_gpu_milli;
    r.example_t = t;
    r.example = v.detail;
  }
}

Json IdleRecorder::SummaryJson() const {
  Json out = Json::object();
  out["samples"] = samples_;
  int64_t total = 0;
  for (const PerReason& r : reasons_) total += r.gpu_milli_seconds;
  out["idle_gpu_hours"] = std::round(static_cast<double>(total) / kMilli / 3600.0 * 10.0) / 10.0;
  Json reasons = Json::object();
  for (size_t i = 0; i < reasons_.size(); ++i) {
    const PerReason& r = reasons_[i];
    Json e = {
        {"samples", r.samples},
        {"idle_gpu_hours",
         std::round(static_cast<double>(r.gpu_milli_seconds) / kMilli / 3600.0 * 10.0) / 10.0},
        {"max_idle_gpus", static_cast<double>(r.max_free_gpu_milli) / kMilli}};
    if (r.example_t >= 0) {
      e["example_t"] = r.example_t;
      e["example"] = FormatSimTime(r.example_t) + ": " + r.example;
    }
    reasons[IdleReasonName(static_cast<IdleReason>(i))] = std::move(e);
  }
  out["reasons"] = std::move(reasons);
  return out;
}

}  // namespace basalt
