// What the live controllers send to the API server: a vcjob's pods are its
// task templates as written, with the controller's metadata and the job
// plugins' additions on top; the plugins' objects and the job status.
#include <gtest/gtest.h>

#include "actions/builtin.h"
#include "api/decode.h"
#include "api/subgroup.h"
#include "engine/cycle_runner.h"
#include "live/render.h"
#include "plugins/builtin.h"
#include "testing.h"

namespace basalt {
namespace {

const char* kJob = R"({
  "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
  "metadata": {"name": "mpi", "namespace": "team", "uid": "job-uid-1"},
  "spec": {
    "minAvailable": 2, "schedulerName": "volcano", "queue": "default",
    "plugins": {"ssh": [], "svc": [], "env": []},
    "tasks": [{
      "name": "worker", "replicas": 2,
      "template": {
        "metadata": {"labels": {"app": "mpi"}},
        "spec": {
          "restartPolicy": "OnFailure",
          "containers": [{"name": "main", "image": "registry.local/mpi:1",
                          "command": ["mpirun", "--allow-run-as-root"],
                          "env": [{"name": "MODE", "value": "train"}],
                          "resources": {"requests": {"cpu": "1"}}}],
          "volumes": [{"name": "data", "emptyDir": {}}]}}}]}})";

class RenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterBuiltinPlugins(plugins_);
    RegisterBuiltinActions(actions_);
    auto conf = ParseSchedulerConfig(DefaultSchedulerConfigText(), "conf", plugins_.Names(),
                                     actions_.Names());
    ASSERT_OK(conf);
    conf_ = std::move(conf).value();
    ClusterObjects objects;
    ASSERT_OK(DecodeText(kJob, "job.json", &objects));
    ASSERT_OK(state_.AddAll(std::move(objects)));
    runner_ = std::make_unique<CycleRunner>(state_, conf_, plugins_, actions_, SessionOptions());
    ASSERT_OK(runner_->Init());
    runner_->SyncControllers();
    // The PodGroup (`<job>-<uid>`, as Volcano names it) is admitted (enqueue),
    // then the controller creates the pods.
    ASSERT_NE(state_.FindPodGroup("team/mpi-job-uid-1"), nullptr);
    state_.EditPodGroup("team/mpi-job-uid-1")->phase = PodGroupPhase::kInqueue;
    runner_->SyncControllers();
  }
  PluginRegistry plugins_;
  ActionRegistry actions_;
  SchedulerConfig conf_;
  ClusterState state_;
  std::unique_ptr<CycleRunner> runner_;
};

// The template's containers, command, env and volumes stay as written; the
// controller's name, labels, owner (with the job's uid) and scheduler name,
// and the plugins' env, mounts, volumes, hostname and subdomain are added.
TEST_F(RenderTest, PodIsTheTemplateWithControllerMetadataAndPluginAdditions) {
  const Pod* pod = state_.FindPod("team/mpi-worker-1");
  ASSERT_NE(pod, nullptr);
  auto additions = runner_->job_plugins().pods().find("team/mpi-worker-1");
  ASSERT_NE(additions, runner_->job_plugins().pods().end());
  auto rendered = VcJobPodJson(Json::parse(kJob), *pod, &additions->second);
  ASSERT_OK(rendered);
  const Json& j = *rendered;
  EXPECT_EQ(j["metadata"]["name"], "mpi-worker-1");
  EXPECT_EQ(j["metadata"]["namespace"], "team");
  EXPECT_EQ(j["metadata"]["labels"]["app"], "mpi");
  EXPECT_EQ(j["metadata"]["labels"]["volcano.sh/task-spec"], "worker");
  EXPECT_EQ(j["metadata"]["ownerReferences"][0]["uid"], "job-uid-1");
  EXPECT_EQ(j["metadata"]["ownerReferences"][0]["controller"], true);
  const Json& spec = j["spec"];
  EXPECT_EQ(spec["schedulerName"], "volcano");
  EXPECT_EQ(spec["restartPolicy"], "OnFailure");
  EXPECT_EQ(spec["hostname"], "mpi-worker-1");
  EXPECT_EQ(spec["subdomain"], "mpi");
  const Json& c = spec["containers"][0];
  EXPECT_EQ(c["image"], "registry.local/mpi:1");
  EXPECT_EQ(c["command"][1], "--allow-run-as-root");
  ASSERT_TRUE(c["env"].is_array());
  EXPECT_EQ(c["env"][0]["name"], "MODE");  // the template's own first
  bool task_index = false;
  for (const Json& e : c["env"]) task_index |= e["name"] == "VK_TASK_INDEX" && e["value"] == "1";
  EXPECT_TRUE(task_index) << c["env"].dump();
  bool ssh_mount = false;
  for (const Json& m : c["volumeMounts"]) ssh_mount |= m["name"] == "mpi-ssh";
  EXPECT_TRUE(ssh_mount) << c["volumeMounts"].dump();
  EXPECT_EQ(spec["volumes"][0]["name"], "data");
  bool secret_volume = false;
  for (const Json& v : spec["volumes"])
    secret_volume |= v.contains("secret") && v["secret"]["secretName"] == "mpi-ssh";
  EXPECT_TRUE(secret_volume) << spec["volumes"].dump();
}

