// `basalt job ...`, `basalt queue ...` and `basalt completion` as a user runs
// them: against a folder of manifests (--cluster) and against the loopback
// API server (the live path), with the Command objects compared field by field
// with the ones vcctl creates (pkg/cli/util CreateJobCommand/CreateQueueCommand).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "api/decode.h"
#include "api/yaml_json.h"
#include "cli/vc_common.h"
#include "kube_fake_apiserver.h"
#include "live/vc_store.h"
#include "testing.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;
using ::basalt::testing::Basalt;
using ::basalt::testing::RunResult;
using Json = nlohmann::json;

class Folder {
 public:
  Folder() {
    path_ = fs::temp_directory_path() /
            ("basalt-cli-jobs-" + std::to_string(::getpid()) + "-" + std::to_string(n_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~Folder() { fs::remove_all(path_); }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
  }
  std::string Read(const std::string& name) const {
    std::ifstream in(path_ / name);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  bool Has(const std::string& name) const { return fs::exists(path_ / name); }
  std::string path() const { return path_.string(); }
  // `basalt ARGS --cluster DIR`
  RunResult Run(const std::string& args) const { return Basalt(args + " --cluster " + path()); }

 private:
  static inline int n_ = 0;
  fs::path path_;
};

const char* kQueues = R"(apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: research, uid: 5d6e7f80-0000-4000-8000-000000000001}
spec: {weight: 4}
status: {state: Open, inqueue: 1, pending: 2, running: 3}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: frozen}
spec: {weight: 1}
status: {state: Closed}
)";

const char* kTrainJob = R"(apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: train
  namespace: default
  uid: 0f1e2d3c-0000-4000-8000-00000000abcd
  creationTimestamp: "2026-11-20T08:00:00Z"
  labels: {volcano.sh/job-type: Training}
spec:
  minAvailable: 2
  queue: research
  schedulerName: volcano
  tasks:
  - name: worker
    replicas: 3
    template:
      spec:
        containers:
        - name: w
          image: busybox
          resources: {requests: {cpu: "1"}}
status:
  state: {phase: Running}
  minAvailable: 2
  running: 2
  pending: 1
  retryCount: 1
)";

Json ReadYaml(const std::string& text) {
  auto j = ParseYamlDocument(text, "test");
  EXPECT_TRUE(j.ok()) << j.status().message();
  return j.ok() ? *j : Json();
}

// The Command vcctl posts for `action` on a target: generateName
// "<name>-<action lower>-", an ownerReference that is also the target.
void ExpectVcctlCommand(const Json& cmd, const std::string& action, const std::string& target_api,
                        const std::string& target_kind, const std::string& target_name,
                        const std::string& target_uid, const std::string& ns) {
  std::string lower = action;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  Json ref = {{"apiVersion", target_api}, {"kind", target_kind}, {"name", target_name},
              {"uid", target_uid},        {"controller", true},  {"blockOwnerDeletion", true}};
  EXPECT_EQ(cmd["apiVersion"], "bus.volcano.sh/v1alpha1");
  EXPECT_EQ(cmd["kind"], "Command");
  EXPECT_EQ(cmd["action"], action);
  EXPECT_EQ(cmd["target"], ref);
  EXPECT_EQ(cmd["metadata"]["ownerReferences"], Json::array({ref}));
  EXPECT_EQ(cmd["metadata"]["generateName"], target_name + "-" + lower + "-");
  EXPECT_EQ(cmd["metadata"]["namespace"], ns);
  std::string name = cmd["metadata"]["name"].get<std::string>();
  ASSERT_EQ(name.size(), target_name.size() + lower.size() + 2 + 5) << name;
  EXPECT_EQ(name.rfind(target_name + "-" + lower + "-", 0), 0u) << name;
  // Only these fields (the server may add its own metadata).
  for (auto it = cmd.begin(); it != cmd.end(); ++it) {
    EXPECT_TRUE(it.key() == "apiVersion" || it.key() == "kind" || it.key() == "metadata" ||
                it.key() == "action" || it.key() == "target")
        << it.key();
  }
}

// ---------------- the folder back end ----------------

