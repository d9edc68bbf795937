// The vcjob job plugins ssh, svc and env: what the controller creates for a
// job and adds to its pods, their arguments, and their problems. (The
// distributed-framework plugins: job_plugins_frameworks_test.cc.)
#include "controllers/job_plugins.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "actions/builtin.h"
#include "api/decode.h"
#include "api/job_plugin_args.h"
#include "api/object_rules.h"
#include "engine/cycle_runner.h"
#include "plugins/builtin.h"
#include "testing.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;

// Runs `cycles` scheduling cycles (each with its world step) over manifests
// and keeps the runner for inspection.
class Expansion {
 public:
  explicit Expansion(ClusterObjects objects, int cycles = 1) {
    RegisterBuiltinPlugins(plugins_);
    RegisterBuiltinActions(actions_);
    auto conf = ParseSchedulerConfig(DefaultSchedulerConfigText(), "conf", plugins_.Names(),
                                     actions_.Names());
    EXPECT_OK(conf);
    conf_ = std::move(conf).value();
    EXPECT_OK(state_.AddAll(std::move(objects)));
    runner_ = std::make_unique<CycleRunner>(state_, conf_, plugins_, actions_, SessionOptions());
    EXPECT_OK(runner_->Init());
    runner_->SyncControllers();
    for (int i = 0; i < cycles; ++i) {
      EXPECT_OK(runner_->RunCycle(false));
      runner_->WorldStep();
    }
  }
  const JobPluginController& plugins() const { return runner_->job_plugins(); }
  ClusterState& state() { return state_; }
  CycleRunner& runner() { return *runner_; }

 private:
  PluginRegistry plugins_;
  ActionRegistry actions_;
  SchedulerConfig conf_;
  ClusterState state_;
  std::unique_ptr<CycleRunner> runner_;
};

ClusterObjects Decoded(const std::string& yaml) {
  ClusterObjects objects;
  Status st = DecodeText(yaml, "test.yaml", &objects);
  EXPECT_TRUE(st.ok()) << st.message();
  return objects;
}

const char* kNode = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "16", memory: 32Gi, pods: "110"}}
)";

// A one-task job with `plugins` spliced in (YAML flow map) and an init container.
std::string JobWith(const std::string& plugins, int replicas = 2) {
  return std::string(kNode) + R"(---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: j, namespace: ns1}
spec:
  schedulerName: volcano
  plugins: )" +
         plugins + R"(
  tasks:
  - name: my-task
    replicas: )" +
         std::to_string(replicas) + R"(
    template:
      spec:
        initContainers: [{name: setup}]
        containers: [{name: main, resources: {requests: {cpu: "1"}}}]
)";
}

std::string EnvValue(const ContainerAdditions& c, const std::string& name) {
  for (const EnvVar& e : c.env) {
    if (e.name == name) return e.value;
  }
  return "<unset>";
}

