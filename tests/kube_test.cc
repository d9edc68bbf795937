// Tests of the Kubernetes client layer (src/kube/) against a loopback server
// that replays the exchanges recorded from a real kube-apiserver v1.26.1
// (tests/kube_fixtures/, see its README). Status codes and bodies come from
// the fixtures; only the fault tests (closed streams, 500/429 storms, restarts)
// add behaviour the recordings cannot show.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>

#include "kube/client.h"
#include "kube/http.h"
#include "kube/informer.h"
#include "kube/kubeconfig.h"
#include "kube_fake_server.h"
#include "state/cluster_state.h"

namespace basalt::kube {
namespace {

using basalt::testing::FakeKubeServer;
using basalt::testing::FakeRequest;
using basalt::testing::FakeResponder;
using basalt::testing::ReadFixtureText;

Json Fixture(const std::string& name) {
  Json j = Json::parse(ReadFixtureText(name), nullptr, false);
  EXPECT_TRUE(j.is_object()) << "fixture " << name;
  return j;
}

// Answers with the recorded response of `fixture`: its status, its body (or
// its watch lines, streamed and then cleanly ended) and its Retry-After.
void Replay(const Json& fixture, FakeResponder& out) {
  const Json& resp = fixture["response"];
  int status = resp["status"].get<int>();
  if (resp.contains("body_lines")) {
    out.BeginStream(status);
    bool split = false;
    for (const auto& line : resp["body_lines"]) {
      // Alternate whole and split chunks: events must not depend on framing.
      out.StreamLine(line.get<std::string>(), split);
      split = !split;
    }
    out.EndStream();
    return;
  }
  std::map<std::string, std::string> headers;
  if (resp["headers"].contains("Retry-After"))
    headers["Retry-After"] = resp["headers"]["Retry-After"];
  out.Respond(status, resp["body"].dump(), headers);
}

// No real sleeping: records the requested waits and advances virtual time.
class ManualClock : public Clock {
 public:
  std::chrono::steady_clock::time_point Now() override {
    std::lock_guard<std::mutex> lock(mu_);
    return now_;
  }
  void SleepFor(std::chrono::milliseconds d) override {
    std::lock_guard<std::mutex> lock(mu_);
    sleeps_.push_back(d);
    now_ += d;
  }
  std::vector<std::chrono::milliseconds> sleeps() {
    std::lock_guard<std::mutex> lock(mu_);
    return sleeps_;
  }

 private:
  std::mutex mu_;
  std::chrono::steady_clock::time_point now_{};
  std::vector<std::chrono::milliseconds> sleeps_;
};

class KubeClientTest : public ::testing::Test {
 protected:
  // Starts the server with `handler` and builds a client on it.
  void Serve(basalt::testing::FakeHandler handler) {
    ASSERT_TRUE(server_.Start(std::move(handler)));
    ClientOptions opt;
    opt.server = server_.url();
    opt.bearer_token = "test-token";
    opt.clock = &clock_;
    opt.qps = 0;  // unlimited; the limiter has its own test
    opt.request_timeout = std::chrono::milliseconds(5000);
    CurlOptions curl;
    curl.connect_timeout = std::chrono::milliseconds(2000);
    client_ = std::make_unique<Client>(opt, std::make_unique<CurlTransport>(curl));
  }
  // Serves one fixture for every request.
  void ServeFixture(const std::string& name) {
    Json fx = Fixture(name);
    Serve([fx](const FakeRequest&, FakeResponder& out) { Replay(fx, out); });
  }

  FakeKubeServer server_;
  ManualClock clock_;
  std::unique_ptr<Client> client_;
};

// Pages are followed through `continue` until a page has none; the snapshot
// RV is the lists's, and items of a built-in list get their kind back.
TEST_F(KubeClientTest, ListFollowsContinueAcrossChunkedPages) {
  Json p1 = Fixture("list-pods-chunked-page1"), p2 = Fixture("list-pods-chunked-page2");
  std::string token = p2["request"]["query"]["continue"];
  Serve([&](const FakeRequest& r, FakeResponder& out) {
    if (r.query.count("continue") && r.query.at("continue") == token) return Replay(p2, out);
    Replay(p1, out);
  });
  auto list = client_->List("/api/v1/pods", 2);
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(list->pages, 2);
  EXPECT_EQ(list->items.size(), 3u);
  EXPECT_EQ(list->resource_version, p1["response"]["body"]["metadata"]["resourceVersion"]);
  EXPECT_EQ(list->items[0]["kind"], "Pod");
  EXPECT_EQ(list->items[0]["apiVersion"], "v1");
  auto reqs = server_.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].query.at("limit"), "2");
  EXPECT_EQ(reqs[1].query.at("limit"), "2");  // same request plus continue
  EXPECT_EQ(reqs[0].headers.at("authorization"), "Bearer test-token");
  EXPECT_EQ(reqs[0].headers.at("accept"), "application/json");
}

// A CRD list ends on `"continue": ""`.
TEST_F(KubeClientTest, CrdListEndsOnEmptyContinue) {
  ServeFixture("list-queues");
  auto list = client_->List("/apis/scheduling.volcano.sh/v1beta1/queues", 500);
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(list->pages, 1);
  EXPECT_FALSE(list->items.empty());
  EXPECT_EQ(list->items[0]["kind"], "Queue");
}

