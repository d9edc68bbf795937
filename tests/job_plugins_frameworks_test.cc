// The distributed-framework job plugins (pytorch, mpi, tensorflow, ray,
// hcclrank) and the svc plugin's host files over a job's life: the exact env
// vars, ports, commands, init containers, annotations and objects Volcano
// v1.15.1's job controller makes (pkg/controllers/job/plugins).
#include <gtest/gtest.h>

#include "api/decode.h"
#include "controllers/job_controller.h"
#include "controllers/job_plugins.h"
#include "testing.h"

namespace basalt {
namespace {

// The vcjob and job-plugin controllers over one job, its PodGroup admitted
// as enqueue would, so the pods exist.
class Plugged {
 public:
  explicit Plugged(const std::string& job_yaml) {
    ClusterObjects objects;
    Status st = DecodeText(job_yaml, "job.yaml", &objects);
    EXPECT_TRUE(st.ok()) << st.message();
    EXPECT_OK(state_.AddAll(std::move(objects)));
    Sync();
    for (const auto& [key, pg] : state_.podgroups()) {
      if (pg.phase == PodGroupPhase::kPending)
        state_.EditPodGroup(key)->phase = PodGroupPhase::kInqueue;
    }
    Sync();
  }
  void Sync() {
    jobs_.Sync(state_, ++now_);
    plugins_.Sync(state_);
  }
  // The plugins alone, over a job whose phase and spec a test set.
  void SyncPlugins() { plugins_.Sync(state_); }
  const PodPluginAdditions& Pod(const std::string& key) const { return plugins_.pods().at(key); }
  const JobPluginController& plugins() const { return plugins_; }
  ClusterState& state() { return state_; }