// Volcano's MPI example (examples/mpi-example.yaml: mpimaster + 2 mpiworkers
// with ssh and svc) expands into the same pods, Service, Secret, ConfigMap and
// NetworkPolicy shapes as Volcano's job controller creates.
TEST(JobPluginsTest, MpiExampleExpandsLikeVolcano) {
  ClusterObjects objects;
  ASSERT_OK(LoadPath(std::string(BASALT_SOURCE_DIR) + "/examples/mpi-example.yaml", &objects));
  Expansion x(std::move(objects));
  // Pods: created once enqueue admitted the PodGroup (cycle 1's world step).
  std::vector<std::string> pods;
  for (const auto& [key, pod] : x.state().pods()) pods.push_back(key);
  EXPECT_EQ(pods, (std::vector<std::string>{"default/lm-mpi-job-mpimaster-0",
                                            "default/lm-mpi-job-mpiworker-0",
                                            "default/lm-mpi-job-mpiworker-1"}));

  // Service: headless, named after the job, selecting the job's pods.
  ASSERT_EQ(x.plugins().services().size(), 1u);
  const Service& svc = x.plugins().services().at("default/lm-mpi-job");
  EXPECT_EQ(svc.cluster_ip, "None");
  EXPECT_EQ(svc.selector,
            (std::map<std::string, std::string>{{"volcano.sh/job-name", "lm-mpi-job"},
                                                {"volcano.sh/job-namespace", "default"}}));
  EXPECT_FALSE(svc.publish_not_ready_addresses);
  ASSERT_EQ(svc.meta.owner_references.size(), 1u);
  EXPECT_EQ(svc.meta.owner_references[0].kind, "Job");
  EXPECT_EQ(svc.meta.owner_references[0].name, "lm-mpi-job");

  // NetworkPolicy: ingress only from the job's own pods.
  ASSERT_EQ(x.plugins().network_policies().count("default/lm-mpi-job"), 1u);
  const NetworkPolicy& np = x.plugins().network_policies().at("default/lm-mpi-job");
  EXPECT_EQ(np.pod_selector, svc.selector);
  EXPECT_EQ(np.ingress_from, svc.selector);
  EXPECT_EQ(np.policy_types, std::vector<std::string>{"Ingress"});

  // ConfigMap <job>-svc: host lists per task.
  const ConfigMap& cm = x.plugins().config_maps().at("default/lm-mpi-job-svc");
  EXPECT_EQ(cm.data, (std::map<std::string, std::string>{
                         {"mpimaster.host", "lm-mpi-job-mpimaster-0.lm-mpi-job"},
                         {"mpiworker.host",
                          "lm-mpi-job-mpiworker-0.lm-mpi-job\nlm-mpi-job-mpiworker-1.lm-mpi-job"},
                         {"VC_MPIMASTER_HOSTS", "lm-mpi-job-mpimaster-0.lm-mpi-job"},
                         {"VC_MPIMASTER_NUM", "1"},
                         {"VC_MPIWORKER_HOSTS",
                          "lm-mpi-job-mpiworker-0.lm-mpi-job,lm-mpi-job-mpiworker-1.lm-mpi-job"},
                         {"VC_MPIWORKER_NUM", "2"}}));

  // Secret <job>-ssh: the key pair and an ssh config naming every pod.
  const Secret& secret = x.plugins().secrets().at("default/lm-mpi-job-ssh");
  std::vector<std::string> keys;
  for (const auto& [k, v] : secret.data) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"authorized_keys", "config", "id_rsa", "id_rsa.pub"}));
  EXPECT_EQ(secret.data.at("authorized_keys"), secret.data.at("id_rsa.pub"));
  EXPECT_EQ(secret.data.at("config"),
            "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n"
            "Host lm-mpi-job-mpimaster-0\n  HostName lm-mpi-job-mpimaster-0.lm-mpi-job\n"
            "  Port 22\n"
            "Host lm-mpi-job-mpiworker-0\n  HostName lm-mpi-job-mpiworker-0.lm-mpi-job\n"
            "  Port 22\n"
            "Host lm-mpi-job-mpiworker-1\n  HostName lm-mpi-job-mpiworker-1.lm-mpi-job\n"
            "  Port 22\n");
  EXPECT_EQ(secret.data.at("id_rsa").rfind("-----BEGIN OPENSSH PRIVATE KEY-----\n", 0), 0u);
  EXPECT_EQ(secret.data.at("id_rsa.pub").rfind("ssh-ed25519 AAAA", 0), 0u);

  // Per pod: hostname/subdomain, the two volumes, mounts and env in the container.
  ASSERT_EQ(x.plugins().pods().size(), 3u);
  const PodPluginAdditions& w1 = x.plugins().pods().at("default/lm-mpi-job-mpiworker-1");
  EXPECT_EQ(w1.hostname, "lm-mpi-job-mpiworker-1");
  EXPECT_EQ(w1.subdomain, "lm-mpi-job");
  ASSERT_EQ(w1.volumes.size(), 2u);
  EXPECT_EQ(w1.volumes[0].name, "lm-mpi-job-ssh");
  EXPECT_EQ(w1.volumes[0].secret_name, "lm-mpi-job-ssh");
  EXPECT_EQ(w1.volumes[0].default_mode, 0600);
  ASSERT_EQ(w1.volumes[0].items.size(), 4u);
  EXPECT_EQ(w1.volumes[0].items[2].key, "authorized_keys");
  EXPECT_EQ(w1.volumes[0].items[2].path, ".ssh/authorized_keys");
  EXPECT_EQ(w1.volumes[1].config_map_name, "lm-mpi-job-svc");
  ASSERT_EQ(w1.containers.size(), 1u);
  const ContainerAdditions& c = w1.containers[0];
  EXPECT_EQ(c.name, "mpiworker");
  ASSERT_EQ(c.mounts.size(), 2u);
  EXPECT_EQ(c.mounts[0].mount_path, "/root/.ssh");
  EXPECT_EQ(c.mounts[0].sub_path, ".ssh");
  EXPECT_EQ(c.mounts[1].mount_path, "/etc/volcano");
  std::vector<std::string> env;
  for (const EnvVar& e : c.env) {
    env.push_back(e.name);
    EXPECT_EQ(e.config_map, "lm-mpi-job-svc");
    EXPECT_EQ(e.config_map_key, e.name);
  }
  EXPECT_EQ(env, (std::vector<std::string>{"VC_MPIMASTER_HOSTS", "VC_MPIMASTER_NUM",
                                           "VC_MPIWORKER_HOSTS", "VC_MPIWORKER_NUM"}));
  EXPECT_EQ(x.plugins().pods().at("default/lm-mpi-job-mpimaster-0").containers[0].name,
            "mpimaster");
}