// An expired continue token (HTTP 410) restarts the list from scratch; the
// inconsistent token offered in the Status is not used.
TEST_F(KubeClientTest, ListRestartsFromScratchOnExpiredContinue) {
  Json p1 = Fixture("list-pods-chunked-page1"), p2 = Fixture("list-pods-chunked-page2"),
       gone = Fixture("list-continue-expired-410");
  std::atomic<int> continued{0};
  Serve([&](const FakeRequest& r, FakeResponder& out) {
    if (r.query.count("continue")) {
      // The first continuation finds the token compacted away.
      if (continued++ == 0) return Replay(gone, out);
      return Replay(p2, out);
    }
    Replay(p1, out);
  });
  auto list = client_->List("/api/v1/pods", 2);
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(list->relists, 1);
  EXPECT_EQ(list->items.size(), 3u);
  auto reqs = server_.requests();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(reqs[2].query.count("continue"), 0u);  // from scratch
  std::string offered = gone["response"]["body"]["metadata"]["continue"];
  EXPECT_NE(reqs[3].query.at("continue"), offered);
}

// A CRD list's expired continue token is surfaced as 410 when relists run out.
TEST_F(KubeClientTest, ListGivesUpAfterBoundedRelists) {
  Json p1 = Fixture("list-podgroups"), gone = Fixture("list-podgroups-continue-expired-410");
  Serve([&](const FakeRequest& r, FakeResponder& out) {
    Replay(r.query.count("continue") ? gone : p1, out);
  });
  auto list = client_->List("/apis/scheduling.volcano.sh/v1beta1/podgroups", 2, {}, 2);
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().code, 410);
  EXPECT_EQ(list.error().reason, "Expired");
  EXPECT_EQ(server_.requests().size(), 6u);  // 3 attempts x (page 1 + continue)
}

// Bookmarks advance the resourceVersion; every event arrives in order even
// when chunks split lines.
TEST_F(KubeClientTest, WatchDecodesEventsAndBookmarks) {
  ServeFixture("watch-pods-bookmarks");
  std::vector<WatchEventType> types;
  auto w = client_->Watch("/api/v1/pods", "274", 5, [&](const WatchEvent& e) {
    types.push_back(e.type);
    return true;
  });
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->end, WatchEnd::kClosed);
  using T = WatchEventType;
  EXPECT_EQ(types, (std::vector<T>{T::kAdded, T::kModified, T::kModified, T::kModified, T::kDeleted,
                                   T::kBookmark, T::kBookmark}));
  EXPECT_EQ(w->last_resource_version, "279");  // the last bookmark's
  auto reqs = server_.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].query.at("watch"), "true");
  EXPECT_EQ(reqs[0].query.at("resourceVersion"), "274");
  EXPECT_EQ(reqs[0].query.at("allowWatchBookmarks"), "true");
}

// An ERROR event with a 410 Status (HTTP 200) means "relist", in both the
// watch-cache and the etcd wording.
TEST_F(KubeClientTest, WatchErrorEvent410MeansRelist) {
  for (const char* name :
       {"watch-pods-too-old-rv-error-event", "watch-events-compacted-error-event"}) {
    // The fixture outlives the server: a worker may still be replaying it
    // after the client stopped reading (an ERROR event ends the watch early).
    Json fx = Fixture(name);
    FakeKubeServer server;
    ASSERT_TRUE(server.Start([&](const FakeRequest&, FakeResponder& out) { Replay(fx, out); }));
    ClientOptions opt;
    opt.server = server.url();
    opt.clock = &clock_;
    Client client(opt, std::make_unique<CurlTransport>(CurlOptions{}));
    int events = 0;
    auto w =
        client.Watch("/api/v1/pods", "1", 5, [&](const WatchEvent&) { return ++events, true; });
    ASSERT_TRUE(w.ok()) << name << ": " << w.status().message();
    EXPECT_EQ(w->end, WatchEnd::kGone) << name;
    EXPECT_EQ(events, 0) << name;
    EXPECT_FALSE(w->message.empty());
  }
}

// A watch answered with HTTP 410 (as a list would be) also means "relist".
TEST_F(KubeClientTest, WatchHttp410MeansRelist) {
  ServeFixture("list-rv-exact-expired-410");
  auto w = client_->Watch("/api/v1/pods", "295", 5, [](const WatchEvent&) { return true; });
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->end, WatchEnd::kGone);
  EXPECT_NE(w->message.find("too old"), std::string::npos);
}

TEST_F(KubeClientTest, BindCreatedIsBound) {
  ServeFixture("binding-201");
  auto r = client_->Bind("fx-5", "b-1", "node-a");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->outcome, BindOutcome::kBound);
  Json body = Json::parse(server_.requests()[0].body);
  EXPECT_EQ(body["kind"], "Binding");
  EXPECT_EQ(body["target"]["name"], "node-a");
  EXPECT_EQ(body["metadata"]["name"], "b-1");
  EXPECT_EQ(server_.requests()[0].path, "/api/v1/namespaces/fx-5/pods/b-1/binding");
}

// 409 on a bind is a verdict: reported, never retried (a retry could only
// fail again, and a blind retry loop is how double binds are born).
TEST_F(KubeClientTest, BindConflictsAreReportedNotRetried) {
  struct Case {
    const char* fixture;
    BindOutcome outcome;
  } cases[] = {{"binding-409-already-bound", BindOutcome::kAlreadyBound},
               {"binding-terminating-pod", BindOutcome::kPodTerminating},
               {"binding-409-rv-precondition", BindOutcome::kConflict},
               {"binding-404-missing-pod", BindOutcome::kPodGone}};
  for (const Case& c : cases) {
    // The fixture outlives the server: a worker may still be replaying it
    // after the client stopped reading (an ERROR event ends the watch early).
    Json fx = Fixture(c.fixture);
    FakeKubeServer server;
    ASSERT_TRUE(server.Start([&](const FakeRequest&, FakeResponder& out) { Replay(fx, out); }));
    ClientOptions opt;
    opt.server = server.url();
    opt.clock = &clock_;
    Client client(opt, std::make_unique<CurlTransport>(CurlOptions{}));
    auto r = client.Bind("fx-5", "b-1", "node-a");
    ASSERT_TRUE(r.ok()) << c.fixture << ": " << r.status().message();
    EXPECT_EQ(r->outcome, c.outcome) << c.fixture;
    EXPECT_EQ(r->message, fx["response"]["body"]["message"]) << c.fixture;
    EXPECT_EQ(server.requests().size(), 1u) << c.fixture;
  }
}

