// The admission webhooks over real HTTPS on 127.0.0.1 (live/webhook_server.h,
// live/admission_review.h): AdmissionReview round trips (uid echo, refusals
// with `basalt validate`'s messages, JSON patches), malformed bodies, and a
// certificate replaced on disk being served to the next connection.
#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/evp.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "admission/admission.h"
#include "api/decode.h"
#include "kube_serve_helpers.h"
#include "live/webhook_server.h"
#include "webhook_fixture.h"

namespace basalt {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

std::string Base64Decode(const std::string& in) {
  std::string out(in.size(), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()),
                          static_cast<int>(in.size()));
  if (n < 0) return "";
  // EVP_DecodeBlock counts the padding's zero bytes.
  size_t pad = in.size() >= 2 && in.substr(in.size() - 2) == "==" ? 2 : in.ends_with("=") ? 1 : 0;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

class WebhookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("basalt-webhook-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    MakeCert(dir_, "first", "tls.crt", "tls.key");
    WebhookOptions opt;
    opt.bind = "127.0.0.1";
    opt.port = 0;
    opt.cert_file = (dir_ / "tls.crt").string();
    opt.key_file = (dir_ / "tls.key").string();
    opt.cert_check_interval = std::chrono::milliseconds(0);
    server_ = std::make_unique<WebhookServer>(opt, &lookup_);
    Status s = server_->Start();
    ASSERT_TRUE(s.ok()) << s.message();
    lookup_.SetQueues(R"(
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
spec: {weight: 1}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: closed}
spec: {weight: 1}
status: {state: Closed}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: parent}
spec: {weight: 1}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: child}
spec: {weight: 1, parent: parent}
)");
  }
  void TearDown() override {
    server_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A client that trusts only `ca` (a certificate file in dir_).
  httplib::Result Post(const std::string& path, const std::string& body,
                       const std::string& ca = "tls.crt") {
    httplib::SSLClient cli("127.0.0.1", server_->port());
    cli.set_ca_cert_path((dir_ / ca).string().c_str());
    cli.enable_server_certificate_verification(true);
    cli.set_connection_timeout(5, 0);
    return cli.Post(path.c_str(), body, "application/json");
  }

  // Posts an AdmissionReview and returns its `response`.
  Json Review(const std::string& path, const std::string& operation, const Json& object,
              const Json& old_object = nullptr, const std::string& name = "") {
    Json request = {{"uid", "uid-" + operation},
                    {"operation", operation},
                    {"object", object},
                    {"oldObject", old_object}};
    if (!name.empty()) request["name"] = name;
    if (object.is_object() && object.contains("metadata") &&
        object["metadata"].contains("namespace"))
      request["namespace"] = object["metadata"]["namespace"];
    Json review = {
        {"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", request}};
    auto res = Post(path, review.dump());
    if (!res) {
      ADD_FAILURE() << "no reply: " << httplib::to_string(res.error());
      return Json();
    }
    EXPECT_EQ(res->status, 200) << res->body;
    Json reply = Json::parse(res->body, nullptr, false);
    EXPECT_EQ(reply.value("apiVersion", ""), "admission.k8s.io/v1");
    EXPECT_EQ(reply.value("kind", ""), "AdmissionReview");
    EXPECT_EQ(reply["response"].value("uid", ""), "uid-" + operation);
    return reply["response"];
  }

  static Json Patch(const Json& response) {
    if (!response.contains("patch")) return Json::array();
    EXPECT_EQ(response.value("patchType", ""), "JSONPatch");
    return Json::parse(Base64Decode(response["patch"].get<std::string>()));
  }

  fs::path dir_;
  FakeLookup lookup_;
  std::unique_ptr<WebhookServer> server_;
};

