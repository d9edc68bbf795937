// Helpers shared by the `basalt serve` tests: a manual clock, bounded waits,
// manifests (YAML) turned into API objects, seeds from the recorded fixtures,
// a plain HTTP GET, and a minimal Prometheus text-format parser.
#pragma once

#include <yaml-cpp/yaml.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/yaml_json.h"
#include "cli/serve.h"
#include "kube/client.h"
#include "kube/http.h"
#include "kube_fake_apiserver.h"

namespace basalt::testing {

// Virtual time: SleepFor advances it at once; Advance moves it by hand.
class ManualKubeClock : public kube::Clock {
 public:
  std::chrono::steady_clock::time_point Now() override {
    std::lock_guard<std::mutex> lock(mu_);
    return now_;
  }
  void SleepFor(std::chrono::milliseconds d) override { Advance(d); }
  void Advance(std::chrono::milliseconds d) {
    std::lock_guard<std::mutex> lock(mu_);
    now_ += d;
  }

 private:
  std::mutex mu_;
  std::chrono::steady_clock::time_point now_{std::chrono::hours(1)};
};

// Polls `pred` (another thread is expected to make it true) for at most 10 s.
template <typename Pred>
bool Eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::milliseconds(10000)) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

// Every document of a manifest file, as the API server would hold it.
inline std::vector<Json> ManifestObjects(const std::string& path) {
  std::vector<Json> out;
  for (const YAML::Node& doc : YAML::LoadAllFromFile(path)) {
    if (!doc.IsMap()) continue;
    auto obj = YamlToJson(doc, path);
    if (obj.ok()) out.push_back(std::move(*obj));
  }
  return out;
}

// A pod as the server stored `pod-create` (fixture), renamed and re-requested.
inline Json FixturePod(const std::string& ns, const std::string& name, const std::string& group,
                       const std::string& cpu, const std::string& scheduler = "volcano") {
  Json pod = Json::parse(ReadFixtureText("pod-create"))["response"]["body"];
  pod["metadata"] = {{"name", name}, {"namespace", ns}, {"labels", {{"app", "fx"}}}};
  if (!group.empty()) pod["metadata"]["annotations"] = {{"scheduling.k8s.io/group-name", group}};
  Json& res = pod["spec"]["containers"][0]["resources"];
  res = {{"requests", {{"cpu", cpu}, {"memory", "256Mi"}}},
         {"limits", {{"cpu", cpu}, {"memory", "256Mi"}}}};
  pod["spec"]["schedulerName"] = scheduler;
  pod["status"] = {{"phase", "Pending"}, {"qosClass", "Guaranteed"}};
  return pod;
}

// The recorded NodeList's nodes (an H200, an H200 with MIG, a tainted CPU node).
inline std::vector<Json> FixtureNodes() {
  std::vector<Json> out;
  Json list = Json::parse(ReadFixtureText("list-nodes"))["response"]["body"];
  for (Json item : list["items"]) {
    item["kind"] = "Node";
    item["apiVersion"] = "v1";
    item["metadata"].erase("resourceVersion");
    item["metadata"].erase("managedFields");
    out.push_back(item);
  }
  return out;
}

inline Json QueueObject(const std::string& name, int weight) {
  return Json{{"apiVersion", "scheduling.volcano.sh/v1beta1"},
              {"kind", "Queue"},
              {"metadata", {{"name", name}}},
              {"spec", {{"weight", weight}, {"reclaimable", true}}}};
}

inline Json PodGroupObject(const std::string& ns, const std::string& name, int min_member,
                           const std::string& queue) {
  return Json{{"apiVersion", "scheduling.volcano.sh/v1beta1"},
              {"kind", "PodGroup"},
              {"metadata", {{"name", name}, {"namespace", ns}}},
              {"spec", {{"minMember", min_member}, {"queue", queue}}}};
}

// GET http://127.0.0.1:PORT/PATH; status 0 on a transport failure.
inline kube::HttpResponse HttpGet(int port, const std::string& path) {
  kube::CurlTransport t(kube::CurlOptions{});
  kube::HttpRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + path;
  req.timeout = std::chrono::milliseconds(5000);
  auto r = t.Do(req);
  return r.ok() ? *r : kube::HttpResponse{};
}

// ServeApp options for a loopback fake: fast backoffs, a virtual clock, the
// endpoints on an ephemeral port, small list pages (paging is exercised).
inline ServeAppOptions LoopbackServeOptions(const FakeApiServer& fake, kube::Clock* clock,
                                            const std::string& identity = "basalt-test-0") {
  ServeAppOptions o;
  o.kubeconfig.server = fake.url();
  o.kubeconfig.token = "serve-token";
  o.kubeconfig.source = "test";
  o.request.listen = "127.0.0.1:0";
  o.request.period = "1s";
  o.request.identity = identity;
  o.request.lease_namespace = "basalt-system";
  o.request.qps = 0;
  o.clock = clock;
  o.informer.page_size = 2;
  o.informer.watch_timeout_seconds = 60;
  o.informer.initial_backoff = std::chrono::milliseconds(2);
  o.informer.max_backoff = std::chrono::milliseconds(40);
  o.max_attempts = 3;
  o.initial_backoff = std::chrono::milliseconds(1);
  o.request_timeout = std::chrono::milliseconds(5000);
  static int seq = 0;
  o.wall_now = [] { return "2026-11-22T07:00:" + std::to_string(10 + (seq++ % 50)) + ".000000Z"; };
  return o;
}

// Stops `app` promptly: open watches are cut until its informers have noticed.
inline void StopApp(ServeApp& app, FakeApiServer& fake) {
  std::atomic<bool> done{false};
  std::thread t([&] {
    app.Stop();
    done = true;
  });
  while (!done.load()) {
    fake.CloseWatches();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  t.join();
}

// ---- a minimal Prometheus text exposition (0.0.4) parser ----
struct PromSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};
struct PromFamily {
  std::string type, help;
  std::vector<PromSample> samples;
};

// Parses `text`; returns "" or the first error ("line N: ..."). Checks the
// grammar, that every sample belongs to a family declared by # TYPE before it,
// no duplicate series, and histogram consistency (le buckets cumulative, +Inf
// bucket equal to _count, _sum present).
std::string ParsePrometheusText(const std::string& text, std::map<std::string, PromFamily>* out);

}  // namespace basalt::testing
