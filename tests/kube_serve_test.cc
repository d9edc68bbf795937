// `basalt serve` end to end against the stateful loopback API server
// (kube_fake_apiserver.h): informers -> sessions -> binds, evictions, status
// writes and events through the API; restarts of basalt and of the server;
// watch streams cut mid-way; 500/429 storms; 401/403; /metrics, /healthz,
// /readyz. No sleeps decide an outcome: the cycle clock is virtual and every
// wait is a bounded wait for a condition.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>

#include "kube_serve_helpers.h"
#include "testing.h"

namespace basalt::testing {
namespace {

using kube::Json;

constexpr const char* kBindPath = "/binding";

// A cluster from the recordings: the three recorded nodes, a default queue,
// a gang of two pods of ours (pg-a, minMember 2), one pod of another scheduler.
void SeedGang(FakeApiServer& fake) {
  for (const Json& n : FixtureNodes()) fake.Put(n);
  fake.Put(QueueObject("default", 1));
  fake.Put(PodGroupObject("fx-1", "pg-a", 2, "default"));
  fake.Put(FixturePod("fx-1", "pod-a", "pg-a", "500m"));
  fake.Put(FixturePod("fx-1", "pod-b", "pg-a", "500m"));
  fake.Put(FixturePod("fx-1", "not-ours", "", "500m", "default-scheduler"));
}

size_t BindRequests(FakeApiServer& fake) {
  size_t n = 0;
  for (const auto& r : fake.http().requests())
    n += r.method == "POST" && r.path.ends_with(kBindPath);
  return n;
}

std::string NodeOf(FakeApiServer& fake, const std::string& ns, const std::string& name) {
  auto pod = fake.Get("Pod", ns, name);
  return pod ? (*pod)["spec"].value("nodeName", "") : "<gone>";
}

// True when the informers show what the server holds (pods: node and
// termination; PodGroups: phase).
bool InSync(ServeApp& app, FakeApiServer& fake) {
  std::map<std::string, std::pair<std::string, bool>> pods;
  for (const Json& p : fake.List("Pod")) {
    pods[p["metadata"]["namespace"].get<std::string>() + "/" +
         p["metadata"]["name"].get<std::string>()] = {p["spec"].value("nodeName", ""),
                                                      p["metadata"].contains("deletionTimestamp")};
  }
  std::map<std::string, std::optional<PodGroupPhase>> pgs;
  for (const Json& g : fake.List("PodGroup")) {
    pgs[g["metadata"]["namespace"].get<std::string>() + "/" +
        g["metadata"]["name"].get<std::string>()] =
        ParsePodGroupPhase(g.contains("status") ? g["status"].value("phase", "") : "");
  }
  return app.WithState([&](const ClusterState& s) {
    if (s.pods().size() != pods.size() || s.podgroups().size() != pgs.size()) return false;
    for (const auto& [k, p] : s.pods()) {
      auto it = pods.find(k);
      if (it == pods.end() || it->second.first != p.spec.node_name ||
          it->second.second != p.meta.deleting)
        return false;
    }
    for (const auto& [k, g] : s.podgroups()) {
      auto it = pgs.find(k);
      if (it == pgs.end() || it->second != g.phase) return false;
    }
    return true;
  });
}

// Runs cycles (one period apart) until `done` or `max` cycles; between cycles
// waits until the informers show what the last cycle wrote.
template <typename Pred>
bool CycleUntil(ServeApp& app, FakeApiServer& fake, ManualKubeClock& clock, Pred done,
                int max = 6) {
  for (int i = 0; i < max; ++i) {
    clock.Advance(std::chrono::seconds(1));
    app.Tick();
    app.AwaitBinds(std::chrono::milliseconds(5000));
    if (done()) return true;
    EXPECT_TRUE(Eventually([&] { return InSync(app, fake); }, std::chrono::milliseconds(5000)));
  }
  return done();
}

class ServeTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(fake_.Start()); }
  void TearDown() override { fake_.Stop(); }
  std::unique_ptr<ServeApp> StartApp(ServeAppOptions o) {
    auto app = std::make_unique<ServeApp>(std::move(o));
    Status s = app->Start();
    EXPECT_TRUE(s.ok()) << s.message();
    return app;
  }
  std::unique_ptr<ServeApp> StartSynced(const std::string& identity = "basalt-test-0") {
    auto app = StartApp(LoopbackServeOptions(fake_, &clock_, identity));
    EXPECT_TRUE(Eventually([&] { return app->Synced(); })) << "informers never synced";
    return app;
  }