// `queue create` writes a new manifest the decoder reads; `queue list` prints
// vcctl's table (25-wide name, 8-wide counters).
TEST(CliJobsFolderTest, QueueCreateAndList) {
  Folder d;
  d.Write("queues.yaml", kQueues);
  RunResult r = d.Run("queue create batch --weight 2 --now 2026-11-21T09:30:00Z");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "create queue batch successfully\n");
  ASSERT_TRUE(d.Has("queue-batch.yaml"));
  Json q = ReadYaml(d.Read("queue-batch.yaml"));
  EXPECT_EQ(q["spec"]["weight"], 2);
  EXPECT_EQ(q["status"]["state"], "Open");
  EXPECT_EQ(q["apiVersion"], "scheduling.volcano.sh/v1beta1");
  // What the API server stamps: the uid from --seed (default 0), the time from --now.
  EXPECT_EQ(q["metadata"]["creationTimestamp"], "2026-11-21T09:30:00Z");
  EXPECT_EQ(q["metadata"]["uid"], SeededUid(0, "Queue//batch"));

  // The folder has no `default` queue: it is listed as `basalt schedule` adds it.
  RunResult list = d.Run("queue list");
  ASSERT_EQ(list.exit_code, 0) << list.out;
  EXPECT_EQ(list.out,
            "Name                     Weight  State   Inqueue Pending Running Unknown Completed\n"
            "batch                    2       Open    0       0       0       0       0       \n"
            "default                  1       Open    0       0       0       0       0       \n"
            "frozen                   1       Closed  0       0       0       0       0       \n"
            "research                 4       Open    1       2       3       0       0       \n");
  RunResult implicit = d.Run("queue get default -o json");
  ASSERT_EQ(implicit.exit_code, 0) << implicit.out;
  EXPECT_EQ(Json::parse(implicit.out)["status"]["state"], "Open");
  RunResult get = d.Run("queue get research -o json");
  ASSERT_EQ(get.exit_code, 0) << get.out;
  EXPECT_EQ(Json::parse(get.out)["metadata"]["name"], "research");
  // Creating it twice is refused; so is a bad weight (webhook and flag checks).
  RunResult again = d.Run("queue create batch");
  EXPECT_EQ(again.exit_code, 2) << again.out;
  EXPECT_NE(again.out.find("Queue batch: metadata.name: duplicate Queue \"batch\""),
            std::string::npos)
      << again.out;
  EXPECT_EQ(d.Run("queue create w --weight 0").exit_code, 2);
  // A name the API server would refuse is refused before anything is written.
  RunResult bad = d.Run("queue create 'Bad Name!'");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("queue name \"Bad Name!\": a lowercase RFC 1123 subdomain"),
            std::string::npos)
      << bad.out;
  EXPECT_EQ(d.Run("queue get 'Bad Name!'").exit_code, 2);
}

