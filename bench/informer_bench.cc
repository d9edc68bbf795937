// How fast the informers turn listed API objects into the store: the cost
// that stands between a restart of `basalt serve` on a large cluster and its
// first bind (a list of 100,000 pods is decoded before the first cycle).
//
//   nice ./build/basalt_informer_bench
//   nice ./build/basalt_informer_bench --benchmark_filter=Direct
//
// Pages of 500 running pods as a kube-apiserver lists them (managedFields,
// conditions, container statuses). Where a list's time goes, one step each:
// BM_Parse/ListBody: the page's text parsed as the informers' list does
//   (kube/list_body.h: simdjson, managedFields left out), on the listing thread.
// BM_Parse/Nlohmann: the same text parsed by nlohmann::json (the list before).
// BM_Decode/Json: each pod decoded straight from its JSON (api/decode_json.h),
//   one thread — what the informers do.
// BM_Decode/YamlTree: each pod as a YAML tree built from its JSON and then the
//   manifest decoder, one thread — the informers' path before (for comparison).
// BM_Apply/Upsert: decoded pods upserted into the store (under the sink's lock).
// BM_ListPage/Direct: all of StateSink::ApplyPage (decode on two threads,
//   then apply), wall time.
#include <benchmark/benchmark.h>
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <vector>

#include "api/decode.h"
#include "api/decode_json.h"
#include "api/yaml_json.h"
#include "kube/informer.h"
#include "kube/list_body.h"
#include "state/cluster_state.h"

