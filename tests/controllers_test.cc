// Controllers: the vcjob phase machine and policy resolution on a store (no
// session), Commands, and the gang-on-eviction guarantee checked after every
// world step of every controllers scenario.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "actions/builtin.h"
#include "api/decode.h"
#include "controllers/job_controller.h"
#include "controllers/queue_controller.h"
#include "engine/cycle_runner.h"
#include "plugins/builtin.h"
#include "testing.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;

ClusterState StateOf(const std::string& yaml) {
  ClusterObjects objects;
  Status st = DecodeText(yaml, "test.yaml", &objects);
  EXPECT_TRUE(st.ok()) << st.message();
  ClusterState state;
  st = state.AddAll(std::move(objects));
  EXPECT_TRUE(st.ok()) << st.message();
  return state;
}

// A running 2-pod job (minAvailable 2) with an admitted PodGroup; `policies`
// is spliced into spec (YAML, indented 2).
std::string RunningJob(const std::string& policies, int max_retry = 3) {
  return R"(
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: j, namespace: default}
spec:
  minAvailable: 2
  maxRetry: )" +
         std::to_string(max_retry) + "\n" + policies + R"(
  tasks:
  - name: w
    replicas: 2
    template:
      spec:
        containers: [{name: c, resources: {requests: {cpu: "1"}}}]
status: {state: {phase: Running}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: j, namespace: default}
spec: {minMember: 2}
status: {phase: Running}
)";
}

class JobControllerTest : public ::testing::Test {
 protected:
  void Load(const std::string& yaml) {
    state_ = StateOf(yaml);
    jobs_.Sync(state_, 0);  // creates the pods (the PodGroup is admitted)
    for (auto& [key, pod] : state_.mutable_pods()) {
      pod.spec.node_name = "n1";
      pod.phase = "Running";
    }
    jobs_.Sync(state_, 0);
  }
  VcJob& Job() { return *state_.EditJob("default/j"); }
  void Evict(const std::string& name) {
    Pod pod = *state_.FindPod("default/" + name);
    state_.DeletePod(pod.meta.Key());
    jobs_.OnPodDeleted(state_, pod, 1);
    jobs_.Sync(state_, 1);
  }
  void Fail(const std::string& name, int32_t code) {
    Pod* pod = state_.EditPod("default/" + name);
    pod->phase = "Failed";
    pod->exit_code = code;
    jobs_.OnPodPhaseChanged(state_, *pod, "Running", 1);
    jobs_.Sync(state_, 1);
  }

  ClusterState state_;
  JobController jobs_;
};

TEST_F(JobControllerTest, SyncCreatesPodsWithVolcanoAnnotationsAndRuns) {
  Load(RunningJob(""));
  ASSERT_EQ(state_.pods().size(), 2u);
  const Pod& pod = state_.pods().at("default/j-w-1");
  EXPECT_EQ(pod.meta.annotations.at("scheduling.k8s.io/group-name"), "j");
  EXPECT_EQ(pod.meta.annotations.at("volcano.sh/task-spec"), "w");
  EXPECT_EQ(pod.meta.annotations.at("volcano.sh/task-index"), "1");
  EXPECT_EQ(pod.meta.annotations.at("volcano.sh/job-version"), "0");
  EXPECT_EQ(Job().phase, "Running");
}

TEST_F(JobControllerTest, PodGroupCarriesJobAnnotations) {
  ClusterState state = StateOf(R"(
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: j, namespace: default, annotations: {volcano.sh/preemptable: "true"}}
spec:
  tasks:
  - {name: w, replicas: 3, minAvailable: 2, template: {spec: {containers: [{name: c}]}}}
)");
  JobController jobs;
  jobs.Sync(state, 0);
  const PodGroup* pg = state.FindPodGroup("default/j");
  ASSERT_NE(pg, nullptr);
  EXPECT_EQ(pg->meta.annotations.at("volcano.sh/preemptable"), "true");
  EXPECT_EQ(pg->min_member, 2);
  EXPECT_EQ(pg->phase, PodGroupPhase::kPending);
  EXPECT_TRUE(state.pods().empty()) << "no pods before the PodGroup is admitted";
}

TEST_F(JobControllerTest, EvictionWithoutPolicyRecreatesPodAndGoesPending) {
  Load(RunningJob(""));
  Evict("j-w-0");
  EXPECT_EQ(state_.pods().at("default/j-w-0").phase, "Pending");
  // pending 1 > replicas 2 - minAvailable 2.
  EXPECT_EQ(Job().phase, "Pending");
  EXPECT_EQ(Job().retry_count, 0);
}

