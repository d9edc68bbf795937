// `basalt serve` building blocks: the stateful fake API server checked against
// the recordings, leader election on a Lease, the metrics registry and its
// Prometheus text format, the endpoint server.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "kube/endpoint_server.h"
#include "kube/leader.h"
#include "kube/metrics.h"
#include "kube_serve_helpers.h"

namespace basalt::testing {

std::string ParsePrometheusText(const std::string& text, std::map<std::string, PromFamily>* out) {
  auto is_name = [](const std::string& s, bool colon) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (colon && c == ':')))
        return false;
    }
    return true;
  };
  auto parse_value = [](const std::string& s, double* v) {
    if (s == "+Inf" || s == "Inf") return *v = INFINITY, true;
    if (s == "-Inf") return *v = -INFINITY, true;
    if (s == "NaN") return *v = NAN, true;
    char* end = nullptr;
    *v = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size();
  };
  std::map<std::string, std::string> types;
  std::set<std::string> series;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::string where = "line " + std::to_string(n) + ": ";
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::istringstream ls(line.substr(1));
      std::string kw, name;
      ls >> kw >> name;
      if (kw != "HELP" && kw != "TYPE") continue;  // a comment
      if (!is_name(name, true)) return where + "bad metric name in " + kw;
      std::string rest;
      std::getline(ls, rest);
      if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
      if (kw == "TYPE") {
        static const std::set<std::string> kinds = {"counter", "gauge", "histogram", "summary",
                                                    "untyped"};
        if (!kinds.count(rest)) return where + "unknown type " + rest;
        if (types.count(name)) return where + "second TYPE for " + name;
        if ((*out)[name].samples.size()) return where + "TYPE after samples of " + name;
        types[name] = rest;
        (*out)[name].type = rest;
      } else {
        (*out)[name].help = rest;
      }
      continue;
    }
    PromSample s;
    size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    s.name = line.substr(0, i);
    if (!is_name(s.name, true)) return where + "bad sample name";
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        size_t eq = line.find('=', i);
        if (eq == std::string::npos) return where + "label without =";
        std::string lname = line.substr(i, eq - i);
        if (!is_name(lname, false)) return where + "bad label name " + lname;
        if (eq + 1 >= line.size() || line[eq + 1] != '"') return where + "unquoted label value";
        std::string value;
        size_t j = eq + 2;
        for (; j < line.size() && line[j] != '"'; ++j) {
          if (line[j] == '\\' && j + 1 < line.size()) {
            char c = line[++j];
            value += c == 'n' ? '\n' : c;
          } else {
            value += line[j];
          }
        }
        if (j >= line.size()) return where + "unterminated label value";
        if (s.labels.count(lname)) return where + "label twice: " + lname;
        s.labels[lname] = value;
        i = j + 1;
        if (i < line.size() && line[i] == ',') ++i;
      }
      if (i >= line.size()) return where + "unterminated label set";
      ++i;
    }
    if (i >= line.size() || line[i] != ' ') return where + "no value";
    std::istringstream vs(line.substr(i + 1));
    std::string value, ts;
    vs >> value >> ts;
    if (!parse_value(value, &s.value)) return where + "bad value " + value;
    std::string family = s.name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      std::string sf = suffix;
      if (family.size() > sf.size() && family.ends_with(sf) &&
          types.count(family.substr(0, family.size() - sf.size())) &&
          types[family.substr(0, family.size() - sf.size())] == "histogram") {
        family = family.substr(0, family.size() - sf.size());
      }
    }
    if (!types.count(family)) return where + "sample " + s.name + " before its # TYPE";
    std::string id = s.name;
    for (const auto& [k, v] : s.labels) id += "|" + k + "=" + v;
    if (!series.insert(id).second) return where + "duplicate series " + id;
    (*out)[family].samples.push_back(s);
  }
  // Histogram consistency, per label set (without le).
  for (const auto& [name, f] : *out) {
    if (f.type != "histogram") continue;
    std::map<std::string, std::vector<std::pair<double, double>>> buckets;
    std::map<std::string, double> counts;
    std::set<std::string> sums;
    for (const PromSample& s : f.samples) {
      std::string key;
      for (const auto& [k, v] : s.labels) {
        if (k != "le") key += k + "=" + v + ",";
      }
      if (s.name == name + "_bucket") {
        if (!s.labels.count("le")) return name + ": bucket without le";
        double le;
        if (!parse_value(s.labels.at("le"), &le)) return name + ": bad le";
        buckets[key].emplace_back(le, s.value);
      } else if (s.name == name + "_count") {
        counts[key] = s.value;
      } else if (s.name == name + "_sum") {
        sums.insert(key);
      }
    }
    for (auto& [key, b] : buckets) {
      std::sort(b.begin(), b.end());
      for (size_t i = 1; i < b.size(); ++i) {
        if (b[i].second < b[i - 1].second) return name + ": buckets not cumulative";
      }
      if (b.empty() || !std::isinf(b.back().first)) return name + ": no +Inf bucket";
      if (!counts.count(key) || counts[key] != b.back().second)
        return name + ": +Inf bucket != _count";
      if (!sums.count(key)) return name + ": no _sum";
    }
  }
  return "";
}