// The written manifests are Kubernetes objects: one document per object, kinds
// in order, Secret data base64.
TEST(JobPluginsTest, ManifestsAreKubernetesYaml) {
  ClusterObjects objects;
  ASSERT_OK(LoadPath(std::string(BASALT_SOURCE_DIR) + "/examples/mpi-example.yaml", &objects));
  Expansion x(std::move(objects));
  std::vector<YAML::Node> docs = YAML::LoadAll(x.plugins().ManifestsYaml());
  ASSERT_EQ(docs.size(), 4u);
  std::vector<std::string> kinds;
  for (const YAML::Node& d : docs)
    kinds.push_back(d["kind"].as<std::string>() + "/" + d["metadata"]["name"].as<std::string>());
  EXPECT_EQ(kinds, (std::vector<std::string>{"ConfigMap/lm-mpi-job-svc", "NetworkPolicy/lm-mpi-job",
                                             "Secret/lm-mpi-job-ssh", "Service/lm-mpi-job"}));
  EXPECT_EQ(docs[3]["spec"]["clusterIP"].as<std::string>(), "None");
  EXPECT_EQ(docs[2]["data"]["config"].as<std::string>().rfind("U3RyaWN0SG9zdEtleUNoZWNraW5n", 0),
            0u);  // "StrictHostKeyChecking"
}

// env: VK_TASK_INDEX and VC_TASK_INDEX = the pod's index, in every container
// and init container; no svc, so no hostname.
TEST(JobPluginsTest, EnvPluginSetsTaskIndexInEveryContainer) {
  Expansion x(Decoded(JobWith("{env: []}", 3)));
  ASSERT_EQ(x.plugins().pods().size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const PodPluginAdditions& p = x.plugins().pods().at("ns1/j-my-task-" + std::to_string(i));
    EXPECT_TRUE(p.hostname.empty());
    ASSERT_EQ(p.containers.size(), 2u);
    EXPECT_EQ(p.containers[0].name, "main");
    EXPECT_EQ(p.containers[1].name, "setup");
    EXPECT_TRUE(p.containers[1].init);
    for (const ContainerAdditions& c : p.containers) {
      EXPECT_EQ(EnvValue(c, "VK_TASK_INDEX"), std::to_string(i));
      EXPECT_EQ(EnvValue(c, "VC_TASK_INDEX"), std::to_string(i));
    }
  }
  EXPECT_TRUE(x.plugins().services().empty());
  EXPECT_TRUE(x.plugins().secrets().empty());
}