TEST_F(JobControllerTest, AbortJobKillsEverythingAndEndsAborted) {
  Load(RunningJob("  policies: [{event: PodEvicted, action: AbortJob}]"));
  Evict("j-w-0");
  EXPECT_TRUE(state_.pods().empty());
  EXPECT_EQ(state_.FindPodGroup("default/j"), nullptr);
  EXPECT_EQ(Job().phase, "Aborted");
  EXPECT_TRUE(JobController::HalfRunningGangJobs(state_).empty());
}

TEST_F(JobControllerTest, RestartJobBumpsVersionAndRetry) {
  Load(RunningJob("  policies: [{event: PodEvicted, action: RestartJob}]"));
  Evict("j-w-1");
  EXPECT_EQ(Job().phase, "Pending");
  EXPECT_EQ(Job().retry_count, 1);
  EXPECT_EQ(Job().version, 1);
  EXPECT_TRUE(state_.pods().empty()) << "pods wait for the new PodGroup to be admitted";
  ASSERT_NE(state_.FindPodGroup("default/j"), nullptr);
  state_.EditPodGroup("default/j")->phase = PodGroupPhase::kInqueue;
  jobs_.Sync(state_, 2);
  ASSERT_EQ(state_.pods().size(), 2u);
  for (const auto& [key, pod] : state_.pods()) {
    EXPECT_EQ(pod.phase, "Pending");
    EXPECT_EQ(pod.meta.annotations.at("volcano.sh/job-version"), "1") << key;
    EXPECT_EQ(pod.meta.annotations.at("volcano.sh/job-retry-count"), "1") << key;
  }
}

TEST_F(JobControllerTest, StalePodEventIsOnlyASync) {
  Load(RunningJob("  policies: [{event: PodEvicted, action: RestartJob}]"));
  Pod stale = state_.pods().at("default/j-w-0");
  stale.meta.annotations["volcano.sh/job-version"] = "7";
  jobs_.OnPodDeleted(state_, stale, 1);
  EXPECT_EQ(Job().retry_count, 0);
  EXPECT_EQ(Job().phase, "Running");
}

TEST_F(JobControllerTest, LastRetryKillIsSoftAndMaxRetryFails) {
  Load(RunningJob("  policies: [{event: PodFailed, action: RestartJob}]", /*max_retry=*/1));
  Fail("j-w-0", 1);
  // retryCount 0 >= maxRetry - 1: the failed pod is retained.
  EXPECT_EQ(Job().phase, "Failed");
  EXPECT_EQ(Job().retry_count, 1);
  ASSERT_EQ(state_.pods().size(), 1u);
  EXPECT_EQ(state_.pods().begin()->second.phase, "Failed");
}

TEST_F(JobControllerTest, ExitCodePolicyMatchesOnlyThatCode) {
  const std::string policies = "  policies: [{exitCode: 5, action: TerminateJob}]";
  Load(RunningJob(policies));
  Fail("j-w-0", 4);
  EXPECT_EQ(Job().phase, "Running") << "exit code 4 matches nothing";
  Fail("j-w-1", 5);
  EXPECT_EQ(Job().phase, "Terminated");
}

TEST_F(JobControllerTest, TaskPolicyWinsOverJobPolicy) {
  JobRequest req;
  req.job_key = "default/j";
  req.task = "w";
  req.event = "PodEvicted";
  ClusterState state = StateOf(R"(
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: j, namespace: default}
spec:
  policies: [{event: "*", action: AbortJob}]
  tasks:
  - name: w
    replicas: 1
    policies: [{event: PodEvicted, action: RestartTask}]
    template: {spec: {containers: [{name: c}]}}
  - {name: v, replicas: 1, template: {spec: {containers: [{name: c}]}}}
)");
  const VcJob& job = state.jobs().at("default/j");
  EXPECT_EQ(JobController::Resolve(job, req).action, "RestartTask");
  req.task = "v";
  EXPECT_EQ(JobController::Resolve(job, req).action, "AbortJob");
  req.event = "OutOfSync";  // internal events never reach policies
  EXPECT_EQ(JobController::Resolve(job, req).action, "SyncJob");
  req.event = "PodPending";  // no timeout: no match
  EXPECT_EQ(JobController::Resolve(job, req).action, "SyncJob");
  req.action = "ResumeJob";  // a Command's explicit action wins
  EXPECT_EQ(JobController::Resolve(job, req).action, "ResumeJob");
}