namespace {

using kube::Json;

std::unique_ptr<kube::Client> ClientFor(const FakeApiServer& fake, kube::Clock* clock,
                                        const std::string& token = "t",
                                        std::function<bool()> may_write = nullptr) {
  kube::ClientOptions opt;
  opt.may_write = std::move(may_write);
  opt.server = fake.url();
  opt.bearer_token = token;
  opt.clock = clock;
  opt.qps = 0;
  opt.max_attempts = 2;
  opt.initial_backoff = std::chrono::milliseconds(1);
  return std::make_unique<kube::Client>(opt,
                                        std::make_unique<kube::CurlTransport>(kube::CurlOptions{}));
}

Json Fixture(const std::string& name) { return Json::parse(ReadFixtureText(name)); }

// The fake answers the recorded requests with the recorded status and body,
// once its storage holds what the recording's namespace held.
TEST(KubeFakeApiServerTest, AnswersLikeTheRecordedServer) {
  FakeApiServer fake;
  ASSERT_TRUE(fake.Start());
  ManualKubeClock clock;
  auto client = ClientFor(fake, &clock);
  Json bound = FixturePod("fx-5", "b-1", "", "1");
  bound["spec"]["nodeName"] = "node-h200-1";
  fake.Put(bound);
  Json terminating = FixturePod("fx-5", "b-3", "", "1");
  terminating["metadata"]["deletionTimestamp"] = "2026-11-22T06:26:00Z";
  fake.Put(terminating);
  Json guarded = FixturePod("fx-5", "e-guarded", "", "1");
  guarded["spec"]["nodeName"] = "node-h200-1";
  fake.Put(guarded);
  fake.BlockEviction("fx-5/e-guarded", 0);
  Json pg = PodGroupObject("fx-6", "pg-s", 1, "default");
  fake.Put(pg);
  fake.Put(pg);  // a second write: the recorded PUT carries an older RV
  Json lease = Fixture("lease-create")["request"]["body"];
  fake.Put(lease);
  fake.Put(lease);

  for (const char* name :
       {"binding-409-already-bound", "binding-terminating-pod", "binding-404-missing-pod",
        "eviction-404-missing-pod", "eviction-429-pdb-violation", "error-404-get-pod",
        "error-400-binding-name-mismatch", "podgroup-put-stale-rv-409",
        "podgroup-status-subresource-404", "podgroup-patch-strategic-415", "patch-plain-json-415",
        "lease-create-409-exists", "lease-update-409-stale", "event-eventsv1-invalid-422"}) {
    Json fx = Fixture(name);
    const Json& req = fx["request"];
    std::vector<std::pair<std::string, std::string>> query;
    for (const auto& [k, v] : req["query"].items()) query.emplace_back(k, v.get<std::string>());
    std::string body = req["body"].is_null() ? "" : req["body"].dump();
    std::string type = req["headers"].value("Content-Type", body.empty() ? "" : "application/json");
    if (req["method"] == "PUT") {
      Json b = req["body"];
      b["metadata"]["resourceVersion"] = "1";  // older than anything the fake holds
      body = b.dump();
    }
    auto r = client->Call(req["method"], req["path"], query, body, type, /*retry_429=*/false);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.error().code, fx["response"]["status"].get<int>()) << name;
    // The body, as a v1 Status, equals the recording.
    std::string last;
    for (const auto& rq : fake.http().requests()) last = rq.path;
    EXPECT_EQ(last, req["path"].get<std::string>()) << name;
    Json want = fx["response"]["body"];
    EXPECT_EQ(r.error().reason, want.value("reason", "")) << name;
    EXPECT_EQ(r.error().message, want.value("message", "")) << name;
  }
  fake.Stop();
}

