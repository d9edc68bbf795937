#include "sim/fgd/trace.h"

#include <charconv>
#include <fstream>
#include <map>
#include <sstream>

#include "api/file_text.h"
#include "sim/csv_table.h"

namespace basalt::fgd {
namespace {

// Large enough for any real machine or task, small enough that sums over
// thousands of pods cannot overflow.
constexpr int64_t kMaxCpuMilli = int64_t{1} << 32;
constexpr int64_t kMaxMemoryMib = int64_t{1} << 40;

}  // namespace

int64_t Trace::GpuCapacityMilli() const {
  int64_t total = 0;
  for (const auto& n : nodes) total += int64_t{n.gpus} * kMilliPerGpu;
  return total;
}

Result<int> Trace::InternModel(const std::string& model) {
  for (size_t i = 0; i < models.size(); ++i) {
    if (models[i] == model) return static_cast<int>(i);
  }
  if (models.size() >= static_cast<size_t>(kMaxGpuModels)) {
    return Status::InvalidArgument("more than " + std::to_string(kMaxGpuModels) + " GPU models");
  }
  models.push_back(model);
  return static_cast<int>(models.size() - 1);
}

Status ParseNodeList(const std::string& text, const std::string& file, Trace& trace) {
  BASALT_ASSIGN_OR_RETURN(
      auto table, CsvTable::Parse(text, file, {"sn", "cpu_milli", "memory_mib", "gpu", "model"}));
  for (const auto& row : table.rows()) {
    NodeSpec n;
    n.name = table.Cell(row, "sn");
    if (n.name.empty()) return table.Error(row, "sn", "empty node name");
    BASALT_ASSIGN_OR_RETURN(n.cpu_milli, table.Int(row, "cpu_milli", 0, kMaxCpuMilli));
    BASALT_ASSIGN_OR_RETURN(n.memory_mib, table.Int(row, "memory_mib", 0, kMaxMemoryMib));
    BASALT_ASSIGN_OR_RETURN(int64_t gpus, table.Int(row, "gpu", 0, kMaxGpusPerNode));
    n.gpus = static_cast<int>(gpus);
    const std::string& model = table.Cell(row, "model");
    if (n.gpus > 0) {
      if (model.empty()) return table.Error(row, "model", "a node with GPUs needs a GPU model");
      auto id = trace.InternModel(model);
      if (!id.ok()) return table.Error(row, "model", id.status().message());
      n.model = *id;
    }
    trace.nodes.push_back(std::move(n));
  }
  if (trace.nodes.empty()) return Status::InvalidArgument(file + ": no nodes");
  return Status::Ok();
}

Status ParsePodList(const std::string& text, const std::string& file, Trace& trace) {
  BASALT_ASSIGN_OR_RETURN(
      auto table,
      CsvTable::Parse(text, file, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"}));
  const bool has_spec = table.Has("gpu_spec");
  for (const auto& row : table.rows()) {
    PodSpec p;
    p.name = table.Cell(row, "name");
    if (p.name.empty()) return table.Error(row, "name", "empty pod name");
    BASALT_ASSIGN_OR_RETURN(p.cpu_milli, table.Int(row, "cpu_milli", 0, kMaxCpuMilli));
    BASALT_ASSIGN_OR_RETURN(p.memory_mib, table.Int(row, "memory_mib", 0, kMaxMemoryMib));
    BASALT_ASSIGN_OR_RETURN(int64_t num_gpu, table.Int(row, "num_gpu", 0, kMaxGpusPerNode));
    BASALT_ASSIGN_OR_RETURN(int64_t gpu_milli, table.Int(row, "gpu_milli", 0, kMilliPerGpu));
    p.num_gpu = static_cast<int>(num_gpu);
    p.gpu_milli = static_cast<int>(gpu_milli);
    if ((p.num_gpu == 0) != (p.gpu_milli == 0)) {
      return table.Error(row, "gpu_milli",
                         "must be 0 exactly when num_gpu is 0 (num_gpu " +
                             std::to_string(p.num_gpu) + ", gpu_milli " +
                             std::to_string(p.gpu_milli) + ")");
    }
    if (p.gpu_milli < kMilliPerGpu && p.num_gpu > 1) {
      return table.Error(row, "gpu_milli",
                         "a share of a GPU (" + std::to_string(p.gpu_milli) +
                             " < 1000) is only allowed with num_gpu 1, not " +
                             std::to_string(p.num_gpu));
    }
    if (has_spec && p.num_gpu > 0) {
      // `A|B`: any of the listed models; empty entries are ignored.
      std::istringstream spec(table.Cell(row, "gpu_spec"));
      std::string model;
      while (std::getline(spec, model, '|')) {
        if (model.empty()) continue;
        auto id = trace.InternModel(model);
        if (!id.ok()) return table.Error(row, "gpu_spec", id.status().message());
        p.models |= 1u << *id;
      }
    }
    trace.pods.push_back(std::move(p));
  }
  if (trace.pods.empty()) return Status::InvalidArgument(file + ": no pods");
  return Status::Ok();
}

Result<Trace> LoadTrace(const std::string& nodes_path, const std::string& pods_path) {
  Trace trace;
  BASALT_ASSIGN_OR_RETURN(std::string nodes_text, ReadFileOrError(nodes_path, "file"));
  BASALT_RETURN_IF_ERROR(ParseNodeList(nodes_text, nodes_path, trace));
  BASALT_ASSIGN_OR_RETURN(std::string pods_text, ReadFileOrError(pods_path, "file"));
  BASALT_RETURN_IF_ERROR(ParsePodList(pods_text, pods_path, trace));
  return trace;
}

}  // namespace basalt::fgd
