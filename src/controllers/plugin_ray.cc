// Job plugin `ray` (arguments: --head (default head), --headContainer (head),
// --worker (worker), --workerContainer (worker), --port (6379, the GCS),
// --dashboardPort (8265), --clientPort (10001)):
//
//   OnJobAdd     Service `<job>-head-svc` selecting the head task's pods
//                (job-name, job-namespace, task-spec), ports gcs,
//                dashboard and client-server (TCP, target ports by name).
//   OnPodCreate  in the head task, the head container opens the ports it
//                lacks (gcs, dashboard, client-server) and runs
//                `sh -c "ray start --head --block --dashboard-host=0.0.0.0
//                --port=P --dashboard-port=D --ray-client-server-port=C"`; in
//                the worker task, the worker container runs
//                `sh -c "ray start --block --address=<head pod 0>:<port>"`.
//                A job without the head task gets no pods' additions (Volcano
//                fails the pod's creation; basalt logs it).
//
// The svc plugin comes with it (Volcano's mutating webhook adds it; so does
// the job controller here): the head's address resolves through svc's
// Service.
#include "api/job_plugin_args.h"
#include "controllers/job_plugin.h"

namespace basalt {
namespace {

class RayPlugin : public JobPlugin {
 public:
  explicit RayPlugin(RayPluginArgs args) : args_(std::move(args)) {}

  Status OnJobAdd(const VcJob& job, JobPluginObjects* objects) override {
    Service svc;
    svc.meta = job_plugin_util::OwnedBy(job, job.meta.name + "-head-svc");
    svc.cluster_ip.clear();  // a ClusterIP service
    svc.selector = job_plugin_util::JobSelector(job);
    svc.selector["volcano.sh/task-spec"] = args_.head;
    svc.ports = {
        {"gcs", static_cast<int32_t>(args_.port), "gcs", "TCP"},
        {"dashboard", static_cast<int32_t>(args_.dashboard_port), "dashboard", "TCP"},
        {"client-server", static_cast<int32_t>(args_.client_port), "client-server", "TCP"}};
    objects->services.try_emplace(job_plugin_util::ObjectKey(job, svc.meta.name), std::move(svc));
    return Status::Ok();
  }

  Status OnPodCreate(const VcJob& job, const JobTask& /*task*/, const Pod& pod,
                     PodPluginAdditions* out) override {
    const JobTask* head = job_plugin_util::FindTask(job, args_.head);
    if (head == nullptr) {
      return Status::FailedPrecondition("ray: job " + job.meta.Key() + " has no head task \"" +
                                        args_.head + "\"");
    }
    const std::string task = job_plugin_util::TaskOf(pod);
    for (ContainerAdditions& c : out->containers) {
      if (c.init) continue;
      if (task == args_.head && c.name == args_.head_container) {
        OpenHeadPorts(c);
        c.command = {"sh", "-c",
                     "ray start --head --block --dashboard-host=0.0.0.0 --port=" +
                         std::to_string(args_.port) +
                         " --dashboard-port=" + std::to_string(args_.dashboard_port) +
                         " --ray-client-server-port=" + std::to_string(args_.client_port)};
      }
      if (task == args_.worker && c.name == args_.worker_container) {
        c.command = {"sh", "-c",
                     "ray start --block --address=" + job_plugin_util::DomainName(job, *head, 0) +
                         ":" + std::to_string(args_.port)};
      }
    }
    return Status::Ok();
  }

 private:
  void OpenHeadPorts(ContainerAdditions& c) const {
    const std::pair<const char*, int64_t> ports[] = {{"gcs", args_.port},
                                                     {"dashboard", args_.dashboard_port},
                                                     {"client-server", args_.client_port}};
    // Which ports the container opens is decided before any is added.
    bool opened[3];
    for (int i = 0; i < 3; ++i) opened[i] = c.OpensPort(ports[i].second);
    for (int i = 0; i < 3; ++i) {
      if (!opened[i]) c.ports.push_back({ports[i].first, static_cast<int32_t>(ports[i].second)});
    }
  }

  RayPluginArgs args_;
};

}  // namespace

std::unique_ptr<JobPlugin> MakeRayPlugin(const std::vector<std::string>& args) {
  return std::make_unique<RayPlugin>(ParseRayPluginArgs(args));
}

}  // namespace basalt