// A pod whose task the job does not have cannot be rendered: an error naming
// the pod and the task, never a pod without containers.
TEST_F(RenderTest, UnknownTaskIsAnError) {
  Pod pod = *state_.FindPod("team/mpi-worker-0");
  pod.meta.labels["volcano.sh/task-spec"] = "ps";
  auto rendered = VcJobPodJson(Json::parse(kJob), pod, nullptr);
  ASSERT_FALSE(rendered.ok());
  EXPECT_NE(rendered.status().message().find("no task \"ps\""), std::string::npos);
}

// The plugins' objects: the ssh Secret base64-encodes its keys; the headless
// Service selects the job's pods.
TEST_F(RenderTest, PluginObjects) {
  const auto& secrets = runner_->job_plugins().secrets();
  ASSERT_EQ(secrets.count("team/mpi-ssh"), 1u);
  Json secret = SecretJson(secrets.at("team/mpi-ssh"));
  EXPECT_EQ(secret["kind"], "Secret");
  ASSERT_TRUE(secret["data"].contains("id_rsa.pub"));
  EXPECT_EQ(secret["data"]["id_rsa.pub"].get<std::string>().rfind("c3NoLWVkMjU1MTk", 0), 0u)
      << "base64 of \"ssh-ed25519\"";
  const auto& services = runner_->job_plugins().services();
  ASSERT_EQ(services.count("team/mpi"), 1u);
  Json svc = ServiceJson(services.at("team/mpi"));
  EXPECT_EQ(svc["spec"]["clusterIP"], "None");
  EXPECT_EQ(svc["spec"]["selector"]["volcano.sh/job-name"], "mpi");
}

// The framework plugins' additions: ports appended, a command replaced, an
// init container added (with what later plugins add to it), annotations.
TEST_F(RenderTest, PortsCommandsAddedInitContainersAndAnnotations) {
  Pod pod = *state_.FindPod("team/mpi-worker-0");
  PodPluginAdditions add;
  ContainerAdditions main;
  main.name = "main";
  main.ports = {{"pytorchjob-port", 23456}};
  main.command = {"sh", "-c", "ray start --block"};
  main.env = {{"RANK", "1", "", ""}};
  ContainerAdditions wait;
  wait.name = "wait-for-master";
  wait.init = true;
  wait.added = true;
  wait.image = "busybox:1.36.1";
  wait.command = {"sh", "-c", "until nc -z m 1; do sleep 2; done"};
  wait.mounts = {{"mpi-svc", "/etc/volcano", ""}};
  add.containers = {main, wait};
  add.annotations = {{"hccl/rankIndex", "1"}};
  auto rendered = VcJobPodJson(Json::parse(kJob), pod, &add);
  ASSERT_OK(rendered);
  const Json& j = *rendered;
  EXPECT_EQ(j["metadata"]["annotations"]["hccl/rankIndex"], "1");
  const Json& c = j["spec"]["containers"][0];
  EXPECT_EQ(c["ports"], Json::parse(R"([{"name":"pytorchjob-port","containerPort":23456}])"));
  EXPECT_EQ(c["command"], Json::parse(R"(["sh","-c","ray start --block"])"));
  EXPECT_EQ(c["env"][1], Json::parse(R"({"name":"RANK","value":"1"})"));
  ASSERT_EQ(j["spec"]["initContainers"].size(), 1u);
  const Json& init = j["spec"]["initContainers"][0];
  EXPECT_EQ(init["name"], "wait-for-master");
  EXPECT_EQ(init["image"], "busybox:1.36.1");
  EXPECT_EQ(init["command"][2], "until nc -z m 1; do sleep 2; done");
  EXPECT_EQ(init["volumeMounts"][0]["mountPath"], "/etc/volcano");
}