// `job run` builds vcctl's one-task job; `job list` prints vcctl's columns.
TEST(CliJobsFolderTest, JobRunListViewDelete) {
  Folder d;
  d.Write("queues.yaml", kQueues);
  d.Write("train.yaml", kTrainJob);
  // Requests above vcctl's default limits (memory 100Mi) are refused, as
  // the job webhook refuses such a pod template.
  RunResult over = d.Run("job run --name sleep --queue research -R cpu=500m,memory=1Gi");
  EXPECT_EQ(over.exit_code, 2) << over.out;
  EXPECT_NE(over.out.find("requests[memory]: Invalid value: \"1Gi\": must be less than or equal "
                          "to memory limit of 100Mi (the limits default to "
                          "cpu=1000m,memory=100Mi, as vcctl's; raise them with -L)"),
            std::string::npos)
      << over.out;
  Folder other;
  other.Write("queues.yaml", kQueues);
  RunResult raised = other.Run(
      "job run --name big --queue research -R cpu=500m,memory=1Gi -L cpu=500m,memory=1Gi");
  EXPECT_EQ(raised.exit_code, 0) << raised.out;
  RunResult run = d.Run(
      "job run --name sleep --queue research --replicas 2 --min 2 -R cpu=500m,memory=64Mi "
      "--now 2026-11-21T09:30:00Z --seed 5");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_EQ(run.out, "run job sleep successfully\n");
  Json job = ReadYaml(d.Read("job-default-sleep.yaml"));
  EXPECT_EQ(job["metadata"]["creationTimestamp"], "2026-11-21T09:30:00Z");
  EXPECT_EQ(job["metadata"]["uid"], SeededUid(5, "Job/default/sleep"));
  EXPECT_EQ(job["spec"]["minAvailable"], 2);
  EXPECT_EQ(job["spec"]["queue"], "research");
  EXPECT_EQ(job["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(job["spec"]["tasks"][0]["replicas"], 2);
  EXPECT_EQ(job["spec"]["tasks"][0]["template"]["metadata"]["labels"]["job.volcano.sh"], "sleep");
  EXPECT_EQ(job["spec"]["tasks"][0]["template"]["spec"]["restartPolicy"], "Never");
  Json c = job["spec"]["tasks"][0]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["resources"]["requests"], (Json{{"cpu", "500m"}, {"memory", "64Mi"}}));
  EXPECT_EQ(c["resources"]["limits"], (Json{{"cpu", "1000m"}, {"memory", "100Mi"}}));
  EXPECT_EQ(c["image"], "busybox");
  ClusterObjects objs;  // the scheduler reads what was written
  ASSERT_TRUE(LoadPath(d.path(), &objs).ok());
  EXPECT_EQ(objs.jobs.size(), 2u);

  RunResult list = d.Run("job list");
  ASSERT_EQ(list.exit_code, 0) << list.out;
  EXPECT_EQ(list.out,
            "Name    Creation       Phase       JobType     Replicas    Min   Pending   Running   "
            "Succeeded   "
            "Failed    Unknown     RetryCount\n"
            "sleep   2026-11-21     Pending     Batch       2           2     0         0         "
            "0           "
            "0         0           0         \n"
            "train   2026-11-20     Running     Training    3           2     1         2         "
            "0           "
            "0         0           1         \n");
  RunResult all = d.Run("job list -A --queue research --selector tra");
  ASSERT_EQ(all.exit_code, 0) << all.out;
  EXPECT_EQ(all.out.substr(0, 17), "Namespace   Name ");
  EXPECT_EQ(all.out.find("sleep"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("default     train"), std::string::npos) << all.out;
  RunResult none = d.Run("job list -n other");
  EXPECT_EQ(none.out, "No resources found\n");
  RunResult yaml = d.Run("job list -o yaml");
  ASSERT_EQ(yaml.exit_code, 0) << yaml.out;
  Json items = ReadYaml(yaml.out)["items"];
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[1]["status"]["retryCount"], 1);
  EXPECT_EQ(items[1]["metadata"]["creationTimestamp"],
            "2026-11-20T08:00:00Z");  // quoted: stays a string

  RunResult view = d.Run("job view train --now 2026-11-22T08:00:00Z");
  ASSERT_EQ(view.exit_code, 0) << view.out;
  EXPECT_NE(view.out.find("Creation Timestamp:\t2026-11-20T08:00:00Z (age 2d)\n"),
            std::string::npos)
      << view.out;
  EXPECT_NE(view.out.find("  Queue:             \tresearch\n"), std::string::npos) << view.out;
  EXPECT_NE(view.out.find("  Running:      \t2\n"), std::string::npos) << view.out;
  EXPECT_NE(view.out.find("    Phase:\tRunning\n"), std::string::npos) << view.out;

  RunResult del = d.Run("job delete sleep");
  ASSERT_EQ(del.exit_code, 0) << del.out;
  EXPECT_FALSE(d.Has("job-default-sleep.yaml"));
  EXPECT_EQ(d.Run("job view sleep").exit_code, 2);
}

// delete cuts exactly the object's document out of a multi-document file.
TEST(CliJobsFolderTest, DeleteRemovesOnlyTheDocument) {
  Folder d;
  d.Write("all.yaml", std::string(kQueues) + "---\n" + kTrainJob);
  ASSERT_EQ(d.Run("job delete train").exit_code, 0);
  EXPECT_EQ(d.Read("all.yaml"), std::string(kQueues));
  ASSERT_EQ(d.Run("queue delete frozen").exit_code, 0);
  ClusterObjects objs;
  ASSERT_TRUE(LoadPath(d.path(), &objs).ok());
  ASSERT_EQ(objs.queues.size(), 1u);
  EXPECT_EQ(objs.queues[0].meta.name, "research");
  // Volcano's webhook: only a Closed queue may go, and never `default`.
  RunResult open = d.Run("queue delete research");
  EXPECT_EQ(open.exit_code, 2) << open.out;
  EXPECT_NE(open.out.find(
                "only queue with state `Closed` can be deleted, queue `research` state is `Open`"),
            std::string::npos)
      << open.out;
  EXPECT_EQ(d.Run("queue delete default").exit_code, 2);
}

// suspend/resume write vcctl's Command; the name comes from the seed, so the
// same seed gives the same file and the scheduler's decoder reads it back.
TEST(CliJobsFolderTest, SuspendResumeWriteVcctlCommands) {
  Folder d;
  d.Write("queues.yaml", kQueues);
  d.Write("train.yaml", kTrainJob);
  RunResult s = d.Run("job suspend train --seed 7");
  ASSERT_EQ(s.exit_code, 0) << s.out;
  const std::string suspend_name = "train-abortjob-" + GeneratedSuffix(7, "train-abortjob-", 0);
  EXPECT_EQ(s.out,
            "suspend job default/train: Command default/" + suspend_name + " (AbortJob) created\n");
  const std::string file = "command-default-" + suspend_name + ".yaml";
  ASSERT_TRUE(d.Has(file)) << s.out;
  Json cmd = ReadYaml(d.Read(file));
  ExpectVcctlCommand(cmd, "AbortJob", "batch.volcano.sh/v1alpha1", "Job", "train",
                     "0f1e2d3c-0000-4000-8000-00000000abcd", "default");
  EXPECT_EQ(cmd["metadata"]["name"], suspend_name);

  RunResult r = d.Run("job resume -N train --seed 7");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string resume_name = "train-resumejob-" + GeneratedSuffix(7, "train-resumejob-", 0);
  Json resume = ReadYaml(d.Read("command-default-" + resume_name + ".yaml"));
  ExpectVcctlCommand(resume, "ResumeJob", "batch.volcano.sh/v1alpha1", "Job", "train",
                     "0f1e2d3c-0000-4000-8000-00000000abcd", "default");
  // A second suspend with the same seed does not collide: the next candidate.
  ASSERT_EQ(d.Run("job suspend train --seed 7").exit_code, 0);
  EXPECT_TRUE(d.Has("command-default-train-abortjob-" + GeneratedSuffix(7, "train-abortjob-", 1) +
                    ".yaml"));

  ClusterObjects objs;
  ASSERT_TRUE(LoadPath(d.path(), &objs).ok());
  ASSERT_EQ(objs.commands.size(), 3u);
  for (const Command& c : objs.commands) {
    EXPECT_EQ(c.target.kind, "Job");
    EXPECT_EQ(c.target.name, "train");
  }
  // The job controller acts on them: the suspended job ends Aborted.
  Folder once;
  once.Write("queues.yaml", kQueues);
  once.Write("train.yaml", kTrainJob);
  ASSERT_EQ(once.Run("job suspend train").exit_code, 0);
  RunResult sched = Basalt("schedule --cluster " + once.path());
  ASSERT_EQ(sched.exit_code, 0) << sched.out;
  Json out = Json::parse(sched.out);
  ASSERT_EQ(out["final"]["jobs"].size(), 1u) << sched.out;
  EXPECT_EQ(out["final"]["jobs"][0]["phase"], "Aborted") << sched.out;
}

// In a folder, open/close do at once what Volcano's queue controller does a
// moment after vcctl posts the Command.
TEST(CliJobsFolderTest, OpenCloseApplyAtOnce) {
  Folder d;
  d.Write("queues.yaml", kQueues);
  RunResult close = d.Run("queue close research");
  ASSERT_EQ(close.exit_code, 0) << close.out;
  EXPECT_EQ(close.out, "close queue research: state Closed\n");
  RunResult open = d.Run("queue open --name frozen");
  ASSERT_EQ(open.exit_code, 0) << open.out;
  EXPECT_EQ(open.out, "open queue frozen: state Open\n");
  // Applied as the controller would, and nothing left for it: no Command file.
  ClusterObjects objs;
  ASSERT_TRUE(LoadPath(d.path(), &objs).ok());
  EXPECT_TRUE(objs.commands.empty());
  std::map<std::string, std::string> stored;
  for (const Queue& q : objs.queues) stored[q.meta.name] = q.state;
  EXPECT_EQ(stored["research"], "Closed");
  EXPECT_EQ(stored["frozen"], "Open");
  // The rest of the queue is kept (uid, weight, counters).
  Json research = ReadYaml(d.Read("queue-research.yaml"));
  EXPECT_EQ(research["metadata"]["uid"], "5d6e7f80-0000-4000-8000-000000000001");
  EXPECT_EQ(research["spec"]["weight"], 4);
  EXPECT_EQ(research["status"]["running"], 3);
  // The scheduler's controllers agree.
  RunResult sched = Basalt("schedule --cluster " + d.path());
  ASSERT_EQ(sched.exit_code, 0) << sched.out;
  Json queues = Json::parse(sched.out)["final"]["queues"];
  std::map<std::string, std::string> state;
  for (const Json& q : queues) state[q["name"]] = q["state"];
  EXPECT_EQ(state["research"], "Closed");
  EXPECT_EQ(state["frozen"], "Open");
}

// A queue with a PodGroup in it goes Closing (the controller closes it once
// the PodGroups are gone), and cannot be deleted yet.
TEST(CliJobsFolderTest, CloseWithPodGroupsIsClosing) {
  Folder d;
  d.Write("queues.yaml", kQueues);
  d.Write("pg.yaml",
          "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
          "metadata: {name: g, namespace: default}\nspec: {minMember: 1, queue: research}\n");
  RunResult close = d.Run("queue close research");
  ASSERT_EQ(close.exit_code, 0) << close.out;
  EXPECT_EQ(close.out,
            "close queue research: state Closing (1 PodGroup is in it; Closed once they are "
            "gone)\n");
  EXPECT_EQ(ReadYaml(d.Read("queue-research.yaml"))["status"]["state"], "Closing");
  RunResult del = d.Run("queue delete research");
  EXPECT_EQ(del.exit_code, 2) << del.out;
  EXPECT_NE(del.out.find("state is `Closing`"), std::string::npos) << del.out;
}

// The `queue delete --help` example, with its ./cluster a folder of queues.
TEST(CliJobsFolderTest, CloseThenDeleteHelpExample) {
  RunResult help = Basalt("queue delete --help");
  ASSERT_NE(help.out.find("basalt queue close research --cluster ./cluster && basalt queue delete "
                          "research --cluster ./cluster"),
            std::string::npos)
      << help.out;
  Folder d;
  d.Write("queues.yaml", kQueues);
  const std::string cluster = " --cluster " + d.path();
  RunResult r = Basalt("queue close research" + cluster + " && " + BASALT_BINARY +
                       " queue delete research" + cluster);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "close queue research: state Closed\ndelete queue research successfully\n");
  ClusterObjects objs;
  ASSERT_TRUE(LoadPath(d.path(), &objs).ok());
  ASSERT_EQ(objs.queues.size(), 1u);
  EXPECT_EQ(objs.queues[0].meta.name, "frozen");
}