Json QueueJson(const std::string& name, const Json& spec) {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "Queue"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

Json JobJson(const std::string& queue, int replicas = 2) {
  Json task = {{"replicas", replicas},
               {"template",
                {{"spec",
                  {{"containers",
                    {{{"name", "c"},
                      {"image", "busybox"},
                      {"resources", {{"requests", {{"cpu", "1"}}}}}}}}}}}}};
  Json spec = {{"tasks", {task}}};
  if (!queue.empty()) spec["queue"] = queue;
  return {{"apiVersion", "batch.volcano.sh/v1alpha1"},
          {"kind", "Job"},
          {"metadata", {{"name", "train"}, {"namespace", "ns"}}},
          {"spec", spec}};
}

// The lines `basalt validate` prints for `yaml` (with the cluster's queues
// given first), minus their `file:line: ` prefix.
std::string ValidateLines(const std::string& cluster, const std::string& yaml) {
  ClusterObjects objs;
  EXPECT_TRUE(DecodeText(cluster, "cluster.yaml", &objs).ok());
  EXPECT_TRUE(DecodeText(yaml, "new.yaml", &objs).ok());
  std::string out;
  for (const AdmissionProblem& p : ValidateObjects(objs)) {
    if (p.source.rfind("new.yaml:", 0) != 0) continue;
    out += (out.empty() ? "" : "\n") + p.object + ": " + p.field + ": " + p.message;
  }
  return out;
}

TEST_F(WebhookTest, ValidQueueIsAllowedAndUidEchoed) {
  Json r = Review("/queues/validate", "CREATE", QueueJson("q1", {{"weight", 2}}));
  EXPECT_TRUE(r.value("allowed", false)) << r.dump();
  EXPECT_FALSE(r.contains("status"));
}

TEST_F(WebhookTest, BadQueueIsRefusedWithValidatesMessage) {
  Json q = QueueJson("q1", {{"weight", 1},
                            {"capability", {{"cpu", "4"}}},
                            {"deserved", {{"cpu", "6"}}},
                            {"parent", "nope"}});
  Json r = Review("/queues/validate", "CREATE", q);
  EXPECT_FALSE(r.value("allowed", true));
  const std::string expected =
      "Queue q1: spec.deserved.cpu: deserved[cpu]=6 must be <= capability[cpu]=4\n"
      "Queue q1: spec.parent: failed to get parent queue nope of queue q1: "
      "queue.scheduling.volcano.sh \"nope\" not found";
  EXPECT_EQ(r["status"].value("message", ""), expected);
  EXPECT_EQ(r["status"].value("code", 0), 400);
  // The same words as `basalt validate` on the same object.
  EXPECT_EQ(expected, ValidateLines("", q.dump()));
}

TEST_F(WebhookTest, QueueDecoderErrorIsRefusedWithoutSourcePrefix) {
  Json r = Review("/queues/validate", "CREATE", QueueJson("q1", {{"weight", -1}}));
  EXPECT_FALSE(r.value("allowed", true));
  EXPECT_EQ(r["status"].value("message", ""),
            "Queue q1: spec.weight: value -1 out of range [0, 2147483647]");
}

TEST_F(WebhookTest, QueueUpdateReplacesTheStoredQueue) {
  // `child` exists; an update of it is not a duplicate, and its parent exists.
  Json r = Review("/queues/validate", "UPDATE",
                  QueueJson("child", {{"weight", 3}, {"parent", "parent"}}));
  EXPECT_TRUE(r.value("allowed", false)) << r.dump();
  // A parent change that closes a cycle never reaches root: refused by depth.
  r = Review("/queues/validate", "UPDATE", QueueJson("parent", {{"parent", "child"}}));
  EXPECT_FALSE(r.value("allowed", true));
  EXPECT_EQ(r["status"].value("message", ""),
            "Queue parent: spec.parent: queue parent exceeds the maximum allowed depth of 5")
      << r.dump();
}

// On UPDATE, as Volcano: the hierarchical resource rules run only when the
// parent or a resource list changed.
TEST_F(WebhookTest, QueueUpdateChecksTheHierarchyOnlyWhenItChanges) {
  Json before = QueueJson("child", {{"weight", 1}, {"parent", "parent"}});
  Json after =
      QueueJson("child", {{"weight", 1}, {"parent", "parent"}, {"deserved", {{"cpu", "1"}}}});
  Json r = Review("/queues/validate", "UPDATE", after, before);
  EXPECT_EQ(r["status"].value("message", ""),
            "Queue child: spec.deserved: parent queue parent validation failed: sum of children's "
            "deserved (cpu 1000.00, memory 0.00) exceeds parent's deserved limit (cpu 0.00, "
            "memory 0.00)");
  Json reweighted = after;
  reweighted["spec"]["weight"] = 5;
  EXPECT_TRUE(Review("/queues/validate", "UPDATE", reweighted, after).value("allowed", false));
}

TEST_F(WebhookTest, QueueDeleteRules) {
  Json r = Review("/queues/validate", "DELETE", nullptr, QueueJson("default", {}), "default");
  EXPECT_FALSE(r.value("allowed", true));
  EXPECT_EQ(r["status"].value("message", ""), "Queue default: `default` queue can not be deleted");
  r = Review("/queues/validate", "DELETE", nullptr, QueueJson("root", {}), "root");
  EXPECT_EQ(r["status"].value("message", ""), "Queue root: `root` queue can not be deleted");
  r = Review("/queues/validate", "DELETE", nullptr, QueueJson("parent", {}), "parent");
  EXPECT_EQ(r["status"].value("message", ""),
            "Queue parent: queue parent can not be deleted because it has 1 child queues: child");
  r = Review("/queues/validate", "DELETE", nullptr, QueueJson("child", {}), "child");
  EXPECT_TRUE(r.value("allowed", false)) << r.dump();
}

TEST_F(WebhookTest, JobQueueRules) {
  Json r = Review("/jobs/validate", "CREATE", JobJson("default"));
  EXPECT_TRUE(r.value("allowed", false)) << r.dump();
  r = Review("/jobs/validate", "CREATE", JobJson("missing"));
  EXPECT_EQ(r["status"].value("message", ""),
            "Job ns/train: spec.queue: unable to find job queue: queue.scheduling.volcano.sh "
            "\"missing\" not found");
  r = Review("/jobs/validate", "CREATE", JobJson("closed"));
  EXPECT_EQ(r["status"].value("message", ""),
            "Job ns/train: spec.queue: can only submit job to queue with state `Open`, queue "
            "`closed` status is `Closed`");
  r = Review("/jobs/validate", "CREATE", JobJson("parent"));
  EXPECT_EQ(r["status"].value("message", ""),
            "Job ns/train: spec.queue: can only submit job to leaf queue, queue `parent` has 1 "
            "child queues");
}

TEST_F(WebhookTest, JobProblemsMatchValidate) {
  Json job = JobJson("default");
  job["spec"]["minAvailable"] = 5;
  job["spec"]["tasks"][0]["minAvailable"] = 3;
  job["spec"]["policies"] = {{{"event", "PodFialed"}, {"action", "RestartJob"}}};
  Json r = Review("/jobs/validate", "CREATE", job);
  EXPECT_FALSE(r.value("allowed", true));
  const std::string cluster =
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\n"
      "metadata: {name: default}\n";
  EXPECT_EQ(r["status"].value("message", ""), ValidateLines(cluster, job.dump()));
  EXPECT_NE(r["status"].value("message", "").find("spec.tasks[0].minAvailable"), std::string::npos);
}

// The object rules `validate` applies reach the webhook where the API server
// does not apply them itself: a vcjob's task template is checked as a pod
// template. What needs the rest of the cluster (a pod's PriorityClass) and
// unknown fields (the API server prunes them) are left out.
TEST_F(WebhookTest, ObjectRulesOfOneObject) {
  Json job = JobJson("default");
  job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"]["requests"] = {
      {"nvidia.com/gpu", "0.5"}};
  Json r = Review("/jobs/validate", "CREATE", job);
  EXPECT_FALSE(r.value("allowed", true));
  EXPECT_EQ(r["status"].value("message", ""),
            "Job ns/train: "
            "spec.tasks[0].template.spec.containers[0].resources.requests[nvidia.com/gpu]: "
            "Invalid value: \"0.5\": must be an integer");
  Json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  pod["metadata"] = {{"name", "p"}, {"namespace", "ns"}};
  pod["spec"] = {{"schedulerName", "volcano"},
                 {"priorityClassName", "made-up"},
                 {"nodeName", "gone"},
                 {"containers", Json::array({{{"name", "c"}, {"image", "busybox"}}})}};
  r = Review("/pods/validate", "CREATE", pod);
  EXPECT_TRUE(r.value("allowed", false)) << r.dump();
  EXPECT_FALSE(r.contains("warnings")) << r.dump();
}

