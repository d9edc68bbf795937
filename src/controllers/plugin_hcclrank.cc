// Job plugin `hcclrank` (arguments: --master (default master), --worker
// (worker)): the pod annotation `hccl/rankIndex`, the pod's rank for Ascend
// HCCL collectives:
//
//   * kept when the template already sets it;
//   * else the value of a RANK env var in the pod's containers (the
//     template's, or one a plugin that ran before set: pytorch);
//   * else, in the master task, the pod's task index; in the worker task, the
//     master's replicas + the pod's task index; other tasks get none.
//
// It runs after the job's other plugins (job_plugins.h).
#include "api/job_plugin_args.h"
#include "controllers/job_plugin.h"

namespace basalt {
namespace {

constexpr const char* kRankAnnotation = "hccl/rankIndex";

class HcclrankPlugin : public JobPlugin {
 public:
  explicit HcclrankPlugin(HcclrankPluginArgs args) : args_(std::move(args)) {}

  Status OnPodCreate(const VcJob& job, const JobTask& task, const Pod& pod,
                     PodPluginAdditions* out) override {
    if (auto it = pod.meta.annotations.find(kRankAnnotation);
        it != pod.meta.annotations.end() && !it->second.empty())
      return Status::Ok();
    for (const ContainerAdditions& c : out->containers) {
      if (c.init) continue;
      if (std::string rank = c.EnvValue("RANK"); !rank.empty()) {
        out->annotations[kRankAnnotation] = rank;
        return Status::Ok();
      }
    }
    if (task.name != args_.master && task.name != args_.worker) return Status::Ok();
    auto label = pod.meta.labels.find("volcano.sh/task-index");
    std::optional<int> index;
    if (label != pod.meta.labels.end() && !label->second.empty() && label->second.size() < 10 &&
        label->second.find_first_not_of("0123456789") == std::string::npos)
      index = std::stoi(label->second);
    if (!index) {
      return Status::InvalidArgument("hcclrank: pod " + pod.meta.Key() +
                                     " has no numeric volcano.sh/task-index label");
    }
    int64_t rank = *index;
    if (task.name == args_.worker && task.name != args_.master) {
      const JobTask* master = job_plugin_util::FindTask(job, args_.master);
      rank += master ? master->replicas : 0;
    }
    out->annotations[kRankAnnotation] = std::to_string(rank);
    return Status::Ok();
  }

 private:
  HcclrankPluginArgs args_;
};

}  // namespace

std::unique_ptr<JobPlugin> MakeHcclrankPlugin(const std::vector<std::string>& args) {
  return std::make_unique<HcclrankPlugin>(ParseHcclrankPluginArgs(args));
}

}  // namespace basalt