// Same input, same bytes: the uid comes from --seed, the time from --now.
TEST(CliJobsFolderTest, NewObjectsAreStampedDeterministically) {
  Folder a, b;
  for (const Folder* d : {&a, &b}) {
    d->Write("queues.yaml", kQueues);
    RunResult r = d->Run("job run --name demo --seed 3 --now 2026-11-21T09:30:00+02:00");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  EXPECT_EQ(a.Read("job-default-demo.yaml"), b.Read("job-default-demo.yaml"));
  Json job = ReadYaml(a.Read("job-default-demo.yaml"));
  EXPECT_EQ(job["metadata"]["creationTimestamp"], "2026-11-21T07:30:00Z");
  const std::string uid = job["metadata"]["uid"];
  ASSERT_EQ(uid.size(), 36u) << uid;
  EXPECT_EQ(uid[8], '-');
  EXPECT_EQ(uid[14], '4') << uid;  // a version-4 UUID, as the API server's
  EXPECT_NE(SeededUid(4, "Job/default/demo"), uid);
  EXPECT_NE(SeededUid(3, "Job/default/demo2"), uid);
  // Without --now: the wall clock.
  ASSERT_EQ(a.Run("job run --name later").exit_code, 0);
  auto t =
      ParseTimestamp(ReadYaml(a.Read("job-default-later.yaml"))["metadata"]["creationTimestamp"]
                         .get<std::string>());
  ASSERT_TRUE(t.ok());
  EXPECT_GT(*t, 1763700000);  // after November 2025
  RunResult bad = a.Run("job run --name x --now yesterday");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--now"), std::string::npos) << bad.out;
  EXPECT_FALSE(a.Has("job-default-x.yaml"));
}

// -n is the namespace on queue commands too (kubectl's habit): accepted and
// ignored, since queues are cluster-scoped; vcctl's `-n NAME` gets a hint.
TEST(CliJobsFolderTest, DashNIsTheNamespaceOnQueues) {
  Folder d;
  d.Write("queues.yaml", kQueues);
  RunResult vcctl = d.Run("queue get -n research");
  EXPECT_EQ(vcctl.exit_code, 2) << vcctl.out;
  EXPECT_NE(vcctl.out.find("queue get: queue name (QUEUE or --name) is mandatory; -n is the "
                           "namespace, as in kubectl"),
            std::string::npos)
      << vcctl.out;
  RunResult get = d.Run("queue get research -n team-a");
  ASSERT_EQ(get.exit_code, 0) << get.out;
  EXPECT_NE(get.out.find("\nresearch "), std::string::npos) << get.out;
  EXPECT_EQ(d.Run("queue get --name research").exit_code, 0);
  EXPECT_EQ(d.Run("queue list -n team-a").exit_code, 0);
  EXPECT_EQ(d.Run("queue close --name research --namespace team-a").exit_code, 0);
  for (const char* verb : {"create", "get", "open", "close", "delete"}) {
    RunResult help = Basalt(std::string("queue ") + verb + " --help");
    EXPECT_EQ(help.out.find(std::string("basalt queue ") + verb + " -n"), std::string::npos)
        << help.out;
  }
}

// -o name prints kind/name lines; -o wide adds columns; --no-headers drops the
// header; any other -o exits 2 listing the valid ones.
TEST(CliJobsFolderTest, OutputNameWideAndNoHeaders) {
  Folder d;
  d.Write("queues.yaml", kQueues);
  d.Write("train.yaml", kTrainJob);
  d.Write("child.yaml",
          "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: child}\n"
          "spec: {weight: 1, parent: research, reclaimable: false}\n");
  EXPECT_EQ(d.Run("job list -o name").out, "job.batch.volcano.sh/train\n");
  EXPECT_EQ(d.Run("queue list -o name").out,
            "queue.scheduling.volcano.sh/child\nqueue.scheduling.volcano.sh/default\n"
            "queue.scheduling.volcano.sh/frozen\nqueue.scheduling.volcano.sh/research\n");
  EXPECT_EQ(d.Run("queue get research -o name").out, "queue.scheduling.volcano.sh/research\n");
  EXPECT_EQ(d.Run("job view train -o name").out, "job.batch.volcano.sh/train\n");
  RunResult view_wide = d.Run("job view train -o wide");
  EXPECT_EQ(view_wide.exit_code, 2);
  EXPECT_NE(view_wide.out.find("(valid: json, yaml, name)"), std::string::npos) << view_wide.out;
  RunResult bare = d.Run("job list --no-headers");
  EXPECT_EQ(bare.out.rfind("train   2026-11-20     Running", 0), 0u) << bare.out;
  RunResult wide = d.Run("job list -o wide");
  ASSERT_EQ(wide.exit_code, 0) << wide.out;
  EXPECT_NE(wide.out.find("RetryCount  Queue     Scheduler\n"), std::string::npos) << wide.out;
  EXPECT_NE(wide.out.find("1           research  volcano\n"), std::string::npos) << wide.out;
  RunResult queues = d.Run("queue list -o wide --no-headers");
  ASSERT_EQ(queues.exit_code, 0) << queues.out;
  EXPECT_EQ(queues.out,
            "child                    1               0       0       0       0       0         "
            "research  false\n"
            "default                  1       Open    0       0       0       0       0         "
            "<none>    true\n"
            "frozen                   1       Closed  0       0       0       0       0         "
            "<none>    true\n"
            "research                 4       Open    1       2       3       0       0         "
            "<none>    true\n");
  for (const char* cmd : {"job list -o table", "queue list -o tabel", "queue get research -o x"}) {
    RunResult bad = d.Run(cmd);
    EXPECT_EQ(bad.exit_code, 2) << cmd;
    EXPECT_NE(bad.out.find("(valid: json, yaml, name, wide)"), std::string::npos) << bad.out;
  }
}

// `job run -f -` reads the manifest from standard input.
TEST(CliJobsFolderTest, RunFromStdin) {
  Folder d;
  d.Write("queues.yaml", kQueues);
  Folder src;
  src.Write("train.yaml", kTrainJob);
  RunResult r = Basalt("job run -f - --cluster " + d.path() + " < " + src.path() + "/train.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "run job train successfully\n");
  EXPECT_EQ(ReadYaml(d.Read("job-default-train.yaml"))["spec"]["tasks"][0]["name"], "worker");
  RunResult bad = Basalt("job run -f - --cluster " + d.path() + " < /dev/null");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("<stdin>"), std::string::npos) << bad.out;
}

// What the user can fix exits 2 with a message naming the object, flag or file.
TEST(CliJobsFolderTest, ErrorsExitTwo) {
  Folder d;
  d.Write("queues.yaml", kQueues);
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"job suspend nope", "Job default/nope not found in folder " + d.path()},
      {"job view nope -n ns1", "Job ns1/nope not found"},
      {"job delete nope", "Job default/nope not found"},
      {"queue open nope", "Queue nope not found"},
      {"job suspend", "job name (JOB or --name) is mandatory"},
      {"job run --name x -R cpu",
       "--requests: invalid argument syntax \"cpu\", expected <resource>=<value>"},
      {"job run --name x -L memory=lots", "--limits: memory"},
      {"job run", "--name: job name cannot be left blank"},
      {"job run --name x --queue frozen",
       "can only submit job to queue with state `Open`, queue `frozen`"},
      {"job run --name x --queue missing", "unable to find job queue"},
      {"job run --name x --min 3 --replicas 2", "spec.minAvailable"},
      {"job list -o table", "--output: unknown format \"table\""},
      {"job run -f /nonexistent/job.yaml",
       "/nonexistent/job.yaml: cannot read --filename: No such file or directory"},
      {"queue create q --state Half", "--state: want Open or Closed"},
  };
  for (const Case& c : cases) {
    RunResult r = d.Run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
  }
  RunResult fish = Basalt("completion fish");
  EXPECT_EQ(fish.exit_code, 2);
  EXPECT_NE(fish.out.find("unknown shell \"fish\""), std::string::npos) << fish.out;
  // Flags CLI11 rejects, a missing folder and a bad manifest in the folder.
  EXPECT_EQ(Basalt("job list --cluster " + d.path() + " --bogus").exit_code, 2);
  RunResult missing = Basalt("job list --cluster /nonexistent/folder");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.out.find("/nonexistent/folder: --cluster: no such folder"), std::string::npos)
      << missing.out;
  d.Write("bad.yaml",
          "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: b}\nspec: "
          "{minAvailable: x}\n");
  RunResult bad = d.Run("job list");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find(d.path() + "/bad.yaml:1: Job "), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("spec.minAvailable"), std::string::npos) << bad.out;
}