// 400 (body/URL name mismatch) is an error carrying the server's message.
TEST_F(KubeClientTest, BindBadRequestIsAnError) {
  ServeFixture("error-400-binding-name-mismatch");
  auto r = client_->Bind("fx-9", "x-1", "n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 400);
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
}

TEST_F(KubeClientTest, EvictCreatedAndGone) {
  for (const char* name : {"eviction-201-pending-pod", "eviction-201-bound-grace0"}) {
    // The fixture outlives the server: a worker may still be replaying it
    // after the client stopped reading (an ERROR event ends the watch early).
    Json fx = Fixture(name);
    FakeKubeServer server;
    ASSERT_TRUE(server.Start([&](const FakeRequest&, FakeResponder& out) { Replay(fx, out); }));
    ClientOptions opt;
    opt.server = server.url();
    opt.clock = &clock_;
    Client client(opt, std::make_unique<CurlTransport>(CurlOptions{}));
    auto r = client.Evict("fx-5", "e-bound", 0);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->outcome, EvictOutcome::kEvicted);
    Json body = Json::parse(server.requests()[0].body);
    EXPECT_EQ(body["apiVersion"], "policy/v1");
    EXPECT_EQ(body["deleteOptions"]["gracePeriodSeconds"], 0);
  }
  ServeFixture("eviction-404-missing-pod");
  auto r = client_->Evict("fx-5", "no-such-pod");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, EvictOutcome::kPodGone);
}

// A disruption budget's 429 is "blocked, retry later", returned at once (not
// retried inside the call), with Retry-After when the server gave one.
TEST_F(KubeClientTest, EvictBlockedByBudgetIsDistinct) {
  ServeFixture("eviction-429-pdb-not-processed");
  auto r = client_->Evict("fx-5", "e-guarded");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->outcome, EvictOutcome::kBlockedByBudget);
  EXPECT_EQ(r->retry_after_seconds, 10);
  EXPECT_EQ(server_.requests().size(), 1u);
  EXPECT_TRUE(clock_.sleeps().empty());

  Json fx = Fixture("eviction-429-pdb-violation");
  FakeKubeServer server;
  ASSERT_TRUE(server.Start([&](const FakeRequest&, FakeResponder& out) { Replay(fx, out); }));
  ClientOptions opt;
  opt.server = server.url();
  opt.clock = &clock_;
  Client client(opt, std::make_unique<CurlTransport>(CurlOptions{}));
  auto v = client.Evict("fx-5", "e-guarded");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->outcome, EvictOutcome::kBlockedByBudget);
  EXPECT_EQ(v->retry_after_seconds, -1);
  EXPECT_EQ(v->message, "Cannot evict pod as it would violate the pod's disruption budget.");
}

// A stale resourceVersion on the PodGroup PUT is a 409; the helper refetches
// and retries, and the second PUT carries the fresh RV.
TEST_F(KubeClientTest, PodGroupPutStaleRefetchesAndRetries) {
  Json ok = Fixture("podgroup-put-status"), stale = Fixture("podgroup-put-stale-rv-409");
  Json current = ok["request"]["body"];  // the object as the server holds it
  std::atomic<int> puts{0};
  Serve([&](const FakeRequest& r, FakeResponder& out) {
    if (r.method == "GET") return out.Respond(200, current.dump());
    if (puts++ == 0) return Replay(stale, out);
    Replay(ok, out);
  });
  auto r = client_->UpdatePodGroupWithRetry("fx-6", "pg-s", [](Json& pg) {
    pg["status"]["phase"] = "Running";
    return true;
  });
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(puts.load(), 2);
  EXPECT_EQ(server_.CountRequests(
                "GET", "/apis/scheduling.volcano.sh/v1beta1/namespaces/fx-6/podgroups/pg-s"),
            2u);
  EXPECT_EQ((*r)["metadata"]["generation"], ok["response"]["body"]["metadata"]["generation"]);
}

// Without the helper, a stale PUT is a Conflict error with the server's words.
TEST_F(KubeClientTest, PodGroupPutStaleIsConflict) {
  Json fx = Fixture("podgroup-put-stale-rv-409");
  ServeFixture("podgroup-put-stale-rv-409");
  auto r = client_->UpdatePodGroup(fx["request"]["body"]);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().IsConflict());
  EXPECT_NE(r.error().ToString().find("the object has been modified"), std::string::npos);
  EXPECT_NE(r.error().ToString().find("PUT /apis/scheduling.volcano.sh"), std::string::npos);
}

// Queue status goes through /status as a JSON merge patch.
TEST_F(KubeClientTest, QueueStatusIsMergePatchOnStatusSubresource) {
  Json fx = Fixture("queue-patch-status");
  ServeFixture("queue-patch-status");
  auto r = client_->PatchQueueStatus("q-train", fx["request"]["body"]["status"]);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto req = server_.requests()[0];
  EXPECT_EQ(req.method, "PATCH");
  EXPECT_EQ(req.path, "/apis/scheduling.volcano.sh/v1beta1/queues/q-train/status");
  EXPECT_EQ(req.headers.at("content-type"), "application/merge-patch+json");
  EXPECT_EQ(Json::parse(req.body), fx["request"]["body"]);
  EXPECT_EQ((*r)["metadata"]["name"], "q-train");
}

