// Job plugin `mpi` (arguments: --master (default master), --worker (worker),
// --port (22)):
//
//   OnPodCreate  every container and init container of every pod that does
//                not open the port gets `mpijob-port` (the sshd port); a pod of
//                the master task also gets MPI_HOST, the worker task's hosts
//                comma-joined (`<pod>.<job>` each, or the one
//                `<hostname>.<subdomain or job>` of a template with a
//                hostname), in every container and init container. A master
//                pod of a job without the worker task gets nothing.
//
// The ssh and svc plugins come with it (Volcano's mutating webhook adds them;
// so does the job controller here): mpirun on the master reaches the workers
// over ssh through svc's Service.
#include "api/job_plugin_args.h"
#include "controllers/job_plugin.h"

namespace basalt {
namespace {

class MpiPlugin : public JobPlugin {
 public:
  explicit MpiPlugin(MpiPluginArgs args) : args_(std::move(args)) {}

  Status OnPodCreate(const VcJob& job, const JobTask& /*task*/, const Pod& pod,
                     PodPluginAdditions* out) override {
    std::optional<std::string> hosts;
    if (job_plugin_util::TaskOf(pod) == args_.master) {
      const JobTask* worker = job_plugin_util::FindTask(job, args_.worker);
      if (worker == nullptr) return Status::Ok();  // as Volcano: not even the port
      hosts = WorkerHosts(job, *worker);
    }
    for (ContainerAdditions& c : out->containers) {
      if (!c.OpensPort(args_.port))
        c.ports.push_back({"mpijob-port", static_cast<int32_t>(args_.port)});
      if (hosts) c.env.push_back({"MPI_HOST", *hosts, "", ""});
    }
    return Status::Ok();
  }

 private:
  static std::string WorkerHosts(const VcJob& job, const JobTask& worker) {
    std::string out;
    for (int i = 0; i < worker.replicas; ++i) {
      out += (i ? "," : "") + job_plugin_util::DomainName(job, worker, i);
      if (!worker.hostname.empty()) break;  // a fixed hostname is one host
    }
    return out;
  }

  MpiPluginArgs args_;
};

}  // namespace

std::unique_ptr<JobPlugin> MakeMpiPlugin(const std::vector<std::string>& args) {
  return std::make_unique<MpiPlugin>(ParseMpiPluginArgs(args));
}

}  // namespace basalt