// `job run -f` submits a manifest file (name and namespace from the file).
TEST(CliJobsFolderTest, RunFromFile) {
  Folder d;
  d.Write("queues.yaml", kQueues);
  Folder src;
  src.Write("train.yaml", kTrainJob);
  RunResult r = Basalt("job run -f " + src.path() + "/train.yaml --cluster " + d.path());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  Json job = ReadYaml(d.Read("job-default-train.yaml"));
  EXPECT_EQ(job["spec"]["tasks"][0]["name"], "worker");
  RunResult clash =
      Basalt("job run -f " + src.path() + "/train.yaml -n other --cluster " + d.path());
  EXPECT_EQ(clash.exit_code, 2);
  EXPECT_NE(clash.out.find("differs from --namespace \"other\""), std::string::npos) << clash.out;
}

// ---------------- the live path (loopback API server) ----------------

class CliJobsLiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fake_.Start());
    fake_.RequireToken("cli-token");
    kubeconfig_ = dir_.path() + "/kubeconfig";
    std::ofstream(kubeconfig_)
        << "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
           "clusters: [{name: k, cluster: {server: '"
        << fake_.url() << "'}}]\nusers: [{name: u, user: {token: cli-token}}]\n";
    fake_.Put(ReadYaml(kTrainJob));
    Json queues = ReadYaml(std::string(kQueues).substr(0, std::string(kQueues).find("---")));
    fake_.Put(queues);
  }
  void TearDown() override { fake_.Stop(); }
  RunResult Run(const std::string& args) { return Basalt(args + " --kubeconfig " + kubeconfig_); }

  Folder dir_;
  std::string kubeconfig_;
  testing::FakeApiServer fake_;
};

