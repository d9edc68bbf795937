// Every vcjob of Volcano v1.15.1's own `example/` folder runs on basalt: it
// decodes, `basalt validate` accepts it (those of example/invalid_jobs/, which
// Volcano's admission refuses, it refuses), and the job controller expands it
// into its pods with every plugin it names at work. The folder's other
// objects basalt knows (Queues, PodGroups, CronJobs, JobFlows, JobTemplates,
// workloads, PriorityClasses) validate, its CronJob makes its jobs on
// schedule, and every scheduler configuration the release ships (the chart's
// files and the installers' ConfigMaps) loads and schedules.
//
// The source comes from BASALT_VOLCANO_SOURCE when set, else from
// scripts/volcano-source (which extracts the tarball beside the repository).
// Without it the test fails: the examples are the point.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "api/decode.h"
#include "cli/validate.h"
#include "controllers/cronjob_controller.h"
#include "controllers/job_controller.h"
#include "controllers/job_plugins.h"
#include "scratch_dir.h"
#include "testing.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;

// The documents of `kind` (in `api_version`) of one file, each as YAML text.
std::vector<std::string> Documents(const fs::path& file, const std::string& kind,
                                   const std::string& api_version) {
  std::vector<std::string> out;
  for (const YAML::Node& doc : YAML::LoadAllFromFile(file.string())) {
    if (!doc.IsMap() || !doc["kind"] || !doc["apiVersion"]) continue;
    if (doc["kind"].as<std::string>() != kind || doc["apiVersion"].as<std::string>() != api_version)
      continue;
    YAML::Emitter e;
    e << doc;
    out.push_back(e.c_str());
  }
  return out;
}

// What shows that plugin `name` worked on the job's pods and objects.
void ExpectPluginAtWork(const std::string& name, const VcJob& job,
                        const JobPluginController& plugins, const std::string& where) {
  const std::string prefix = job.meta.namespace_ + "/" + job.meta.name;
  bool seen = false;
  for (const auto& [pod, add] : plugins.pods()) {
    if (pod.rfind(prefix + "-", 0) != 0) continue;
    for (const ContainerAdditions& c : add.containers) {
      for (const EnvVar& e : c.env) {
        seen |= (name == "env" && e.name == "VC_TASK_INDEX") ||
                (name == "svc" && e.config_map == job.meta.name + "-svc") ||
                (name == "pytorch" && e.name == "MASTER_ADDR") ||
                (name == "mpi" && e.name == "MPI_HOST") ||
                (name == "tensorflow" && e.name == "TF_CONFIG");
      }
      for (const VolumeMount& m : c.mounts)
        seen |= name == "ssh" && m.name == job.meta.name + "-ssh";
      seen |= name == "ray" && !c.command.empty();
    }
    seen |= name == "hcclrank" && add.annotations.count("hccl/rankIndex");
  }
  if (name == "ssh") seen &= plugins.secrets().count(prefix + "-ssh") == 1;
  if (name == "svc") seen &= plugins.config_maps().count(prefix + "-svc") == 1;
  if (name == "ray") seen &= plugins.services().count(prefix + "-head-svc") == 1;
  EXPECT_TRUE(seen) << where << ": plugin " << name << " left no trace";
}

// Decodes, validates (beside `queues`, the Queues its folder defines) and
// expands one vcjob; `refused` for invalid_jobs/.
void CheckExample(const std::string& text, const std::string& queues, const std::string& where,
                  bool refused) {
  ClusterObjects objects;
  Status st = DecodeText(text, where, &objects);
  if (refused && !st.ok()) return;  // refused already when decoded
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(objects.jobs.size(), 1u) << where;
  testing::ScratchDir dir("basalt-volcano-example");
  std::ostringstream out, err;
  std::vector<std::string> paths = {dir.Write("job.yaml", text)};
  if (!queues.empty()) paths.push_back(dir.Write("queues.yaml", queues));
  const int rc = RunValidate(paths, out, err);
  if (refused) {
    EXPECT_EQ(rc, 2) << where << ": Volcano refuses it; basalt validate said\n" << out.str();
    return;
  }
  ASSERT_EQ(rc, 0) << where << ":\n" << out.str() << err.str();

  ClusterState state;
  ASSERT_OK(state.AddAll(std::move(objects)));
  JobController jobs;
  JobPluginController plugins;
  jobs.Sync(state, 1);
  for (const auto& [key, pg] : state.podgroups())
    state.EditPodGroup(key)->phase = PodGroupPhase::kInqueue;  // what enqueue does
  jobs.Sync(state, 2);
  plugins.Sync(state);
  const VcJob& job = state.jobs().begin()->second;
  int replicas = 0;
  for (const JobTask& t : job.tasks) replicas += t.replicas;
  EXPECT_EQ(job_internal::JobPodKeys(state, job).size(), static_cast<size_t>(replicas)) << where;
  for (const auto& [name, args] : job.plugins) ExpectPluginAtWork(name, job, plugins, where);
}