// Pages of one snapshot: a write between pages does not show in page 2, and
// a continue token older than the compaction is a 410 the client recovers from.
TEST(KubeFakeApiServerTest, ListPagesAreOneSnapshotAndExpire) {
  FakeApiServer fake;
  ASSERT_TRUE(fake.Start());
  for (const Json& n : FixtureNodes()) fake.Put(n);
  ManualKubeClock clock;
  auto client = ClientFor(fake, &clock);
  auto page1 = client->Call("GET", "/api/v1/nodes", {{"limit", "2"}});
  ASSERT_TRUE(page1.ok());
  Json p1 = Json::parse(page1->body);
  ASSERT_EQ(p1["items"].size(), 2u);
  EXPECT_FALSE(p1["items"][0].contains("kind"));  // built-in list items carry no kind
  EXPECT_EQ(p1["metadata"]["remainingItemCount"], 1);
  Json extra = FixtureNodes()[0];
  extra["metadata"]["name"] = "node-zz-late";
  fake.Put(extra);
  auto page2 = client->Call("GET", "/api/v1/nodes",
                            {{"limit", "2"}, {"continue", p1["metadata"]["continue"]}});
  ASSERT_TRUE(page2.ok());
  Json p2 = Json::parse(page2->body);
  EXPECT_EQ(p2["items"].size(), 1u);  // the snapshot of page 1: node-zz-late is not there
  EXPECT_FALSE(p2["metadata"].contains("continue"));
  EXPECT_EQ(p2["metadata"]["resourceVersion"], p1["metadata"]["resourceVersion"]);
  fake.Compact();
  auto expired = client->Call("GET", "/api/v1/nodes",
                              {{"limit", "2"}, {"continue", p1["metadata"]["continue"]}});
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.error().code, 410);
  EXPECT_EQ(expired.error().reason, "Expired");
  auto relisted = client->List("/api/v1/nodes", 2);
  ASSERT_TRUE(relisted.ok());
  EXPECT_EQ(relisted->items.size(), 4u);
  // CRD lists end on "continue": "" and keep their items' kind.
  fake.Put(QueueObject("default", 1));
  auto queues = client->Call("GET", "/apis/scheduling.volcano.sh/v1beta1/queues", {{"limit", "5"}});
  ASSERT_TRUE(queues.ok());
  Json q = Json::parse(queues->body);
  EXPECT_EQ(q["metadata"]["continue"], "");
  EXPECT_EQ(q["items"][0]["kind"], "Queue");
  fake.Stop();
}

// ---- leader election ----

class LeaderTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(fake_.Start()); }
  void TearDown() override { fake_.Stop(); }
  std::unique_ptr<kube::LeaderElector> Elector(const std::string& id, kube::Client* client) {
    kube::LeaderOptions o;
    o.namespace_ = "basalt-system";
    o.name = "basalt";
    o.identity = id;
    o.wall_now = [this] {
      return "2026-11-22T07:00:" + std::to_string(10 + (wall_++ % 50)) + ".000000Z";
    };
    return std::make_unique<kube::LeaderElector>(client, o, &clock_);
  }
  Json Lease() { return *fake_.Get("Lease", "basalt-system", "basalt"); }

  FakeApiServer fake_;
  ManualKubeClock clock_;
  int wall_ = 0;
};