// suspend/resume POST vcctl's Command (generateName; the server names it).
TEST_F(CliJobsLiveTest, SuspendResumePostVcctlCommands) {
  auto job = fake_.Get("Job", "default", "train");
  ASSERT_TRUE(job.has_value());
  const std::string uid = (*job)["metadata"]["uid"];
  RunResult s = Run("job suspend train");
  ASSERT_EQ(s.exit_code, 0) << s.out;
  std::vector<Json> cmds = fake_.List("Command");
  ASSERT_EQ(cmds.size(), 1u);
  Json cmd = cmds[0];
  EXPECT_FALSE(cmd["metadata"]["uid"].get<std::string>().empty());  // stored by the server
  for (const char* server_field : {"uid", "resourceVersion", "creationTimestamp", "generation"}) {
    cmd["metadata"].erase(server_field);
  }
  ExpectVcctlCommand(cmd, "AbortJob", "batch.volcano.sh/v1alpha1", "Job", "train", uid, "default");
  EXPECT_NE(s.out.find("Command default/" + cmd["metadata"]["name"].get<std::string>() +
                       " (AbortJob) created"),
            std::string::npos)
      << s.out;
  ASSERT_EQ(Run("job resume train").exit_code, 0);
  cmds = fake_.List("Command");
  ASSERT_EQ(cmds.size(), 2u);
  int resumes = 0;
  for (const Json& c : cmds) resumes += c["action"] == "ResumeJob";
  EXPECT_EQ(resumes, 1);
}