TEST_F(JobControllerTest, PhaseMachineTable) {
  struct Case {
    std::string phase, action, want;
    int retry_delta;
  };
  const std::vector<Case> cases = {
      {"Running", "AbortJob", "Aborted", 0},      {"Running", "TerminateJob", "Terminated", 0},
      {"Running", "CompleteJob", "Completed", 0}, {"Running", "RestartJob", "Pending", 1},
      {"Pending", "AbortJob", "Aborted", 0},      {"Aborted", "ResumeJob", "Pending", 1},
      {"Aborted", "RestartJob", "Aborted", 0},    {"Completed", "RestartJob", "Completed", 0},
      {"Failed", "ResumeJob", "Failed", 0},       {"Terminated", "AbortJob", "Terminated", 0},
  };
  for (const Case& c : cases) {
    Load(RunningJob(""));
    Job().phase = c.phase;
    JobRequest req;
    req.job_key = "default/j";
    req.event = "CommandIssued";
    req.action = c.action;
    jobs_.Handle(state_, req, 1);
    jobs_.Sync(state_, 1);
    EXPECT_EQ(Job().phase, c.want) << c.phase << " + " << c.action;
    EXPECT_EQ(Job().retry_count, c.retry_delta) << c.phase << " + " << c.action;
  }
}

TEST_F(JobControllerTest, RunningJobCompletesOrFailsWhenAllFinished) {
  Load(RunningJob(""));
  state_.EditPod("default/j-w-0")->phase = "Succeeded";
  state_.EditPod("default/j-w-1")->phase = "Failed";
  jobs_.Sync(state_, 1);
  EXPECT_EQ(Job().phase, "Failed") << "1 succeeded < minAvailable 2";
  Load(RunningJob(""));
  state_.EditPod("default/j-w-0")->phase = "Succeeded";
  state_.EditPod("default/j-w-1")->phase = "Succeeded";
  jobs_.Sync(state_, 1);
  EXPECT_EQ(Job().phase, "Completed");
}

TEST_F(JobControllerTest, TtlDeletesFinishedJobAfterDelay) {
  Load(RunningJob(""));
  Job().ttl_seconds_after_finished = 10;
  for (auto& [k, p] : state_.mutable_pods()) p.phase = "Succeeded";
  jobs_.Sync(state_, 100);
  EXPECT_EQ(Job().phase, "Completed");
  jobs_.Sync(state_, 109);
  EXPECT_NE(state_.FindJob("default/j"), nullptr);
  jobs_.Sync(state_, 110);
  EXPECT_EQ(state_.FindJob("default/j"), nullptr);
  EXPECT_TRUE(state_.pods().empty());
}

TEST_F(JobControllerTest, DurationParsing) {
  EXPECT_EQ(job_internal::ParseDurationSeconds("90s"), 90);
  EXPECT_EQ(job_internal::ParseDurationSeconds("1h30m"), 5400);
  EXPECT_EQ(job_internal::ParseDurationSeconds("1500ms"), 2);
  EXPECT_EQ(job_internal::ParseDurationSeconds("abc"), std::nullopt);
  EXPECT_EQ(job_internal::ParseDurationSeconds("5"), std::nullopt);
  EXPECT_EQ(job_internal::ParseDurationSeconds("99999999999999s"), std::nullopt);
  // Go's grammar in full (fractions, every unit, "0"), rounded up to whole seconds.
  EXPECT_EQ(job_internal::ParseDurationSeconds("1.5h"), 5400);
  EXPECT_EQ(job_internal::ParseDurationSeconds("1.5s"), 2);
  EXPECT_EQ(job_internal::ParseDurationSeconds("2s500us"), 3);
  EXPECT_EQ(job_internal::ParseDurationSeconds("0"), 0);
  EXPECT_EQ(job_internal::ParseDurationSeconds("-5s"), std::nullopt);
  EXPECT_EQ(job_internal::ParseDurationSeconds(""), std::nullopt);
}

TEST(QueueControllerTest, CloseOpenAndClosingToClosed) {
  ClusterState state = StateOf(R"(
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: g, namespace: default}
spec: {queue: q}
)");
  QueueController queues;
  Command close;
  close.action = "CloseQueue";
  close.target.kind = "Queue";
  close.target.name = "q";
  queues.OnCommand(state, close);
  EXPECT_EQ(state.FindQueue("q")->state, "Closing");
  queues.Sync(state);
  EXPECT_EQ(state.FindQueue("q")->state, "Closing");
  state.DeletePodGroup("default/g");
  queues.Sync(state);
  EXPECT_EQ(state.FindQueue("q")->state, "Closed");
  Command open = close;
  open.action = "OpenQueue";
  queues.OnCommand(state, open);
  EXPECT_EQ(state.FindQueue("q")->state, "Open");
  open.target.name = "missing";
  queues.OnCommand(state, open);  // ignored, no crash
}

