// Job plugin `env`: VK_TASK_INDEX and VC_TASK_INDEX, the pod's index (the last
// `-` part of its name), in every container and init container. It takes no
// arguments (Volcano ignores any).
#include "controllers/job_plugin.h"

namespace basalt {
namespace {

class EnvPlugin : public JobPlugin {
 public:
  Status OnPodCreate(const VcJob& /*job*/, const JobTask& /*task*/, const Pod& pod,
                     PodPluginAdditions* out) override {
    const std::string value = job_plugin_util::IndexPartOfName(pod);
    for (ContainerAdditions& c : out->containers) {
      c.env.push_back({"VK_TASK_INDEX", value, "", ""});
      c.env.push_back({"VC_TASK_INDEX", value, "", ""});
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<JobPlugin> MakeEnvPlugin(const std::vector<std::string>& /*args*/) {
  return std::make_unique<EnvPlugin>();
}

}  // namespace basalt