TEST_F(WebhookTest, JobUpdateMayOnlyResize) {
  Json old_job = JobJson("closed");
  Json resized = old_job;
  resized["spec"]["tasks"][0]["replicas"] = 4;
  resized["spec"]["minAvailable"] = 3;
  // The queue was closed since: a resize is still allowed.
  Json r = Review("/jobs/validate", "UPDATE", resized, old_job);
  EXPECT_TRUE(r.value("allowed", false)) << r.dump();
  Json moved = old_job;
  moved["spec"]["queue"] = "default";
  r = Review("/jobs/validate", "UPDATE", moved, old_job);
  EXPECT_EQ(r["status"].value("message", ""),
            "Job ns/train: spec: job updates may not change fields other than `minAvailable`, "
            "`tasks[*].replicas` and `priorityClassName`");
}

TEST_F(WebhookTest, JobMutationPatch) {
  Json job = JobJson("");
  job["spec"]["plugins"] = {{"mpi", Json::array()}};
  Json r = Review("/jobs/mutate", "CREATE", job);
  EXPECT_TRUE(r.value("allowed", false));
  Json tasks = job["spec"]["tasks"];
  tasks[0]["name"] = "default0";
  tasks[0]["minAvailable"] = 2;
  tasks[0]["maxRetry"] = 3;
  Json expected = Json::array({
      {{"op", "add"}, {"path", "/spec/queue"}, {"value", "default"}},
      {{"op", "add"}, {"path", "/spec/schedulerName"}, {"value", "volcano"}},
      {{"op", "add"}, {"path", "/spec/maxRetry"}, {"value", 3}},
      {{"op", "replace"}, {"path", "/spec/tasks"}, {"value", tasks}},
      {{"op", "add"}, {"path", "/spec/minAvailable"}, {"value", 2}},
      {{"op", "replace"},
       {"path", "/spec/plugins"},
       {"value", {{"mpi", Json::array()}, {"ssh", Json::array()}, {"svc", Json::array()}}}},
  });
  EXPECT_EQ(Patch(r), expected) << Patch(r).dump(1);
  // Nothing to default: no patch at all.
  Json full = job;
  full["spec"] = {
      {"queue", "q"},
      {"schedulerName", "volcano"},
      {"maxRetry", 1},
      {"tasks", tasks},
      {"minAvailable", 1},
      {"plugins", {{"mpi", Json::array()}, {"ssh", Json::array()}, {"svc", Json::array()}}}};
  r = Review("/jobs/mutate", "CREATE", full);
  EXPECT_TRUE(r.value("allowed", false));
  EXPECT_FALSE(r.contains("patch")) << r.dump();
}