 private:
  ClusterState state_;
  JobController jobs_;
  JobPluginController plugins_;
  int64_t now_ = 0;
};

// A job of tasks "name:replicas" with `plugins` (a YAML flow map); each
// template has container `main` (and `extra` when `two_containers`).
std::string Job(const std::string& name, const std::string& plugins,
                const std::vector<std::pair<std::string, int>>& tasks,
                const std::string& container_extra = "") {
  std::string out = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: " + name +
                    ", namespace: ns}\nspec:\n  schedulerName: volcano\n  plugins: " + plugins +
                    "\n  tasks:\n";
  for (const auto& [task, replicas] : tasks) {
    out += "  - name: " + task + "\n    replicas: " + std::to_string(replicas) +
           "\n    template:\n      spec:\n        initContainers: [{name: setup}]\n"
           "        containers: [{name: " +
           (task == "head" || task == "worker" ? task : "main") + container_extra + "}]\n";
  }
  return out;
}

std::map<std::string, std::string> Env(const ContainerAdditions& c) {
  std::map<std::string, std::string> out;
  for (const EnvVar& e : c.env) {
    if (e.config_map.empty()) out[e.name] = e.value;
  }
  return out;
}

std::vector<std::string> Ports(const ContainerAdditions& c) {
  std::vector<std::string> out;
  for (const ContainerPort& p : c.ports)
    out.push_back(p.name + ":" + std::to_string(p.container_port));
  return out;
}

TEST(PytorchPluginTest, MasterAndWorkersGetTheRendezvous) {
  Plugged x(Job("tj", "{pytorch: []}", {{"master", 1}, {"worker", 2}}));
  const ContainerAdditions& master = x.Pod("ns/tj-master-0").containers[0];
  EXPECT_EQ(master.name, "main");
  EXPECT_EQ(Env(master), (std::map<std::string, std::string>{{"MASTER_ADDR", "tj-master-0.tj"},
                                                             {"MASTER_PORT", "23456"},
                                                             {"WORLD_SIZE", "3"},
                                                             {"RANK", "0"}}));
  EXPECT_EQ(Ports(master), std::vector<std::string>{"pytorchjob-port:23456"});
  const PodPluginAdditions& w1 = x.Pod("ns/tj-worker-1");
  EXPECT_EQ(Env(w1.containers[0]).at("RANK"), "2");
  EXPECT_EQ(Env(w1.containers[0]).at("WORLD_SIZE"), "3");
  // Init containers get nothing from pytorch; no wait-for-master by default.
  ASSERT_EQ(w1.containers.size(), 2u);
  EXPECT_TRUE(Env(w1.containers[1]).empty());
  EXPECT_TRUE(w1.containers[1].ports.empty());
  // svc came with it (Volcano's webhook adds it): host names, Service, ConfigMap.
  EXPECT_EQ(w1.hostname, "tj-worker-1");
  EXPECT_EQ(x.plugins().services().count("ns/tj"), 1u);
  EXPECT_EQ(x.plugins().config_maps().at("ns/tj-svc").data.at("VC_WORKER_NUM"), "2");
}

TEST(PytorchPluginTest, ArgumentsPortsAndWaitForMaster) {
  Plugged x(Job("tj",
                R"({pytorch: ["--master=chief", "--worker=trainer", "--port=29500",
                               "--wait-master-enabled", "--wait-master-timeout=60"]})",
                {{"chief", 1}, {"trainer", 2}, {"eval", 1}}, ", ports: [{containerPort: 29500}]"));
  const PodPluginAdditions& t0 = x.Pod("ns/tj-trainer-0");
  EXPECT_TRUE(t0.containers[0].ports.empty()) << "the template opens the port already";
  EXPECT_EQ(Env(t0.containers[0]).at("RANK"), "1");
  EXPECT_EQ(Env(t0.containers[0]).at("MASTER_ADDR"), "tj-chief-0.tj");
  EXPECT_EQ(Env(t0.containers[0]).at("WORLD_SIZE"), "3") << "chief + trainer replicas";
  const ContainerAdditions& wait = t0.containers.at(2);
  EXPECT_TRUE(wait.added);
  EXPECT_TRUE(wait.init);
  EXPECT_EQ(wait.name, "wait-for-master");
  EXPECT_EQ(wait.image, "busybox:1.36.1");
  ASSERT_EQ(wait.command.size(), 3u);
  EXPECT_EQ(wait.command[0], "sh");
  EXPECT_EQ(wait.command[2].rfind(
                "echo \"Waiting for master node tj-chief-0.tj:29500 to be ready...\"\nTIMEOUT=60\n"
                "ELAPSED=0\n",
                0),
            0u)
      << wait.command[2];
  EXPECT_NE(wait.command[2].find("until { nc -z tj-chief-0.tj 29500 || echo > "
                                 "/dev/tcp/tj-chief-0.tj/29500; } 2>/dev/null; do"),
            std::string::npos);
  // svc (which runs after pytorch) mounts its ConfigMap in the added container too.
  ASSERT_EQ(wait.mounts.size(), 1u);
  EXPECT_EQ(wait.mounts[0].mount_path, "/etc/volcano");
  // The chief has no init container added; a pod of another task gets no RANK.
  EXPECT_EQ(x.Pod("ns/tj-chief-0").containers.size(), 2u);
  EXPECT_EQ(Env(x.Pod("ns/tj-eval-0").containers[0]).count("RANK"), 0u);
  EXPECT_EQ(Env(x.Pod("ns/tj-eval-0").containers[0]).at("MASTER_PORT"), "29500");
}

TEST(PytorchPluginTest, NoMasterTaskNoSettings) {
  Plugged x(Job("tj", "{pytorch: []}", {{"worker", 2}}));
  EXPECT_TRUE(Env(x.Pod("ns/tj-worker-0").containers[0]).empty());
  EXPECT_TRUE(x.Pod("ns/tj-worker-0").containers[0].ports.empty());
}