  FakeApiServer fake_;
  ManualKubeClock clock_;
};

// Pending pods of ours are bound within two periods, through pods/binding;
// the PodGroup status is PUT with its resourceVersion, the Queue status merge-
// patched on /status, a Scheduled event written; later cycles and a restart of
// basalt never bind again; the pod of another scheduler is left alone.
TEST_F(ServeTest, BindsOnceAcrossCyclesAndRestart) {
  SeedGang(fake_);
  auto app = StartSynced();
  EXPECT_TRUE(CycleUntil(
      *app, fake_, clock_, [&] { return fake_.TotalBinds() == 2; }, 2));
  EXPECT_TRUE(app->leader());
  EXPECT_NE(NodeOf(fake_, "fx-1", "pod-a"), "");
  EXPECT_NE(NodeOf(fake_, "fx-1", "pod-b"), "");
  EXPECT_EQ(NodeOf(fake_, "fx-1", "not-ours"), "");
  Json pg = *fake_.Get("PodGroup", "fx-1", "pg-a");
  EXPECT_FALSE(pg["status"].value("phase", "").empty()) << pg.dump();
  EXPECT_GE(pg["metadata"]["generation"].get<int>(), 2);  // no /status: the patch bumps generation
  Json q = *fake_.Get("Queue", "", "default");
  EXPECT_EQ(q["status"]["allocated"]["cpu"], "1") << q.dump();
  EXPECT_EQ(q["metadata"]["generation"], 1);  // /status leaves generation alone
  int scheduled = 0;
  for (const Json& e : fake_.Events()) scheduled += e.value("reason", "") == "Scheduled";
  EXPECT_EQ(scheduled, 2);
  // More cycles: the informers show the binds; nothing is bound again.
  size_t binds = BindRequests(fake_);
  CycleUntil(
      *app, fake_, clock_, [] { return false; }, 3);
  EXPECT_EQ(BindRequests(fake_), binds);
  StopApp(*app, fake_);
  // A restarted basalt takes the released lease at once and binds nothing:
  // a pod with spec.nodeName is bound already.
  auto again = StartSynced("basalt-test-1");
  CycleUntil(
      *again, fake_, clock_, [] { return false; }, 2);
  EXPECT_TRUE(again->leader());
  EXPECT_EQ(BindRequests(fake_), binds);
  EXPECT_EQ(fake_.BindCount("fx-1/pod-a"), 1);
  EXPECT_EQ(fake_.BindCount("fx-1/pod-b"), 1);
  StopApp(*again, fake_);
}

// The pod was bound by someone else after the informer last saw it: the bind
// gets 409 "already assigned", which is reported and not retried; the pod is
// re-read and the next cycle does not try again.
TEST_F(ServeTest, BindConflictIsNotRetried) {
  for (const Json& n : FixtureNodes()) fake_.Put(n);
  fake_.Put(QueueObject("default", 1));
  fake_.Put(PodGroupObject("fx-2", "pg-c", 1, "default"));
  fake_.Put(FixturePod("fx-2", "c-1", "pg-c", "1"));
  auto app = StartSynced();
  // Another scheduler binds c-1 just before our bind arrives.
  fake_.SetHook([&](const FakeRequest& r) {
    if (r.method == "POST" && r.path.ends_with("/pods/c-1/binding")) {
      fake_.SetHook(nullptr);
      Json pod = *fake_.Get("Pod", "fx-2", "c-1");
      pod["spec"]["nodeName"] = "node-cpu-1";
      fake_.Put(pod);
    }
  });
  clock_.Advance(std::chrono::seconds(1));
  app->Tick();
  app->AwaitBinds(std::chrono::milliseconds(5000));
  ASSERT_FALSE(app->summaries().empty());
  EXPECT_EQ(app->summaries().back().bind_conflicts, 1);
  EXPECT_EQ(app->summaries().back().binds, 0);
  EXPECT_EQ(app->metrics().Value("basalt_bind_conflicts_total", {"already_bound"}), 1);
  for (int i = 0; i < 3; ++i) {
    clock_.Advance(std::chrono::seconds(1));
    app->Tick();
  }
  EXPECT_EQ(BindRequests(fake_), 1u);
  EXPECT_EQ(NodeOf(fake_, "fx-2", "c-1"), "node-cpu-1");
  StopApp(*app, fake_);
}

