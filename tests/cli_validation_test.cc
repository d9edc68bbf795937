// The API server's object rules (api/object_rules.h) through the binary:
// `validate` refuses what the API server refuses to store (exit 2, one
// `file:line: Kind ns/name: field: problem` line each), and so do `schedule`
// and `simulate` (such an object could never exist in a cluster); what a
// cluster may hold (a pod on a node that is gone) and unknown fields only warn.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "testing.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;

using ::basalt::testing::Basalt;
using ::basalt::testing::RunResult;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class Folder {
 public:
  Folder() {
    path_ = fs::temp_directory_path() /
            ("basalt-validation-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~Folder() { fs::remove_all(path_); }
  // Writes `text` to `name` and returns the folder.
  std::string With(const std::string& name, const std::string& text) {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return path_.string();
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

constexpr char kNode[] = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110", nvidia.com/gpu: "2"}}
)";

std::string PodYaml(const std::string& name, const std::string& spec_extra,
                    const std::string& resources = "{requests: {cpu: \"1\"}}",
                    const std::string& ns = "default") {
  return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: " + ns +
         "}\nspec:\n  schedulerName: volcano\n" + spec_extra +
         "  containers: [{name: c, resources: " + resources + "}]\n";
}

TEST(CliValidationTest, DuplicateNodesAreRefusedByValidateAsBySchedule) {
  Folder f;
  const std::string dir = f.With("c.yaml", std::string(kNode) + "---\n" + kNode);
  RunResult v = Basalt("validate " + dir);
  EXPECT_EQ(v.exit_code, 2) << v.out;
  EXPECT_TRUE(Has(v.out,
                  "c.yaml:6: Node n1: metadata.name: duplicate Node \"n1\": already "
                  "defined at "))
      << v.out;
  RunResult s = Basalt("schedule --cluster " + dir);
  EXPECT_EQ(s.exit_code, 2) << s.out;
}

TEST(CliValidationTest, NamesMustBeDns1123) {
  Folder f;
  const std::string long_name = std::string(360, 'a');
  const std::string dir =
      f.With("c.yaml", std::string(kNode) + PodYaml("Bad_Name!", "") + PodYaml(long_name, "") +
                           PodYaml("\"caf\xc3\xa9\"", "") + PodYaml("\"a\\0b\"", "") +
                           "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: Not_Valid}\n" +
                           PodYaml("p", "", "{requests: {cpu: \"1\"}}", "Not_Valid"));
  RunResult v = Basalt("validate " + dir);
  EXPECT_EQ(v.exit_code, 2) << v.out;
  EXPECT_TRUE(Has(v.out,
                  "c.yaml:6: Pod default/Bad_Name!: metadata.name: Invalid value: "
                  "\"Bad_Name!\": a lowercase RFC 1123 subdomain"))
      << v.out;
  EXPECT_TRUE(Has(v.out, "must be no more than 253 characters")) << v.out;
  EXPECT_TRUE(Has(v.out, "\"caf\\xc3\\xa9\"")) << v.out;
  EXPECT_TRUE(Has(v.out, "Pod default/a\\x00b: metadata.name")) << v.out;
  EXPECT_TRUE(Has(v.out,
                  "Namespace Not_Valid: metadata.name: Invalid value: \"Not_Valid\": a "
                  "lowercase RFC 1123 label"))
      << v.out;
  EXPECT_TRUE(Has(v.out, "Pod Not_Valid/p: metadata.namespace: Invalid value")) << v.out;
  // Such objects could never exist in a cluster: schedule refuses them too.
  RunResult s = Basalt("schedule --cluster " + dir);
  EXPECT_EQ(s.exit_code, 2) << s.out;
  EXPECT_TRUE(Has(s.out, "basalt: " + f.File("c.yaml") +
                             ":6: Pod default/Bad_Name!: metadata.name: Invalid value"))
      << s.out;
}

TEST(CliValidationTest, ContainerRules) {
  Folder f;
  const std::string dir = f.With(
      "c.yaml",
      std::string(kNode) + PodYaml("half-gpu", "", "{requests: {nvidia.com/gpu: \"0.5\"}}") +
          "---\napiVersion: v1\nkind: Pod\nmetadata: {name: empty, namespace: default}\n"
          "spec: {schedulerName: volcano}\n" +
          PodYaml("over", "", "{requests: {cpu: \"2\", memory: 1Gi}, limits: {cpu: \"1\"}}"));
  RunResult v = Basalt("validate " + dir);
  EXPECT_EQ(v.exit_code, 2) << v.out;
  EXPECT_TRUE(Has(v.out,
                  "c.yaml:6: Pod default/half-gpu: "
                  "spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: "
                  "\"0.5\": must be an integer"))
      << v.out;
  EXPECT_TRUE(Has(v.out, "c.yaml:13: Pod default/empty: spec.containers: Required value")) << v.out;
  EXPECT_TRUE(Has(v.out,
                  "Pod default/over: spec.containers[0].resources.requests[cpu]: Invalid "
                  "value: \"2\": must be less than or equal to cpu limit of 1"))
      << v.out;
  EXPECT_TRUE(Has(v.out, "basalt: 3 problems found")) << v.out;
  RunResult s = Basalt("schedule --cluster " + dir);
  EXPECT_EQ(s.exit_code, 2) << s.out;
  EXPECT_TRUE(Has(s.out, "basalt: " + f.File("c.yaml") + ":6: Pod default/half-gpu")) << s.out;
}

TEST(CliValidationTest, PriorityClassMustExist) {
  Folder f;
  const std::string dir =
      f.With("c.yaml", std::string(kNode) + PodYaml("p", "  priorityClassName: nope\n") +
                           PodYaml("q", "  priorityClassName: system-node-critical\n"));
  RunResult v = Basalt("validate " + dir);
  EXPECT_EQ(v.exit_code, 2) << v.out;
  EXPECT_TRUE(Has(v.out,
                  "c.yaml:6: Pod default/p: spec.priorityClassName: no PriorityClass with "
                  "name nope was found"))
      << v.out;
  EXPECT_FALSE(Has(v.out, "Pod default/q")) << v.out;
  EXPECT_TRUE(Has(v.out, "basalt: 1 problem found")) << v.out;
  EXPECT_EQ(Basalt("schedule --cluster " + dir).exit_code, 2);
}

TEST(CliValidationTest, UnknownFieldsOnlyWarn) {
  Folder f;
  const std::string dir = f.With(
      "c.yaml", std::string(kNode) +
                    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, "
                    "labeles: {a: b}}\nspek: {}\nspec:\n  schedulerName: volcano\n"
                    "  containers: [{name: c, imag: x, resources: {requests: {cpu: \"1\"}}}]\n");
  RunResult v = Basalt("validate " + dir);
  EXPECT_EQ(v.exit_code, 0) << v.out;
  EXPECT_TRUE(Has(v.out, "basalt: warning: " + f.File("c.yaml") +
                             ":6: Pod default/p: spek: unknown field \"spek\""))
      << v.out;
  EXPECT_TRUE(Has(v.out, "metadata.labeles: unknown field \"metadata.labeles\"")) << v.out;
  EXPECT_TRUE(Has(v.out, "spec.containers[0].imag: unknown field")) << v.out;
  EXPECT_TRUE(Has(v.out, "ok: 2 objects valid")) << v.out;
  RunResult s = Basalt("schedule --cluster " + dir);
  EXPECT_EQ(s.exit_code, 0) << s.out;
  EXPECT_TRUE(Has(s.out, "spek: unknown field \"spek\"")) << s.out;
}

// A full pod of the current API, as `kubectl get -o yaml` prints it: no warning.
TEST(CliValidationTest, RealSchemaDoesNotWarn) {
  Folder f;
  const std::string dir = f.With("c.yaml", std::string(kNode) + R"(---
apiVersion: v1
kind: Pod
metadata:
  name: full
  namespace: default
  generateName: full-
  uid: 0b9d6f0e-1111-2222-3333-444455556666
  resourceVersion: "12"
  generation: 1
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {app: x}
  annotations: {a: b}
  finalizers: [x/y]
  ownerReferences: [{apiVersion: v1, kind: ReplicaSet, name: r, uid: u, controller: true}]
  managedFields: [{manager: kubectl}]
spec:
  schedulerName: volcano
  restartPolicy: Always
  terminationGracePeriodSeconds: 30
  dnsPolicy: ClusterFirst
  serviceAccountName: default
  serviceAccount: default
  securityContext: {}
  enableServiceLinks: true
  preemptionPolicy: PreemptLowerPriority
  priority: 0
  tolerations: [{key: k, operator: Exists}]
  volumes: [{name: v, emptyDir: {}}]
  topologySpreadConstraints: []
  initContainers: [{name: i, image: busybox}]
  containers:
  - name: c
    image: busybox
    imagePullPolicy: IfNotPresent
    command: [sh]
    args: [-c, "true"]
    env: [{name: A, value: b}]
    ports: [{containerPort: 80, protocol: TCP}]
    volumeMounts: [{name: v, mountPath: /v}]
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
    readinessProbe: {exec: {command: ["true"]}}
    resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}, limits: {cpu: "2", nvidia.com/gpu: "1"}}
status: {phase: Pending, conditions: []}
)");
  RunResult v = Basalt("validate " + dir);
  EXPECT_EQ(v.exit_code, 0) << v.out;
  EXPECT_FALSE(Has(v.out, "warning")) << v.out;
}

TEST(CliValidationTest, ExamplesValidateWithoutWarnings) {
  const std::string root = std::string(BASALT_SOURCE_DIR) + "/examples/";
  for (const char* dir : {"gang-training/cluster", "tidal/cluster", "reclaim-4-steps"}) {
    if (!fs::exists(root + dir)) continue;
    RunResult v = Basalt("validate " + root + dir);
    EXPECT_FALSE(Has(v.out, "warning")) << dir << "\n" << v.out;
  }
}

// simulate reads its manifests through the same rules: warnings, and the run goes on.
TEST(CliValidationTest, SimulateWarnsAboutItsManifests) {
  Folder f;
  f.With("pods.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spek: {}
spec:
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
  nodeName: gone
)");
  f.With("sim.yaml", R"(name: t
seed: 1
duration: 5m
period: 60s
metrics_interval: 5m
scheduler: |
  actions: "enqueue, allocate"
  tiers:
  - plugins:
    - name: gang
nodes:
- {pool: cpu, count: 1, allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
manifests:
- pods.yaml
)");
  RunResult r = Basalt("simulate " + f.File("sim.yaml") + " --out " + f.File("out"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(Has(r.out, "basalt: warning: ")) << r.out;
  EXPECT_TRUE(Has(r.out, "Pod default/p: spek: unknown field \"spek\"")) << r.out;
  EXPECT_TRUE(Has(r.out, "Pod default/p: spec.nodeName: node \"gone\" does not exist")) << r.out;
  // What could never exist in a cluster stops the run, naming the manifest.
  f.With("pods.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, resources: {requests: {nvidia.com/gpu: "0.5"}}}]
)");
  RunResult bad = Basalt("simulate " + f.File("sim.yaml") + " --out " + f.File("out"));
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_TRUE(Has(bad.out, "requests[nvidia.com/gpu]: Invalid value: \"0.5\": must be an integer"))
      << bad.out;
}

TEST(CliValidationTest, PodOnMissingNodeWarnsAndRunsNowhere) {
  Folder f;
  const std::string dir =
      f.With("c.yaml", std::string(kNode) + PodYaml("ghost", "  nodeName: n9\n") +
                           "status: {phase: Running}\n");
  RunResult v = Basalt("validate " + dir);
  EXPECT_EQ(v.exit_code, 0) << v.out;
  EXPECT_TRUE(Has(v.out, "basalt: warning: " + f.File("c.yaml") +
                             ":6: Pod default/ghost: spec.nodeName: node \"n9\" does not exist"))
      << v.out;
  RunResult s = Basalt("schedule --cluster " + dir);
  EXPECT_EQ(s.exit_code, 0) << s.out;
  EXPECT_TRUE(Has(s.out, "spec.nodeName: node \"n9\" does not exist")) << s.out;
  RunResult e = Basalt("explain default/ghost --cluster " + dir);
  EXPECT_EQ(e.exit_code, 1) << e.out;  // it waits: no kubelet runs it
  EXPECT_TRUE(Has(e.out, "NodeMissing")) << e.out;
  EXPECT_TRUE(Has(e.out, "names node n9, which does not exist")) << e.out;
}

TEST(CliValidationTest, PodGroupInMissingQueueHasAReason) {
  Folder f;
  const std::string dir =
      f.With("c.yaml",
             std::string(kNode) +
                 "---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
                 "metadata: {name: pg, namespace: default}\nspec: {minMember: 1, queue: nope}\n" +
                 "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, "
                 "annotations: {scheduling.k8s.io/group-name: pg}}\nspec:\n"
                 "  schedulerName: volcano\n  containers: [{name: c}]\n");
  RunResult s = Basalt("schedule --cluster " + dir);
  EXPECT_EQ(s.exit_code, 0) << s.out;
  EXPECT_TRUE(Has(s.out, "\"object\": \"PodGroup/default/pg\"")) << s.out;
  EXPECT_TRUE(Has(s.out, "\"message\": \"queue nope does not exist\"")) << s.out;
  RunResult e = Basalt("explain default/p --cluster " + dir);
  EXPECT_TRUE(Has(e.out, "Queue nope: does not exist")) << e.out;
  EXPECT_TRUE(Has(e.out, "queue nope does not exist: create it")) << e.out;
}

TEST(CliValidationTest, GangWithoutPodsSaysSoAsVolcano) {
  Folder f;
  const std::string dir =
      f.With("c.yaml", std::string(kNode) +
                           "---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
                           "metadata: {name: pg, namespace: default}\nspec: {minMember: 6}\n");
  RunResult s = Basalt("schedule --cluster " + dir);
  EXPECT_EQ(s.exit_code, 0) << s.out;
  EXPECT_TRUE(Has(s.out, "Not enough valid tasks for gang-scheduling, valid: 0, min: 6")) << s.out;
  EXPECT_FALSE(Has(s.out, "6/0 tasks in gang unschedulable")) << s.out;
}

std::string RackOf(const std::string& pattern) {
  return "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: rack1}\n"
         "spec: {tier: 1, members: [{type: Node, selector: {regexMatch: {pattern: '" +
         pattern + "'}}}]}\n";
}

// A pattern Go's regexp refuses (lookahead) is refused naming the file, the
// object and the field, exit 2; one Go accepts in a syntax ECMAScript lacks
// (a Go 1.22 named group) is accepted.
TEST(CliValidationTest, HyperNodeRegexHasGoSyntax) {
  Folder f;
  RunResult bad = Basalt("validate " + f.With("topo.yaml", RackOf("^(?=r1)")));
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_TRUE(Has(bad.out,
                  "topo.yaml:1: HyperNode rack1: spec.members[0].selector.regexMatch."
                  "pattern: member regexMatch pattern is invalid: invalid perl operator: (?="))
      << bad.out;
  Folder g;
  RunResult good = Basalt("validate " + g.With("topo.yaml", RackOf("^(?<rack>r1)-")));
  EXPECT_EQ(good.exit_code, 0) << good.out;
}

// `(a+)+$` against a 41-character node name: std::regex backtracked for
// minutes on it; validate accepts the pattern (Go does) and schedule, which
// matches it against every node, answers at once.
TEST(CliValidationTest, PathologicalHyperNodeRegexDoesNotStallSchedule) {
  Folder f;
  const std::string name = std::string(40, 'a') + "1";
  const std::string dir = f.With(
      "c.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
                    "}\nstatus: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n---\n" +
                    RackOf("(a+)+$") + "---\n" + PodYaml("p", ""));
  const auto start = std::chrono::steady_clock::now();
  RunResult v = Basalt("validate " + dir);
  EXPECT_EQ(v.exit_code, 0) << v.out;
  RunResult s = Basalt("schedule --cluster " + dir);
  EXPECT_EQ(s.exit_code, 0) << s.out;
  EXPECT_TRUE(Has(s.out, "\"node\": \"" + name + "\"")) << s.out;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

// A configuration key holding a control byte and invalid UTF-8 is quoted in
// the warning with those bytes escaped: a terminal or a log pipeline never
// receives them raw.
TEST(CliValidationTest, WarningsEscapeRawBytes) {
  Folder f;
  const std::string conf = f.File("s.conf");
  f.With("s.conf",
         "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gang\n    arguments:\n"
         "      \"odd\x01key\xff\": 1\n");
  RunResult r = Basalt("validate --conf " + conf);
  EXPECT_TRUE(Has(r.out, "odd\\x01key\\xff")) << r.out;
  EXPECT_FALSE(Has(r.out, "\x01")) << r.out;
  EXPECT_FALSE(Has(r.out, "\xff")) << r.out;
}

// Required inter-pod (anti-)affinity and DoNotSchedule spread constraints are
// not enforced by basalt's predicates yet: validate and schedule say so for
// each, and go on (the pod is valid; a Volcano cluster runs it).
TEST(CliValidationTest, UnenforcedPlacementRulesWarn) {
  Folder f;
  const std::string dir = f.With(
      "p.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, labels: {app: a}}\n"
      "spec:\n  schedulerName: volcano\n  affinity:\n    podAntiAffinity:\n"
      "      requiredDuringSchedulingIgnoredDuringExecution:\n"
      "      - {labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}\n"
      "  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: "
      "DoNotSchedule, labelSelector: {matchLabels: {app: a}}}\n"
      "  containers: [{name: c, image: busybox}]\n");
  for (const std::string& cmd : {"validate " + dir, "schedule --cluster " + dir}) {
    RunResult r = Basalt(cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd << "\n" << r.out;
    EXPECT_TRUE(Has(r.out,
                    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
                    "basalt does not enforce inter-pod affinity yet"))
        << cmd << "\n"
        << r.out;
    EXPECT_TRUE(Has(r.out,
                    "spec.topologySpreadConstraints[0]: basalt does not enforce topology "
                    "spread constraints yet"))
        << cmd << "\n"
        << r.out;
  }
}

}  // namespace
}  // namespace basalt