// A strategic merge patch on the CRD is refused with 415; the message lists
// what is accepted. Not retried.
TEST_F(KubeClientTest, StrategicPatchOnCrdIs415) {
  ServeFixture("podgroup-patch-strategic-415");
  auto r = client_->Patch("/apis/scheduling.volcano.sh/v1beta1/namespaces/fx-6/podgroups/pg-s",
                          Json{{"status", {{"phase", "Running"}}}},
                          "application/strategic-merge-patch+json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 415);
  EXPECT_EQ(r.error().reason, "UnsupportedMediaType");
  EXPECT_NE(r.error().message.find("application/merge-patch+json"), std::string::npos);
  EXPECT_EQ(server_.requests().size(), 1u);
}

// Lease flow: free (404), created, lost race on create (AlreadyExists),
// renewed, lost race on a stale update (Conflict).
TEST_F(KubeClientTest, LeaseFlow) {
  Json get404 = Fixture("lease-get-404"), create = Fixture("lease-create"),
       exists = Fixture("lease-create-409-exists"), get = Fixture("lease-get"),
       renew = Fixture("lease-renew-put"), stale = Fixture("lease-update-409-stale");
  std::atomic<int> gets{0}, posts{0}, puts{0};
  Serve([&](const FakeRequest& r, FakeResponder& out) {
    if (r.method == "GET") return Replay(gets++ == 0 ? get404 : get, out);
    if (r.method == "POST") return Replay(posts++ == 0 ? create : exists, out);
    Replay(puts++ == 0 ? renew : stale, out);
  });
  auto free = client_->GetLease("fx-8", "basalt-scheduler");
  ASSERT_TRUE(free.ok()) << free.status().message();
  EXPECT_FALSE(free->has_value());
  auto c1 = client_->CreateLease("fx-8", create["request"]["body"]);
  ASSERT_TRUE(c1.ok());
  EXPECT_EQ(c1->outcome, LeaseOutcome::kAcquired);
  auto c2 = client_->CreateLease("fx-8", create["request"]["body"]);
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(c2->outcome, LeaseOutcome::kLostRace);
  auto held = client_->GetLease("fx-8", "basalt-scheduler");
  ASSERT_TRUE(held.ok() && held->has_value());
  EXPECT_EQ((**held)["spec"]["holderIdentity"], "basalt-0_6f1c");
  auto u1 = client_->UpdateLease("fx-8", renew["request"]["body"]);
  ASSERT_TRUE(u1.ok());
  EXPECT_EQ(u1->outcome, LeaseOutcome::kAcquired);
  EXPECT_EQ(Json::parse(server_.requests().back().body)["metadata"]["resourceVersion"],
            renew["request"]["body"]["metadata"]["resourceVersion"]);
  auto u2 = client_->UpdateLease("fx-8", stale["request"]["body"]);
  ASSERT_TRUE(u2.ok());
  EXPECT_EQ(u2->outcome, LeaseOutcome::kLostRace);
  EXPECT_NE(u2->message.find("modified"), std::string::npos);
}

// 401 and 403 are reported with verb, path and the server's message, and
// are not retried (new credentials or RBAC are needed, not patience).
TEST_F(KubeClientTest, AuthErrorsAreClear) {
  for (const char* name :
       {"error-401-bad-token", "error-403-anonymous", "error-403-forbidden-list"}) {
    // The fixture outlives the server: a worker may still be replaying it
    // after the client stopped reading (an ERROR event ends the watch early).
    Json fx = Fixture(name);
    FakeKubeServer server;
    ASSERT_TRUE(server.Start([&](const FakeRequest&, FakeResponder& out) { Replay(fx, out); }));
    ClientOptions opt;
    opt.server = server.url();
    opt.clock = &clock_;
    Client client(opt, std::make_unique<CurlTransport>(CurlOptions{}));
    auto r = client.List("/api/v1/pods", 1);
    ASSERT_FALSE(r.ok()) << name;
    std::string msg = r.status().message();
    EXPECT_EQ(r.error().code, fx["response"]["status"].get<int>()) << name;
    EXPECT_NE(msg.find("GET /api/v1/pods"), std::string::npos) << msg;
    EXPECT_NE(msg.find(fx["response"]["body"]["message"].get<std::string>()), std::string::npos)
        << msg;
    EXPECT_EQ(r.status().code(), Status::Code::kFailedPrecondition);
    EXPECT_EQ(server.requests().size(), 1u) << name;
  }
}

// 422: the server's message (with the field) reaches the caller.
TEST_F(KubeClientTest, UnprocessableSurfacesMessage) {
  Json fx = Fixture("error-422-crd-schema");
  ServeFixture("error-422-crd-schema");
  auto r = client_->Call("POST", fx["request"]["path"], {}, fx["request"]["body"].dump(),
                         "application/json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 422);
  EXPECT_EQ(r.error().reason, "Invalid");
  EXPECT_NE(r.error().message.find("spec.minMember"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
}

// events.k8s.io/v1 is tried first and the reply decoded.
TEST_F(KubeClientTest, EventsV1Created) {
  ServeFixture("event-eventsv1-podgroup");
  EventSpec ev{"fx-7",
               "scheduling.volcano.sh/v1beta1",
               "PodGroup",
               "pg-a",
               "",
               "Warning",
               "Unschedulable",
               "Scheduling",
               "0/3 nodes are available",
               "basalt",
               "",
               ""};
  auto r = client_->CreateEvent(ev);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto req = server_.requests()[0];
  EXPECT_EQ(req.path, "/apis/events.k8s.io/v1/namespaces/fx-7/events");
  Json body = Json::parse(req.body);
  EXPECT_TRUE(body.contains("eventTime"));
  EXPECT_EQ(body["reportingController"], "basalt");
  EXPECT_EQ(body["regarding"]["kind"], "PodGroup");
}

// Where events.k8s.io is not served (404 for the group), core/v1 is used.
TEST_F(KubeClientTest, EventsFallBackToCoreV1) {
  Json core = Fixture("event-corev1-pod");
  Serve([&](const FakeRequest& r, FakeResponder& out) {
    if (r.path.rfind("/apis/events.k8s.io", 0) == 0) {
      return out.Respond(
          404,
          R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
          R"("message":"the server could not find the requested resource","reason":"NotFound","code":404})");
    }
    Replay(core, out);
  });
  EventSpec ev{"fx-7",      "v1",      "Pod",         "p-1",    "", "Normal",
               "Scheduled", "Binding", "bound to n1", "basalt", "", ""};
  ASSERT_TRUE(client_->CreateEvent(ev).ok());
  ASSERT_TRUE(client_->CreateEvent(ev).ok());
  // The second call goes straight to core/v1.
  EXPECT_EQ(server_.CountRequests("POST", "/apis/events.k8s.io/v1/namespaces/fx-7/events"), 1u);
  EXPECT_EQ(server_.CountRequests("POST", "/api/v1/namespaces/fx-7/events"), 2u);
  Json body = Json::parse(server_.requests().back().body);
  EXPECT_EQ(body["involvedObject"]["name"], "p-1");
  EXPECT_EQ(body["involvedObject"]["namespace"], "fx-7");
}

// 5xx and 429 are retried with backoff; Retry-After sets the wait; the number
// of attempts is bounded.
TEST_F(KubeClientTest, RetriesHonourRetryAfterAndAreBounded) {
  Json ok = Fixture("list-queues");
  std::atomic<int> calls{0};
  Serve([&](const FakeRequest&, FakeResponder& out) {
    int n = calls++;
    if (n == 0)
      return out.Respond(
          500, R"({"kind":"Status","code":500,"reason":"InternalError","message":"etcd"})");
    if (n == 1) {
      return out.Respond(
          429, R"({"kind":"Status","code":429,"reason":"TooManyRequests","message":"slow down"})",
          {{"Retry-After", "3"}});
    }
    Replay(ok, out);
  });
  auto r = client_->List("/apis/scheduling.volcano.sh/v1beta1/queues", 0);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto sleeps = clock_.sleeps();
  ASSERT_EQ(sleeps.size(), 2u);
  EXPECT_EQ(sleeps[0], std::chrono::milliseconds(200));   // initial backoff
  EXPECT_EQ(sleeps[1], std::chrono::milliseconds(3000));  // Retry-After

  FakeKubeServer always500;
  ASSERT_TRUE(always500.Start([](const FakeRequest&, FakeResponder& out) {
    out.Respond(503,
                R"({"kind":"Status","code":503,"reason":"ServiceUnavailable","message":"down"})");
  }));
  ClientOptions opt;
  opt.server = always500.url();
  opt.clock = &clock_;
  opt.max_attempts = 4;
  Client client(opt, std::make_unique<CurlTransport>(CurlOptions{}));
  auto f = client.Get("/api/v1/nodes/x");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, 503);
  EXPECT_EQ(always500.requests().size(), 4u);
  EXPECT_EQ(f.status().code(), Status::Code::kUnavailable);
}

// A refused connection is a transport error (code 0), retried then reported.
TEST_F(KubeClientTest, ConnectionRefusedIsUnavailable) {
  FakeKubeServer s;
  ASSERT_TRUE(s.Start([](const FakeRequest&, FakeResponder& out) { out.Respond(200, "{}"); }));
  std::string url = s.url();
  s.Stop();  // nothing listens on that port now
  ClientOptions opt;
  opt.server = url;
  opt.clock = &clock_;
  opt.max_attempts = 2;
  Client client(opt, std::make_unique<CurlTransport>(CurlOptions{}));
  auto r = client.Get("/version");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, 0);
  EXPECT_EQ(r.status().code(), Status::Code::kUnavailable);
}

// Garbage from the server never crashes: non-JSON bodies, malformed watch lines.
TEST_F(KubeClientTest, GarbageIsAnErrorNotACrash) {
  std::atomic<int> n{0};
  Serve([&](const FakeRequest& r, FakeResponder& out) {
    if (r.query.count("watch")) {
      out.BeginStream(200);
      out.StreamLine(R"({"type":"ADDED","object":)");  // truncated JSON
      out.EndStream();
      return;
    }
    if (n++ % 2 == 0) return out.Respond(200, "<html>not json</html>");
    out.Respond(502, "\x01\x02 bad gateway");
  });
  EXPECT_FALSE(client_->Get("/api/v1/nodes/a").ok());
  auto e = client_->Get("/api/v1/nodes/a");
  ASSERT_FALSE(e.ok());
  auto w = client_->Watch("/api/v1/pods", "1", 5, [](const WatchEvent&) { return true; });
  EXPECT_FALSE(w.ok());
}

// The token bucket lets `burst` requests through, then spaces them at 1/qps.
TEST(KubeRateLimiterTest, TokenBucket) {
  ManualClock clock;
  RateLimiter limiter(10, 3, &clock);
  for (int i = 0; i < 3; ++i) limiter.Acquire();
  EXPECT_TRUE(clock.sleeps().empty());
  EXPECT_EQ(limiter.Delay(), std::chrono::milliseconds(100));
  limiter.Acquire();
  ASSERT_EQ(clock.sleeps().size(), 1u);
  EXPECT_EQ(clock.sleeps()[0], std::chrono::milliseconds(100));
}

}  // namespace
}  // namespace basalt::kube