TEST_F(WebhookTest, QueueMutationPatch) {
  Json q = QueueJson("q1", Json::object());
  q["metadata"]["annotations"] = {{"volcano.sh/hierarchy", "sci/dev"},
                                  {"volcano.sh/hierarchy-weights", "2/3"}};
  Json r = Review("/queues/mutate", "CREATE", q);
  Json expected = Json::array({
      {{"op", "add"},
       {"path", "/metadata/annotations/volcano.sh~1hierarchy"},
       {"value", "root/sci/dev"}},
      {{"op", "add"},
       {"path", "/metadata/annotations/volcano.sh~1hierarchy-weights"},
       {"value", "1/2/3"}},
      {{"op", "add"}, {"path", "/spec/reclaimable"}, {"value", true}},
      {{"op", "add"}, {"path", "/spec/weight"}, {"value", 1}},
  });
  EXPECT_EQ(Patch(r), expected) << Patch(r).dump(1);
  Json bare = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
               {"kind", "Queue"},
               {"metadata", {{"name", "q2"}}}};
  r = Review("/queues/mutate", "CREATE", bare);
  EXPECT_EQ(Patch(r)[0], Json({{"op", "add"}, {"path", "/spec"}, {"value", Json::object()}}));
}

TEST_F(WebhookTest, PodGroupMutationUsesTheNamespaceQueue) {
  lookup_.SetNamespace("team", {{"scheduling.volcano.sh/queue-name", "child"}});
  Json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
             {"kind", "PodGroup"},
             {"metadata", {{"name", "pg"}, {"namespace", "team"}}},
             {"spec", {{"minMember", 1}}}};
  Json r = Review("/podgroups/mutate", "CREATE", pg);
  EXPECT_EQ(Patch(r), Json::array({{{"op", "add"}, {"path", "/spec/queue"}, {"value", "child"}}}));
  pg["metadata"]["namespace"] = "elsewhere";
  r = Review("/podgroups/mutate", "CREATE", pg);
  EXPECT_EQ(Patch(r),
            Json::array({{{"op", "add"}, {"path", "/spec/queue"}, {"value", "default"}}}));
}

TEST_F(WebhookTest, PodGroupValidation) {
  Json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
             {"kind", "PodGroup"},
             {"metadata", {{"name", "pg"}, {"namespace", "ns"}}},
             {"spec", {{"minMember", 1}, {"queue", "closed"}}}};
  Json r = Review("/podgroups/validate", "CREATE", pg);
  EXPECT_EQ(r["status"].value("message", ""),
            "PodGroup ns/pg: spec.queue: can only submit PodGroup to queue with state `Open`, "
            "queue `closed` status is `Closed`");
}