// svc arguments: publishNotReadyAddresses on the Service, no NetworkPolicy;
// a task name with '-' becomes '_' in keys and upper case in env names; the
// init container gets the env and the mount too.
TEST(JobPluginsTest, SvcArgumentsAndTaskNameFormatting) {
  Expansion x(Decoded(
      JobWith(R"({svc: ["--publish-not-ready-addresses=true", "-disable-network-policy"]})")));
  EXPECT_TRUE(x.plugins().services().at("ns1/j").publish_not_ready_addresses);
  EXPECT_TRUE(x.plugins().network_policies().empty());
  const ConfigMap& cm = x.plugins().config_maps().at("ns1/j-svc");
  EXPECT_EQ(cm.data.at("my_task.host"), "j-my-task-0.j\nj-my-task-1.j");
  EXPECT_EQ(cm.data.at("VC_MY_TASK_NUM"), "2");
  const PodPluginAdditions& p = x.plugins().pods().at("ns1/j-my-task-1");
  EXPECT_EQ(p.hostname, "j-my-task-1");
  ASSERT_EQ(p.containers.size(), 2u);
  EXPECT_EQ(p.containers[1].env.size(), 2u);
  ASSERT_EQ(p.containers[1].mounts.size(), 1u);
  EXPECT_EQ(p.containers[1].mounts[0].mount_path, "/etc/volcano");
}

// Volcano's scale specs (test/e2e/jobp/job_scale_up_down.go): a running job
// scaled so that its new pods wait goes back to Pending, and the host files
// are the new spec's at once, in the pass that creates the new pods (the
// spec reads them as soon as those run); a Pending job's are too
// (docs/differences.md); scaled to zero it stays Running with no hosts, and
// back to 2 it has both again.
TEST(JobPluginsTest, SvcHostFilesFollowScalingThroughPending) {
  Expansion x(Decoded(JobWith("{svc: []}")), 3);
  const std::string key = "ns1/j";
  ASSERT_EQ(x.state().FindJob(key)->phase, "Running");
  auto scale = [&](int32_t replicas) {
    VcJob* job = x.state().EditJob(key);
    job->min_available = replicas;
    job->tasks[0].replicas = replicas;
    job->tasks[0].min_available = replicas;
    x.runner().SyncControllers();
    return x.plugins().config_maps().at("ns1/j-svc").data;
  };
  auto up = scale(4);
  EXPECT_EQ(x.state().FindJob(key)->phase, "Pending");
  EXPECT_EQ(up.at("VC_MY_TASK_NUM"), "4");
  EXPECT_EQ(up.at("my_task.host"), "j-my-task-0.j\nj-my-task-1.j\nj-my-task-2.j\nj-my-task-3.j");
  // Still Pending, the job's spec changes again: the host files follow.
  EXPECT_EQ(scale(5).at("VC_MY_TASK_NUM"), "5");
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(x.runner().RunCycle(false));
    x.runner().WorldStep();
  }
  ASSERT_EQ(x.state().FindJob(key)->phase, "Running");
  auto zero = scale(0);
  EXPECT_EQ(x.state().FindJob(key)->phase, "Running");
  EXPECT_EQ(zero.at("VC_MY_TASK_NUM"), "0");
  EXPECT_EQ(zero.at("VC_MY_TASK_HOSTS"), "");
  auto back = scale(2);
  EXPECT_EQ(x.state().FindJob(key)->phase, "Pending");
  EXPECT_EQ(back.at("VC_MY_TASK_HOSTS"), "j-my-task-0.j,j-my-task-1.j");
}

// ssh --ssh-key-file-path elsewhere than /root/.ssh: the keys are readable
// (0644); init containers get the mount too; --ssh-port reaches the config.
TEST(JobPluginsTest, SshKeyPathModeAndPort) {
  Expansion x(
      Decoded(JobWith(R"({ssh: ["--ssh-key-file-path", "/home/mpi/.ssh", "--ssh-port=2222"]})")));
  const PodPluginAdditions& p = x.plugins().pods().at("ns1/j-my-task-0");
  ASSERT_EQ(p.volumes.size(), 1u);
  EXPECT_EQ(p.volumes[0].default_mode, 0644);
  EXPECT_EQ(p.containers[0].mounts.at(0).mount_path, "/home/mpi/.ssh");
  ASSERT_EQ(p.containers[1].mounts.size(), 1u);
  EXPECT_EQ(p.containers[1].mounts[0].mount_path, "/home/mpi/.ssh");
  EXPECT_NE(x.plugins().secrets().at("ns1/j-ssh").data.at("config").find("  Port 2222\n"),
            std::string::npos);
}

