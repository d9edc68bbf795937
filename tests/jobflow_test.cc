// JobFlow / JobTemplate (flow.volcano.sh/v1alpha1): decoding and its errors,
// the controller's dependency order and status, in `basalt schedule`'s cycle
// runner and in `basalt simulate`.
#include <gtest/gtest.h>

#include <map>

#include "actions/builtin.h"
#include "api/decode.h"
#include "engine/cycle_runner.h"
#include "plugins/builtin.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "testing.h"

namespace basalt {
namespace {

const std::string kExamples = std::string(BASALT_SOURCE_DIR) + "/examples/";

ClusterObjects LoadExampleFlow() {
  ClusterObjects objects;
  EXPECT_OK(LoadPath(kExamples + "jobflow", &objects));
  return objects;
}

// A JobFlow document with `flows` (YAML, indented 2) and the three templates
// a, b, c (one pod each, finishing after `steps` world steps).
std::string FlowYaml(const std::string& flows, const std::string& retain = "retain",
                     int steps = 1) {
  std::string out = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: flow.volcano.sh/v1alpha1
kind: JobFlow
metadata: {name: f, namespace: default}
spec:
  jobRetainPolicy: )" +
                    retain + R"(
  flows:
)" + flows;
  for (const char* name : {"a", "b", "c"}) {
    out += R"(---
apiVersion: flow.volcano.sh/v1alpha1
kind: JobTemplate
metadata: {name: )" +
           std::string(name) + R"(, namespace: default}
spec:
  schedulerName: volcano
  tasks:
  - name: t
    replicas: 1
    template:
      metadata: {annotations: {basalt.io/finish-after-steps: ")" +
           std::to_string(steps) + R"("}}
      spec:
        containers: [{name: c, resources: {requests: {cpu: "1"}}}]
)";
  }
  return out;
}

// Drives cycles and world steps; records the cycle each job appeared in and
// the cycle it was first seen Completed, and every flow phase seen.
class FlowRun {
 public:
  explicit FlowRun(ClusterObjects objects) {
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
    Observe(0);
  }
  void Run(int cycles) {
    for (int i = 1; i <= cycles; ++i) {
      EXPECT_OK(runner_->RunCycle(false));
      runner_->WorldStep();
      Observe(i);
    }
  }
  void Observe(int cycle) {
    for (const auto& [key, job] : state_.jobs()) {
      created.emplace(job.meta.name, cycle);
      if (job.phase == "Completed") completed.emplace(job.meta.name, cycle);
    }
    for (const auto& [key, flow] : state_.job_flows()) {
      if (phases.empty() || phases.back() != flow.phase) phases.push_back(flow.phase);
    }
  }
  const JobFlow& flow(const std::string& key) const { return state_.job_flows().at(key); }
  ClusterState& state() { return state_; }

  std::map<std::string, int> created, completed;
  std::vector<std::string> phases;

 private:
  PluginRegistry plugins_;
  ActionRegistry actions_;
  SchedulerConfig conf_;
  ClusterState state_;
  std::unique_ptr<CycleRunner> runner_;
};

// The example decodes: three templates (vcjob specs) and a flow with targets.
TEST(JobFlowDecodeTest, TemplatesAndFlow) {
  ClusterObjects objects = LoadExampleFlow();
  ASSERT_EQ(objects.job_templates.size(), 3u);
  EXPECT_EQ(objects.job_templates[1].meta.name, "train");
  EXPECT_EQ(objects.job_templates[1].tasks.at(0).replicas, 2);
  EXPECT_EQ(objects.job_templates[1].plugins.count("ssh"), 1u);
  ASSERT_EQ(objects.job_flows.size(), 1u);
  const JobFlow& f = objects.job_flows[0];
  EXPECT_EQ(f.meta.Key(), "default/data-pipeline");
  EXPECT_EQ(f.job_retain_policy, "retain");
  ASSERT_EQ(f.flows.size(), 3u);
  EXPECT_TRUE(f.flows[0].targets.empty());
  EXPECT_EQ(f.flows[2].targets, std::vector<std::string>{"train"});
  EXPECT_TRUE(objects.jobs.empty());  // templates are not jobs
}