TEST_F(WebhookTest, PodBudgetAnnotations) {
  Json container = {{"name", "c"}, {"image", "busybox"}};
  Json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  pod["metadata"] = {{"name", "p"},
                     {"namespace", "ns"},
                     {"annotations", {{"volcano.sh/jdb-min-available", "150%"}}}};
  pod["spec"] = {{"schedulerName", "volcano"}, {"containers", Json::array({container})}};
  Json r = Review("/pods/validate", "CREATE", pod);
  EXPECT_EQ(r["status"].value("message", ""),
            "Pod ns/p: metadata.annotations[volcano.sh/jdb-min-available]: invalid value \"150%\" "
            "for volcano.sh/jdb-min-available, it must be a valid percentage which between 1% ~ "
            "99%");
  pod["spec"]["schedulerName"] = "default-scheduler";
  r = Review("/pods/validate", "CREATE", pod);
  EXPECT_TRUE(r.value("allowed", false));
  // A pod the decoder cannot read is admitted with a warning.
  pod["spec"]["schedulerName"] = "volcano";
  pod["metadata"]["annotations"] = Json::object();
  pod["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "lots"}}}};
  r = Review("/pods/validate", "CREATE", pod);
  EXPECT_TRUE(r.value("allowed", false));
  ASSERT_TRUE(r.contains("warnings")) << r.dump();
}

// JobFlows: the decoder's rules (targets known, no cycle), in its words; a
// JobTemplate is read as a vcjob spec.
TEST_F(WebhookTest, JobFlowAndJobTemplateValidation) {
  auto flow = [](const Json& flows) {
    return Json{{"apiVersion", "flow.volcano.sh/v1alpha1"},
                {"kind", "JobFlow"},
                {"metadata", {{"name", "f"}, {"namespace", "ns"}}},
                {"spec", {{"flows", flows}}}};
  };
  Json ok = flow({{{"name", "a"}}, {{"name", "b"}, {"dependsOn", {{"targets", {"a"}}}}}});
  EXPECT_TRUE(Review("/jobflows/validate", "CREATE", ok).value("allowed", false));
  Json cycle = flow({{{"name", "a"}, {"dependsOn", {{"targets", {"b"}}}}},
                     {{"name", "b"}, {"dependsOn", {{"targets", {"a"}}}}}});
  Json r = Review("/jobflows/validate", "CREATE", cycle);
  EXPECT_FALSE(r.value("allowed", true));
  const std::string message = r["status"].value("message", "");
  EXPECT_NE(message.find("JobFlow ns/f"), std::string::npos) << message;
  EXPECT_EQ(message, "JobFlow ns/f: spec.flows: jobflow Flow is not DAG");
  EXPECT_EQ(message.rfind("request", 0), std::string::npos) << message;
  Json unknown = flow({{{"name", "a"}, {"dependsOn", {{"targets", {"zz"}}}}}});
  r = Review("/jobflows/validate", "UPDATE", unknown);
  EXPECT_FALSE(r.value("allowed", true));
  EXPECT_EQ(r["status"].value("message", ""),
            "JobFlow ns/f: spec.flows[0].dependsOn.targets[0]: jobflow Flow is not DAG: vertex "
            "is not defined: zz")
      << r.dump();
  // What Volcano admits: a name given twice, one target for several flows, no flows.
  Json twice = flow({{{"name", "a"}},
                     {{"name", "b"}, {"dependsOn", {{"targets", {"a"}}}}},
                     {{"name", "c"}, {"dependsOn", {{"targets", {"a"}}}}},
                     {{"name", "c"}, {"dependsOn", {{"targets", {"b"}}}}}});
  EXPECT_TRUE(Review("/jobflows/validate", "CREATE", twice).value("allowed", false));
  EXPECT_TRUE(Review("/jobflows/validate", "CREATE", flow(Json::array())).value("allowed", false));
  Json self = flow({{{"name", "s"}, {"dependsOn", {{"targets", {"s"}}}}}});
  r = Review("/jobflows/validate", "CREATE", self);
  EXPECT_EQ(r["status"].value("message", ""), "JobFlow ns/f: spec.flows: jobflow Flow is not DAG");

  Json tmpl = JobJson("default");
  tmpl["apiVersion"] = "flow.volcano.sh/v1alpha1";
  tmpl["kind"] = "JobTemplate";
  EXPECT_TRUE(Review("/jobtemplates/validate", "CREATE", tmpl).value("allowed", false));
  tmpl["spec"]["tasks"][0]["replicas"] = "two";
  r = Review("/jobtemplates/validate", "CREATE", tmpl);
  EXPECT_FALSE(r.value("allowed", true));
  EXPECT_NE(r["status"].value("message", "").find("replicas"), std::string::npos) << r.dump();
}

Json HyperNodeJson(const std::string& name, int tier, const Json& members) {
  return Json{{"apiVersion", "topology.volcano.sh/v1alpha1"},
              {"kind", "HyperNode"},
              {"metadata", {{"name", name}}},
              {"spec", {{"tier", tier}, {"members", members}}}};
}

Json MemberJson(const std::string& type, const Json& selector) {
  return Json{{"type", type}, {"selector", selector}};
}

TEST_F(WebhookTest, HyperNodeValidation) {
  lookup_.SetHyperNodes(R"(
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: spine}
spec:
  tier: 2
  members:
  - {type: HyperNode, selector: {exactMatch: {name: leaf-a}}}
)");
  Json leaf_b = HyperNodeJson(
      "leaf-b", 1, Json::array({MemberJson("Node", {{"regexMatch", {{"pattern", "^b-"}}}})}));
  EXPECT_TRUE(Review("/hypernodes/validate", "CREATE", leaf_b).value("allowed", false));

  // The decoder's rules: a selector that is not a regular expression.
  Json bad_regex = HyperNodeJson(
      "leaf-c", 1, Json::array({MemberJson("Node", {{"regexMatch", {{"pattern", "(["}}}})}));
  Json r = Review("/hypernodes/validate", "CREATE", bad_regex);
  EXPECT_FALSE(r.value("allowed", true));
  std::string message = r["status"].value("message", "");
  EXPECT_NE(message.find("spec.members[0].selector.regexMatch.pattern"), std::string::npos)
      << message;

  // The tree with the stored HyperNodes: leaf-a already has the parent spine.
  Json second_parent = HyperNodeJson(
      "spine-2", 2, Json::array({MemberJson("HyperNode", {{"exactMatch", {{"name", "leaf-a"}}}})}));
  r = Review("/hypernodes/validate", "CREATE", second_parent);
  EXPECT_FALSE(r.value("allowed", true));
  message = r["status"].value("message", "");
  EXPECT_NE(message.find("leaf-a"), std::string::npos) << message;
  EXPECT_EQ(message.find("cluster"), std::string::npos) << message;

  // An update of the stored spine that keeps its one child is not a duplicate.
  Json spine = HyperNodeJson(
      "spine", 3, Json::array({MemberJson("HyperNode", {{"exactMatch", {{"name", "leaf-a"}}}})}));
  EXPECT_TRUE(Review("/hypernodes/validate", "UPDATE", spine).value("allowed", false));

  lookup_.Fail(true);
  r = Review("/hypernodes/validate", "CREATE", leaf_b);
  EXPECT_FALSE(r.value("allowed", true));
  EXPECT_EQ(r["status"].value("message", ""),
            "cannot read the cluster's HyperNodes: GET hypernodes: 503 Service Unavailable");
}