TEST(MpiPluginTest, MasterGetsTheWorkerHostsAndEveryContainerTheSshPort) {
  Plugged x(Job("mj", "{mpi: []}", {{"master", 1}, {"worker", 2}}));
  const PodPluginAdditions& master = x.Pod("ns/mj-master-0");
  for (const ContainerAdditions& c : master.containers) {  // main, then init `setup`
    EXPECT_EQ(Env(c).at("MPI_HOST"), "mj-worker-0.mj,mj-worker-1.mj") << c.name;
    EXPECT_EQ(Ports(c), std::vector<std::string>{"mpijob-port:22"}) << c.name;
  }
  const PodPluginAdditions& worker = x.Pod("ns/mj-worker-1");
  EXPECT_EQ(Env(worker.containers[0]).count("MPI_HOST"), 0u);
  EXPECT_EQ(Ports(worker.containers[1]), std::vector<std::string>{"mpijob-port:22"});
  // ssh and svc came with it: the key Secret and the host files.
  EXPECT_EQ(x.plugins().secrets().count("ns/mj-ssh"), 1u);
  EXPECT_EQ(x.plugins().config_maps().at("ns/mj-svc").data.at("worker.host"),
            "mj-worker-0.mj\nmj-worker-1.mj");
}

TEST(MpiPluginTest, ArgumentsAndMissingWorker) {
  Plugged x(Job("mj", R"({mpi: ["--master=launcher", "--worker=node", "--port=2222"]})",
                {{"launcher", 1}, {"node", 1}}, ", ports: [{containerPort: 2222}]"));
  const ContainerAdditions& main = x.Pod("ns/mj-launcher-0").containers[0];
  EXPECT_EQ(Env(main).at("MPI_HOST"), "mj-node-0.mj");
  EXPECT_TRUE(main.ports.empty()) << "the template opens 2222";
  EXPECT_EQ(Ports(x.Pod("ns/mj-launcher-0").containers[1]),
            std::vector<std::string>{"mpijob-port:2222"});
  // A master without a worker task: Volcano returns before opening the port.
  Plugged y(Job("solo", "{mpi: []}", {{"master", 1}}));
  EXPECT_TRUE(y.Pod("ns/solo-master-0").containers[0].ports.empty());
  EXPECT_EQ(Env(y.Pod("ns/solo-master-0").containers[0]).count("MPI_HOST"), 0u);
}

// Volcano's own expectation (tensorflow_test.go): job train-123 with ps ×2,
// worker ×2, chief ×1 and --port=5000.
TEST(TensorflowPluginTest, TfConfigIsVolcanosJson) {
  Plugged x(Job("train-123", R"({tensorflow: ["--port=5000"]})",
                {{"ps", 2}, {"worker", 2}, {"chief", 1}}));
  const std::string cluster =
      R"({"cluster":{"ps":["train-123-ps-0.train-123:5000","train-123-ps-1.train-123:5000"],)"
      R"("worker":["train-123-worker-0.train-123:5000","train-123-worker-1.train-123:5000"],)"
      R"("chief":["train-123-chief-0.train-123:5000"]},)";
  EXPECT_EQ(Env(x.Pod("ns/train-123-ps-0").containers[0]).at("TF_CONFIG"),
            cluster + R"("task":{"type":"ps","index":0}})");
  EXPECT_EQ(Env(x.Pod("ns/train-123-worker-1").containers[0]).at("TF_CONFIG"),
            cluster + R"("task":{"type":"worker","index":1}})");
  EXPECT_EQ(Env(x.Pod("ns/train-123-chief-0").containers[0]).at("TF_CONFIG"),
            cluster + R"("task":{"type":"chief","index":0}})");
  EXPECT_EQ(Env(x.Pod("ns/train-123-ps-0").containers[1]).count("TF_CONFIG"), 0u)
      << "init containers get none";
}