// dependsOn.probe is decoded (and kept) with its lists.
TEST(JobFlowDecodeTest, Probe) {
  ClusterObjects objects;
  ASSERT_OK(DecodeText(FlowYaml(R"(  - name: a
  - name: b
    dependsOn:
      targets: [a]
      probe:
        taskStatusList: [{taskName: t, phase: Running}]
        tcpSocketList: [{taskName: t, port: 22}]
        httpGetList: [{taskName: t, path: /healthz, port: 8080}]
  - name: c
)"),
                       "f.yaml", &objects));
  const Flow& b = objects.job_flows.at(0).flows.at(1);
  ASSERT_TRUE(b.has_probe);
  EXPECT_EQ(b.probe.task_status_list.at(0).phase, "Running");
  EXPECT_EQ(b.probe.tcp_socket_list.at(0).port, 22);
  EXPECT_EQ(b.probe.http_get_list.at(0).path, "/healthz");
}

// Bad flows name the file, the JobFlow and the field.
TEST(JobFlowDecodeTest, Errors) {
  struct Case {
    std::string flows, retain, message;
  };
  const std::vector<Case> cases = {
      {"  - name: a\n    dependsOn: {targets: [x]}\n", "retain",
       "f.yaml:7: JobFlow default/f: spec.flows[0].dependsOn.targets[0]: jobflow Flow is not DAG: "
       "vertex is not defined: x"},
      {"  - name: a\n    dependsOn: {targets: [b]}\n  - name: b\n    dependsOn: {targets: [a]}\n",
       "retain", "f.yaml:7: JobFlow default/f: spec.flows: jobflow Flow is not DAG"},
      {"  - name: a\n    dependsOn: {targets: [a]}\n", "retain",
       "spec.flows: jobflow Flow is not DAG"},
      // The last entry of a name given twice is the one whose targets count.
      {"  - name: a\n  - name: b\n  - name: b\n    dependsOn: {targets: [z]}\n", "retain",
       "spec.flows[2].dependsOn.targets[0]: jobflow Flow is not DAG: vertex is not defined: z"},
      {"  - name: a\n", "keep", "spec.jobRetainPolicy: must be retain or delete"},
      {"  - {dependsOn: {targets: [a]}}\n", "retain", "spec.flows[0].name: missing"},
      {"  - name: a\n    dependsOn: {probe: {tcpSocketList: [{port: 70000}]}}\n", "retain",
       "spec.flows[0].dependsOn.probe.tcpSocketList[0].port: expected a port number"},
  };
  for (const Case& c : cases) {
    ClusterObjects objects;
    Status st = DecodeText(FlowYaml(c.flows, c.retain), "f.yaml", &objects);
    ASSERT_FALSE(st.ok()) << c.flows;
    EXPECT_NE(st.message().find(c.message), std::string::npos) << st.message();
  }
  // What Volcano's admission accepts decodes: a name given twice (its first
  // entry's unknown target is not looked at, as in Volcano), several flows
  // with one target, an empty flow list.
  for (const std::string& flows :
       {std::string("  - name: a\n  - name: a\n  - name: b\n    dependsOn: {targets: [a]}\n"),
        std::string("  - name: a\n  - name: b\n    dependsOn: {targets: [a]}\n  - name: c\n"
                    "    dependsOn: {targets: [a]}\n  - name: c\n    dependsOn: {targets: [b]}\n"),
        std::string("  - name: a\n  - name: b\n    dependsOn: {targets: [zz]}\n  - name: b\n"),
        std::string("    []\n")}) {
    ClusterObjects objects;
    EXPECT_OK(DecodeText(FlowYaml(flows), "f.yaml", &objects));
  }
  // A flow naming a template that is not in the input is refused at load.
  ClusterObjects objects;
  ASSERT_OK(DecodeText(FlowYaml("  - name: a\n  - name: d\n"), "f.yaml", &objects));
  ClusterState state;
  Status st = state.AddAll(std::move(objects));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(
                "f.yaml:7: JobFlow default/f: spec.flows[1].name: no JobTemplate default/d"),
            std::string::npos)
      << st.message();
}