TEST(VolcanoExamplesTest, EveryVcJobDecodesValidatesAndExpands) {
  const std::string source = testing::VolcanoSource();
  ASSERT_FALSE(source.empty() || !fs::is_directory(source + "/example"))
      << "Volcano's source not found: set BASALT_VOLCANO_SOURCE or make scripts/volcano-source "
         "work (it said: "
      << source << ")";
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(source + "/example")) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  int checked = 0, refused = 0;
  for (const fs::path& file : files) {
    const std::string rel = fs::relative(file, source).string();
    const bool deny = rel.find("invalid_jobs/") != std::string::npos;
    std::vector<std::string> docs = Documents(file, "Job", "batch.volcano.sh/v1alpha1");
    // The Queues of the job's folder exist when its jobs are created.
    std::string queues;
    for (const fs::path& f : files) {
      if (f.parent_path() != file.parent_path()) continue;
      for (const std::string& q : Documents(f, "Queue", "scheduling.volcano.sh/v1beta1"))
        queues += "---\n" + q + "\n";
    }
    for (size_t i = 0; i < docs.size(); ++i) {
      SCOPED_TRACE(rel);
      CheckExample(docs[i], queues, rel + "#" + std::to_string(i), deny);
      ++(deny ? refused : checked);
    }
  }
  // The v1.15.1 folder: 21 vcjobs to run and 3 to refuse.
  EXPECT_EQ(checked, 21);
  EXPECT_EQ(refused, 3);
}

// The example files, sorted, with Volcano's source folder; fails the test
// when the source is missing.
std::vector<fs::path> ExampleFiles(const std::string& source) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(source + "/example")) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The kinds besides vcjobs that the examples hold and basalt reads.
struct ExampleKind {
  const char* kind;
  const char* api_version;
};
constexpr ExampleKind kOtherKinds[] = {
    {"Queue", "scheduling.volcano.sh/v1beta1"},
    {"PodGroup", "scheduling.volcano.sh/v1beta1"},
    {"CronJob", "batch.volcano.sh/v1alpha1"},
    {"JobFlow", "flow.volcano.sh/v1alpha1"},
    {"JobTemplate", "flow.volcano.sh/v1alpha1"},
    {"Deployment", "apps/v1"},
    {"ReplicaSet", "apps/v1"},
    {"PriorityClass", "scheduling.k8s.io/v1"},
};

TEST(VolcanoExamplesTest, EveryOtherExampleObjectValidates) {
  const std::string source = testing::VolcanoSource();
  ASSERT_TRUE(fs::is_directory(source + "/example")) << "Volcano's source not found: " << source;
  std::map<std::string, int> counted;
  // Validated a folder at a time: a JobFlow names the JobTemplates beside it.
  std::map<fs::path, std::string> folders;
  for (const fs::path& file : ExampleFiles(source)) {
    const std::string rel = fs::relative(file, source).string();
    if (rel.find("invalid_jobs/") != std::string::npos) continue;
    for (const ExampleKind& k : kOtherKinds) {
      for (const std::string& doc : Documents(file, k.kind, k.api_version)) {
        folders[file.parent_path()] += "---\n" + doc + "\n";
        ++counted[k.kind];
      }
    }
  }
  for (const auto& [folder, text] : folders) {
    const std::string rel = fs::relative(folder, source).string();
    SCOPED_TRACE(rel);
    testing::ScratchDir dir("basalt-volcano-example");
    std::ostringstream out, err;
    const int rc = RunValidate({dir.Write("objects.yaml", text)}, out, err);
    EXPECT_EQ(rc, 0) << rel << ":\n" << out.str() << err.str();
  }
  // What the v1.15.1 folder holds of these kinds. Its other PodGroup
  // (scheduling.incubator.k8s.io/v1alpha1) and PriorityClasses
  // (scheduling.k8s.io/v1beta1) use API versions no supported Kubernetes
  // serves, and are not counted.
  EXPECT_EQ(counted, (std::map<std::string, int>{{"CronJob", 1},
                                                 {"Deployment", 1},
                                                 {"JobFlow", 1},
                                                 {"JobTemplate", 5},
                                                 {"Queue", 5},
                                                 {"ReplicaSet", 6}}));
}

