// Every vcjob of Volcano v1.15.1's own `example/` folder runs on basalt: it
// decodes, `basalt validate` accepts it (those of example/invalid_jobs/, which
// Volcano's admission refuses, it refuses), and the job controller expands it
// into its pods with every plugin it names at work.
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
#include <sstream>

#include "api/decode.h"
#include "cli/validate.h"
#include "controllers/job_controller.h"
#include "controllers/job_plugins.h"
#include "scratch_dir.h"
#include "testing.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;

std::string VolcanoSource() {
  if (const char* env = std::getenv("BASALT_VOLCANO_SOURCE"); env && *env) return env;
  const std::string cmd = std::string(BASALT_SOURCE_DIR) + "/scripts/volcano-source 2>&1";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    if (::pclose(p) != 0) return "";
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

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
  const std::string source = VolcanoSource();
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

}  // namespace
}  // namespace basalt
