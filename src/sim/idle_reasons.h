// Why GPUs stood idle while jobs waited for GPUs, from the simulation state at
// the metrics samples (docs/simulate.md, "Idle GPUs while jobs waited").
//
// At a sample with free GPUs and waiting GPU pods, each waiting job (a gang,
// or a lone pod) gets one reason, checked in this order:
//   quota          its queue cannot take the job's smallest pod: the queue's
//                  allocated GPUs plus that pod exceed its capability, or the
//                  queue already holds its deserved share;
//   gang size      the job's waiting pods need more GPUs than are free in the
//                  whole cluster;
//   fragmentation  enough GPUs are free in total, but no node has as many free
//                  as the job's smallest waiting pod needs;
//   other          none of these (node selectors, CPU or memory, a pod not yet
//                  seen by a scheduling cycle, ...).
// The sample's idle GPUs go to the reason most waiting jobs have (ties in the
// order above). Only numbers the sample already holds are used: the cost is
// one pass over the nodes and the waiting pods.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace basalt {

// GPUs in milli-GPUs throughout, as pods request them.
struct IdleSnapshot {
  struct WaitingJob {
    std::string name;
    std::string queue;
    std::vector<int64_t> pod_gpu_milli;  // the job's waiting pods
  };
  struct QueueGpus {
    int64_t allocated = 0;
    int64_t deserved = 0;    // 0: none
    int64_t capability = 0;  // 0: unlimited
  };
  std::vector<int64_t> node_free_gpu_milli;  // per schedulable node
  std::vector<WaitingJob> waiting;
  std::map<std::string, QueueGpus> queues;
};

enum class IdleReason { kQuota = 0, kGangSize, kFragmentation, kOther, kCount };

const char* IdleReasonName(IdleReason r);  // "quota", "gang_size", "fragmentation", "other"

// The reason of one waiting job at this snapshot.
IdleReason ClassifyWaitingJob(const IdleSnapshot& snapshot, const IdleSnapshot::WaitingJob& job);

struct IdleVerdict {
  bool idle_while_waiting = false;  // free GPUs and at least one waiting GPU pod
  IdleReason reason = IdleReason::kOther;
  int64_t free_gpu_milli = 0;
  std::string detail;  // the numbers behind the reason, in one sentence
};

IdleVerdict ExplainIdle(const IdleSnapshot& snapshot);

// The verdicts over a run: per reason, the samples, the idle GPU-hours and the
// first example; the summary's `idle_gpus_while_waiting`.
class IdleRecorder {
 public:
  // `interval` is the time the sample stands for (the metrics interval).
  void Add(int64_t t, int64_t interval, const IdleVerdict& verdict);
  nlohmann::ordered_json SummaryJson() const;

 private:
  struct PerReason {
    int64_t samples = 0;
    int64_t gpu_milli_seconds = 0;
    int64_t max_free_gpu_milli = 0;
    int64_t example_t = -1;
    std::string example;
  };
  int64_t samples_ = 0;
  std::array<PerReason, static_cast<size_t>(IdleReason::kCount)> reasons_;
};

}  // namespace basalt