TEST(TensorflowPluginTest, RenamedRolesAndStandAlone) {
  Plugged x(Job("tf", R"({tensorflow: ["--worker=trainer"]})", {{"trainer", 1}, {"other", 1}}));
  EXPECT_EQ(
      Env(x.Pod("ns/tf-trainer-0").containers[0]).at("TF_CONFIG"),
      R"({"cluster":{"worker":["tf-trainer-0.tf:2222"]},"task":{"type":"worker","index":0}})");
  EXPECT_EQ(Env(x.Pod("ns/tf-other-0").containers[0]).at("TF_CONFIG"),
            R"({"cluster":{"worker":["tf-trainer-0.tf:2222"]},"task":{"type":"other","index":0}})");
  Plugged y(Job("tf", "{tensorflow: []}", {{"worker", 1}}));
  EXPECT_EQ(Env(y.Pod("ns/tf-worker-0").containers[0]).count("TF_CONFIG"), 0u);
}

TEST(RayPluginTest, HeadServiceCommandsAndPorts) {
  Plugged x(Job("rc", "{ray: []}", {{"head", 1}, {"worker", 2}}));
  const ContainerAdditions& head = x.Pod("ns/rc-head-0").containers[0];
  EXPECT_EQ(head.name, "head");
  EXPECT_EQ(Ports(head),
            (std::vector<std::string>{"gcs:6379", "dashboard:8265", "client-server:10001"}));
  EXPECT_EQ(head.command,
            (std::vector<std::string>{"sh", "-c",
                                      "ray start --head --block --dashboard-host=0.0.0.0 "
                                      "--port=6379 --dashboard-port=8265 "
                                      "--ray-client-server-port=10001"}));
  EXPECT_EQ(
      x.Pod("ns/rc-worker-1").containers[0].command,
      (std::vector<std::string>{"sh", "-c", "ray start --block --address=rc-head-0.rc:6379"}));
  const Service& svc = x.plugins().services().at("ns/rc-head-svc");
  EXPECT_EQ(svc.cluster_ip, "");
  EXPECT_EQ(svc.selector, (std::map<std::string, std::string>{{"volcano.sh/job-name", "rc"},
                                                              {"volcano.sh/job-namespace", "ns"},
                                                              {"volcano.sh/task-spec", "head"}}));
  ASSERT_EQ(svc.ports.size(), 3u);
  EXPECT_EQ(svc.ports[1].name, "dashboard");
  EXPECT_EQ(svc.ports[1].port, 8265);
  EXPECT_EQ(svc.ports[1].target_port, "dashboard");
  EXPECT_EQ(svc.ports[1].protocol, "TCP");
  // svc came with it: the job's headless Service too.
  EXPECT_EQ(x.plugins().services().count("ns/rc"), 1u);
}

TEST(RayPluginTest, ArgumentsAndMissingHead) {
  Plugged x(Job("rc", R"({ray: ["--port=1234", "--dashboardPort=3456", "--clientPort=4567",
                                 "--head=boss", "--headContainer=main"]})",
                {{"boss", 1}, {"worker", 1}}, ", ports: [{containerPort: 3456}]"));
  const ContainerAdditions& head = x.Pod("ns/rc-boss-0").containers[0];
  EXPECT_EQ(Ports(head), (std::vector<std::string>{"gcs:1234", "client-server:4567"}));
  EXPECT_EQ(head.command[2],
            "ray start --head --block --dashboard-host=0.0.0.0 --port=1234 --dashboard-port=3456 "
            "--ray-client-server-port=4567");
  EXPECT_EQ(x.Pod("ns/rc-worker-0").containers[0].command[2],
            "ray start --block --address=rc-boss-0.rc:1234");
  EXPECT_EQ(x.plugins().services().at("ns/rc-head-svc").selector.at("volcano.sh/task-spec"),
            "boss");
  // A task that is both head and worker runs the worker's command (Volcano
  // sets the head's, then the worker's over it).
  Plugged both(Job("rc", R"({ray: ["--head=worker", "--headContainer=worker"]})", {{"worker", 1}}));
  EXPECT_EQ(both.Pod("ns/rc-worker-0").containers[0].command[2],
            "ray start --block --address=rc-worker-0.rc:6379");
  EXPECT_EQ(Ports(both.Pod("ns/rc-worker-0").containers[0]).size(), 3u);
  // No head task: no commands (Volcano fails the pod), the Service all the same.
  Plugged y(Job("rc", "{ray: []}", {{"worker", 1}}));
  EXPECT_TRUE(y.Pod("ns/rc-worker-0").containers[0].command.empty());
  EXPECT_EQ(y.plugins().services().count("ns/rc-head-svc"), 1u) << "OnJobAdd does not look";
}

