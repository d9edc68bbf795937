// The pdb, resourcequota and resource-strategy-fit plugins: their objects
// (PodDisruptionBudget, ResourceQuota), the numbers derived from them, and
// how their arguments and missing plugins are reported. Their decisions are
// scenarios (tests/scenarios/pdb, resourcequota, resource-strategy-fit).
#include <gtest/gtest.h>

#include <string>

#include "api/decode.h"
#include "api/pod_disruption_budget.h"
#include "api/resource_quota.h"
#include "kube/informer.h"
#include "scratch_dir.h"
#include "testing.h"

namespace basalt {
namespace {

using ::basalt::testing::Basalt;
using ::basalt::testing::RunResult;
using ::basalt::testing::ScratchDir;

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "text: " << (haystack)

ClusterObjects DecodeOk(const std::string& text) {
  ClusterObjects out;
  Status st = DecodeText(text, "t.yaml", &out);
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

std::string DecodeError(const std::string& text) {
  ClusterObjects out;
  Status st = DecodeText(text, "t.yaml", &out);
  EXPECT_FALSE(st.ok()) << "decoded without error:\n" << text;
  return st.message();
}

const char* kBudget = R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: prod}
spec:
  selector:
    matchLabels: {app: web}
    matchExpressions: [{key: tier, operator: NotIn, values: [canary]}]
  maxUnavailable: 30%
status:
  disruptionsAllowed: 2
  disruptedPods: {web-1: "2024-05-01T10:00:00Z"}
)";

TEST(PodDisruptionBudgetTest, DecodesSpecAndStatus) {
  ClusterObjects objs = DecodeOk(kBudget);
  ASSERT_EQ(objs.disruption_budgets.size(), 1u);
  const PodDisruptionBudget& pdb = objs.disruption_budgets[0];
  EXPECT_EQ(pdb.meta.Key(), "prod/web");
  ASSERT_TRUE(pdb.max_unavailable.has_value());
  EXPECT_TRUE(pdb.max_unavailable->percent);
  EXPECT_EQ(pdb.max_unavailable->value, 30);
  EXPECT_FALSE(pdb.min_available.has_value());
  EXPECT_TRUE(pdb.has_status);
  EXPECT_EQ(pdb.disruptions_allowed, 2);
  EXPECT_EQ(pdb.disrupted_pods, (std::set<std::string>{"web-1"}));
  Pod pod;
  pod.meta.namespace_ = "prod";
  pod.meta.labels = {{"app", "web"}};
  EXPECT_TRUE(pdb.Selects(pod));
  pod.meta.labels["tier"] = "canary";
  EXPECT_FALSE(pdb.Selects(pod));
  pod.meta.labels.erase("tier");
  pod.meta.namespace_ = "dev";
  EXPECT_FALSE(pdb.Selects(pod));  // another namespace
}

// policy/v1: a budget without a selector, or with an empty one, selects no pod.
TEST(PodDisruptionBudgetTest, EmptySelectorSelectsNothing) {
  for (const char* spec : {"{minAvailable: 1}", "{selector: {}, minAvailable: 1}"}) {
    ClusterObjects objs = DecodeOk(
        std::string("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, "
                    "namespace: default}\nspec: ") +
        spec + "\n");
    Pod pod;
    pod.meta.namespace_ = "default";
    pod.meta.labels = {{"app", "web"}};
    EXPECT_FALSE(objs.disruption_budgets.at(0).Selects(pod)) << spec;
  }
}

TEST(PodDisruptionBudgetTest, RefusesWhatTheApiServerRefuses) {
  const std::string head =
      "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: d}\n";
  EXPECT_HAS(DecodeError(head + "spec: {minAvailable: 1, maxUnavailable: 1}\n"),
             "PodDisruptionBudget d/b: spec: minAvailable and maxUnavailable cannot be both set");
  EXPECT_HAS(DecodeError(head + "spec: {minAvailable: 150%}\n"),
             "spec.minAvailable: expected a non-negative integer or a percentage such as "
             "\"50%\", got \"150%\"");
  EXPECT_HAS(DecodeError(head + "spec: {maxUnavailable: -1}\n"), "spec.maxUnavailable");
  EXPECT_HAS(DecodeError(head + "spec: {selector: {matchExpressions: [{key: a, operator: Is}]}}\n"),
             "spec.selector.matchExpressions[0].operator: unknown operator \"Is\"");
  EXPECT_HAS(DecodeError("apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: "
                         "{name: b, namespace: d}\n"),
             "policy/v1");
}

std::vector<Pod> RunningPods(int running, int pending) {
  std::vector<Pod> pods(running + pending);
  for (int i = 0; i < running; ++i) pods[i].phase = "Running";
  return pods;
}

int32_t Allowed(const std::string& spec, int running, int pending) {
  ClusterObjects objs = DecodeOk(
      "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: d}\n"
      "spec: " +
      spec + "\n");
  std::vector<Pod> pods = RunningPods(running, pending);
  std::vector<const Pod*> selected;
  for (const Pod& p : pods) selected.push_back(&p);
  return DisruptionsAllowedFromSpec(objs.disruption_budgets.at(0), selected);
}

// The disruption controller's arithmetic, for budgets written without status.
TEST(PodDisruptionBudgetTest, DisruptionsAllowedFromSpec) {
  EXPECT_EQ(Allowed("{minAvailable: 2}", 3, 0), 1);
  EXPECT_EQ(Allowed("{minAvailable: 2}", 2, 1), 0);        // pending pods are not healthy
  EXPECT_EQ(Allowed("{minAvailable: 5}", 3, 0), 0);        // never below zero
  EXPECT_EQ(Allowed("{minAvailable: \"50%\"}", 3, 0), 1);  // ceil(1.5) = 2 must stay
  EXPECT_EQ(Allowed("{maxUnavailable: 1}", 3, 0), 1);
  EXPECT_EQ(Allowed("{maxUnavailable: \"50%\"}", 3, 0), 2);  // ceil(1.5) = 2 may go
  EXPECT_EQ(Allowed("{maxUnavailable: 1}", 2, 1), 0);        // one is already down
  EXPECT_EQ(Allowed("{}", 3, 0), 0);                         // neither: nothing expected
  EXPECT_EQ(Allowed("{maxUnavailable: 1}", 0, 0), 0);        // no pods
}

TEST(ResourceQuotaTest, DecodesQuotaNamesAsWritten) {
  ClusterObjects objs = DecodeOk(R"(apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: team}
spec: {hard: {requests.cpu: "4", limits.memory: 8Gi, count/pods: "10", services: "2"}}
status:
  hard: {requests.cpu: "4"}
  used: {requests.cpu: 1500m}
)");
  ASSERT_EQ(objs.resource_quotas.size(), 1u);
  const ResourceQuota& q = objs.resource_quotas[0];
  EXPECT_EQ(q.spec_hard, (QuotaList{{"count/pods", 10000},
                                    {"limits.memory", int64_t{8} * 1024 * 1024 * 1024 * 1000},
                                    {"requests.cpu", 4000},
                                    {"services", 2000}}));
  EXPECT_TRUE(q.has_status);
  EXPECT_EQ(q.status_used, (QuotaList{{"requests.cpu", 1500}}));
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: "
                         "t}\nspec: {hard: {cpu: lots}}\n"),
             "ResourceQuota t/q: spec.hard.cpu:");
}