// Volcano refuses a HyperNode without members (and one whose members list is empty).
TEST_F(WebhookTest, HyperNodeWithoutMembersIsRefused) {
  for (const Json& members : {Json::array(), Json()}) {
    Json h = HyperNodeJson("empty", 1, members);
    if (members.is_null()) h["spec"].erase("members");
    Json r = Review("/hypernodes/validate", "CREATE", h);
    EXPECT_FALSE(r.value("allowed", true)) << r.dump();
    EXPECT_EQ(r["status"].value("message", ""),
              "HyperNode empty: spec.members: member must have at least one member");
  }
  Json bad_regex = HyperNodeJson(
      "leaf-c", 1, Json::array({MemberJson("Node", {{"regexMatch", {{"pattern", "(["}}}})}));
  Json r = Review("/hypernodes/validate", "UPDATE", bad_regex);
  EXPECT_NE(
      r["status"]
          .value("message", "")
          .find(
              "spec.members[0].selector.regexMatch.pattern: member regexMatch pattern is invalid"),
      std::string::npos)
      << r.dump();
}

Json CronJobJson(const std::string& name, const Json& spec) {
  Json s = spec;
  s["jobTemplate"] = {{"spec", JobJson("default")["spec"]}};
  return {{"apiVersion", "batch.volcano.sh/v1alpha1"},
          {"kind", "CronJob"},
          {"metadata", {{"name", name}, {"namespace", "ns"}}},
          {"spec", s}};
}

// /cronjobs/validate: Volcano's schedule, time zone and name rules, on CREATE and UPDATE.
TEST_F(WebhookTest, CronJobValidation) {
  Json ok = CronJobJson("nightly", {{"schedule", "0 3 * * *"}, {"timeZone", "UTC"}});
  EXPECT_TRUE(Review("/cronjobs/validate", "CREATE", ok).value("allowed", false));
  struct Case {
    Json spec;
    std::string name, message;
  };
  const std::vector<Case> cases = {
      {{{"schedule", ""}}, "c", "CronJob ns/c: spec.schedule: schedule is required, but got empty"},
      {{{"schedule", "TZ=UTC 0 * * * *"}},
       "c",
       "CronJob ns/c: spec.schedule: schedule should not contain TZ or CRON_TZ, TZ should only be "
       "set in the timeZone field"},
      {{{"schedule", "61 * * * *"}},
       "c",
       "CronJob ns/c: spec.schedule: schedule is not a valid cron expression"},
      {{{"schedule", "@daily"}, {"timeZone", ""}},
       "c",
       "CronJob ns/c: spec.timeZone: timeZone must be nil or non-empty string, got empty string"},
      {{{"schedule", "@daily"}, {"timeZone", "local"}},
       "c",
       "CronJob ns/c: spec.timeZone: timeZone can't be Local, and must be defined in "
       "https://www.iana.org/time-zones"},
      {{{"schedule", "@daily"}, {"timeZone", "Mars/Olympus_Mons"}},
       "c",
       "CronJob ns/c: spec.timeZone: invalid timeZone"},
      {{{"schedule", "@daily"}, {"timeZone", "../etc"}},
       "c",
       "CronJob ns/c: spec.timeZone: unknown timeZone\nCronJob ns/c: spec.timeZone: invalid "
       "timeZone"},
      {{{"schedule", "@daily"}},
       std::string(53, 'a'),
       "CronJob ns/" + std::string(53, 'a') +
           ": metadata.name: cronJob name must be no more than 52 characters to accommodate job "
           "name suffix (max 63 total)"},
  };
  for (const Case& c : cases) {
    for (const char* op : {"CREATE", "UPDATE"}) {
      Json r = Review("/cronjobs/validate", op, CronJobJson(c.name, c.spec));
      EXPECT_FALSE(r.value("allowed", true)) << c.spec.dump();
      EXPECT_EQ(r["status"].value("message", ""), c.message) << c.spec.dump();
    }
  }
}