TEST(CommandDecodeTest, DecodesAndRejects) {
  ClusterObjects objects;
  EXPECT_OK(DecodeText(R"(
apiVersion: bus.volcano.sh/v1alpha1
kind: Command
metadata: {name: c, namespace: ns}
action: AbortJob
target: {apiVersion: batch.volcano.sh/v1alpha1, kind: Job, name: j}
)",
                       "c.yaml", &objects));
  ASSERT_EQ(objects.commands.size(), 1u);
  EXPECT_EQ(objects.commands[0].target.name, "j");
  ClusterObjects bad;
  Status st = DecodeText(
      "apiVersion: bus.volcano.sh/v1alpha1\nkind: Command\nmetadata: {name: c}\naction: Explode\n"
      "target: {kind: Job, name: j}\n",
      "c.yaml", &bad);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("action"), std::string::npos) << st.message();
  st = DecodeText(
      "apiVersion: bus.volcano.sh/v1alpha1\nkind: Command\nmetadata: {name: c}\naction: AbortJob\n",
      "c.yaml", &bad);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("target"), std::string::npos) << st.message();
}

// Every controllers scenario, driven cycle by cycle: after each world step no
// job whose PodEvicted policy is AbortJob/RestartJob is half-running.
TEST(WorldStepTest, NoHalfRunningGangAfterAnyWorldStep) {
  const fs::path dir = fs::path(BASALT_SOURCE_DIR) / "tests" / "scenarios" / "controllers";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    YAML::Node doc = YAML::LoadFile(entry.path().string());
    if (doc["expect_error"]) continue;
    SCOPED_TRACE(entry.path().filename().string());
    PluginRegistry plugins;
    RegisterBuiltinPlugins(plugins);
    ActionRegistry actions;
    RegisterBuiltinActions(actions);
    std::string conf_text =
        doc["conf"] ? doc["conf"].as<std::string>() : DefaultSchedulerConfigText();
    auto conf = ParseSchedulerConfig(conf_text, "conf", plugins.Names(), actions.Names());
    ASSERT_OK(conf);
    ClusterState state = StateOf(doc["cluster"].as<std::string>());
    CycleRunner runner(state, *conf, plugins, actions, SessionOptions());
    ASSERT_OK(runner.Init());
    runner.SyncControllers();
    EXPECT_TRUE(JobController::HalfRunningGangJobs(state).empty());
    const int cycles = doc["cycles"] ? doc["cycles"].as<int>() : 1;
    for (int i = 0; i < cycles; ++i) {
      ASSERT_OK(runner.RunCycle(false));
      runner.WorldStep();
      auto half = JobController::HalfRunningGangJobs(state);
      EXPECT_TRUE(half.empty()) << "after world step " << i + 1 << ": "
                                << (half.empty() ? "" : half[0]);
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// The check itself can fail: a gang job left half-running is reported.
TEST(WorldStepTest, HalfRunningCheckDetectsBrokenGang) {
  ClusterState state = StateOf(RunningJob("  policies: [{event: PodEvicted, action: AbortJob}]"));
  JobController jobs;
  jobs.Sync(state, 0);
  for (auto& [key, pod] : state.mutable_pods()) {
    pod.spec.node_name = "n1";
    pod.phase = "Running";
  }
  state.DeletePod("default/j-w-0");  // deleted behind the controller's back
  EXPECT_EQ(JobController::HalfRunningGangJobs(state), std::vector<std::string>{"default/j"});
}

}  // namespace
}  // namespace basalt

namespace basalt {
namespace {

// A job whose sync changed nothing is skipped until the job, one of its pods
// or its PodGroup changes: each kind of change still reaches it.
class QuietJobTest : public JobControllerTest {
 protected:
  int Pods() { return static_cast<int>(state_.pods().size()); }
};

TEST_F(QuietJobTest, AQuietJobStillSeesEditsOfItsSpecPodsAndPodGroup) {
  Load(RunningJob(""));
  jobs_.Sync(state_, 2);  // quiet now
  ASSERT_EQ(Pods(), 2);
  // The spec, through EditJob: a third replica is created.
  state_.EditJob("default/j")->tasks[0].replicas = 3;
  jobs_.Sync(state_, 3);
  EXPECT_EQ(Pods(), 3);
  jobs_.Sync(state_, 4);
  // The spec, through whole-map access: scaled back down.
  state_.mutable_jobs().at("default/j").tasks[0].replicas = 2;
  jobs_.Sync(state_, 5);
  EXPECT_EQ(Pods(), 2);
  jobs_.Sync(state_, 6);
  // A pod deleted behind the controller's back is created again.
  state_.DeletePod("default/j-w-0");
  jobs_.Sync(state_, 7);
  EXPECT_TRUE(state_.FindPod("default/j-w-0"));
  // Pods finish: the job completes.
  for (const char* name : {"default/j-w-0", "default/j-w-1"})
    state_.EditPod(name)->phase = "Succeeded";
  jobs_.Sync(state_, 8);
  EXPECT_EQ(state_.FindJob("default/j")->phase, "Completed");
}

}  // namespace
}  // namespace basalt