// A ray head Service: ClusterIP (no clusterIP field), ports by name.
TEST(RenderService, PortsAndNoClusterIp) {
  Service svc;
  svc.meta.name = "rc-head-svc";
  svc.meta.namespace_ = "ns";
  svc.cluster_ip.clear();
  svc.selector = {{"volcano.sh/task-spec", "head"}};
  svc.ports = {{"gcs", 6379, "gcs", "TCP"}};
  Json j = ServiceJson(svc);
  EXPECT_FALSE(j["spec"].contains("clusterIP"));
  EXPECT_EQ(j["spec"]["ports"],
            Json::parse(R"([{"name":"gcs","port":6379,"targetPort":"gcs","protocol":"TCP"}])"));
}

// The PodGroup a bare pod gets is owned by the pod when nothing owns the pod.
TEST(RenderPodGroup, OwnerFilledWhenTheGroupHasNone) {
  PodGroup pg;
  pg.meta.name = "podgroup-u1";
  pg.meta.namespace_ = "ns";
  pg.min_member = 1;
  pg.queue = "q";
  OwnerReference pod{"v1", "Pod", "p", "u1", false};
  Json j = PodGroupJson(pg, &pod);
  EXPECT_EQ(j["metadata"]["ownerReferences"][0]["kind"], "Pod");
  EXPECT_EQ(j["metadata"]["ownerReferences"][0]["uid"], "u1");
  EXPECT_EQ(j["spec"]["minMember"], 1);
  EXPECT_EQ(j["spec"]["queue"], "q");
  EXPECT_FALSE(j["spec"].contains("subGroupPolicy"));
  EXPECT_FALSE(j["spec"].contains("networkTopology"));
}

// A vcjob's PodGroup carries its networkTopology and the subGroupPolicy of its
// partitioned tasks to the API server, under Volcano's field names.
TEST(RenderPodGroup, WritesTopologyAndSubGroups) {
  PodGroup pg;
  pg.meta.name = "train";
  pg.meta.namespace_ = "ns";
  pg.network_topology = NetworkTopologySpec{NetworkTopologySpec::Mode::kHard, 2, ""};
  PartitionPolicy parts;
  parts.total_partitions = 2;
  parts.partition_size = 4;
  parts.min_partitions = 1;
  parts.network_topology =
      NetworkTopologySpec{NetworkTopologySpec::Mode::kSoft, std::nullopt, "leaf"};
  pg.sub_group_policy.push_back(PolicyOfPartitions("worker", parts));
  Json spec = PodGroupJson(pg, nullptr)["spec"];
  EXPECT_EQ(spec["networkTopology"]["mode"], "hard");
  EXPECT_EQ(spec["networkTopology"]["highestTierAllowed"], 2);
  const Json& p = spec["subGroupPolicy"][0];
  EXPECT_EQ(p["name"], "worker");
  EXPECT_EQ(p["subGroupSize"], 4);
  EXPECT_EQ(p["minSubGroups"], 1);
  EXPECT_EQ(p["networkTopology"]["mode"], "soft");
  EXPECT_EQ(p["networkTopology"]["highestTierName"], "leaf");
  EXPECT_EQ(p["labelSelector"]["matchLabels"]["volcano.sh/task-spec"], "worker");
  EXPECT_EQ(p["matchLabelKeys"][0], "volcano.sh/partition-id");
}

}  // namespace
}  // namespace basalt
