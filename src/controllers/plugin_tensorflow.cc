// Job plugin `tensorflow` (arguments: --ps (default ps), --worker (worker),
// --chief (chief), --evaluator (evaluator), --port (2222)):
//
//   OnPodCreate  every container (not init containers) gets TF_CONFIG, the
//                JSON TensorFlow reads:
//                  {"cluster":{"ps":[...],"worker":[...],"chief":[...],
//                   "evaluator":[...]},"task":{"type":"worker","index":0}}
//                each role listing `<pod>.<job>:<port>` per replica of the
//                task named for it (a role without replicas is left out), the
//                task's type being its role, or its own name for other tasks.
//                A job of one task with one replica (stand-alone) gets none.
//
// The svc plugin comes with it (Volcano's mutating webhook adds it; so does
// the job controller here): the host names resolve through svc's Service.
#include "api/job_plugin_args.h"
#include "controllers/job_plugin.h"

namespace basalt {
namespace {

// A JSON string; host and task names are DNS labels, but quote what is not.
std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

class TensorflowPlugin : public JobPlugin {
 public:
  explicit TensorflowPlugin(TensorflowPluginArgs args) : args_(std::move(args)) {}

  Status OnPodCreate(const VcJob& job, const JobTask& /*task*/, const Pod& pod,
                     PodPluginAdditions* out) override {
    if (job.tasks.size() == 1 && job.tasks[0].replicas == 1) return Status::Ok();
    std::optional<int> index = job_plugin_util::IndexFromName(pod);
    if (!index) {
      return Status::InvalidArgument("tensorflow: pod " + pod.meta.Key() +
                                     ": no index at the end of its name");
    }
    const std::string config =
        ClusterSpec(job) + ",\"task\":{\"type\":" + Quoted(TaskType(job_plugin_util::TaskOf(pod))) +
        ",\"index\":" + std::to_string(*index) + "}}";
    for (ContainerAdditions& c : out->containers) {
      if (!c.init) c.env.push_back({"TF_CONFIG", config, "", ""});
    }
    return Status::Ok();
  }

 private:
  // The role of a task, as TensorFlow names it; another task is its own type.
  std::string TaskType(const std::string& task) const {
    if (task == args_.chief) return "chief";
    if (task == args_.worker) return "worker";
    if (task == args_.ps) return "ps";
    if (task == args_.evaluator) return "evaluator";
    return task;
  }

  // `{"cluster":{...}`: the roles in TensorFlow's order, empty ones left out.
  std::string ClusterSpec(const VcJob& job) const {
    std::map<std::string, std::string> hosts;  // role -> JSON list
    for (const JobTask& t : job.tasks) {
      std::string list;
      for (int i = 0; i < t.replicas; ++i) {
        list += (i ? "," : "") +
                Quoted(job_plugin_util::DomainName(job, t, i) + ":" + std::to_string(args_.port));
      }
      // The first role the task is named for (a Go switch).
      for (const std::string* role : {&args_.ps, &args_.worker, &args_.chief, &args_.evaluator}) {
        if (t.name != *role) continue;
        hosts[*role] = list;
        break;
      }
    }
    std::string out = "{\"cluster\":{";
    bool first = true;
    const std::pair<const char*, const std::string*> roles[] = {{"ps", &args_.ps},
                                                                {"worker", &args_.worker},
                                                                {"chief", &args_.chief},
                                                                {"evaluator", &args_.evaluator}};
    for (const auto& [json_name, task_name] : roles) {
      auto it = hosts.find(*task_name);
      if (it == hosts.end() || it->second.empty()) continue;
      out += std::string(first ? "" : ",") + "\"" + json_name + "\":[" + it->second + "]";
      first = false;
    }
    return out + "}";
  }

  TensorflowPluginArgs args_;
};

}  // namespace

std::unique_ptr<JobPlugin> MakeTensorflowPlugin(const std::vector<std::string>& args) {
  return std::make_unique<TensorflowPlugin>(ParseTensorflowPluginArgs(args));
}

}  // namespace basalt
