// Job plugin `pytorch` (arguments: --master (default master), --worker
// (worker), --port (23456), --wait-master-enabled (false),
// --wait-master-timeout (300), --wait-master-image (busybox:1.36.1)):
//
//   OnPodCreate  when the job has the master task, every container of every
//                pod gets MASTER_ADDR (the master's pod 0: `<host>.<subdomain
//                or job>`), MASTER_PORT, WORLD_SIZE (master + worker
//                replicas) and, in the master and worker tasks, RANK (0 for
//                the master, the pod's index + 1 for a worker); a container
//                that does not open the port gets `pytorchjob-port`. With
//                --wait-master-enabled a worker pod gets an init container
//                `wait-for-master` that waits (up to the timeout) for the
//                master's port to answer. Without the master task nothing is
//                added (Volcano logs it).
//
// The svc plugin comes with it (Volcano's mutating webhook adds it; so does
// the job controller here): MASTER_ADDR resolves through svc's Service.
#include "api/job_plugin_args.h"
#include "controllers/job_plugin.h"

namespace basalt {
namespace {

class PytorchPlugin : public JobPlugin {
 public:
  explicit PytorchPlugin(PytorchPluginArgs args) : args_(std::move(args)) {}

  Status OnPodCreate(const VcJob& job, const JobTask& /*task*/, const Pod& pod,
                     PodPluginAdditions* out) override {
    const JobTask* master = job_plugin_util::FindTask(job, args_.master);
    if (master == nullptr) {
      return Status::FailedPrecondition("pytorch: job " + job.meta.Key() + " has no task \"" +
                                        args_.master + "\"; its pods get no pytorch settings");
    }
    const std::string task = job_plugin_util::TaskOf(pod);
    const std::string master_addr = job_plugin_util::DomainName(job, *master, 0);
    std::string rank;
    if (task == args_.worker) {
      std::optional<int> index = job_plugin_util::IndexFromName(pod);
      if (!index) {
        return Status::InvalidArgument("pytorch: pod " + pod.meta.Key() +
                                       ": no index at the end of its name");
      }
      rank = std::to_string(*index + 1);
      if (args_.wait_master_enabled) AddWaitForMaster(master_addr, out);
    } else if (task == args_.master) {
      rank = "0";
    }
    int64_t world_size = 0;
    for (const JobTask& t : job.tasks) {
      if (t.name == args_.master || t.name == args_.worker) world_size += t.replicas;
    }
    for (ContainerAdditions& c : out->containers) {
      if (c.init) continue;
      if (!c.OpensPort(args_.port))
        c.ports.push_back({"pytorchjob-port", static_cast<int32_t>(args_.port)});
      c.env.push_back({"MASTER_ADDR", master_addr, "", ""});
      c.env.push_back({"MASTER_PORT", std::to_string(args_.port), "", ""});
      c.env.push_back({"WORLD_SIZE", std::to_string(world_size), "", ""});
      if (!rank.empty()) c.env.push_back({"RANK", rank, "", ""});
    }
    return Status::Ok();
  }

 private:
  // The shell loop of the init container: `nc -z`, else bash's /dev/tcp,
  // every 2 s until the timeout.
  std::string WaitScript(const std::string& addr) const {
    const std::string port = std::to_string(args_.port);
    const std::string timeout = std::to_string(args_.wait_master_timeout);
    return "echo \"Waiting for master node " + addr + ":" + port + " to be ready...\"\n" +
           "TIMEOUT=" + timeout + "\nELAPSED=0\n" + "until { nc -z " + addr + " " + port +
           " || echo > /dev/tcp/" + addr + "/" + port + "; } 2>/dev/null; do\n" +
           "  if [ $ELAPSED -ge $TIMEOUT ]; then\n" +
           "    echo \"Timeout waiting for master after ${TIMEOUT} seconds\"\n" +
           "    exit 1\n  fi\n" +
           "  echo \"Master not ready yet, retrying in 2 seconds... (elapsed: ${ELAPSED}s)\"\n" +
           "  sleep 2\n  ELAPSED=$((ELAPSED + 2))\ndone\necho \"Master node is ready!\"";
  }

  void AddWaitForMaster(const std::string& addr, PodPluginAdditions* out) const {
    for (const ContainerAdditions& c : out->containers) {
      if (c.init && c.name == "wait-for-master") return;  // the template has one
    }
    ContainerAdditions wait;
    wait.name = "wait-for-master";
    wait.init = true;
    wait.added = true;
    wait.image = args_.wait_master_image;
    wait.command = {"sh", "-c", WaitScript(addr)};
    out->containers.push_back(std::move(wait));
  }

  PytorchPluginArgs args_;
};

}  // namespace

std::unique_ptr<JobPlugin> MakePytorchPlugin(const std::vector<std::string>& args) {
  return std::make_unique<PytorchPlugin>(ParsePytorchPluginArgs(args));
}

}  // namespace basalt