TEST_F(CliJobsLiveTest, OpenClosePostVcctlCommands) {
  const std::string uid = (*fake_.Get("Queue", "", "research"))["metadata"]["uid"];
  ASSERT_EQ(Run("queue close research").exit_code, 0);
  std::vector<Json> cmds = fake_.List("Command");
  ASSERT_EQ(cmds.size(), 1u);
  Json cmd = cmds[0];
  for (const char* f : {"uid", "resourceVersion", "creationTimestamp", "generation"})
    cmd["metadata"].erase(f);
  ExpectVcctlCommand(cmd, "CloseQueue", "scheduling.volcano.sh/v1beta1", "Queue", "research", uid,
                     "default");
  RunResult missing = Run("queue open nope");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.out.find("Queue nope not found in server " + fake_.url()), std::string::npos)
      << missing.out;
}

TEST_F(CliJobsLiveTest, RunListViewDelete) {
  RunResult run = Run("job run --name sleep --replicas 2 --min 1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  auto stored = fake_.Get("Job", "default", "sleep");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ((*stored)["spec"]["tasks"][0]["replicas"], 2);
  EXPECT_EQ(Run("job run --name sleep").exit_code, 2);  // already exists

  RunResult list = Run("job list");
  ASSERT_EQ(list.exit_code, 0) << list.out;
  EXPECT_EQ(list.out.substr(0, list.out.find('\n')),
            "Name    Creation       Phase       JobType     Replicas    Min   Pending   Running   "
            "Succeeded   "
            "Failed    Unknown     RetryCount");
  EXPECT_NE(list.out.find("\nsleep   2026-11-2"), std::string::npos)
      << list.out;  // the server's time
  EXPECT_NE(list.out.find("\ntrain   2026-11-20     Running     Training    3"), std::string::npos)
      << list.out;
  RunResult json = Run("job view sleep -o json");
  ASSERT_EQ(json.exit_code, 0) << json.out;
  EXPECT_EQ(Json::parse(json.out)["metadata"]["name"], "sleep");
  RunResult queues = Run("queue list");
  ASSERT_EQ(queues.exit_code, 0) << queues.out;
  EXPECT_NE(queues.out.find("\nresearch                 4       Open    1       2       3"),
            std::string::npos)
      << queues.out;

  ASSERT_EQ(Run("job delete sleep").exit_code, 0);
  EXPECT_FALSE(fake_.Get("Job", "default", "sleep").has_value());
  RunResult gone = Run("job delete sleep");
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_NE(gone.out.find("Job default/sleep not found"), std::string::npos) << gone.out;
}

// A server that refuses the token: exit 1 with the server's words; a bad
// kubeconfig: exit 2 naming the file.
TEST_F(CliJobsLiveTest, AuthAndKubeconfigErrors) {
  std::string wrong = dir_.path() + "/wrong";
  std::ofstream(wrong)
      << "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
         "clusters: [{name: k, cluster: {server: '"
      << fake_.url() << "'}}]\nusers: [{name: u, user: {token: nope}}]\n";
  RunResult denied = Basalt("job list --kubeconfig " + wrong);
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.out.find("401"), std::string::npos) << denied.out;
  RunResult bad = Basalt("queue list --kubeconfig /nonexistent/kubeconfig");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("/nonexistent/kubeconfig"), std::string::npos) << bad.out;
}