// A deleted job takes its objects and pod additions with it.
TEST(JobPluginsTest, DeletedJobDropsItsObjects) {
  Expansion x(Decoded(JobWith("{ssh: [], svc: []}")));
  EXPECT_EQ(x.plugins().secrets().size(), 1u);
  std::vector<std::string> pods;
  for (const auto& [key, pod] : x.state().pods()) pods.push_back(key);
  for (const std::string& k : pods) x.state().DeletePod(k);
  x.state().DeletePodGroup("ns1/j");  // no uid: the group is named after the job
  x.state().DeleteJob("ns1/j");
  x.runner().SyncControllers();
  EXPECT_TRUE(x.plugins().secrets().empty());
  EXPECT_TRUE(x.plugins().services().empty());
  EXPECT_TRUE(x.plugins().config_maps().empty());
  EXPECT_TRUE(x.plugins().network_policies().empty());
  EXPECT_TRUE(x.plugins().pods().empty());
}

// Key pairs are a function of the seed; the injected seed source decides.
TEST(JobPluginsTest, KeyPairsAreDeterministicPerSeed) {
  const auto a = SeededSshKeys(1)("ns/j").value();
  EXPECT_EQ(a, SeededSshKeys(1)("ns/j").value());
  EXPECT_NE(a, SeededSshKeys(2)("ns/j").value());
  EXPECT_NE(a, SeededSshKeys(1)("ns/k").value());
  EXPECT_EQ(MakeSshKeyPair(a)->private_key, MakeSshKeyPair(a)->private_key);
  EXPECT_NE(MakeSshKeyPair(a)->public_key,
            MakeSshKeyPair(SeededSshKeys(2)("ns/j").value())->public_key);
  EXPECT_NE(RandomSshKeys()("ns/j").value(), RandomSshKeys()("ns/j").value());
}