// prepare -> train -> evaluate: each job is created only after the one it
// depends on completed; the flow goes Pending -> Running -> Succeed and lists
// every job Completed.
TEST(JobFlowControllerTest, ExampleRunsInDependencyOrder) {
  FlowRun run(LoadExampleFlow());
  run.Run(20);
  ASSERT_EQ(run.created.size(), 3u);
  ASSERT_EQ(run.completed.size(), 3u);
  EXPECT_EQ(run.created["data-pipeline-prepare"], 0);  // no targets: created at the first sync
  EXPECT_GE(run.created["data-pipeline-train"], run.completed["data-pipeline-prepare"]);
  EXPECT_GT(run.created["data-pipeline-train"], run.created["data-pipeline-prepare"]);
  EXPECT_GE(run.created["data-pipeline-evaluate"], run.completed["data-pipeline-train"]);
  EXPECT_GT(run.created["data-pipeline-evaluate"], run.created["data-pipeline-train"]);
  EXPECT_EQ(run.phases, (std::vector<std::string>{"Pending", "Running", "Succeed"}));
  const JobFlow& f = run.flow("default/data-pipeline");
  EXPECT_EQ(f.completed_jobs,
            (std::vector<std::string>{"data-pipeline-prepare", "data-pipeline-train",
                                      "data-pipeline-evaluate"}));
  ASSERT_EQ(f.job_status_list.size(), 3u);
  EXPECT_EQ(f.job_status_list[1].state, "Completed");
  // The created job carries Volcano's marker and the flow as its owner.
  const VcJob& train = run.state().jobs().at("default/data-pipeline-train");
  EXPECT_EQ(train.meta.labels.at("volcano.sh/createdByJobTemplate"), "default.train");
  EXPECT_EQ(train.meta.owner_references.at(0).kind, "JobFlow");
  // ... and its template's plugins: the svc objects exist for it.
  EXPECT_EQ(train.plugins.count("svc"), 1u);
}

// a, b -> c: c waits for both; a and b start together.
TEST(JobFlowControllerTest, JoinWaitsForEveryTarget) {
  ClusterObjects objects;
  ASSERT_OK(DecodeText(
      FlowYaml("  - name: a\n  - name: b\n  - name: c\n    dependsOn: {targets: [a, b]}\n",
               "retain", 3),
      "f.yaml", &objects));
  // b's pod runs longer than a's.
  objects.job_templates[1].tasks[0].template_meta.annotations["basalt.io/finish-after-steps"] = "6";
  FlowRun run(std::move(objects));
  run.Run(20);
  EXPECT_EQ(run.created["f-a"], 0);
  EXPECT_EQ(run.created["f-b"], 0);
  ASSERT_TRUE(run.completed.count("f-a") && run.completed.count("f-b") && run.created.count("f-c"));
  EXPECT_LT(run.completed["f-a"], run.completed["f-b"]);
  EXPECT_GE(run.created["f-c"], run.completed["f-b"]);
  EXPECT_EQ(run.flow("default/f").phase, "Succeed");
}

// A flow name given twice (Volcano admits it) is one job, listed once; as in
// Volcano the flow counts its entries, so it stays Running with every job
// Completed (3 jobs for 4 entries).
TEST(JobFlowControllerTest, DuplicateFlowNameIsOneJob) {
  ClusterObjects objects;
  ASSERT_OK(DecodeText(FlowYaml("  - name: a\n  - name: b\n    dependsOn: {targets: [a]}\n"
                                "  - name: c\n    dependsOn: {targets: [a]}\n"
                                "  - name: c\n    dependsOn: {targets: [b]}\n"),
                       "f.yaml", &objects));
  FlowRun run(std::move(objects));
  run.Run(20);
  EXPECT_EQ(run.completed.size(), 3u);
  const JobFlow& flow = run.flow("default/f");
  EXPECT_EQ(flow.completed_jobs, (std::vector<std::string>{"f-a", "f-b", "f-c"}));
  EXPECT_EQ(flow.job_status_list.size(), 3u);
  EXPECT_EQ(flow.phase, "Running");
}

