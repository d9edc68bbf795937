// The Alibaba openb GPU trace (cluster-trace-gpu-v2023) as plain arrays for
// the fragmentation reproduction mode (`basalt fgd`, docs/fgd.md).
//
// `basalt simulate` loads the same CSVs into full Node/Pod objects for the
// scheduler (sim/traces.h); the reproduction replays ~10,000 pods per run for
// dozens of runs, so it keeps only what the policies look at: CPU, memory,
// GPU count, per-GPU milli and GPU model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/status.h"

namespace basalt::fgd {

inline constexpr int kMilliPerGpu = 1000;
inline constexpr int kMaxGpusPerNode = 8;
// GPU models are interned into bit positions of a 32-bit mask.
inline constexpr int kMaxGpuModels = 32;

struct NodeSpec {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpus = 0;
  int model = -1;  // index into Trace::models; -1 for a node without GPUs
};

struct PodSpec {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int num_gpu = 0;      // 0, or the number of cards
  int gpu_milli = 0;    // per card; < 1000 only when num_gpu == 1 (a GPU-sharing pod)
  uint32_t models = 0;  // allowed GPU models as a bit mask over Trace::models; 0 = any

  int64_t TotalGpuMilli() const { return int64_t{num_gpu} * gpu_milli; }
  bool SharesGpu() const { return num_gpu == 1 && gpu_milli < kMilliPerGpu; }
  bool MayUseModel(int model) const {
    return models == 0 || (model >= 0 && (models >> model) & 1u);
  }
};

struct Trace {
  std::vector<std::string> models;  // interned GPU model names
  std::vector<NodeSpec> nodes;
  std::vector<PodSpec> pods;

  int64_t GpuCapacityMilli() const;
  // Index of `model`, adding it when new; an error past kMaxGpuModels models.
  Result<int> InternModel(const std::string& model);
};

// Node list `sn,cpu_milli,memory_mib,gpu,model` and pod list
// `name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...]` (columns found by
// name). Errors name the file, row and column.
Status ParseNodeList(const std::string& text, const std::string& file, Trace& trace);
Status ParsePodList(const std::string& text, const std::string& file, Trace& trace);

// Reads `nodes_path` then `pods_path` into one Trace.
Result<Trace> LoadTrace(const std::string& nodes_path, const std::string& pods_path);

}  // namespace basalt::fgd