// A request counts under its own name and "requests.<name>", as Volcano's job
// controller writes minResources; absent resources stay absent.
TEST(ResourceQuotaTest, QuotaUsageOfARequest) {
  auto r = Resource::Parse("cpu=1500m,memory=1Gi,nvidia.com/gpu=2,pods=3");
  ASSERT_TRUE(r.ok());
  const QuotaList usage = QuotaUsageOf(*r);
  EXPECT_EQ(usage.at("cpu"), 1500);
  EXPECT_EQ(usage.at("requests.cpu"), 1500);
  EXPECT_EQ(usage.at("requests.memory"), int64_t{1024} * 1024 * 1024 * 1000);
  EXPECT_EQ(usage.at("nvidia.com/gpu"), 2000);
  EXPECT_EQ(usage.at("requests.nvidia.com/gpu"), 2000);
  EXPECT_EQ(usage.at("count/pods"), 3000);
  EXPECT_EQ(FormatQuotaList(usage),
            "map[count/pods:3 cpu:1500m memory:1Gi nvidia.com/gpu:2 pods:3 requests.cpu:1500m "
            "requests.memory:1Gi requests.nvidia.com/gpu:2]");
  auto cpu_only = Resource::Parse("cpu=1");
  ASSERT_TRUE(cpu_only.ok());
  EXPECT_EQ(QuotaUsageOf(*cpu_only).count("memory"), 0u);
}