// ---------------- help and completion ----------------

// Every job/queue/completion command's --help shows examples.
TEST(CliJobsHelpTest, EveryCommandHasExamples) {
  for (const char* cmd : {"job", "job run", "job list", "job view", "job suspend", "job resume",
                          "job delete", "queue", "queue create", "queue list", "queue get",
                          "queue open", "queue close", "queue delete", "completion"}) {
    RunResult r = Basalt(std::string(cmd) + " --help");
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("Example"), std::string::npos) << cmd << "\n" << r.out;
  }
}

// The scripts come from the command tree: every command and flag is offered,
// hidden flags are not, and bash accepts the script (tests/completion_test.py
// drives it case by case).
TEST(CliJobsCompletionTest, BashAndZshFromTheTree) {
  RunResult bash = Basalt("completion bash");
  ASSERT_EQ(bash.exit_code, 0) << bash.out;
  EXPECT_NE(bash.out.find("\"basalt job list\") words=\""), std::string::npos);
  EXPECT_NE(bash.out.find("--all-namespaces"), std::string::npos);
  EXPECT_NE(bash.out.find("\"basalt queue\") words=\"create list get open close delete"),
            std::string::npos)
      << bash.out;
  EXPECT_NE(bash.out.find("\"basalt schedule:--conf\") COMPREPLY=($(compgen -f"),
            std::string::npos);
  EXPECT_NE(bash.out.find(
                "\"basalt job list:--output\") COMPREPLY=($(compgen -W \"json yaml name wide\""),
            std::string::npos);
  EXPECT_NE(bash.out.find("\"basalt job list:--now\""), std::string::npos);
  Folder d;
  d.Write("basalt.bash", bash.out);
  // The script is valid bash and completes `basalt job l` to `list`.
  std::string probe = d.path() + "/probe.sh";
  std::ofstream(probe)
      << "source " << d.path() << "/basalt.bash\n"
      << "COMP_WORDS=(basalt job l); COMP_CWORD=2; _basalt; echo \"${COMPREPLY[*]}\"\n"
      << "COMP_WORDS=(basalt queue get -o ''); COMP_CWORD=4; _basalt; echo \"${COMPREPLY[*]}\"\n";
  FILE* p = popen(("bash " + probe + " 2>&1").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[256];
  while (fgets(buf, sizeof buf, p)) out += buf;
  EXPECT_EQ(pclose(p), 0) << out;
  EXPECT_EQ(out, "list\njson yaml name wide\n");

  RunResult zsh = Basalt("completion zsh");
  ASSERT_EQ(zsh.exit_code, 0) << zsh.out;
  EXPECT_EQ(zsh.out.rfind("#compdef basalt\n", 0), 0u);
  EXPECT_NE(zsh.out.find("(\"basalt job\") candidates=(run list view suspend resume delete"),
            std::string::npos)
      << zsh.out;
}

}  // namespace
}  // namespace basalt