// /pods/mutate with Volcano's admission configuration: the first group a pod
// belongs to (namespace, annotation lines, or the default annotation
// volcano.sh/resource-group) patches its nodeSelector, affinity (only when it
// has none), tolerations and scheduler name.
TEST_F(WebhookTest, PodResourceGroups) {
  auto groups = ParseResourceGroups(R"(
resourceGroups:
- resourceGroup: management
  object: {key: namespace, value: [mng-ns-1]}
  schedulerName: default-scheduler
  tolerations: [{effect: NoSchedule, key: taint, operator: Exists}]
  labels: {volcano.sh/nodetype: management}
- resourceGroup: cpu
  object:
    key: annotation
    value: ["volcano.sh/resource-group: cpu"]
  affinity: '{"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "cpu", "operator": "Exists"}]}]}}}'
- resourceGroup: gpu
  schedulerName: volcano
  labels: {volcano.sh/nodetype: gpu}
)",
                                    "admission.conf");
  ASSERT_TRUE(groups.ok()) << groups.status().message();
  AdmissionOptions options;
  options.resource_groups = *groups;
  auto mutate = [&](const Json& pod) {
    Json review = {
        {"apiVersion", "admission.k8s.io/v1"},
        {"kind", "AdmissionReview"},
        {"request",
         {{"uid", "u"}, {"operation", "CREATE"}, {"namespace", "mng-ns-1"}, {"object", pod}}}};
    AdmissionReply reply =
        ReviewAdmission(WebhookEndpoint::kPodsMutate, review.dump(), lookup_, options);
    EXPECT_EQ(reply.http_status, 200);
    return Patch(Json::parse(reply.body)["response"]);
  };
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}}},
              {"spec",
               {{"nodeSelector", {{"zone", "a"}}},
                {"tolerations", Json::array({{{"key", "k"}, {"operator", "Exists"}}})},
                {"containers", Json::array({{{"name", "c"}, {"image", "x"}}})}}}};
  // The namespace comes from the request when the pod has none.
  EXPECT_EQ(mutate(pod), Json::parse(R"([
  {"op": "add", "path": "/spec/nodeSelector", "value": {"volcano.sh/nodetype": "management", "zone": "a"}},
  {"op": "add", "path": "/spec/tolerations", "value": [{"key": "k", "operator": "Exists"},
                                                        {"effect": "NoSchedule", "key": "taint", "operator": "Exists"}]},
  {"op": "add", "path": "/spec/schedulerName", "value": "default-scheduler"}])"));
  pod["metadata"]["namespace"] = "team";
  pod["metadata"]["annotations"] = {{"volcano.sh/resource-group", "cpu"}};
  Json patch = mutate(pod);
  ASSERT_EQ(patch.size(), 1u) << patch.dump();
  EXPECT_EQ(patch[0]["path"], "/spec/affinity");
  pod["spec"]["affinity"] = Json::object();  // a pod's own affinity is kept
  EXPECT_EQ(mutate(pod), Json::array());
  pod["metadata"]["annotations"] = {{"volcano.sh/resource-group", "gpu"}};
  EXPECT_EQ(mutate(pod)[1],
            Json({{"op", "add"}, {"path", "/spec/schedulerName"}, {"value", "volcano"}}));
  pod["metadata"]["annotations"] = Json::object();
  EXPECT_EQ(mutate(pod), Json::array());
  // A bad configuration names the file and the field.
  auto bad = ParseResourceGroups("resourceGroups:\n- {labels: [a]}\n", "admission.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "admission.conf: resourceGroups[0].labels: expected a map");
}

TEST_F(WebhookTest, QueuesUnavailableRefusesWithReason) {
  lookup_.Fail(true);
  Json r = Review("/jobs/validate", "CREATE", JobJson("default"));
  EXPECT_FALSE(r.value("allowed", true));
  EXPECT_EQ(r["status"].value("message", ""),
            "cannot read the cluster's queues: GET queues: 503 Service Unavailable");
}

TEST_F(WebhookTest, MalformedBodiesGet400WithAMessage) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{not json", "malformed AdmissionReview: not JSON"},
      {"[]", "malformed AdmissionReview: not an object"},
      {R"({"apiVersion":"v1","kind":"AdmissionReview"})",
       "malformed AdmissionReview: apiVersion must be admission.k8s.io/v1, got \"v1\""},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"Pod"})",
       "malformed AdmissionReview: kind must be AdmissionReview"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})",
       "malformed AdmissionReview: request: missing"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}})",
       "malformed AdmissionReview: request.uid: missing"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":3}})",
       "malformed AdmissionReview: request.object: not an object"},
      {std::string(100000, '[') + std::string(100000, ']'),
       "malformed AdmissionReview: JSON nested deeper than 200 levels"},
  };
  for (const auto& [body, message] : cases) {
    auto res = Post("/queues/validate", body);
    ASSERT_TRUE(res) << body.substr(0, 80);
    EXPECT_EQ(res->status, 400) << body.substr(0, 80);
    EXPECT_EQ(res->body, message + "\n") << body.substr(0, 80);
  }
  // An object of the wrong kind is a refusal, not a crash.
  Json r = Review("/queues/validate", "CREATE", JobJson("default"));
  EXPECT_EQ(r["status"].value("message", ""),
            "request.object: expected a Queue, got batch.volcano.sh/v1alpha1 Job");
  auto res = Post("/nothing/here", "{}");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
}