// `basalt serve` keeps budgets and quotas in the store as it does every other
// watched kind: informers for both, decoded with the manifest rules, deleted
// when the server deletes them.
TEST(PolicyObjectsLiveTest, WatchedIntoTheStore) {
  bool pdb = false, quota = false;
  for (const kube::InformerSpec& spec : kube::DefaultInformerSpecs()) {
    pdb |= spec.kind == "PodDisruptionBudget" &&
           spec.path.Collection() == "/apis/policy/v1/poddisruptionbudgets";
    quota |= spec.kind == "ResourceQuota" && spec.path.Collection() == "/api/v1/resourcequotas";
  }
  EXPECT_TRUE(pdb);
  EXPECT_TRUE(quota);
  ClusterState state;
  kube::StateSink sink(&state);
  const kube::Json budget = kube::Json::parse(R"({"apiVersion": "policy/v1",
      "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "prod"},
      "spec": {"selector": {"matchLabels": {"app": "web"}}, "minAvailable": 2},
      "status": {"disruptionsAllowed": 1, "currentHealthy": 3}})");
  const kube::Json q = kube::Json::parse(R"({"apiVersion": "v1", "kind": "ResourceQuota",
      "metadata": {"name": "q", "namespace": "prod"}, "spec": {"hard": {"cpu": "4"}},
      "status": {"hard": {"cpu": "4"}, "used": {"cpu": "1"}}})");
  ASSERT_OK(sink.Apply("PodDisruptionBudget", false, budget));
  ASSERT_OK(sink.Apply("ResourceQuota", false, q));
  ASSERT_EQ(state.disruption_budgets().count("prod/web"), 1u);
  EXPECT_EQ(state.disruption_budgets().at("prod/web").disruptions_allowed, 1);
  ASSERT_EQ(state.resource_quotas().count("prod/q"), 1u);
  EXPECT_EQ(state.resource_quotas().at("prod/q").status_used, (QuotaList{{"cpu", 1000}}));
  ASSERT_OK(sink.Apply("PodDisruptionBudget", true, budget));
  ASSERT_OK(sink.Apply("ResourceQuota", true, q));
  EXPECT_TRUE(state.disruption_budgets().empty());
  EXPECT_TRUE(state.resource_quotas().empty());
}

// cdp reads when a pod was bound from its PodScheduled=True condition.
TEST(CdpInputTest, ScheduledAtFromTheCondition) {
  ClusterObjects objs = DecodeOk(R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec: {nodeName: n1, containers: [{name: c}]}
status:
  phase: Running
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2024-05-01T12:00:00Z"}
  - {type: PodScheduled, status: "True", lastTransitionTime: "2024-05-01T11:55:00Z"}
)");
  ASSERT_EQ(objs.pods.size(), 1u);
  EXPECT_EQ(objs.pods[0].scheduled_at, 1714564500);
  EXPECT_HAS(DecodeError("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: "
                         "[{name: c}]}\nstatus: {conditions: [{type: PodScheduled, status: "
                         "\"True\", lastTransitionTime: yesterday}]}\n"),
             "status.conditions[0].lastTransitionTime");
}