// A free lease is created; a second candidate stands by while the holder
// renews, takes over only after the lease duration without renewal (on its own
// clock), and the old holder steps down at its renew deadline.
TEST_F(LeaderTest, AcquireStandbyTakeOverAndStepDown) {
  auto ca = ClientFor(fake_, &clock_), cb = ClientFor(fake_, &clock_);
  auto a = Elector("a", ca.get()), b = Elector("b", cb.get());
  EXPECT_FALSE(a->known());
  EXPECT_TRUE(a->Tick());
  EXPECT_TRUE(a->known());
  EXPECT_EQ(Lease()["spec"]["holderIdentity"], "a");
  EXPECT_FALSE(b->Tick());
  EXPECT_TRUE(b->known());
  EXPECT_EQ(b->holder(), "a");
  for (int i = 0; i < 10; ++i) {  // a renews every 2 s; b keeps seeing change
    clock_.Advance(std::chrono::seconds(2));
    EXPECT_TRUE(a->Tick());
    EXPECT_FALSE(b->Tick());
  }
  // a stops renewing (partitioned): b waits out the duration, then takes over.
  clock_.Advance(std::chrono::seconds(2));
  EXPECT_FALSE(b->Tick());
  clock_.Advance(std::chrono::seconds(14));
  EXPECT_TRUE(b->Tick());
  Json lease = Lease();
  EXPECT_EQ(lease["spec"]["holderIdentity"], "b");
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 1);
  // a's renew deadline (10 s) has long passed: it steps down before any call.
  EXPECT_FALSE(a->Tick());
  EXPECT_FALSE(a->is_leader());
  EXPECT_EQ(a->holder(), "b");
}

// Lost races: two creators (409 AlreadyExists) and a stale update (409
// Conflict) each leave exactly one leader; the loser stands by.
TEST_F(LeaderTest, ConflictsLeaveOneLeader) {
  auto ca = ClientFor(fake_, &clock_), cb = ClientFor(fake_, &clock_);
  auto a = Elector("a", ca.get()), b = Elector("b", cb.get());
  // b's create loses to a's, which lands between b's GET (404) and its POST.
  fake_.SetHook([&](const FakeRequest& r) {
    if (r.method == "POST" && r.path.ends_with("/leases")) {
      fake_.SetHook(nullptr);
      EXPECT_TRUE(a->TryAcquireOrRenew());
    }
  });
  EXPECT_FALSE(b->TryAcquireOrRenew());
  EXPECT_TRUE(b->known());
  EXPECT_TRUE(a->is_leader());
  EXPECT_EQ(Lease()["spec"]["holderIdentity"], "a");
  // An administrator rewrites the lease for "c" between a's GET and its PUT:
  // a's renewal is stale (409 Conflict) and a steps down at once.
  fake_.SetHook([&](const FakeRequest& r) {
    if (r.method == "PUT" && r.path.ends_with("/leases/basalt")) {
      fake_.SetHook(nullptr);
      Json l = Lease();
      l["spec"]["holderIdentity"] = "c";
      fake_.Put(l);
    }
  });
  clock_.Advance(std::chrono::seconds(2));
  EXPECT_FALSE(a->Tick());
  EXPECT_FALSE(a->is_leader());
  EXPECT_EQ(Lease()["spec"]["holderIdentity"], "c");
  EXPECT_GE(fake_.http().CountRequests(
                "PUT", "/apis/coordination.k8s.io/v1/namespaces/basalt-system/leases/basalt"),
            1u);
}

// Release hands over at once; errors (500) keep a leader only until its
// renew deadline.
TEST_F(LeaderTest, ReleaseAndRenewDeadline) {
  auto ca = ClientFor(fake_, &clock_), cb = ClientFor(fake_, &clock_);
  auto a = Elector("a", ca.get()), b = Elector("b", cb.get());
  ASSERT_TRUE(a->Tick());
  EXPECT_FALSE(b->Tick());
  a->Release();
  EXPECT_FALSE(a->is_leader());
  EXPECT_EQ(Lease()["spec"]["holderIdentity"], "");
  clock_.Advance(std::chrono::seconds(2));
  EXPECT_TRUE(b->Tick());  // no waiting out the duration
  // b's server fails for a while: b keeps leading until 10 s without renewal.
  fake_.FailNext(1000, 500);
  for (int i = 1; i <= 4; ++i) {
    clock_.Advance(std::chrono::seconds(2));
    EXPECT_TRUE(b->Tick()) << i;
  }
  clock_.Advance(std::chrono::seconds(3));
  EXPECT_FALSE(b->Tick());
  EXPECT_NE(b->last_error().find("500"), std::string::npos) << b->last_error();
  fake_.FailNext(0, 500);
  clock_.Advance(std::chrono::seconds(2));
  EXPECT_TRUE(b->Tick());  // its own lease: re-acquired
}