// OpenSSH itself reads the private key and derives the same public key.
TEST(JobPluginsTest, PrivateKeyLoadsInOpenSsh) {
  if (std::system("command -v ssh-keygen >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "ssh-keygen not installed";
  const SshKeyPair pair = MakeSshKeyPair(SeededSshKeys(7)("default/lm-mpi-job").value()).value();
  const fs::path dir = fs::temp_directory_path() / ("basalt-ssh-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path key = dir / "id_rsa";
  std::ofstream(key) << pair.private_key;
  fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write);
  const std::string cmd =
      "ssh-keygen -y -f " + key.string() + " > " + (dir / "derived.pub").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(dir / "derived.pub");
  std::string derived((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  // ssh-keygen appends the (empty) comment as " " on some versions.
  while (!derived.empty() && (derived.back() == '\n' || derived.back() == ' ')) derived.pop_back();
  EXPECT_EQ(derived + "\n", pair.public_key);
}

// An unknown plugin name is refused at decode time (Volcano's webhook refuses
// it), naming the file, the object and `spec.plugins.<name>`; so is a
// plugins value of the wrong shape.
TEST(JobPluginsTest, UnknownPluginsAreErrors) {
  struct Case {
    std::string plugins, message;
  };
  const std::vector<Case> cases = {
      {"{horovod: []}",
       "spec.plugins.horovod: unknown job plugin \"horovod\" (supported: env, hcclrank, mpi, "
       "pytorch, ray, ssh, svc, tensorflow)"},
      {R"({svc: "--x"})", "spec.plugins.svc"},
      {"[ssh]", "spec.plugins"},
  };
  for (const Case& c : cases) {
    ClusterObjects objects;
    Status st = DecodeText(JobWith(c.plugins), "jobs.yaml", &objects);
    ASSERT_FALSE(st.ok()) << c.plugins;
    EXPECT_NE(st.message().find("jobs.yaml:7: Job ns1/j: "), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(c.message), std::string::npos) << st.message();
  }
}

// Bad arguments are what Volcano logs and runs anyway: the job decodes, the
// problem is a warning finding naming `spec.plugins.<name>[i]`, and the flags
// before it keep their values (Go's flag.Parse stops there).
TEST(JobPluginsTest, BadArgumentsWarnAndTheJobRuns) {
  struct Case {
    std::string plugins, field, message;
  };
  const std::vector<Case> cases = {
      {R"({svc: ["--enable-networking"]})", "spec.plugins.svc[0]",
       "unknown flag \"--enable-networking\" for job plugin svc"},
      {R"({svc: ["--disable-network-policy=maybe"]})", "spec.plugins.svc[0]",
       "--disable-network-policy: invalid boolean \"maybe\""},
      {R"({ssh: ["--ssh-key-file-path"]})", "spec.plugins.ssh[0]",
       "--ssh-key-file-path needs a value"},
      {R"({ssh: ["--ssh-port=0x10000"]})", "spec.plugins.ssh", "Volcano falls back to 22"},
      {R"({pytorch: ["--port=many"]})", "spec.plugins.pytorch[0]", "--port: invalid integer"},
      {R"({env: ["x"]})", "spec.plugins.env", "takes no arguments"},
  };
  for (const Case& c : cases) {
    ClusterObjects objects;
    ASSERT_OK(DecodeText(JobWith(c.plugins), "jobs.yaml", &objects));
    ASSERT_EQ(objects.jobs.size(), 1u);
    std::vector<RuleFinding> findings = CheckObjectRules(objects);
    bool found = false;
    for (const RuleFinding& f : findings) {
      if (f.field != c.field) continue;
      found = f.message.find(c.message) != std::string::npos;
      EXPECT_EQ(f.in_validate, RuleSeverity::kWarning);
      EXPECT_EQ(f.in_run, RuleSeverity::kWarning);
      EXPECT_EQ(f.object, "Job ns1/j");
    }
    EXPECT_TRUE(found) << c.plugins;
  }
  // The job still gets its plugin, with the flags read before the bad one.
  Expansion x(Decoded(JobWith(R"({svc: ["--disable-network-policy", "--enable-networking"]})")));
  EXPECT_EQ(x.plugins().services().size(), 1u);
  EXPECT_TRUE(x.plugins().network_policies().empty());
  EXPECT_EQ(x.plugins().config_maps().size(), 1u);
}

// Go's flag spellings parse the same; parsing stops quietly at the first
// non-flag and after `--`.
TEST(JobPluginsTest, ArgumentSpellings) {
  JobPluginArgProblems problems;
  SvcPluginArgs svc = ParseSvcPluginArgs(
      {"-publish-not-ready-addresses", "--disable-network-policy=false"}, &problems);
  EXPECT_TRUE(svc.publish_not_ready_addresses);
  EXPECT_FALSE(svc.disable_network_policy);
  SshPluginArgs ssh =
      ParseSshPluginArgs({"--ssh-key-file-path", "/opt/keys", "-ssh-port=0x16"}, &problems);
  EXPECT_EQ(ssh.key_file_path, "/opt/keys");
  EXPECT_EQ(ssh.port, 22);
  EXPECT_EQ(ParseSshPluginArgs({}).key_file_path, "/root/.ssh");
  PytorchPluginArgs torch =
      ParsePytorchPluginArgs({"--port=1234", "extra", "--port=99"}, &problems);
  EXPECT_EQ(torch.port, 1234);
  MpiPluginArgs mpi = ParseMpiPluginArgs({"--", "--port=99"}, &problems);
  EXPECT_EQ(mpi.port, 22);
  EXPECT_TRUE(problems.empty()) << problems[0].ToString();
  ParseSvcPluginArgs({"--bogus", "--disable-network-policy"}, &problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "spec.plugins.svc[0]");
}

}  // namespace
}  // namespace basalt