TEST_F(WebhookTest, ReplacedCertificateIsServedToTheNextConnection) {
  auto res = Post("/queues/validate", "{}");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  // Renewal: a new pair written next to the old one, then moved over it.
  MakeCert(dir_, "second", "new.crt", "new.key");
  fs::copy_file(dir_ / "new.crt", dir_ / "second.crt");
  fs::rename(dir_ / "new.key", dir_ / "tls.key");
  fs::rename(dir_ / "new.crt", dir_ / "tls.crt");
  res = Post("/queues/validate", "{}", "second.crt");
  ASSERT_TRUE(res) << "the new certificate is not served: " << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(server_->cert_reloads(), 1);
  // A client that trusts only the old certificate is refused now.
  MakeCert(dir_, "unused", "unused.crt", "unused.key");
  EXPECT_FALSE(Post("/queues/validate", "{}", "unused.crt"));
}

TEST_F(WebhookTest, HalfWrittenRenewalKeepsTheOldPair) {
  // A certificate whose key has not arrived yet: the old pair stays.
  MakeCert(dir_, "second", "new.crt", "new.key");
  fs::copy_file(dir_ / "tls.crt", dir_ / "first.crt");
  fs::rename(dir_ / "new.crt", dir_ / "tls.crt");
  auto res = Post("/queues/validate", "{}", "first.crt");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(server_->cert_reloads(), 0);
  fs::rename(dir_ / "new.key", dir_ / "tls.key");
  fs::copy_file(dir_ / "tls.crt", dir_ / "second.crt");
  res = Post("/queues/validate", "{}", "second.crt");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(server_->cert_reloads(), 1);
}

// `basalt serve --webhook-port`: the webhooks answer from the informers' store,
// on a replica that does not lead.
TEST(ServeWebhookTest, AnswersFromTheStoreWithoutTheLease) {
  const fs::path dir =
      fs::temp_directory_path() / ("basalt-serve-webhook-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  MakeCert(dir, "serve", "tls.crt", "tls.key");
  testing::FakeApiServer fake;
  ASSERT_TRUE(fake.Start());
  fake.Put(testing::QueueObject("default", 1));
  Json closed = testing::QueueObject("closed", 1);
  closed["status"] = {{"state", "Closed"}};
  fake.Put(closed);
  testing::ManualKubeClock clock;
  ServeAppOptions opt = testing::LoopbackServeOptions(fake, &clock);
  opt.request.webhook.port = -1;
  opt.request.webhook.bind = "127.0.0.1";
  opt.request.webhook.cert_file = (dir / "tls.crt").string();
  opt.request.webhook.key_file = (dir / "tls.key").string();
  ServeApp app(opt);
  ASSERT_TRUE(app.Start().ok());
  ASSERT_GT(app.webhook_port(), 0);
  for (int i = 0; i < 2000 && !app.Synced(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(app.Synced());
  EXPECT_FALSE(app.leader());  // no Tick: the lease was never taken

  Json review = {
      {"apiVersion", "admission.k8s.io/v1"},
      {"kind", "AdmissionReview"},
      {"request", {{"uid", "u1"}, {"operation", "CREATE"}, {"object", JobJson("closed")}}}};
  // Queue lists (not watches) the API server has answered.
  auto queue_lists = [&fake] {
    size_t n = 0;
    for (const auto& r : fake.http().requests()) {
      n += r.method == "GET" && r.path == "/apis/scheduling.volcano.sh/v1beta1/queues" &&
           !r.query.count("watch");
    }
    return n;
  };
  const size_t lists_before = queue_lists();
  httplib::SSLClient cli("127.0.0.1", app.webhook_port());
  cli.set_ca_cert_path((dir / "tls.crt").string().c_str());
  cli.enable_server_certificate_verification(true);
  auto res = cli.Post("/jobs/validate", review.dump(), "application/json");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  Json reply = Json::parse(res->body);
  EXPECT_EQ(reply["response"]["uid"], "u1");
  EXPECT_EQ(reply["response"]["status"].value("message", ""),
            "Job ns/train: spec.queue: can only submit job to queue with state `Open`, queue "
            "`closed` status is `Closed`");
  review["request"]["object"] = JobJson("default");
  res = cli.Post("/jobs/validate", review.dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_TRUE(Json::parse(res->body)["response"].value("allowed", false)) << res->body;
  EXPECT_EQ(queue_lists(), lists_before);  // answered from the store
  // Oversized bodies are refused before they are read: a 413 and the
  // connection closed, which the client may see as its upload failing.
  res = cli.Post("/jobs/validate", std::string(size_t{9} << 20, ' '), "application/json");
  if (res) {
    EXPECT_EQ(res->status, 413);
  }
  testing::StopApp(app, fake);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(WebhookServerTest, MissingOrMismatchedFilesAreUserErrors) {
  FakeLookup lookup;
  WebhookOptions opt;
  opt.bind = "127.0.0.1";
  opt.cert_file = "/nonexistent/tls.crt";
  opt.key_file = "/nonexistent/tls.key";
  WebhookServer server(opt, &lookup);
  Status s = server.Start();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "/nonexistent/tls.crt: cannot read the TLS certificate");
}

}  // namespace
}  // namespace basalt