// Writes are fenced by the lease: once the last successful renew is as old as
// the renew deadline, `MayWrite` is false on its own (no Tick needed: a stuck
// renewal cannot keep a replica writing), and a client fenced with it sends
// no write — the request never reaches the server. Reads still go out.
TEST_F(LeaderTest, WritesStopAtTheRenewDeadlineWithoutATick) {
  auto ca = ClientFor(fake_, &clock_);
  auto a = Elector("a", ca.get());
  ASSERT_TRUE(a->Tick());
  EXPECT_TRUE(a->MayWrite());
  auto writes = ClientFor(fake_, &clock_, "t", [&a] { return a->MayWrite(); });
  clock_.Advance(std::chrono::milliseconds(9900));
  EXPECT_TRUE(a->MayWrite());
  clock_.Advance(std::chrono::milliseconds(100));  // 10 s since the renew was sent
  EXPECT_FALSE(a->MayWrite());
  EXPECT_TRUE(a->is_leader()) << "no Tick yet: only the fence has closed";
  size_t before = fake_.http().CountRequests("POST", "/api/v1/namespaces/ns/pods/p/binding");
  auto bind = writes->Bind("ns", "p", "n1");
  ASSERT_FALSE(bind.ok());
  EXPECT_NE(bind.error().message.find("withheld"), std::string::npos) << bind.error().message;
  EXPECT_EQ(fake_.http().CountRequests("POST", "/api/v1/namespaces/ns/pods/p/binding"), before);
  // A renew restores the fence.
  ASSERT_TRUE(a->TryAcquireOrRenew());
  EXPECT_TRUE(a->MayWrite());
}

// ---- metrics ----

TEST(KubeMetricsTest, RendersParsableTextFormat) {
  kube::Metrics m;
  m.Counter("x_total", "Things.\nDone", {"code"});
  m.Gauge("y", "A gauge.");
  m.Histogram("z_seconds", "Durations.", {0.1, 1}, {"action"});
  m.Inc("x_total", {"4\"0\\4"});
  m.Set("y", 2.5);
  m.Observe("z_seconds", {"allocate"}, 0.05);
  m.Observe("z_seconds", {"allocate"}, 0.5);
  m.Observe("z_seconds", {"allocate"}, 7);
  std::string text = m.Render();
  std::map<std::string, PromFamily> fams;
  ASSERT_EQ(ParsePrometheusText(text, &fams), "") << text;
  EXPECT_EQ(fams["x_total"].samples[0].labels["code"], "4\"0\\4");
  EXPECT_EQ(fams["y"].samples[0].value, 2.5);
  EXPECT_NE(text.find("z_seconds_bucket{action=\"allocate\",le=\"0.1\"} 1\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("z_seconds_bucket{action=\"allocate\",le=\"+Inf\"} 3\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("z_seconds_count{action=\"allocate\"} 3\n"), std::string::npos) << text;
  // The parser refuses what Prometheus refuses.
  std::map<std::string, PromFamily> bad;
  EXPECT_NE(ParsePrometheusText("a 1\n", &bad), "");
  bad.clear();
  EXPECT_NE(
      ParsePrometheusText(
          "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
          &bad),
      "");
}

TEST(KubeEndpointServerTest, ServesRegisteredPathsOnly) {
  kube::EndpointServer s;
  s.Handle("/healthz", [] { return kube::EndpointReply{200, "text/plain", "ok\n"}; });
  ASSERT_TRUE(s.Start("127.0.0.1:0").ok());
  EXPECT_EQ(HttpGet(s.port(), "/healthz").status, 200);
  EXPECT_EQ(HttpGet(s.port(), "/healthz").body, "ok\n");
  EXPECT_EQ(HttpGet(s.port(), "/nope").status, 404);
  s.Stop();
  kube::EndpointServer bad;
  EXPECT_FALSE(bad.Start("nowhere").ok());
  EXPECT_FALSE(bad.Start("10.0.0.300:80").ok());
}

}  // namespace
}  // namespace basalt::testing