namespace basalt::bench {
namespace {

using Json = nlohmann::json;

// A running pod of a vcjob as the API server returns it in a list.
Json RunningPod(int i) {
  std::string name = "job-" + std::to_string(i / 8) + "-worker-" + std::to_string(i % 8);
  std::string node = "node-" + std::to_string(i % 5000);
  Json managed = Json::array();
  for (const char* manager : {"basalt", "kwok", "kube-controller-manager"}) {
    managed.push_back({{"manager", manager},
                       {"operation", "Update"},
                       {"apiVersion", "v1"},
                       {"time", "2026-11-25T10:00:00Z"},
                       {"fieldsType", "FieldsV1"},
                       {"fieldsV1",
                        {{"f:status",
                          {{"f:conditions", {{"k:{\"type\":\"Ready\"}", Json::object()}}},
                           {"f:phase", Json::object()},
                           {"f:podIP", Json::object()}}}}}});
  }
  Json container = {{"name", "worker"},
                    {"image", "registry.example/train:1.0"},
                    {"command", {"python", "train.py", "--epochs", "10"}},
                    {"resources",
                     {{"requests", {{"cpu", "4"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "1"}}},
                      {"limits", {{"cpu", "4"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "1"}}}}},
                    {"env", {{{"name", "VC_TASK_INDEX"}, {"value", std::to_string(i % 8)}}}},
                    {"terminationMessagePath", "/dev/termination-log"},
                    {"terminationMessagePolicy", "File"},
                    {"imagePullPolicy", "IfNotPresent"}};
  return Json{{"kind", "Pod"},
              {"apiVersion", "v1"},
              {"metadata",
               {{"name", name},
                {"namespace", "team-" + std::to_string(i % 20)},
                {"uid", "0b6f1c2e-" + std::to_string(100000 + i) + "-4a8e-9a51-3f0c2d1e9b7a"},
                {"resourceVersion", std::to_string(500000 + i)},
                {"creationTimestamp", "2026-11-25T10:00:00Z"},
                {"labels",
                 {{"volcano.sh/job-name", "job-" + std::to_string(i / 8)},
                  {"volcano.sh/task-spec", "worker"},
                  {"volcano.sh/queue-name", "q" + std::to_string(i % 4)}}},
                {"annotations",
                 {{"scheduling.k8s.io/group-name", "job-" + std::to_string(i / 8)},
                  {"volcano.sh/task-index", std::to_string(i % 8)}}},
                {"ownerReferences",
                 {{{"apiVersion", "batch.volcano.sh/v1alpha1"},
                   {"kind", "Job"},
                   {"name", "job-" + std::to_string(i / 8)},
                   {"uid", "7d1e0a4c-" + std::to_string(i / 8)},
                   {"controller", true},
                   {"blockOwnerDeletion", true}}}},
                {"managedFields", managed}}},
              {"spec",
               {{"containers", {container}},
                {"schedulerName", "volcano"},
                {"nodeName", node},
                {"restartPolicy", "OnFailure"},
                {"priority", 0},
                {"tolerations",
                 {{{"key", "node.kubernetes.io/not-ready"},
                   {"operator", "Exists"},
                   {"effect", "NoExecute"},
                   {"tolerationSeconds", 300}}}}}},
              {"status",
               {{"phase", "Running"},
                {"qosClass", "Guaranteed"},
                {"podIP", "10.0.0.1"},
                {"startTime", "2026-11-25T10:00:01Z"},
                {"conditions",
                 {{{"type", "PodScheduled"}, {"status", "True"}},
                  {{"type", "Initialized"}, {"status", "True"}},
                  {{"type", "Ready"}, {"status", "True"}}}},
                {"containerStatuses",
                 {{{"name", "worker"},
                   {"ready", true},
                   {"restartCount", 0},
                   {"image", "registry.example/train:1.0"},
                   {"state", {{"running", {{"startedAt", "2026-11-25T10:00:02Z"}}}}}}}}}}};
}

std::vector<Json> Page(int first, int size) {
  std::vector<Json> page;
  for (int i = first; i < first + size; ++i) page.push_back(RunningPod(i));
  return page;
}

constexpr int kPageSize = 500;

void BM_ListPageDirect(benchmark::State& state) {
  std::vector<Json> page = Page(0, kPageSize);
  for (auto _ : state) {
    ClusterState store;
    kube::StateSink sink(&store);
    std::set<std::string> seen;
    int errors = sink.ApplyPage("Pod", page, &seen);
    if (errors != 0) state.SkipWithError("decode errors");
    benchmark::DoNotOptimize(store.pods().size());
  }
  state.SetItemsProcessed(state.iterations() * kPageSize);
}

// A page's text parsed by `parse` (nlohmann's parser or the informers' own).
template <typename Parse>
void ParsePageText(benchmark::State& state, Parse parse) {
  const std::string text =
      Json{{"kind", "PodList"}, {"apiVersion", "v1"}, {"items", Page(0, kPageSize)}}.dump();
  for (auto _ : state) benchmark::DoNotOptimize(parse(text));
  state.SetItemsProcessed(state.iterations() * kPageSize);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}

void BM_ParsePage(benchmark::State& state) {
  ParsePageText(state, [](const std::string& text) { return Json::parse(text); });
}

void BM_ParseListBody(benchmark::State& state) {
  ParsePageText(state, [](const std::string& text) { return kube::ParseListBody(text); });
}

void BM_DecodeJson(benchmark::State& state) {
  std::vector<Json> page = Page(0, kPageSize);
  for (auto _ : state) {
    ClusterObjects objects;
    for (const Json& pod : page) {
      Status s = DecodeJsonObject(pod, "kube:Pod", &objects);
      if (!s.ok()) state.SkipWithError(s.message().c_str());
    }
    benchmark::DoNotOptimize(objects.pods.size());
  }
  state.SetItemsProcessed(state.iterations() * kPageSize);
}

void BM_DecodeYamlTree(benchmark::State& state) {
  std::vector<Json> page = Page(0, kPageSize);
  for (auto _ : state) {
    ClusterObjects objects;
    for (const Json& pod : page) {
      YAML::Node node;
      Status s = JsonToYamlNode(pod, &node, /*skip_managed_fields=*/true);
      if (s.ok()) s = DecodeObject(node, "kube:Pod", &objects);
      if (!s.ok()) state.SkipWithError(s.message().c_str());
    }
    benchmark::DoNotOptimize(objects.pods.size());
  }
  state.SetItemsProcessed(state.iterations() * kPageSize);
}

void BM_ApplyUpsert(benchmark::State& state) {
  ClusterObjects decoded;
  for (const Json& pod : Page(0, kPageSize)) {
    Status s = DecodeJsonObject(pod, "kube:Pod", &decoded);
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
  for (auto _ : state) {
    state.PauseTiming();
    ClusterState store;
    std::vector<Pod> pods = decoded.pods;
    state.ResumeTiming();
    for (Pod& p : pods) store.UpsertPod(std::move(p));
    benchmark::DoNotOptimize(store.pods().size());
  }
  state.SetItemsProcessed(state.iterations() * kPageSize);
}

BENCHMARK(BM_ListPageDirect)
    ->Name("BM_ListPage/Direct")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ParsePage)->Name("BM_Parse/Nlohmann")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseListBody)->Name("BM_Parse/ListBody")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeJson)->Name("BM_Decode/Json")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeYamlTree)->Name("BM_Decode/YamlTree")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ApplyUpsert)->Name("BM_Apply/Upsert")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace basalt::bench

BENCHMARK_MAIN();