TEST(HcclrankPluginTest, RankFromTaskIndexOrRankEnv) {
  Plugged x(Job("hj", "{hcclrank: []}", {{"master", 2}, {"worker", 3}, {"other", 1}}));
  EXPECT_EQ(x.Pod("ns/hj-master-1").annotations.at("hccl/rankIndex"), "1");
  EXPECT_EQ(x.Pod("ns/hj-worker-1").annotations.at("hccl/rankIndex"), "3");
  EXPECT_TRUE(x.Pod("ns/hj-other-0").annotations.empty());
  // With pytorch (which runs first), the RANK it set is the rank.
  Plugged y(Job("hj", "{hcclrank: [], pytorch: []}", {{"master", 1}, {"worker", 3}}));
  EXPECT_EQ(y.Pod("ns/hj-worker-2").annotations.at("hccl/rankIndex"), "3");
  // A RANK in the template wins over the index.
  Plugged z(Job("hj", "{hcclrank: []}", {{"worker", 2}}, ", env: [{name: RANK, value: \"7\"}]"));
  EXPECT_EQ(z.Pod("ns/hj-worker-1").annotations.at("hccl/rankIndex"), "7");
}

// The svc host files follow the job: rewritten while it runs when it scales up,
// down or to zero; gone (with the Service and NetworkPolicy) once it finished.
TEST(SvcPluginTest, HostFilesFollowScalingAndGoWhenTheJobEnds) {
  Plugged x(Job("sj", "{svc: []}", {{"worker", 2}}));
  // Pending: rewritten too (docs/differences.md: basalt's controller pass may
  // first see a job after it was scaled, before it saw it Running).
  x.state().EditJob("ns/sj")->tasks[0].replicas = 5;
  x.SyncPlugins();
  EXPECT_EQ(x.plugins().config_maps().at("ns/sj-svc").data.at("VC_WORKER_NUM"), "5");
  x.state().EditJob("ns/sj")->phase = "Running";
  auto scale = [&](int replicas) {
    x.state().EditJob("ns/sj")->tasks[0].replicas = replicas;
    x.SyncPlugins();
    return x.plugins().config_maps().at("ns/sj-svc").data;
  };
  EXPECT_EQ(scale(3), (std::map<std::string, std::string>{
                          {"worker.host", "sj-worker-0.sj\nsj-worker-1.sj\nsj-worker-2.sj"},
                          {"VC_WORKER_HOSTS", "sj-worker-0.sj,sj-worker-1.sj,sj-worker-2.sj"},
                          {"VC_WORKER_NUM", "3"}}));
  EXPECT_EQ(scale(1).at("VC_WORKER_HOSTS"), "sj-worker-0.sj");
  EXPECT_EQ(scale(0), (std::map<std::string, std::string>{
                          {"worker.host", ""}, {"VC_WORKER_HOSTS", ""}, {"VC_WORKER_NUM", "0"}}));
  x.state().EditJob("ns/sj")->phase = "Completed";
  x.SyncPlugins();
  EXPECT_TRUE(x.plugins().config_maps().empty());
  EXPECT_TRUE(x.plugins().services().empty());
  EXPECT_TRUE(x.plugins().network_policies().empty());
}

}  // namespace
}  // namespace basalt