// ---- configuration: arguments and missing plugins, as the binary reports them ----

std::string Conf(const std::string& plugin_lines) {
  return "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n" + plugin_lines;
}

TEST(PolicyPluginArgumentsTest, UnknownArgumentsWarn) {
  ScratchDir dir;
  const std::string conf = dir.Write(
      "c.conf",
      Conf("  - name: pdb\n    arguments: {minAvailable: 1}\n"
           "  - name: resourcequota\n"
           "  - name: resource-strategy-fit\n    arguments:\n"
           "      resources: {cpu: {type: MostAllocated, wieght: 2}}\n"
           "      sra: {enable: true, resources: nvidia.com/gpu, weight: 1, extra: 1}\n"));
  RunResult r = Basalt("validate --conf " + conf);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_HAS(r.out,
             "plugin pdb: arguments.minAvailable: unknown argument, ignored (it reads no "
             "arguments)");
  EXPECT_HAS(r.out,
             "plugin resource-strategy-fit: arguments.resources.cpu.wieght: unknown "
             "argument, ignored (known: resourceStrategyFitWeight, ");
  EXPECT_HAS(r.out, "arguments.sra.extra: unknown argument");
}

// A wrong type: strict (validate, --strict) refuses it, naming the argument;
// schedule warns and keeps the default, as Volcano does.
TEST(PolicyPluginArgumentsTest, WrongTypes) {
  ScratchDir dir;
  const std::string conf =
      dir.Write("c.conf", Conf("  - name: resource-strategy-fit\n    arguments:\n"
                               "      resourceStrategyFitWeight: heavy\n"));
  RunResult r = Basalt("validate --conf " + conf);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_HAS(r.out,
             "plugin resource-strategy-fit: arguments.resourceStrategyFitWeight: expected "
             "an integer, got \"heavy\"");
  const std::string typed =
      dir.Write("w.conf", Conf("  - name: resource-strategy-fit\n    arguments:\n"
                               "      resources: {cpu: {type: MostAllocated, weight: 1.5}}\n"));
  r = Basalt("validate --conf " + typed);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_HAS(r.out, "arguments.resources.cpu.weight: expected an integer, got \"1.5\"");
}

// A Volcano plugin basalt lacks stops every command that reads the
// configuration, unless --allow-missing-plugins names it.
TEST(MissingPluginsTest, RefusedUnlessAllowed) {
  ScratchDir dir;
  const std::string conf =
      dir.Write("c.conf", Conf("  - name: gang\n  - name: usage\n  - name: cdpp\n"));
  const std::string cluster = dir.Write(
      "cluster/n.yaml",
      "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"1\", "
      "pods: \"10\"}}\n");
  for (const std::string& cmd :
       {"validate --conf " + conf, "schedule --conf " + conf + " --cluster " + cluster}) {
    RunResult r = Basalt(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out;
    EXPECT_HAS(r.out, conf + ":5: tiers[0].plugins[1].name: unknown plugin \"usage\" (known: ");
    EXPECT_HAS(r.out,
               "a Volcano v1.15.1 plugin that basalt does not implement; running without "
               "it would silently drop what it does. Remove it from the configuration, or "
               "pass --allow-missing-plugins=usage to run without it");
    EXPECT_HAS(r.out, conf + ":6: tiers[0].plugins[2].name: unknown plugin \"cdpp\"");
    r = Basalt(cmd + " --allow-missing-plugins=usage,cdpp");
    EXPECT_EQ(r.exit_code, 0) << cmd << "\n" << r.out;
    EXPECT_HAS(r.out,
               "plugin \"usage\" is not implemented by basalt; skipped, as "
               "--allow-missing-plugins says");
  }
}

}  // namespace
}  // namespace basalt