// example/cronjob/cronjob.yaml ("*/5 * * * *", Forbid): over twelve minutes
// of a clock that starts at its creation, it makes a job at minute 5 and,
// once that one finished, another at minute 10, each expanding to its pod.
TEST(VolcanoExamplesTest, TheCronJobExampleMakesItsJobsOnSchedule) {
  const std::string source = testing::VolcanoSource();
  ASSERT_TRUE(fs::is_directory(source + "/example")) << "Volcano's source not found: " << source;
  std::vector<std::string> docs =
      Documents(source + "/example/cronjob/cronjob.yaml", "CronJob", "batch.volcano.sh/v1alpha1");
  ASSERT_EQ(docs.size(), 1u);
  ClusterObjects objects;
  ASSERT_OK(DecodeText(docs[0], "cronjob.yaml", &objects));
  ASSERT_EQ(objects.cron_jobs.size(), 1u);
  objects.cron_jobs[0].meta.creation_timestamp = 0;
  ClusterState state;
  ASSERT_OK(state.AddAll(std::move(objects)));
  CronJobController cron;
  std::vector<int64_t> made_at;
  for (int64_t now = 0; now <= 12 * 60; now += 30) {
    cron.Sync(state, now);
    for (auto& [key, job] : state.mutable_jobs()) {
      if (job.meta.creation_timestamp == now) made_at.push_back(now);
      if (job.phase != "Completed" && now - job.meta.creation_timestamp >= 60) {
        job.phase = "Completed";  // the world: each run takes a minute
        job.last_transition_time = now;
      }
    }
  }
  EXPECT_EQ(made_at, (std::vector<int64_t>{5 * 60, 10 * 60}));
  JobController jobs;
  jobs.Sync(state, 12 * 60);
  for (const auto& [key, job] : state.jobs()) {
    EXPECT_EQ(job.tasks.size(), 1u) << key;
    EXPECT_EQ(job.min_available, 1) << key;
  }
}

// The scheduler configurations Volcano v1.15.1 ships: the chart's
// config/*scheduler*.conf and every `*.conf` of a scheduler ConfigMap in
// installer/*.yaml. Each one validates and `basalt schedule` runs a gang
// with it (bound in the second cycle: the job's pods are made once its
// PodGroup is Inqueue, as Volcano's controller makes them).
TEST(VolcanoExamplesTest, EveryShippedSchedulerConfigurationLoadsAndSchedules) {
  const std::string source = testing::VolcanoSource();
  ASSERT_TRUE(fs::is_directory(source + "/installer")) << "Volcano's source not found: " << source;
  testing::ScratchDir dir("basalt-volcano-conf");
  std::vector<std::pair<std::string, std::string>> confs;  // where, path
  for (const auto& entry :
       fs::directory_iterator(source + "/installer/helm/chart/volcano/config")) {
    const std::string name = entry.path().filename().string();
    if (name.find("scheduler") != std::string::npos && entry.path().extension() == ".conf")
      confs.emplace_back(name, entry.path().string());
  }
  for (const auto& entry : fs::directory_iterator(source + "/installer")) {
    if (entry.path().extension() != ".yaml") continue;
    for (const YAML::Node& doc : YAML::LoadAllFromFile(entry.path().string())) {
      if (!doc.IsMap() || !doc["kind"] || doc["kind"].as<std::string>() != "ConfigMap") continue;
      const std::string cm = doc["metadata"]["name"].as<std::string>();
      if (cm.find("scheduler") == std::string::npos || !doc["data"]) continue;
      for (const auto& kv : doc["data"]) {
        const std::string key = kv.first.as<std::string>();
        if (key.size() < 5 || key.substr(key.size() - 5) != ".conf") continue;
        const std::string where = entry.path().filename().string() + ":" + cm + "/" + key;
        confs.emplace_back(
            where, dir.Write(std::to_string(confs.size()) + ".conf", kv.second.as<std::string>()));
      }
    }
  }
  std::sort(confs.begin(), confs.end());
  const std::string cluster = dir.Write(
      "cluster/c.yaml",
      "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: \"8\", "
      "memory: 32Gi, pods: \"110\"}\n---\n" +
          std::string("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: gang, "
                      "namespace: default}\nspec:\n  minAvailable: 2\n  schedulerName: volcano\n"
                      "  tasks:\n  - name: w\n    replicas: 2\n    template:\n      spec:\n"
                      "        containers:\n        - name: c\n          image: busybox\n"
                      "          resources: {requests: {cpu: \"1\"}}\n"));
  for (const auto& [where, path] : confs) {
    SCOPED_TRACE(where);
    testing::RunResult v = testing::Basalt("validate --conf " + path);
    EXPECT_EQ(v.exit_code, 0) << v.out;
    testing::RunResult s = testing::Basalt("schedule --cycles 2 --conf " + path + " --cluster " +
                                           dir.path() + "/cluster");
    EXPECT_EQ(s.exit_code, 0) << s.out;
    EXPECT_NE(s.out.find("\"node\": \"n1\""), std::string::npos) << s.out;
  }
  // The chart's three, and the ConfigMaps of the development installers.
  EXPECT_GE(confs.size(), 5u);
}

}  // namespace
}  // namespace basalt