// Reclaim (examples/reclaim-4-steps, proportion) through the eviction API: a
// disruption budget first refuses (429 with Retry-After), the eviction is not
// lost, is not repeated before Retry-After, then succeeds; once the victim is
// gone the reclaimer is bound, once.
TEST_F(ServeTest, ReclaimEvictsThroughEvictionApiDespiteBudget) {
  const std::string ex = std::string(BASALT_SOURCE_DIR) + "/examples/reclaim-4-steps/";
  for (Json obj : ManifestObjects(ex + "common/cluster.yaml")) {
    if (obj["kind"] == "Job")
      continue;  // no vcjob controller in serve: its PodGroup and pod are given below
    fake_.Put(obj);
  }
  for (Json obj : ManifestObjects(ex + "queues-proportion.yaml")) fake_.Put(obj);
  Json pg3 = PodGroupObject("default", "job3", 1, "test");
  pg3["spec"]["minResources"] = {{"cpu", "3"}};
  fake_.Put(pg3);
  Json pod3 = FixturePod("default", "job3-default0-0", "job3", "3");
  pod3["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "3"}}}};
  fake_.Put(pod3);
  const std::string victim = "default/job2-default0-0";
  const std::string evict_path = "/api/v1/namespaces/default/pods/job2-default0-0/eviction";
  fake_.BlockEviction(victim, 10);

  ServeAppOptions o = LoopbackServeOptions(fake_, &clock_);
  std::ifstream conf(ex + "proportion.conf");
  o.conf_text.assign(std::istreambuf_iterator<char>(conf), {});
  auto app = StartApp(std::move(o));
  ASSERT_TRUE(Eventually([&] { return app->Synced(); }));
  ASSERT_TRUE(CycleUntil(
      *app, fake_, clock_, [&] { return fake_.http().CountRequests("POST", evict_path) == 1; }, 4));
  EXPECT_EQ(app->metrics().Value("basalt_evictions_blocked_total"), 1);
  EXPECT_EQ(fake_.EvictionCount(victim), 0);
  // Decided again within Retry-After: deferred, not re-sent.
  clock_.Advance(std::chrono::seconds(1));
  app->Tick();
  EXPECT_EQ(fake_.http().CountRequests("POST", evict_path), 1u);
  EXPECT_GE(app->summaries().back().evictions_deferred, 1);
  // The budget allows it now; after Retry-After the eviction goes out again.
  fake_.UnblockEviction(victim);
  clock_.Advance(std::chrono::seconds(10));
  ASSERT_TRUE(CycleUntil(
      *app, fake_, clock_, [&] { return fake_.EvictionCount(victim) == 1; }, 3));
  EXPECT_EQ(app->metrics().Value("basalt_pods_evicted_total", {"reclaim"}), 1);
  auto v = fake_.Get("Pod", "default", "job2-default0-0");
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(
      (*v)["metadata"].contains("deletionTimestamp"));  // bound pod, default grace: terminating
  fake_.Delete("Pod", "default", "job2-default0-0");    // the kubelet finishes it
  ASSERT_TRUE(CycleUntil(
      *app, fake_, clock_, [&] { return fake_.BindCount("default/job3-default0-0") == 1; }, 6));
  EXPECT_EQ(NodeOf(fake_, "default", "job3-default0-0"), "node-1");
  CycleUntil(
      *app, fake_, clock_, [] { return false; }, 2);
  EXPECT_EQ(fake_.BindCount("default/job3-default0-0"), 1);
  int blocked_events = 0;
  for (const Json& e : fake_.Events()) blocked_events += e.value("reason", "") == "EvictionBlocked";
  EXPECT_EQ(blocked_events, 1);
  StopApp(*app, fake_);
}

// PodGroup status is one merge patch per change: no read first, no PUT, a
// label someone else wrote stays; an unchanged status is not written again,
// and a restarted basalt does not rewrite what the server already holds.
TEST_F(ServeTest, PodGroupStatusIsOnePatchPerChange) {
  SeedGang(fake_);
  Json labelled = *fake_.Get("PodGroup", "fx-1", "pg-a");
  labelled["metadata"]["labels"] = {{"touched-by", "someone-else"}};
  fake_.Put(labelled);
  const std::string path = "/apis/scheduling.volcano.sh/v1beta1/namespaces/fx-1/podgroups/pg-a";
  auto app = StartSynced();
  ASSERT_TRUE(CycleUntil(
      *app, fake_, clock_, [&] { return fake_.TotalBinds() == 2; }, 2));
  size_t patches = fake_.http().CountRequests("PATCH", path);
  EXPECT_GE(patches, 1u);
  EXPECT_EQ(fake_.http().CountRequests("GET", path), 0u);
  EXPECT_EQ(fake_.http().CountRequests("PUT", path), 0u);
  Json pg = *fake_.Get("PodGroup", "fx-1", "pg-a");
  EXPECT_EQ(pg["metadata"]["labels"]["touched-by"], "someone-else");
  EXPECT_FALSE(pg["status"].value("phase", "").empty());
  CycleUntil(
      *app, fake_, clock_, [] { return false; }, 2);
  patches = fake_.http().CountRequests("PATCH", path);
  CycleUntil(
      *app, fake_, clock_, [] { return false; }, 2);
  EXPECT_EQ(fake_.http().CountRequests("PATCH", path), patches);  // nothing changed
  StopApp(*app, fake_);
  auto again = StartSynced("basalt-test-1");
  CycleUntil(
      *again, fake_, clock_, [] { return false; }, 2);
  EXPECT_EQ(fake_.http().CountRequests("PATCH", path), patches);  // the server has it already
  StopApp(*again, fake_);
}

// A PodGroup naming a queue that does not exist takes no part (as in
// Volcano), but serve writes a Warning event saying why on the PodGroup.
TEST_F(ServeTest, PodGroupInMissingQueueGetsAWarningEvent) {
  for (const Json& n : FixtureNodes()) fake_.Put(n);
  fake_.Put(QueueObject("default", 1));
  fake_.Put(PodGroupObject("fx-1", "pg-lost", 1, "nope"));
  fake_.Put(FixturePod("fx-1", "pod-lost", "pg-lost", "500m"));
  auto app = StartSynced();
  auto posted = [&] {
    for (const auto& r : fake_.http().requests()) {
      if (r.method == "POST" && r.path.ends_with("/events") &&
          r.body.find("queue nope does not exist") != std::string::npos &&
          r.body.find("pg-lost") != std::string::npos)
        return true;
    }
    return false;
  };
  CycleUntil(
      *app, fake_, clock_, [] { return false; }, 1);
  EXPECT_TRUE(Eventually(posted, std::chrono::milliseconds(5000)));
  EXPECT_EQ(fake_.TotalBinds(), 0u);
  StopApp(*app, fake_);
}

// Faults: the watch is cut mid-stream, the server answers 500 then 429 for a
// while, then restarts (with a compaction, so resuming watches get 410, as an
// ERROR event and as HTTP 410). The process stays up, the store converges to
// the server's objects (nothing lost for good), and nothing is bound twice.
TEST_F(ServeTest, SurvivesCutWatchesErrorStormsAndRestart) {
  SeedGang(fake_);
  auto app = StartSynced();
  ASSERT_TRUE(CycleUntil(
      *app, fake_, clock_, [&] { return fake_.TotalBinds() == 2; }, 2));
  auto store_matches = [&] {
    std::set<std::string> want;
    for (const Json& p : fake_.List("Pod"))
      want.insert(p["metadata"]["namespace"].get<std::string>() + "/" +
                  p["metadata"]["name"].get<std::string>());
    return app->WithState([&](const ClusterState& s) {
      std::set<std::string> have;
      for (const auto& [k, p] : s.pods()) have.insert(k);
      return have == want;
    });
  };
  // 1. Cut the streams; write while they are down.
  fake_.CloseWatches();
  fake_.Put(FixturePod("fx-1", "late-1", "", "100m", "default-scheduler"));
  fake_.Delete("Pod", "fx-1", "not-ours");
  ASSERT_TRUE(Eventually(store_matches));
  // 2. 500s then 429s for a while, with the streams cut again.
  fake_.FailNext(12, 500);
  fake_.CloseWatches();
  fake_.Put(FixturePod("fx-1", "late-2", "", "100m", "default-scheduler"));
  for (int i = 0; i < 3; ++i) {
    clock_.Advance(std::chrono::seconds(1));
    app->Tick();  // cycles meet errors; nothing throws, nothing stops
  }
  fake_.FailNext(6, 429);
  fake_.CloseWatches();
  ASSERT_TRUE(Eventually(store_matches));
  // 3. Restart with compaction, first answering 410 as an ERROR event...
  int port = fake_.port();
  fake_.Stop();
  fake_.Put(PodGroupObject("fx-3", "pg-r", 1, "default"));
  fake_.Put(FixturePod("fx-3", "r-1", "pg-r", "1"));
  fake_.Delete("Pod", "fx-1", "late-1");
  fake_.Compact();
  ASSERT_TRUE(fake_.Start(port));
  ASSERT_TRUE(Eventually(store_matches));
  ASSERT_TRUE(CycleUntil(
      *app, fake_, clock_, [&] { return fake_.BindCount("fx-3/r-1") == 1; }, 4));
  // ...then as HTTP 410.
  fake_.SetGoneAsHttp(true);
  fake_.Stop();
  fake_.Delete("Pod", "fx-1", "late-2");
  fake_.Compact();
  ASSERT_TRUE(fake_.Start(port));
  ASSERT_TRUE(Eventually(store_matches));
  int relists = 0;
  for (const auto& s : app->informer_stats()) relists += s.relists_on_gone;
  EXPECT_GE(relists, 2);
  CycleUntil(
      *app, fake_, clock_, [] { return false; }, 2);
  for (const char* pod : {"fx-1/pod-a", "fx-1/pod-b", "fx-3/r-1"})
    EXPECT_EQ(fake_.BindCount(pod), 1) << pod;
  EXPECT_GT(app->metrics().Value("basalt_api_errors_total", {"500"}), 0);
  EXPECT_TRUE(app->leader());
  StopApp(*app, fake_);
}

// 401 and 403 are reported clearly: /readyz names the refused call and the
// server's words, the log and the cycle summary carry them; the process stays up.
TEST_F(ServeTest, AuthErrorsAreReportedClearly) {
  SeedGang(fake_);
  fake_.RequireToken("the-right-token");
  auto app = StartApp(LoopbackServeOptions(fake_, &clock_));
  const std::string want =
      "informer Node not synced: GET /api/v1/nodes: 401 Unauthorized: Unauthorized\n";
  kube::HttpResponse ready;
  EXPECT_TRUE(Eventually([&] {
    ready = HttpGet(app->endpoint_port(), "/readyz");
    return ready.body.find(want) != std::string::npos;
  })) << ready.body;
  EXPECT_EQ(ready.status, 503);
  clock_.Advance(std::chrono::seconds(1));
  app->Tick();  // not synced, not leading: nothing happens, nothing breaks
  EXPECT_FALSE(app->Synced());
  StopApp(*app, fake_);

  fake_.RequireToken("");
  const std::string user = "system:serviceaccount:basalt-system:basalt";
  fake_.Forbid("create", "pods/binding", user);
  auto app2 = StartSynced();
  clock_.Advance(std::chrono::seconds(1));
  app2->Tick();
  app2->AwaitBinds(std::chrono::milliseconds(5000));
  ASSERT_FALSE(app2->summaries().empty());
  const CycleSummary& sum = app2->summaries().back();
  ASSERT_FALSE(sum.errors.empty());
  bool clear = false;
  for (const std::string& e : sum.errors) {
    clear |= e.find(
                 "POST /api/v1/namespaces/fx-1/pods/pod-a/binding: 403 Forbidden: pods \"pod-a\" "
                 "is forbidden: "
                 "User \"" +
                 user +
                 "\" cannot create resource \"pods/binding\" in API group \"\" in the "
                 "namespace \"fx-1\"") != std::string::npos;
  }
  EXPECT_TRUE(clear) << sum.errors[0];
  EXPECT_EQ(fake_.TotalBinds(), 0);
  EXPECT_EQ(app2->metrics().Value("basalt_api_errors_total", {"403"}), 2);  // not retried
  StopApp(*app2, fake_);
}

// Binds run off the cycle: a cycle hands them out and returns while they are
// still on the wire; the next cycle sees them as assumed and sends nothing
// again; their answers are collected afterwards.
TEST_F(ServeTest, CycleDoesNotWaitForBinds) {
  SeedGang(fake_);
  auto app = StartSynced();
  std::atomic<bool> release{false};
  std::atomic<int> held{0};
  fake_.SetHook([&](const FakeRequest& r) {
    if (r.method != "POST" || !r.path.ends_with("/binding")) return;
    ++held;
    for (int i = 0; i < 10000 && !release.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  clock_.Advance(std::chrono::seconds(1));
  app->Tick();
  EXPECT_EQ(app->summaries().back().binds_sent, 2);
  EXPECT_EQ(app->summaries().back().binds, 0);
  EXPECT_TRUE(Eventually([&] { return held.load() == 2; }));
  EXPECT_EQ(app->loop().binds_in_flight(), 2u);
  clock_.Advance(std::chrono::seconds(1));
  app->Tick();  // a second cycle while both binds are on the wire
  EXPECT_EQ(app->loop().cycles(), 2);
  EXPECT_EQ(app->summaries().back().binds_sent, 0);
  release = true;
  app->AwaitBinds(std::chrono::milliseconds(5000));
  EXPECT_EQ(app->summaries().back().binds, 2);
  fake_.SetHook(nullptr);
  EXPECT_EQ(fake_.BindCount("fx-1/pod-a"), 1);
  EXPECT_EQ(fake_.BindCount("fx-1/pod-b"), 1);
  EXPECT_EQ(app->loop().binds_in_flight(), 0u);
  StopApp(*app, fake_);
}

// A bind without a verdict (500 on every attempt) puts its pod back to the
// sessions after a backoff; it is then bound, once.
TEST_F(ServeTest, FailedBindIsDecidedAgainAfterBackoff) {
  SeedGang(fake_);
  ServeAppOptions o = LoopbackServeOptions(fake_, &clock_);
  o.request.period = "100ms";  // cycles well within the 1 s backoff
  auto app = StartApp(std::move(o));
  ASSERT_TRUE(Eventually([&] { return app->Synced(); }));
  fake_.SetHook([&](const FakeRequest& r) {
    if (r.method == "POST" && r.path.ends_with("/pods/pod-a/binding")) fake_.FailNext(1, 500);
  });
  clock_.Advance(std::chrono::seconds(1));
  app->Tick();
  app->AwaitBinds(std::chrono::milliseconds(5000));
  fake_.SetHook(nullptr);
  EXPECT_EQ(app->summaries().back().bind_failures, 1);
  EXPECT_EQ(app->summaries().back().binds, 1);
  EXPECT_EQ(app->metrics().Value("basalt_bind_failures_total"), 1);
  EXPECT_EQ(fake_.BindCount("fx-1/pod-a"), 0);
  ASSERT_TRUE(Eventually([&] { return InSync(*app, fake_); }));
  // Within the backoff the session decides it again but nothing is sent.
  clock_.Advance(std::chrono::milliseconds(200));
  app->Tick();
  EXPECT_EQ(app->summaries().back().binds_deferred, 1);
  EXPECT_EQ(app->summaries().back().binds_sent, 0);
  ASSERT_TRUE(CycleUntil(
      *app, fake_, clock_, [&] { return fake_.BindCount("fx-1/pod-a") == 1; }, 3));
  CycleUntil(
      *app, fake_, clock_, [] { return false; }, 2);
  EXPECT_EQ(fake_.BindCount("fx-1/pod-a"), 1);
  EXPECT_EQ(fake_.BindCount("fx-1/pod-b"), 1);
  StopApp(*app, fake_);
}

// SIGTERM with binds on the wire that never get an answer: Stop takes the
// grace and about a second more, never the request timeout; nothing is sent
// after it, and the lease is released.
TEST_F(ServeTest, StopWithBindsOnTheWireIsPrompt) {
  SeedGang(fake_);
  ServeAppOptions o = LoopbackServeOptions(fake_, &clock_);
  o.request_timeout = std::chrono::milliseconds(30000);
  o.shutdown_grace = std::chrono::milliseconds(500);
  auto app = StartApp(std::move(o));
  ASSERT_TRUE(Eventually([&] { return app->Synced(); }));
  std::atomic<bool> release{false};
  std::atomic<int> held{0};
  fake_.SetHook([&](const FakeRequest& r) {
    if (r.method != "POST" || !r.path.ends_with("/binding")) return;
    ++held;
    for (int i = 0; i < 20000 && !release.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  clock_.Advance(std::chrono::seconds(1));
  app->Tick();
  ASSERT_TRUE(Eventually([&] { return held.load() == 2; }));
  auto start = std::chrono::steady_clock::now();
  StopApp(*app, fake_);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 3.5);
  size_t requests = fake_.http().requests().size();
  release = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  fake_.SetHook(nullptr);
  // The held binds are handled by the server after release (or not at all);
  // basalt sends nothing more, and a second replica takes the lease at once.
  size_t binds_after = 0;
  const auto& all = fake_.http().requests();
  for (size_t i = requests; i < all.size(); ++i)
    binds_after += all[i].method == "POST" && all[i].path.ends_with("/binding");
  EXPECT_EQ(binds_after, 0u);
  auto again = StartSynced("basalt-test-1");
  clock_.Advance(std::chrono::seconds(1));
  again->Tick();
  EXPECT_TRUE(again->leader());
  StopApp(*again, fake_);
}

// /healthz, /readyz and /metrics; the metrics parse as Prometheus text and
// carry the families operators alert on.
TEST_F(ServeTest, EndpointsAndMetrics) {
  SeedGang(fake_);
  auto app = StartSynced();
  int port = app->endpoint_port();
  EXPECT_EQ(HttpGet(port, "/healthz").status, 200);
  EXPECT_EQ(HttpGet(port, "/readyz").status, 503);  // lease state not known before the first tick
  ASSERT_TRUE(CycleUntil(
      *app, fake_, clock_, [&] { return fake_.TotalBinds() == 2; }, 2));
  auto ready = HttpGet(port, "/readyz");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.body, "ok: leader\n");
  auto metrics = HttpGet(port, "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.Header("content-type").find("text/plain; version=0.0.4"), std::string::npos);
  std::map<std::string, PromFamily> fams;
  ASSERT_EQ(ParsePrometheusText(metrics.body, &fams), "") << metrics.body;
  EXPECT_EQ(fams["basalt_cycle_duration_seconds"].type, "histogram");
  EXPECT_EQ(fams["basalt_action_duration_seconds"].type, "histogram");
  EXPECT_EQ(fams["basalt_pods_bound_total"].type, "counter");
  EXPECT_EQ(fams["basalt_pods_bound_total"].samples.at(0).value, 2);
  EXPECT_EQ(fams["basalt_pods_evicted_total"].type, "counter");
  EXPECT_EQ(fams["basalt_pending_pods"].type, "gauge");
  EXPECT_EQ(fams["basalt_leader"].samples.at(0).value, 1);
  EXPECT_EQ(fams["basalt_api_errors_total"].type, "counter");
  bool queue_cpu = false;
  for (const auto& s : fams["basalt_queue_allocated"].samples) {
    queue_cpu |=
        s.labels.at("queue") == "default" && s.labels.at("resource") == "cpu" && s.value == 1;
  }
  EXPECT_TRUE(queue_cpu) << metrics.body;
  StopApp(*app, fake_);
}

// Exit code 2 with the file and the field for a bad kubeconfig; bad flags too.
TEST(ServeCliTest, BadKubeconfigExitsTwo) {
  auto missing = Basalt("serve --kubeconfig /nonexistent/kubeconfig --listen ''");
  EXPECT_EQ(missing.exit_code, 2) << missing.out;
  EXPECT_NE(missing.out.find("/nonexistent/kubeconfig"), std::string::npos) << missing.out;
  std::string path = ::testing::TempDir() + "/bad-kubeconfig";
  {
    std::ofstream(path)
        << "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
           "clusters: [{name: k, cluster: {server: 'https://k:6443'}}]\n"
           "users: [{name: u, user: {client-key-data: '!!'}}]\n";
  }
  auto bad = Basalt("serve --kubeconfig " + path);
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find(path + ": users[0].user.client-key-data: invalid base64"),
            std::string::npos)
      << bad.out;
  std::string good = ::testing::TempDir() + "/good-kubeconfig";
  {
    std::ofstream(good)
        << "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
           "clusters: [{name: k, cluster: {server: 'http://127.0.0.1:9'}}]\n"
           "users: [{name: u, user: {token: t}}]\n";
  }
  auto period = Basalt("serve --kubeconfig " + good + " --period soon --listen ''");
  EXPECT_EQ(period.exit_code, 2) << period.out;
  EXPECT_NE(period.out.find("--period: invalid duration \"soon\""), std::string::npos)
      << period.out;
  auto conf = Basalt("serve --kubeconfig " + good + " --conf /nonexistent/scheduler.conf");
  EXPECT_EQ(conf.exit_code, 2) << conf.out;
  EXPECT_NE(conf.out.find("/nonexistent/scheduler.conf"), std::string::npos) << conf.out;
}

}  // namespace
}  // namespace basalt::testing