// jobRetainPolicy delete: once the flow succeeded its jobs go (with their
// pods) and are not created again.
TEST(JobFlowControllerTest, DeletePolicyRemovesJobsAfterSuccess) {
  ClusterObjects objects;
  ASSERT_OK(DecodeText(
      FlowYaml("  - name: a\n  - name: b\n    dependsOn: {targets: [a]}\n  - name: c\n", "delete"),
      "f.yaml", &objects));
  FlowRun run(std::move(objects));
  run.Run(15);
  EXPECT_EQ(run.flow("default/f").phase, "Succeed");
  EXPECT_EQ(run.completed.size(), 3u);
  EXPECT_TRUE(run.state().jobs().empty());
  EXPECT_TRUE(run.state().pods().empty());
  EXPECT_EQ(run.flow("default/f").job_status_list.size(), 3u);  // the history stays
}

// A failed target blocks its dependents; the flow lists the job as failed.
TEST(JobFlowControllerTest, FailedTargetBlocksDependents) {
  ClusterObjects objects;
  ASSERT_OK(
      DecodeText(FlowYaml("  - name: a\n  - name: b\n    dependsOn: {targets: [a]}\n  - name: c\n"),
                 "f.yaml", &objects));
  auto& ann = objects.job_templates[0].tasks[0].template_meta.annotations;
  ann["basalt.io/finish-phase"] = "Failed";
  objects.job_templates[0].max_retry = 1;
  objects.job_templates[0].tasks[0].policies.push_back(
      {{"PodFailed"}, "AbortJob", std::nullopt, std::nullopt});
  FlowRun run(std::move(objects));
  run.Run(12);
  EXPECT_EQ(run.created.count("f-b"), 0u);
  const JobFlow& f = run.flow("default/f");
  // AbortJob leaves the job Aborted: Volcano lists that phase as unknown.
  EXPECT_EQ(f.unknown_jobs, std::vector<std::string>{"f-a"});
  EXPECT_EQ(f.completed_jobs, std::vector<std::string>{"f-c"});
}

// `basalt simulate` runs the flow's jobs in order on simulated time.
TEST(JobFlowSimulateTest, ExampleRunsInOrder) {
  auto scenario = LoadScenario(kExamples + "jobflow-simulate.yaml");
  ASSERT_OK(scenario);
  SimulatorOptions options;
  auto sim = Simulator::Create(*scenario, options);
  ASSERT_OK(sim);
  ASSERT_OK((*sim)->Run());
  const ClusterState& state = (*sim)->state();
  const JobFlow& f = state.job_flows().at("default/data-pipeline");
  EXPECT_EQ(f.phase, "Succeed");
  const VcJob& prepare = state.jobs().at("default/data-pipeline-prepare");
  const VcJob& train = state.jobs().at("default/data-pipeline-train");
  const VcJob& evaluate = state.jobs().at("default/data-pipeline-evaluate");
  for (const VcJob* j : {&prepare, &train, &evaluate})
    EXPECT_EQ(j->phase, "Completed") << j->meta.name;
  // Created one after the other, each at or after the previous one's completion.
  EXPECT_EQ(prepare.meta.creation_timestamp, 0);
  EXPECT_GE(train.meta.creation_timestamp, prepare.last_transition_time);
  EXPECT_GT(train.meta.creation_timestamp, prepare.meta.creation_timestamp);
  EXPECT_GE(evaluate.meta.creation_timestamp, train.last_transition_time);
  EXPECT_GT(evaluate.meta.creation_timestamp, train.meta.creation_timestamp);
}

}  // namespace
}  // namespace basalt