namespace basalt::kube {
namespace {

// ---------------------------------------------------------------------------
// Informer: list-then-watch into ClusterState, driven by the recorded pods.
// ---------------------------------------------------------------------------

InformerOptions FastInformer() {
  InformerOptions o;
  o.page_size = 2;
  o.watch_timeout_seconds = 5;
  o.initial_backoff = std::chrono::milliseconds(5);
  o.max_backoff = std::chrono::milliseconds(50);
  return o;
}

std::unique_ptr<Client> LoopbackClient(const FakeKubeServer& server, Clock* clock,
                                       int max_attempts = 3) {
  ClientOptions opt;
  opt.server = server.url();
  opt.clock = clock;
  opt.qps = 0;
  opt.max_attempts = max_attempts;
  opt.initial_backoff = std::chrono::milliseconds(1);
  CurlOptions curl;
  curl.connect_timeout = std::chrono::milliseconds(1000);
  return std::make_unique<Client>(opt, std::make_unique<CurlTransport>(curl));
}

// Waits (bounded) for `pred` while an informer thread runs.
template <typename Pred>
bool WaitFor(Pred pred, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

// The chunked pod list and the recorded pod watch, served as recorded (the
// watch was recorded from another list's RV; the bodies are kept verbatim
// rather than rewritten), produce the state they describe together.
TEST(KubeInformerTest, ListThenWatchFeedsClusterState) {
  Json p1 = Fixture("list-pods-chunked-page1"), p2 = Fixture("list-pods-chunked-page2"),
       watch = Fixture("watch-pods-bookmarks");
  std::atomic<int> watches{0};
  FakeKubeServer server;
  ASSERT_TRUE(server.Start([&](const FakeRequest& r, FakeResponder& out) {
    if (r.query.count("watch")) {
      if (watches++ == 0) return Replay(watch, out);
      return out.Respond(200, "");  // later watches: quiet, ended at once
    }
    Replay(r.query.count("continue") ? p2 : p1, out);
  }));
  ManualClock clock;
  auto client = LoopbackClient(server, &clock);
  ClusterState state;
  StateSink sink(&state);
  Informer informer(client.get(), {"Pod", {"/api/v1", "pods"}}, &sink, FastInformer());
  std::atomic<bool> stop{false};
  ASSERT_TRUE(informer.Step(stop));
  auto stats = informer.stats();
  EXPECT_EQ(stats.lists, 1);
  EXPECT_EQ(stats.events, 5);
  EXPECT_EQ(stats.bookmarks, 2);
  EXPECT_EQ(stats.decode_errors, 0) << stats.last_error;
  EXPECT_EQ(stats.resource_version, "279");  // bookmarks advance the RV
  // 3 listed pods; the watched pod was added, bound, run, deleted: gone again.
  std::lock_guard<std::mutex> lock(sink.mutex());
  EXPECT_EQ(state.pods().size(), 3u);
  for (const auto& item : p1["response"]["body"]["items"]) {
    std::string key = item["metadata"]["namespace"].get<std::string>() + "/" +
                      item["metadata"]["name"].get<std::string>();
    EXPECT_TRUE(state.pods().count(key)) << key;
  }
  // The watch started from the list's snapshot RV (every page has it).
  auto reqs = server.requests();
  EXPECT_EQ(reqs.back().query.at("resourceVersion"),
            p1["response"]["body"]["metadata"]["resourceVersion"]);
}

// An ERROR 410 event makes the informer relist and replace: an object deleted
// while the RV was too old disappears from the state.
TEST(KubeInformerTest, RelistOnWatchErrorEventReplacesState) {
  Json p1 = Fixture("list-pods-chunked-page1"), p2 = Fixture("list-pods-chunked-page2"),
       gone = Fixture("watch-pods-too-old-rv-error-event");
  std::atomic<int> lists{0};
  FakeKubeServer server;
  ASSERT_TRUE(server.Start([&](const FakeRequest& r, FakeResponder& out) {
    if (r.query.count("watch")) return Replay(gone, out);
    if (r.query.count("continue")) return Replay(p2, out);
    if (lists++ == 0) return Replay(p1, out);
    // The second list: page 1 alone, without its continue (pod 3 was deleted).
    Json only = p1["response"]["body"];
    only["metadata"].erase("continue");
    out.Respond(200, only.dump());
  }));
  ManualClock clock;
  auto client = LoopbackClient(server, &clock);
  ClusterState state;
  StateSink sink(&state);
  Informer informer(client.get(), {"Pod", {"/api/v1", "pods"}}, &sink, FastInformer());
  std::atomic<bool> stop{false};
  ASSERT_TRUE(informer.Step(stop));  // list (2 pages) + watch -> 410
  EXPECT_EQ(informer.stats().relists_on_gone, 1);
  EXPECT_EQ(state.pods().size(), 3u);
  informer.Step(stop);  // relist
  EXPECT_EQ(informer.stats().lists, 2);
  EXPECT_EQ(state.pods().size(), 2u);
}

// HTTP 410 on the watch request is handled the same way.
TEST(KubeInformerTest, RelistOnHttp410) {
  Json queues = Fixture("list-queues"), gone = Fixture("list-rv-exact-expired-410");
  FakeKubeServer server;
  ASSERT_TRUE(server.Start([&](const FakeRequest& r, FakeResponder& out) {
    Replay(r.query.count("watch") ? gone : queues, out);
  }));
  ManualClock clock;
  auto client = LoopbackClient(server, &clock);
  ClusterState state;
  StateSink sink(&state);
  Informer informer(client.get(), {"Queue", {"/apis/scheduling.volcano.sh/v1beta1", "queues"}},
                    &sink, FastInformer());
  std::atomic<bool> stop{false};
  ASSERT_TRUE(informer.Step(stop));
  EXPECT_EQ(informer.stats().relists_on_gone, 1);
  EXPECT_EQ(informer.stats().decode_errors, 0) << informer.stats().last_error;
  EXPECT_FALSE(state.queues().empty());
}

// Fault: the watch stream closes mid-way (after some events, without the
// final chunk), then the server answers 500 and 429 for a while, then
// restarts on the same port. The informer keeps running, resumes from the
// last applied RV, and ends with every event applied exactly as the server
// sent it.
TEST(KubeInformerTest, RecoversFromBrokenStreamErrorsAndRestart) {
  Json pgs = Fixture("list-podgroups"), watch = Fixture("watch-podgroups-bookmarks");
  std::vector<std::string> lines;
  for (const auto& l : watch["response"]["body_lines"]) lines.push_back(l.get<std::string>());
  std::atomic<int> phase{0};
  std::mutex mu;
  std::vector<std::string> watch_rvs;
  auto handler = [&](const FakeRequest& r, FakeResponder& out) {
    if (!r.query.count("watch")) {
      // Lists page through the recorded PodGroup list (CRD: continue "").
      Json body = pgs["response"]["body"];
      body["metadata"]["continue"] = "";
      return out.Respond(200, body.dump());
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      watch_rvs.push_back(r.query.at("resourceVersion"));
    }
    int p = phase++;
    if (p == 0) {
      // Two events, then the connection drops mid-stream.
      out.BeginStream(200);
      out.StreamLine(lines[0]);
      out.StreamLine(lines[1], /*split=*/true);
      out.Abort();
      return;
    }
    if (p == 1)
      return out.Respond(
          500,
          R"({"kind":"Status","code":500,"reason":"InternalError","message":"etcd leader changed"})");
    if (p == 2) {
      return out.Respond(
          429, R"({"kind":"Status","code":429,"reason":"TooManyRequests","message":"slow"})",
          {{"Retry-After", "1"}});
    }
    if (p == 3) {
      out.BeginStream(200);
      for (size_t i = 2; i < lines.size(); ++i) out.StreamLine(lines[i]);
      out.EndStream();
      return;
    }
    out.Respond(200, "");  // quiet from here on
  };
  FakeKubeServer server;
  ASSERT_TRUE(server.Start(handler));
  ManualClock clock;  // the client's retries do not really sleep
  auto client = LoopbackClient(server, &clock, /*max_attempts=*/1);
  ClusterState state;
  StateSink sink(&state);
  Informer informer(client.get(),
                    {"PodGroup", {"/apis/scheduling.volcano.sh/v1beta1", "podgroups"}}, &sink,
                    FastInformer());
  std::atomic<bool> stop{false};
  std::thread t([&] { informer.Run(stop); });
  ASSERT_TRUE(WaitFor([&] { return phase.load() >= 2; }));
  // Restart the server on the same port while the informer is backing off.
  int port = server.port();
  server.Stop();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  FakeKubeServer restarted;
  ASSERT_TRUE(restarted.Start(handler, port));
  ASSERT_TRUE(WaitFor([&] { return phase.load() >= 5; }));
  stop = true;
  t.join();
  restarted.Stop();

  auto stats = informer.stats();
  EXPECT_GE(stats.failures, 2);
  EXPECT_EQ(stats.decode_errors, 0) << stats.last_error;
  // The last recorded line is a BOOKMARK; its RV is where the informer stands.
  Json last = Json::parse(lines.back());
  EXPECT_EQ(stats.resource_version, last["object"]["metadata"]["resourceVersion"]);
  // The stream that broke after two events was resumed from the second
  // event's RV, not from the list's: nothing was replayed or skipped.
  Json second = Json::parse(lines[1]);
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_GE(watch_rvs.size(), 2u);
  EXPECT_EQ(watch_rvs[1], second["object"]["metadata"]["resourceVersion"]);
  // The watched PodGroup was added, modified twice and deleted: absent now;
  // the listed ones remain.
  Json added = Json::parse(lines[0])["object"];
  std::string key = added["metadata"]["namespace"].get<std::string>() + "/" +
                    added["metadata"]["name"].get<std::string>();
  bool in_list = false;
  for (const auto& item : pgs["response"]["body"]["items"]) {
    in_list |= item["metadata"]["name"] == added["metadata"]["name"] &&
               item["metadata"]["namespace"] == added["metadata"]["namespace"];
  }
  if (!in_list) {
    EXPECT_FALSE(state.podgroups().count(key)) << key;
  }
  EXPECT_FALSE(state.podgroups().empty());
}

// Binding through a flaky server never binds twice: a 500 is retried, and
// the retry meeting the first attempt's success gets 409 -> kAlreadyBound.
TEST(KubeInformerTest, RetriedBindNeverDoubleBinds) {
  Json created = Fixture("binding-201"), already = Fixture("binding-409-already-bound");
  std::atomic<int> calls{0};
  std::atomic<int> bound{0};
  FakeKubeServer server;
  ASSERT_TRUE(server.Start([&](const FakeRequest&, FakeResponder& out) {
    int n = calls++;
    if (n == 0) {
      // The bind lands, but the reply is lost (the connection drops).
      ++bound;
      out.Abort();
      return;
    }
    if (bound.load() > 0) return Replay(already, out);
    ++bound;
    Replay(created, out);
  }));
  ManualClock clock;
  auto client = LoopbackClient(server, &clock, /*max_attempts=*/3);
  auto r = client->Bind("fx-5", "b-1", "node-a");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->outcome, BindOutcome::kAlreadyBound);
  EXPECT_EQ(bound.load(), 1);
  EXPECT_EQ(calls.load(), 2);
}

// ---------------------------------------------------------------------------
// Kubeconfig and in-cluster configuration.
// ---------------------------------------------------------------------------

TEST(KubeconfigTest, SelectsCurrentContextAndDecodesData) {
  std::string text = R"(
apiVersion: v1
kind: Config
current-context: dev
contexts:
- name: prod
  context: {cluster: prod, user: admin}
- name: dev
  context: {cluster: dev, user: dev-user, namespace: team-a}
clusters:
- name: prod
  cluster: {server: "https://prod:6443"}
- name: dev
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: Q0EtUEVN
users:
- name: admin
  user: {token: admin-token}
- name: dev-user
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
    token: dev-token
)";
  auto cfg = ParseKubeconfig(text, "/tmp/kc.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->server, "https://127.0.0.1:6443");
  EXPECT_EQ(cfg->tls.ca_pem, "CA-PEM");
  EXPECT_EQ(cfg->tls.client_cert_pem, "CERT");
  EXPECT_EQ(cfg->tls.client_key_pem, "KEY");
  EXPECT_EQ(cfg->token, "dev-token");
  EXPECT_EQ(cfg->namespace_, "team-a");
  EXPECT_FALSE(cfg->tls.insecure_skip_verify);
  auto prod = ParseKubeconfig(text, "/tmp/kc.yaml", "prod");
  ASSERT_TRUE(prod.ok());
  EXPECT_EQ(prod->token, "admin-token");
}

TEST(KubeconfigTest, TokenFileAndInsecureAreRead) {
  std::string dir = ::testing::TempDir();
  { std::ofstream(dir + "/kube-token") << "file-token\n"; }
  std::string text =
      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "clusters: [{name: k, cluster: {server: 'https://k:443', insecure-skip-tls-verify: true}}]\n"
      "users: [{name: u, user: {tokenFile: kube-token}}]\n";
  auto cfg = ParseKubeconfig(text, dir + "/config");
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->token, "file-token");
  EXPECT_TRUE(cfg->tls.insecure_skip_verify);
}

// Errors name the file and the field.
TEST(KubeconfigTest, ErrorsNameFileAndField) {
  struct Case {
    std::string text, want;
  } cases[] = {
      {"current-context: x\ncontexts: []\n", "contexts: no entry named \"x\""},
      {"current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, "
       "cluster: {}}]\n",
       "clusters[0].cluster.server: required"},
      {"current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
       "clusters: [{name: k, cluster: {server: 'https://k'}}]\nusers: [{name: u, user: "
       "{client-key-data: '!!'}}]\n",
       "users[0].user.client-key-data: invalid base64"},
      {"current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
       "clusters: [{name: k, cluster: {server: 'https://k'}}]\nusers: [{name: u, user: {exec: "
       "{command: x}}}]\n",
       "users[0].user.exec: not supported"},
      {"current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
       "clusters: [{name: k, cluster: {server: 'https://k', insecure-skip-tls-verify: maybe}}]\n",
       "insecure-skip-tls-verify: expected true or false"},
      {"a: [b\n", "malformed YAML"},
  };
  for (const Case& c : cases) {
    auto cfg = ParseKubeconfig(c.text, "/home/u/.kube/config");
    ASSERT_FALSE(cfg.ok()) << c.text;
    EXPECT_NE(cfg.status().message().find("/home/u/.kube/config"), std::string::npos)
        << cfg.status().message();
    EXPECT_NE(cfg.status().message().find(c.want), std::string::npos) << cfg.status().message();
  }
  auto missing = LoadKubeconfig("/nonexistent/kubeconfig");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/kubeconfig"), std::string::npos);
}

TEST(KubeconfigTest, InClusterUsesServiceAccountFiles) {
  std::string dir = ::testing::TempDir();
  { std::ofstream(dir + "/sa-token") << "sa-token\n"; }
  { std::ofstream(dir + "/sa-ca.crt") << "-----BEGIN CERTIFICATE-----\n"; }
  { std::ofstream(dir + "/sa-ns") << "volcano-system"; }
  InClusterEnv env;
  env.token_path = dir + "/sa-token";
  env.ca_path = dir + "/sa-ca.crt";
  env.namespace_path = dir + "/sa-ns";
  env.getenv = [](const std::string& k) -> std::string {
    if (k == "KUBERNETES_SERVICE_HOST") return "10.96.0.1";
    if (k == "KUBERNETES_SERVICE_PORT") return "443";
    return "";
  };
  auto cfg = InClusterConfig(env);
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->server, "https://10.96.0.1:443");
  EXPECT_EQ(cfg->token, "sa-token");
  EXPECT_EQ(cfg->tls.ca_file, dir + "/sa-ca.crt");
  EXPECT_EQ(cfg->namespace_, "volcano-system");
  env.getenv = [](const std::string&) { return std::string(); };
  auto outside = InClusterConfig(env);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("KUBERNETES_SERVICE_HOST"), std::string::npos);
}

}  // namespace
}  // namespace basalt::kube
