// Admission (Volcano's webhooks, docs/validate.md) and `basalt validate`.
// Each invalid manifest asserts the exact field path and a message substring;
// most assert that the problem is the only one, so a check that fires too often
// fails as well as one that never fires.
#include "admission/admission.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/card_annotations.h"
#include "cli/validate.h"
#include "scratch_dir.h"
#include "testing.h"

namespace basalt {
namespace {

// ---- manifest builders ----

std::string Queue(const std::string& name, const std::string& spec = "{}",
                  const std::string& extra = "") {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: " + name +
         extra + "}\nspec: " + spec + "\n";
}

// A task with `replicas` pods of a one-container template. `fields` are extra
// task fields in flow style ("minAvailable: 2, policies: [...]").
std::string Task(const std::string& name, int replicas, const std::string& fields = "",
                 const std::string& template_meta = "") {
  return "  - {name: " + name + ", replicas: " + std::to_string(replicas) +
         (fields.empty() ? "" : ", " + fields) + ", template: {" +
         (template_meta.empty() ? "" : "metadata: " + template_meta + ", ") +
         "spec: {containers: [{name: c, image: busybox, resources: {requests: {cpu: 1}}}]}}}\n";
}

// A vcjob `ns/<name>` in queue `q1` unless `spec` names another queue.
std::string Job(const std::string& spec, const std::string& tasks, const std::string& name = "j1",
                const std::string& meta_extra = "") {
  return "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: " + name +
         ", namespace: ns" + meta_extra + "}\nspec:\n" + spec + "  tasks:\n" + tasks;
}

std::string Doc(const std::vector<std::string>& docs) {
  std::string out;
  for (const std::string& d : docs) out += "---\n" + d;
  return out;
}

std::vector<AdmissionProblem> Validate(const std::string& yaml) {
  ClusterObjects objs;
  Status st = DecodeText(yaml, "t.yaml", &objs);
  EXPECT_TRUE(st.ok()) << st.message();
  return ValidateObjects(objs);
}

std::string Dump(const std::vector<AdmissionProblem>& ps) {
  std::string out;
  for (const auto& p : ps) out += "  " + p.ToString() + "\n";
  return out.empty() ? "  (no problems)\n" : out;
}

bool Has(const std::vector<AdmissionProblem>& ps, const std::string& field,
         const std::string& substr) {
  for (const auto& p : ps) {
    if (p.field == field && p.message.find(substr) != std::string::npos) return true;
  }
  return false;
}

// Exactly one problem, at `field`, whose message contains `substr`.
void ExpectOnly(const std::string& yaml, const std::string& field, const std::string& substr) {
  std::vector<AdmissionProblem> ps = Validate(yaml);
  EXPECT_EQ(ps.size(), 1u) << Dump(ps);
  EXPECT_TRUE(Has(ps, field, substr)) << "want " << field << ": ..." << substr << "...\ngot:\n"
                                      << Dump(ps);
}

void ExpectValid(const std::string& yaml) {
  std::vector<AdmissionProblem> ps = Validate(yaml);
  EXPECT_TRUE(ps.empty()) << Dump(ps);
}

const std::string kQ1 = Queue("q1");
const std::string kInQ1 = "  queue: q1\n";

// ---- valid manifests ----

// The base job the invalid cases below start from is valid.
TEST(AdmissionValidTest, BaseJobIsValid) { ExpectValid(Doc({kQ1, Job(kInQ1, Task("worker", 2))})); }

// A realistic MPI job: master + workers, gang over all pods, job and task
// policies, an exitCode policy; submitted to the implicit `default` queue.
TEST(AdmissionValidTest, MpiJob) {
  std::string job =
      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: lm-mpi-job, namespace: "
      "team-a}\n"
      "spec:\n  minAvailable: 3\n  schedulerName: volcano\n  maxRetry: 5\n"
      "  plugins: {ssh: [], svc: []}\n"
      "  policies:\n  - {event: PodEvicted, action: RestartJob}\n  - {event: TaskFailed, action: "
      "AbortJob}\n"
      "  - {exitCode: 137, action: RestartJob}\n"
      "  tasks:\n"
      "  - replicas: 1\n    name: mpimaster\n    policies:\n    - {event: TaskCompleted, action: "
      "CompleteJob}\n"
      "    template:\n      spec:\n        containers:\n        - name: mpimaster\n          "
      "image: mpi:latest\n"
      "          resources: {requests: {cpu: 500m, memory: 1Gi}}\n"
      "  - replicas: 2\n    name: mpiworker\n    minAvailable: 2\n"
      "    policies:\n    - {events: [PodFailed, Unknown], action: RestartTask}\n"
      "    template:\n      spec:\n        containers:\n        - name: mpiworker\n          "
      "image: mpi:latest\n"
      "          resources: {requests: {cpu: 2, memory: 4Gi, nvidia.com/gpu: 1}}\n";
  ExpectValid(job);
}

// A hierarchical tree whose limits add up, a job in a leaf, a PodGroup in
// another leaf, and consistent hierarchy annotations.
TEST(AdmissionValidTest, HierarchicalQueueTree) {
  ExpectValid(Doc({
      Queue("root", "{capability: {cpu: 100, memory: 400Gi}}"),
      Queue("eng",
            "{parent: root, capability: {cpu: 60, memory: 200Gi}, deserved: {cpu: 40, memory: "
            "100Gi}, "
            "guarantee: {resource: {cpu: 10}}}"),
      Queue(
          "eng-a",
          "{parent: eng, capability: {cpu: 30, memory: 100Gi}, deserved: {cpu: 20, memory: 50Gi}, "
          "guarantee: {resource: {cpu: 5}}}",
          ", annotations: {volcano.sh/hierarchy: root/eng/a, volcano.sh/hierarchy-weights: "
          "1/2/1.5}"),
      Queue("eng-b",
            "{parent: eng, deserved: {cpu: 20, memory: 50Gi}, guarantee: {resource: {cpu: 5}}}",
            ", annotations: {volcano.sh/hierarchy: eng/b, volcano.sh/hierarchy-weights: 2/0.5}"),
      Queue("research", "{weight: 3}"),
      Job("  queue: eng-a\n", Task("worker", 2)),
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: pg, namespace: "
      "ns}\n"
      "spec: {minMember: 1, queue: eng-b}\n",
  }));
}

// Card annotations in every valid shape.
TEST(AdmissionValidTest, CardAnnotations) {
  ExpectValid(Doc({
      Queue("gpu", "{}",
            ", annotations: {volcano.sh/card.quota: '{\"NVIDIA-H200\": 3, "
            "\"NVIDIA-H200/mig-1g.18gb-mixed\": 0}'}"),
      Job("  queue: gpu\n",
          Task("infer", 2, "",
               "{annotations: {volcano.sh/card.name: "
               "'NVIDIA-GeForce-RTX-4090|NVIDIA-GeForce-RTX-4090-D'}}"),
          "j1",
          ", annotations: {volcano.sh/card.request: "
          "'{\"NVIDIA-GeForce-RTX-4090|NVIDIA-GeForce-RTX-4090-D\": 2}'}"),
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, annotations: "
      "{volcano.sh/card.name: NVIDIA-H200/mps-80g*1/4}}\nspec: {containers: [{name: c, image: "
      "x}]}\n",
  }));
}

// Unnamed tasks are named `default<i>` by Volcano's mutating webhook: not an error.
TEST(AdmissionValidTest, UnnamedTasksAreDefaulted) {
  ExpectValid(Doc({kQ1, Job(kInQ1, Task("\"\"", 1) + Task("\"\"", 1))}));
}

// ---- Job ----

TEST(AdmissionJobTest, NegativeMinAvailable) {
  ExpectOnly(Doc({kQ1, Job("  minAvailable: -1\n" + kInQ1, Task("worker", 2))}),
             "spec.minAvailable", "job 'minAvailable' must be >= 0.");
}

TEST(AdmissionJobTest, NegativeMaxRetry) {
  ExpectOnly(Doc({kQ1, Job("  maxRetry: -1\n" + kInQ1, Task("worker", 2))}), "spec.maxRetry",
             "'maxRetry' cannot be less than zero.");
}

// The decoder already refuses a job without tasks; admission still covers a
// job built in code.
TEST(AdmissionJobTest, NoTasks) {
  ClusterObjects objs;
  EXPECT_FALSE(DecodeText(Doc({Job(kInQ1, "")}), "t.yaml", &objs).ok());
  VcJob job;
  job.meta.name = "j1";
  job.meta.namespace_ = "ns";
  job.meta.source = "t.yaml:1";
  objs.jobs = {job};
  std::vector<AdmissionProblem> ps = ValidateObjects(objs);
  ASSERT_EQ(ps.size(), 1u) << Dump(ps);
  EXPECT_EQ(ps[0].ToString(), "t.yaml:1: Job ns/j1: spec.tasks: No task specified in job spec");
}

// spec.volumes, as Volcano's webhook checks them (the jobp e2e specs
// "invalid volume mount", "duplicate mount volume", "volume without
// volumeClaimName and volumeClaim").
TEST(AdmissionJobTest, VolumeWithoutMountPath) {
  ExpectOnly(Doc({kQ1, Job(kInQ1 + "  volumes: [{mountPath: \"\", volumeClaimName: c1}]\n",
                           Task("worker", 2))}),
             "spec.volumes[0].mountPath", "mountPath is required");
}

TEST(AdmissionJobTest, DuplicateMountPath) {
  ExpectOnly(Doc({kQ1, Job(kInQ1 + "  volumes: [{mountPath: /var, volumeClaimName: a}, "
                                   "{mountPath: /var, volumeClaimName: b}]\n",
                           Task("worker", 2))}),
             "spec.volumes[1].mountPath", "duplicated mountPath: /var");
}

TEST(AdmissionJobTest, VolumeWithoutClaim) {
  ExpectOnly(Doc({kQ1, Job(kInQ1 + "  volumes: [{mountPath: /data}]\n", Task("worker", 2))}),
             "spec.volumes[0]", "either VolumeClaim or VolumeClaimName must be specified");
}

TEST(AdmissionJobTest, VolumeClaimAndClaimNameConflict) {
  ExpectOnly(Doc({kQ1, Job(kInQ1 + "  volumes: [{mountPath: /data, volumeClaimName: c1, "
                                   "volumeClaim: {accessModes: [ReadWriteOnce]}}]\n",
                           Task("worker", 2))}),
             "spec.volumes[0].volumeClaimName", "conflict: If you want to use an existing PVC");
}

TEST(AdmissionJobTest, InvalidVolumeClaimName) {
  ExpectOnly(Doc({kQ1, Job(kInQ1 + "  volumes: [{mountPath: /data, volumeClaimName: Bad_Name}]\n",
                           Task("worker", 2))}),
             "spec.volumes[0].volumeClaimName", "invalid VolumeClaimName Bad_Name : ");
}

TEST(AdmissionValidTest, JobVolumes) {
  ExpectValid(
      Doc({kQ1, Job(kInQ1 + "  volumes: [{mountPath: /data, volumeClaimName: c1}, "
                            "{mountPath: /scratch, volumeClaim: {accessModes: [ReadWriteOnce]}}]\n",
                    Task("worker", 2))}));
}

TEST(AdmissionJobTest, NegativeReplicas) {
  ExpectOnly(Doc({kQ1, Job(kInQ1, Task("a", 2) + Task("b", -1))}), "spec.tasks[1].replicas",
             "'replicas' < 0 in task: b, job: j1");
}

TEST(AdmissionJobTest, NegativeTaskMinAvailable) {
  ExpectOnly(Doc({kQ1, Job(kInQ1, Task("a", 2, "minAvailable: -1"))}), "spec.tasks[0].minAvailable",
             "'minAvailable' < 0 in task: a");
}

TEST(AdmissionJobTest, TaskMinAvailableAboveReplicas) {
  ExpectOnly(Doc({kQ1, Job(kInQ1, Task("a", 2, "minAvailable: 3"))}), "spec.tasks[0].minAvailable",
             "'minAvailable' is greater than 'replicas' in task: a, job: j1");
}

TEST(AdmissionJobTest, TaskNameNotLowercase) {
  ExpectOnly(Doc({kQ1, Job(kInQ1, Task("Worker", 1))}), "spec.tasks[0].name",
             "task name \"Worker\": a lowercase RFC 1123 label must consist of");
}

TEST(AdmissionJobTest, TaskNameEndsWithDash) {
  ExpectOnly(Doc({kQ1, Job(kInQ1, Task("worker-", 1))}), "spec.tasks[0].name", "RFC 1123 label");
}

TEST(AdmissionJobTest, TaskNameTooLong) {
  ExpectOnly(Doc({kQ1, Job(kInQ1, Task(std::string(64, 'a'), 1))}), "spec.tasks[0].name",
             "must be no more than 63 characters");
}

TEST(AdmissionJobTest, DuplicateTaskName) {
  ExpectOnly(Doc({kQ1, Job(kInQ1, Task("w", 1) + Task("m", 1) + Task("w", 1))}),
             "spec.tasks[2].name", "duplicated task name w");
}

// The defaulted name takes part in the duplicate check.
TEST(AdmissionJobTest, DefaultedNameCollides) {
  ExpectOnly(Doc({kQ1, Job(kInQ1, Task("\"\"", 1) + Task("default0", 1))}), "spec.tasks[1].name",
             "duplicated task name default0");
}

// Volcano checks generated pod names as qualified names: at most 63 characters.
TEST(AdmissionJobTest, GeneratedPodNameTooLong) {
  std::string job_name(40, 'j');
  // 40 + "-" + 22 + "-9" = 65 characters; the name of pod 0 would also be too long.
  ExpectOnly(Doc({kQ1, Job(kInQ1, Task(std::string(22, 't'), 10), job_name)}), "spec.tasks[0].name",
             "create pod with name " + job_name + "-" + std::string(22, 't') +
                 "-9 validate failed: must be no more "
                 "than 63 characters");
}

TEST(AdmissionJobTest, JobNameNotDnsSubdomain) {
  ExpectOnly(Doc({kQ1, Job(kInQ1, Task("w", 1), "My_Job")}), "metadata.name",
             "create job with name My_Job validate failed: a lowercase RFC 1123 subdomain");
}

TEST(AdmissionJobTest, MinAvailableAboveTotalReplicas) {
  ExpectOnly(Doc({kQ1, Job("  minAvailable: 4\n" + kInQ1, Task("a", 1) + Task("b", 2))}),
             "spec.minAvailable",
             "job 'minAvailable' should not be greater than total replicas in tasks");
}

// ---- lifecycle policies ----

std::string JobWithPolicies(const std::string& policies) {
  return Doc({kQ1, Job(kInQ1 + "  policies:\n" + policies, Task("w", 1))});
}

TEST(AdmissionPolicyTest, EventAndExitCode) {
  ExpectOnly(JobWithPolicies("  - {event: PodFailed, exitCode: 3, action: RestartJob}\n"),
             "spec.policies[0]", "must not specify event and exitCode simultaneously");
}

TEST(AdmissionPolicyTest, NeitherEventNorExitCode) {
  ExpectOnly(JobWithPolicies("  - {action: RestartJob}\n"), "spec.policies[0]",
             "either event and exitCode should be specified");
}

TEST(AdmissionPolicyTest, UnknownEvent) {
  ExpectOnly(JobWithPolicies("  - {event: PodRunning, action: RestartJob}\n"),
             "spec.policies[0].event", "invalid policy event \"PodRunning\"");
}

// Internal events (OutOfSync, CommandIssued) cannot be used in a policy.
TEST(AdmissionPolicyTest, InternalEvent) {
  ExpectOnly(JobWithPolicies("  - {event: OutOfSync, action: RestartJob}\n"),
             "spec.policies[0].event", "invalid policy event \"OutOfSync\"");
}

TEST(AdmissionPolicyTest, UnknownEventInEventsList) {
  ExpectOnly(JobWithPolicies("  - {events: [PodFailed, Bogus], action: RestartJob}\n"),
             "spec.policies[0].events", "invalid policy event \"Bogus\"");
}

TEST(AdmissionPolicyTest, UnknownAction) {
  ExpectOnly(JobWithPolicies("  - {event: PodFailed, action: Restart}\n"),
             "spec.policies[0].action", "invalid policy action \"Restart\"");
}

// Internal actions (SyncJob, EnqueueJob, queue actions) cannot be used in a policy.
TEST(AdmissionPolicyTest, InternalAction) {
  ExpectOnly(JobWithPolicies("  - {event: PodFailed, action: SyncJob}\n"),
             "spec.policies[0].action", "invalid policy action \"SyncJob\"");
}

TEST(AdmissionPolicyTest, MissingAction) {
  ExpectOnly(JobWithPolicies("  - {event: PodFailed}\n"), "spec.policies[0].action",
             "invalid policy action \"\" (missing)");
}

TEST(AdmissionPolicyTest, DuplicateEvent) {
  ExpectOnly(JobWithPolicies("  - {event: PodEvicted, action: RestartJob}\n"
                             "  - {events: [PodFailed, PodEvicted], action: AbortJob}\n"),
             "spec.policies[1].events",
             "duplicate event PodEvicted across different policies (also in spec.policies[0])");
}

// Repeating an event inside one policy is harmless (Volcano de-duplicates it).
TEST(AdmissionPolicyTest, RepeatedEventInOnePolicyIsFine) {
  ExpectValid(JobWithPolicies("  - {event: PodFailed, events: [PodFailed], action: AbortJob}\n"));
}

TEST(AdmissionPolicyTest, ExitCodeZero) {
  ExpectOnly(JobWithPolicies("  - {exitCode: 0, action: RestartJob}\n"),
             "spec.policies[0].exitCode", "0 is not a valid error code");
}

TEST(AdmissionPolicyTest, DuplicateExitCode) {
  ExpectOnly(JobWithPolicies(
                 "  - {exitCode: 3, action: RestartJob}\n  - {exitCode: 3, action: AbortJob}\n"),
             "spec.policies[1].exitCode", "duplicate exitCode 3");
}

TEST(AdmissionPolicyTest, AnyEventWithOthers) {
  ExpectOnly(
      JobWithPolicies(
          "  - {event: \"*\", action: AbortJob}\n  - {event: PodFailed, action: RestartJob}\n"),
      "spec.policies[0].event", "if there's * here, no other policy should be here");
}

// `*` next to an exitCode policy is allowed: exit codes are not events.
TEST(AdmissionPolicyTest, AnyEventWithExitCodeIsFine) {
  ExpectValid(JobWithPolicies(
      "  - {event: \"*\", action: AbortJob}\n  - {exitCode: 1, action: RestartJob}\n"));
}

// Task policies are checked per task, with the task's path.
TEST(AdmissionPolicyTest, TaskLevelPolicy) {
  ExpectOnly(
      Doc({kQ1,
           Job(kInQ1, Task("a", 1) +
                          Task("b", 1, "policies: [{event: PodFialed, action: RestartTask}]"))}),
      "spec.tasks[1].policies[0].event", "invalid policy event \"PodFialed\"");
}

// Job and task lists are separate: the same event in both is allowed.
TEST(AdmissionPolicyTest, SameEventInJobAndTaskIsFine) {
  ExpectValid(
      Doc({kQ1, Job(kInQ1 + "  policies: [{event: PodEvicted, action: RestartJob}]\n",
                    Task("a", 1, "policies: [{event: PodEvicted, action: RestartTask}]"))}));
}

// ---- the job's queue ----

TEST(AdmissionJobQueueTest, QueueNotFound) {
  ExpectOnly(Doc({kQ1, Job("  queue: q2\n", Task("w", 1))}), "spec.queue",
             "unable to find job queue: queue.scheduling.volcano.sh \"q2\" not found");
}

TEST(AdmissionJobQueueTest, QueueClosed) {
  ExpectOnly(Doc({Queue("q1", "{}") + "status: {state: Closed}\n", Job(kInQ1, Task("w", 1))}),
             "spec.queue",
             "can only submit job to queue with state `Open`, queue `q1` status is `Closed`");
}

// No queue means `default`; a given `default` that is closed refuses the job.
TEST(AdmissionJobQueueTest, DefaultQueueClosed) {
  ExpectOnly(Doc({Queue("default", "{}") + "status: {state: Closed}\n", Job("", Task("w", 1))}),
             "spec.queue", "queue `default` status is `Closed`");
}

TEST(AdmissionJobQueueTest, RootQueue) {
  ExpectOnly(Doc({Job("  queue: root\n", Task("w", 1))}), "spec.queue",
             "can not submit job to root queue");
}

TEST(AdmissionJobQueueTest, NonLeafQueue) {
  ExpectOnly(Doc({Queue("eng", "{}"), Queue("eng-a", "{parent: eng}"),
                  Queue("eng-b", "{parent: eng}"), Job("  queue: eng\n", Task("w", 1))}),
             "spec.queue", "can only submit job to leaf queue, queue `eng` has 2 child queues");
}

// ---- Queue ----

TEST(AdmissionQueueTest, StateClosingRefused) {
  ExpectOnly(Queue("q1") + "status: {state: Closing}\n", "status.state",
             "queue state must be in [Open Closed]");
}

// The decoder refuses a negative weight (and turns 0 into 1, as the mutating
// webhook does); admission still guards a queue built in code.
TEST(AdmissionQueueTest, NonPositiveWeight) {
  ClusterObjects objs;
  Status st = DecodeText(Queue("q1", "{weight: -2}"), "t.yaml", &objs);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("spec.weight"), std::string::npos) << st.message();
  ASSERT_TRUE(DecodeText(Queue("q1", "{weight: 0}"), "t.yaml", &objs).ok());
  EXPECT_EQ(objs.queues.at(0).weight, 1);
  objs.queues[0].weight = -2;
  std::vector<AdmissionProblem> ps = ValidateObjects(objs);
  ASSERT_EQ(ps.size(), 1u) << Dump(ps);
  EXPECT_EQ(ps[0].ToString(),
            "t.yaml:1: Queue q1: spec.weight: queue weight must be a positive integer, got -2");
}

// Volcano v1.15.1's words: guarantee <= deserved, deserved <= capability.
TEST(AdmissionQueueTest, DeservedAboveCapability) {
  ExpectOnly(Queue("q1", "{capability: {cpu: 4, memory: 8Gi}, deserved: {cpu: 6, memory: 8Gi}}"),
             "spec.deserved.cpu", "deserved[cpu]=6 must be <= capability[cpu]=4");
}

// Volcano does not compare guarantee with capability: a guarantee above the
// capability is refused only through its deserved.
TEST(AdmissionQueueTest, GuaranteeAboveCapabilityNeedsDeserved) {
  ExpectOnly(
      Queue("q1", "{capability: {cpu: 4, memory: 8Gi}, guarantee: {resource: {memory: 16Gi}}}"),
      "spec.deserved.memory", "deserved[memory] must be >= guarantee[memory]=16Gi");
  ExpectValid(Queue("q1",
                    "{capability: {cpu: 4}, deserved: {memory: 16Gi}, guarantee: {resource: "
                    "{memory: 16Gi}}}"));
}

TEST(AdmissionQueueTest, GuaranteeAboveDeserved) {
  ExpectOnly(Queue("q1",
                   "{deserved: {cpu: 4, nvidia.com/gpu: 2}, guarantee: {resource: {cpu: 2, "
                   "nvidia.com/gpu: 4}}}"),
             "spec.deserved.nvidia.com/gpu",
             "deserved[nvidia.com/gpu]=2 must be >= guarantee[nvidia.com/gpu]=4");
}

// A guarantee alone is refused: each guaranteed resource needs a deserved.
TEST(AdmissionQueueTest, GuaranteeOnlyRefused) {
  std::vector<AdmissionProblem> ps =
      Validate(Queue("q1", "{guarantee: {resource: {cpu: 2, memory: 1Gi}}}"));
  ASSERT_EQ(ps.size(), 2u) << Dump(ps);
  EXPECT_EQ(ps[0].ToString(),
            "t.yaml:1: Queue q1: spec.deserved.cpu: deserved[cpu] must be >= guarantee[cpu]=2");
  EXPECT_EQ(ps[1].ToString(),
            "t.yaml:1: Queue q1: spec.deserved.memory: deserved[memory] must be >= "
            "guarantee[memory]=1Gi");
}

// A resource missing from capability is unlimited, cpu and memory included.
TEST(AdmissionQueueTest, ResourceMissingFromCapabilityIsUnlimited) {
  ExpectValid(
      Queue("q1", "{capability: {nvidia.com/gpu: 8}, deserved: {cpu: 2, nvidia.com/gpu: 4}}"));
  ExpectValid(
      Queue("q1", "{capability: {cpu: 8, memory: 8Gi}, deserved: {cpu: 2, nvidia.com/gpu: 4}}"));
}

// Quantities are printed as Kubernetes prints them.
TEST(AdmissionQueueTest, QuantitiesInCanonicalForm) {
  ExpectOnly(Queue("q1", "{capability: {memory: 1Gi}, deserved: {memory: 1536Mi}}"),
             "spec.deserved.memory", "deserved[memory]=1536Mi must be <= capability[memory]=1Gi");
  ExpectOnly(Queue("q1", "{capability: {cpu: 500m}, deserved: {cpu: 1500m}}"), "spec.deserved.cpu",
             "deserved[cpu]=1500m must be <= capability[cpu]=500m");
}

// The parent must exist (the first missing ancestor is named).
TEST(AdmissionQueueTest, ParentNotFound) {
  ExpectOnly(Queue("c", "{parent: p}"), "spec.parent",
             "failed to get parent queue p of queue c: queue.scheduling.volcano.sh \"p\" not "
             "found");
}

TEST(AdmissionQueueTest, OwnParent) {
  ExpectOnly(Queue("c", "{parent: c}"), "spec.parent", "queue c cannot use itself as parent");
}

// A cycle among the ancestors never reaches root: the depth limit refuses it.
TEST(AdmissionQueueTest, ParentCycleExceedsDepth) {
  std::vector<AdmissionProblem> ps =
      Validate(Doc({Queue("a", "{parent: b}"), Queue("b", "{parent: c}"), Queue("c", "{parent: a}"),
                    Queue("d", "{parent: a}")}));
  ASSERT_EQ(ps.size(), 4u) << Dump(ps);
  EXPECT_EQ(ps[0].ToString(),
            "t.yaml:2: Queue a: spec.parent: queue a exceeds the maximum allowed depth of 5");
  EXPECT_EQ(ps[3].ToString(),
            "t.yaml:17: Queue d: spec.parent: queue d exceeds the maximum allowed depth of 5");
}

// Five levels below root are allowed, six are not.
TEST(AdmissionQueueTest, MaximumDepth) {
  std::vector<std::string> docs = {Queue("l1", "{}")};
  for (int i = 2; i <= 5; ++i)
    docs.push_back(Queue("l" + std::to_string(i), "{parent: l" + std::to_string(i - 1) + "}"));
  ExpectValid(Doc(docs));
  docs.push_back(Queue("l6", "{parent: l5}"));
  ExpectOnly(Doc(docs), "spec.parent", "queue l6 exceeds the maximum allowed depth of 5");
}

TEST(AdmissionQueueTest, ChildCapabilityAboveParent) {
  std::vector<AdmissionProblem> ps =
      Validate(Doc({Queue("p", "{capability: {cpu: 4, memory: 8Gi}}"),
                    Queue("c", "{parent: p, capability: {cpu: 8}}")}));
  ASSERT_EQ(ps.size(), 2u) << Dump(ps);
  EXPECT_EQ(ps[0].ToString(),
            "t.yaml:2: Queue p: spec.capability.cpu: queue p capability[cpu]=4 is smaller than "
            "its descendants' max capability=8");
  EXPECT_EQ(ps[1].ToString(),
            "t.yaml:7: Queue c: spec.capability.cpu: queue c capability[cpu]=8 exceeds its "
            "ancestor's capability=4");
}

// A resource the parent leaves out is bounded by the nearest ancestor that
// sets it; scalars are printed in Volcano's milli-units.
TEST(AdmissionQueueTest, ChildCapabilityAboveNearestAncestor) {
  std::vector<AdmissionProblem> ps =
      Validate(Doc({Queue("gp", "{capability: {nvidia.com/gpu: 4, cpu: 100}}"),
                    Queue("p", "{parent: gp, capability: {memory: 8Gi}}"),
                    Queue("c", "{parent: p, capability: {nvidia.com/gpu: 8}}")}));
  ASSERT_EQ(ps.size(), 2u) << Dump(ps);
  EXPECT_EQ(ps[0].ToString(),
            "t.yaml:2: Queue gp: spec.capability.nvidia.com/gpu: queue gp "
            "capability[nvidia.com/gpu]=4000.00 is smaller than its descendants' max "
            "capability=8000.00");
  EXPECT_EQ(ps[1].ToString(),
            "t.yaml:12: Queue c: spec.capability.nvidia.com/gpu: queue c "
            "capability[nvidia.com/gpu]=8000.00 exceeds its ancestor's capability=4000.00");
}

// The siblings' sums against the parent's own deserved (and guarantee),
// reported on each child and on the parent, in Volcano's Resource form.
TEST(AdmissionQueueTest, ChildrenDeservedAboveParent) {
  std::vector<AdmissionProblem> ps = Validate(
      Doc({Queue("p", "{deserved: {cpu: 10}}"), Queue("c1", "{parent: p, deserved: {cpu: 6}}"),
           Queue("c2", "{parent: p, deserved: {cpu: 6}}")}));
  ASSERT_EQ(ps.size(), 3u) << Dump(ps);
  EXPECT_EQ(ps[0].ToString(),
            "t.yaml:2: Queue p: spec.deserved: queue p validation failed: sum of children's "
            "deserved (cpu 12000.00, memory 0.00) exceeds parent's deserved limit (cpu 10000.00, "
            "memory 0.00)");
  EXPECT_EQ(ps[1].ToString(),
            "t.yaml:7: Queue c1: spec.deserved: parent queue p validation failed: sum of "
            "children's deserved (cpu 12000.00, memory 0.00) exceeds parent's deserved limit (cpu "
            "10000.00, memory 0.00)");
}

// A parent without a guarantee of its own allows its children none (as
// Volcano: the missing limit is zero).
TEST(AdmissionQueueTest, ChildGuaranteeNeedsParentGuarantee) {
  std::vector<AdmissionProblem> ps = Validate(
      Doc({Queue("p", "{capability: {cpu: 10, memory: 64Gi}, deserved: {cpu: 10}}"),
           Queue("c1", "{parent: p, deserved: {cpu: 1}, guarantee: {resource: {cpu: 1}}}")}));
  ASSERT_EQ(ps.size(), 2u) << Dump(ps);
  EXPECT_TRUE(Has(ps, "spec.guarantee.resource",
                  "parent queue p validation failed: sum of children's guarantee (cpu 1000.00, "
                  "memory 0.00) exceeds parent's guarantee limit (cpu 0.00, memory 0.00)"))
      << Dump(ps);
}

// `root` is not checked against its children (nor are they against it).
TEST(AdmissionQueueTest, RootIsNotAHierarchyLimit) {
  ExpectValid(Doc({Queue("root", "{deserved: {cpu: 10}}"), Queue("a", "{deserved: {cpu: 8}}"),
                   Queue("b", "{parent: root, deserved: {cpu: 8}}")}));
}

TEST(AdmissionQueueTest, HierarchyLengthMismatch) {
  ExpectOnly(
      Queue("q1", "{}",
            ", annotations: {volcano.sh/hierarchy: root/eng/a, volcano.sh/hierarchy-weights: 1/2}"),
      "metadata.annotations[volcano.sh/hierarchy]",
      "volcano.sh/hierarchy must have the same length with volcano.sh/hierarchy-weights");
}

TEST(AdmissionQueueTest, HierarchyWeightNotPositive) {
  ExpectOnly(
      Queue("q1", "{}",
            ", annotations: {volcano.sh/hierarchy: root/a, volcano.sh/hierarchy-weights: 1/-2}"),
      "metadata.annotations[volcano.sh/hierarchy-weights]", "-2 in the 1/-2 must be larger than 0");
}

TEST(AdmissionQueueTest, HierarchyWeightNotANumber) {
  ExpectOnly(
      Queue("q1", "{}",
            ", annotations: {volcano.sh/hierarchy: root/a, volcano.sh/hierarchy-weights: 1/x2}"),
      "metadata.annotations[volcano.sh/hierarchy-weights]",
      "x2 in the 1/x2 is invalid number: strconv.ParseFloat: parsing \"x2\": invalid syntax");
}

TEST(AdmissionQueueTest, HierarchySubPath) {
  ExpectOnly(
      Doc({Queue("sci", "{}",
                 ", annotations: {volcano.sh/hierarchy: sci, volcano.sh/hierarchy-weights: '1'}"),
           Queue("dev", "{}",
                 ", annotations: {volcano.sh/hierarchy: root/sci/dev, "
                 "volcano.sh/hierarchy-weights: 1/1/1}")}),
      "metadata.annotations[volcano.sh/hierarchy]",
      "root/sci is not allowed to be in the sub path of root/sci/dev of queue dev");
}

// ---- HyperNode, JobFlow and CronJob ----

TEST(AdmissionHyperNodeTest, NoMembersRefused) {
  ExpectOnly(
      "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: h}\n"
      "spec: {tier: 1}\n",
      "spec.members", "member must have at least one member");
  ExpectOnly(
      "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: h}\n"
      "spec: {tier: 1, members: []}\n",
      "spec.members", "member must have at least one member");
}

std::string CronJobDoc(const std::string& name, const std::string& spec) {
  return "apiVersion: batch.volcano.sh/v1alpha1\nkind: CronJob\nmetadata: {name: " + name +
         ", namespace: ns}\nspec:\n" + spec + "  jobTemplate:\n    spec:\n      tasks:\n      " +
         Task("w", 1);
}

TEST(AdmissionCronJobTest, ScheduleTimeZoneAndName) {
  ExpectValid(CronJobDoc("c", "  schedule: '*/5 * * * *'\n  timeZone: Europe/Berlin\n"));
  ExpectOnly(CronJobDoc("c", "  schedule: '0 25 * * *'\n"), "spec.schedule",
             "schedule is not a valid cron expression");
  ExpectOnly(CronJobDoc("c", "  schedule: 'CRON_TZ=UTC 0 * * * *'\n"), "spec.schedule",
             "schedule should not contain TZ or CRON_TZ, TZ should only be set in the timeZone "
             "field");
  ExpectOnly(CronJobDoc("c", "  schedule: '@daily'\n  timeZone: Local\n"), "spec.timeZone",
             "timeZone can't be Local, and must be defined in https://www.iana.org/time-zones");
  ExpectOnly(CronJobDoc("c", "  schedule: '@daily'\n  timeZone: Nowhere/Atlantis\n"),
             "spec.timeZone", "invalid timeZone");
  ExpectOnly(CronJobDoc(std::string(53, 'x'), "  schedule: '@daily'\n"), "metadata.name",
             "cronJob name must be no more than 52 characters to accommodate job name suffix "
             "(max 63 total)");
}

TEST(AdmissionQueueTest, DuplicateQueue) {
  ExpectOnly(Doc({kQ1, kQ1}), "metadata.name",
             "duplicate Queue \"q1\": already defined at t.yaml:2");
}

// ---- PodGroup and Pod ----

std::string PodGroupIn(const std::string& spec, const std::string& meta_extra = "") {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: pg, "
         "namespace: ns" +
         meta_extra + "}\nspec: " + spec + "\n";
}

TEST(AdmissionPodGroupTest, QueueNotFound) {
  ExpectOnly(PodGroupIn("{minMember: 1, queue: nope}"), "spec.queue",
             "unable to find queue: queue.scheduling.volcano.sh \"nope\" not found");
}

TEST(AdmissionPodGroupTest, QueueClosed) {
  ExpectOnly(
      Doc({Queue("q1") + "status: {state: Closed}\n", PodGroupIn("{minMember: 1, queue: q1}")}),
      "spec.queue",
      "can only submit PodGroup to queue with state `Open`, queue `q1` status is `Closed`");
}

// The decoder refuses a negative minMember; admission guards objects built in code.
TEST(AdmissionPodGroupTest, NegativeMinMember) {
  ClusterObjects objs;
  EXPECT_FALSE(DecodeText(PodGroupIn("{minMember: -1}"), "t.yaml", &objs).ok());
  ASSERT_TRUE(DecodeText(PodGroupIn("{minMember: 1}"), "t.yaml", &objs).ok());
  objs.podgroups[0].min_member = -1;
  std::vector<AdmissionProblem> ps = ValidateObjects(objs);
  ASSERT_EQ(ps.size(), 1u) << Dump(ps);
  EXPECT_EQ(ps[0].ToString(), "t.yaml:1: PodGroup ns/pg: spec.minMember: 'minMember' must be >= 0");
}

// ---- capacity-card annotations ----

std::string QuotaQueue(const std::string& quota) {
  return Queue("gpu", "{}", ", annotations: {volcano.sh/card.quota: '" + quota + "'}");
}
const char kQuotaField[] = "metadata.annotations[volcano.sh/card.quota]";
const char kRequestField[] = "metadata.annotations[volcano.sh/card.request]";

TEST(AdmissionCardTest, QuotaNotJson) {
  ExpectOnly(QuotaQueue("{NVIDIA-H200: 3}"), kQuotaField,
             "not valid JSON: parse error at line 1, column 2");
}

TEST(AdmissionCardTest, QuotaNotAnObject) {
  ExpectOnly(QuotaQueue("[3]"), kQuotaField, "expected a JSON object of model -> card count");
}

TEST(AdmissionCardTest, QuotaNegative) {
  ExpectOnly(QuotaQueue("{\"NVIDIA-H200\": -1}"), kQuotaField,
             "\"NVIDIA-H200\": count must be a non-negative integer, got -1");
}

TEST(AdmissionCardTest, QuotaFractional) {
  ExpectOnly(QuotaQueue("{\"NVIDIA-H200\": 1.5}"), kQuotaField,
             "count must be a non-negative integer, got 1.5");
}

TEST(AdmissionCardTest, QuotaCountAsString) {
  ExpectOnly(QuotaQueue("{\"NVIDIA-H200\": \"3\"}"), kQuotaField, "got the string \"3\"");
}

TEST(AdmissionCardTest, QuotaAlternatives) {
  ExpectOnly(QuotaQueue("{\"A|B\": 3}"), kQuotaField,
             "\"A|B\": a quota names one model, not alternatives");
}

TEST(AdmissionCardTest, QuotaDuplicateModel) {
  ExpectOnly(QuotaQueue("{\"A\": 1, \"A\": 2}"), kQuotaField, "duplicate key \"A\"");
}

std::string RequestJob(const std::string& request) {
  return Doc({kQ1, Job(kInQ1, Task("w", 1), "j1",
                       ", annotations: {volcano.sh/card.request: '" + request + "'}")});
}

TEST(AdmissionCardTest, RequestZero) {
  ExpectOnly(RequestJob("{\"NVIDIA-H200\": 0}"), kRequestField,
             "count must be a positive integer, got 0");
}

TEST(AdmissionCardTest, RequestEmptyAlternative) {
  ExpectOnly(RequestJob("{\"NVIDIA-A|\": 2}"), kRequestField,
             "alternative 2 of \"NVIDIA-A|\" is empty");
}

TEST(AdmissionCardTest, RequestModelTwice) {
  ExpectOnly(RequestJob("{\"A|B\": 1, \"B\": 1}"), kRequestField,
             "\"B\": model \"B\" is already named by another key");
}

TEST(AdmissionCardTest, PodGroupRequest) {
  ExpectOnly(
      PodGroupIn("{minMember: 1}", ", annotations: {volcano.sh/card.request: '{\"A\": true}'}"),
      kRequestField, "count must be a positive integer, got a boolean");
}

TEST(AdmissionCardTest, TemplateCardNameEmptyAlternative) {
  ExpectOnly(
      Doc({kQ1, Job(kInQ1, Task("w", 1, "", "{annotations: {volcano.sh/card.name: 'A||B'}}"))}),
      "spec.tasks[0].template.metadata.annotations[volcano.sh/card.name]",
      "alternative 2 of \"A||B\" is empty");
}

TEST(AdmissionCardTest, PodCardNameEmpty) {
  ExpectOnly(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, annotations: "
      "{volcano.sh/card.name: ''}}\n"
      "spec: {containers: [{name: c, image: x}]}\n",
      "metadata.annotations[volcano.sh/card.name]", "empty value");
}

TEST(AdmissionCardTest, PodCardNameWithSpaces) {
  ExpectOnly(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, annotations: "
      "{volcano.sh/card.name: 'A | B'}}\n"
      "spec: {containers: [{name: c, image: x}]}\n",
      "metadata.annotations[volcano.sh/card.name]", "model \"A \" contains whitespace");
}

TEST(AdmissionCardTest, PodCardNameMixingResources) {
  ExpectOnly(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, annotations: "
      "{volcano.sh/card.name: 'NVIDIA-A100|NVIDIA-H200/mig-1g.18gb-mixed'}}\n"
      "spec: {containers: [{name: c, image: x}]}\n",
      "metadata.annotations[volcano.sh/card.name]",
      "mix Kubernetes resources: \"NVIDIA-A100\" uses a whole-card resource, "
      "\"NVIDIA-H200/mig-1g.18gb-mixed\" uses nvidia.com/mig-1g.18gb");
}

// The parsers return what the capacity-card plugin needs.
TEST(AdmissionCardTest, ParsersReturnValues) {
  Result<std::map<std::string, int64_t>> quota =
      ParseCardQuota("{\"NVIDIA-H200\": 3, \"NVIDIA-A100\": 0}");
  ASSERT_OK(quota);
  EXPECT_EQ(*quota, (std::map<std::string, int64_t>{{"NVIDIA-A100", 0}, {"NVIDIA-H200", 3}}));
  Result<std::vector<CardRequestEntry>> req = ParseCardRequest("{\"B|A\": 2, \"C\": 1}");
  ASSERT_OK(req);
  ASSERT_EQ(req->size(), 2u);
  EXPECT_EQ((*req)[0], CardRequestEntry({"B", "A"}, 2));  // input order kept, preference order kept
  EXPECT_EQ((*req)[1], CardRequestEntry({"C"}, 1));
  Result<std::vector<std::string>> name = ParseCardName("X|Y|Z");
  ASSERT_OK(name);
  EXPECT_EQ(*name, (std::vector<std::string>{"X", "Y", "Z"}));
  EXPECT_FALSE(ParseCardName("X|Y|X").ok());
  EXPECT_FALSE(ParseCardQuota("{\"A\": 99999999999999999999}").ok());
}

// Hostile values are refused with a message, never a crash.
TEST(AdmissionCardTest, HostileValues) {
  const std::string hostile[] = {
      std::string(100000, '['),
      std::string(100000, '{'),
      "{\"a\": " + std::string(50000, '[') + "}",
      std::string("{\"\xff\xfe\": 1}"),
      std::string("{\"A\": 1}\0garbage", 16),
      "{\"A\": 1} {\"B\": 2}",
      "{\"\": 1}",
      "{\"A\\u0000\": 1}",
      "{\"A\": 1e400}",
      "{\"A\": -0}",
      "null",
      "",
      "   ",
  };
  for (const std::string& text : hostile) {
    EXPECT_FALSE(ParseCardQuota(text).ok() && ParseCardRequest(text).ok()) << text.substr(0, 40);
    (void)ParseCardName(text);
  }
  EXPECT_FALSE(ParseCardName(std::string(300, 'a')).ok());
  EXPECT_FALSE(ParseCardName("A\tB").ok());
}

// ---- all problems, ordering ----

// A manifest with several problems reports every one of them, in check order
// within the object, and objects by file line.
TEST(AdmissionReportTest, EveryProblemIsReported) {
  std::string yaml = Doc({
      Job("  minAvailable: 9\n  maxRetry: -1\n  queue: nope\n"
          "  policies: [{event: \"*\", action: AbortJob}, {event: PodFailed, action: Bogus}, "
          "{exitCode: 0, action: AbortJob}]\n",
          Task("Bad_Name", 2, "minAvailable: 3") + Task("ok", -1) + Task("ok", 1), "j2"),
      Queue("q1", "{capability: {cpu: 1}, deserved: {cpu: 2}, parent: missing}") +
          "status: {state: Unknown}\n",
  });
  std::vector<AdmissionProblem> ps = Validate(yaml);
  std::vector<std::string> want = {
      "t.yaml:2: Job ns/j2: spec.maxRetry: 'maxRetry' cannot be less than zero.",
      "t.yaml:2: Job ns/j2: spec.tasks[0].minAvailable: 'minAvailable' is greater than 'replicas' "
      "in task: Bad_Name, "
      "job: j2",
      "t.yaml:2: Job ns/j2: spec.tasks[0].name: task name \"Bad_Name\": a lowercase RFC 1123 label "
      "must consist of "
      "lower case alphanumeric characters or '-', and must start and end with an alphanumeric "
      "character (e.g. "
      "'my-name', or '123-abc')",
      "t.yaml:2: Job ns/j2: spec.tasks[1].replicas: 'replicas' < 0 in task: ok, job: j2",
      "t.yaml:2: Job ns/j2: spec.tasks[2].name: duplicated task name ok",
      "t.yaml:2: Job ns/j2: spec.minAvailable: job 'minAvailable' should not be greater than total "
      "replicas in tasks",
      "t.yaml:2: Job ns/j2: spec.policies[1].action: invalid policy action \"Bogus\" (valid "
      "actions: AbortJob, "
      "CompleteJob, RestartJob, RestartPod, RestartTask, ResumeJob, TerminateJob)",
      "t.yaml:2: Job ns/j2: spec.policies[2].exitCode: 0 is not a valid error code",
      "t.yaml:2: Job ns/j2: spec.policies[0].event: if there's * here, no other policy should be "
      "here",
      "t.yaml:2: Job ns/j2: spec.queue: unable to find job queue: queue.scheduling.volcano.sh "
      "\"nope\" not found",
      "t.yaml:15: Queue q1: status.state: queue state must be in [Open Closed]",
      "t.yaml:15: Queue q1: spec.deserved.cpu: deserved[cpu]=2 must be <= capability[cpu]=1",
      "t.yaml:15: Queue q1: spec.parent: failed to get parent queue missing of queue q1: "
      "queue.scheduling.volcano.sh \"missing\" not found",
  };
  std::vector<std::string> got;
  for (const auto& p : ps) got.push_back(p.ToString());
  EXPECT_EQ(got, want) << Dump(ps);
}

// Output order depends on the input only, not on the order of the checks.
TEST(AdmissionReportTest, SortedBySourceLine) {
  ClusterObjects objs;
  Status b = DecodeText(Doc({Job("  queue: nope\n", Task("w", 1), "a"), Queue("q", "{parent: x}")}),
                        "b.yaml", &objs);
  ASSERT_TRUE(b.ok()) << b.message();
  Status a = DecodeText(PodGroupIn("{queue: nope}"), "a.yaml", &objs);
  ASSERT_TRUE(a.ok()) << a.message();
  std::vector<AdmissionProblem> ps = ValidateObjects(objs);
  ASSERT_EQ(ps.size(), 3u) << Dump(ps);
  EXPECT_EQ(ps[0].object, "PodGroup ns/pg");
  EXPECT_EQ(ps[1].object, "Job ns/a");
  EXPECT_EQ(ps[2].object, "Queue q");
}

// ---- RunValidate and the binary ----

namespace fs = std::filesystem;

using ValidateDir = ::basalt::testing::ScratchDir;

using ::basalt::testing::Basalt;
using ::basalt::testing::RunResult;

TEST(ValidateTest, InProcessReport) {
  ValidateDir dir;
  dir.Write("q.yaml", kQ1);
  std::string jobs = dir.Write("jobs.yaml", Job(kInQ1, Task("w", 1, "minAvailable: 2")));
  std::ostringstream out, err;
  EXPECT_EQ(RunValidate({dir.path()}, out, err), 2);
  EXPECT_EQ(
      out.str(),
      jobs +
          ":1: Job ns/j1: spec.tasks[0].minAvailable: 'minAvailable' is greater than 'replicas' "
          "in task: w, job: j1\n");
  EXPECT_EQ(err.str(), "basalt: 1 problem found\n");
}

TEST(ValidateCliTest, ValidFolderExitsZero) {
  ValidateDir dir;
  dir.Write("a.yaml", Doc({kQ1, Job(kInQ1, Task("w", 2))}));
  dir.Write("b.json",
            "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n1\"}, "
            "\"status\": {\"allocatable\": {\"cpu\": \"4\", \"pods\": \"10\"}}}");
  RunResult r = Basalt("validate " + dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "ok: 3 objects valid\n");
}

// Every decoded kind counts: a file holding only a JobFlow is not "no objects
// found" (its templates missing are what refuses it, as `schedule` refuses
// it), and the example's templates count beside its flow and node.
TEST(ValidateCliTest, JobFlowsAndTemplatesCount) {
  const std::string jobflow = std::string(BASALT_SOURCE_DIR) + "/examples/jobflow";
  RunResult flow = Basalt("validate " + jobflow + "/flow.yaml");
  EXPECT_EQ(flow.exit_code, 2) << flow.out;
  EXPECT_EQ(flow.out, "basalt: " + jobflow +
                          "/flow.yaml:5: JobFlow default/data-pipeline: spec.flows[0].name: no "
                          "JobTemplate default/prepare in the input\n");
  RunResult folder = Basalt("validate " + jobflow);
  EXPECT_EQ(folder.exit_code, 0) << folder.out;
  EXPECT_EQ(folder.out, "ok: 5 objects valid\n");  // a Node, three JobTemplates, the JobFlow
}

TEST(ValidateCliTest, ProblemsExitTwoOnePerLine) {
  ValidateDir dir;
  dir.Write("q.yaml", Queue("q1") + "status: {state: Closed}\n");
  std::string jobs = dir.Write(
      "jobs.yaml",
      Doc({Job(kInQ1 + "  policies: [{event: PodFailed, exitCode: 2, action: AbortJob}]\n",
               Task("w", 1), "j1")}));
  RunResult r = Basalt("validate " + dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(
      r.out.find(
          jobs +
          ":2: Job ns/j1: spec.policies[0]: must not specify event and exitCode simultaneously\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find(
          jobs +
          ":2: Job ns/j1: spec.queue: can only submit job to queue with state `Open`, queue `q1` "
          "status is `Closed`\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("basalt: 2 problems found"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("ok:"), std::string::npos) << r.out;
}

// Every path is loaded: the decode error of each bad file is printed, then exit 2.
TEST(ValidateCliTest, DecodeErrorsExitTwo) {
  ValidateDir dir;
  std::string bad1 = dir.Write("bad1.yaml", Queue("q1", "{weight: -1}"));
  std::string bad2 = dir.Write("bad2.yaml", "kind: Queue\nmetadata: {name: [\n");
  std::string good = dir.Write("good.yaml", kQ1);
  RunResult r = Basalt("validate " + bad1 + " " + good + " " + bad2);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("basalt: " + bad1 + ":1: Queue q1: spec.weight: value -1 out of range"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("basalt: " + bad2 + ":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("malformed YAML"), std::string::npos) << r.out;
}

TEST(ValidateCliTest, UsageAndMissingPath) {
  RunResult help = Basalt("validate --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("basalt validate examples/gang-training/cluster"), std::string::npos)
      << help.out;
  EXPECT_EQ(Basalt("validate").exit_code, 2);
  RunResult missing = Basalt("validate /nonexistent/manifests");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.out.find("/nonexistent/manifests: no such file or folder"), std::string::npos)
      << missing.out;
}

// The README's example cluster is valid.
TEST(ValidateCliTest, ExampleClusterIsValid) {
  RunResult r =
      Basalt("validate " + std::string(BASALT_SOURCE_DIR) + "/examples/gang-training/cluster");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("ok: ", 0), 0u) << r.out;
}

}  // namespace
}  // namespace basalt
