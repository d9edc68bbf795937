// The `basalt` binary as a user runs it: exit codes, stderr messages, and
// byte-identical stdout across runs.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/schedule.h"
#include "framework/plugin.h"
#include "framework/statement.h"
#include "scratch_dir.h"
#include "testing.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;

using ::basalt::testing::Basalt;
using ::basalt::testing::RunResult;

std::string Example(const std::string& rel) {
  return std::string(BASALT_SOURCE_DIR) + "/examples/" + rel;
}

using TempDir = ::basalt::testing::ScratchDir;

// The README's example runs, exits 0 and prints the same bytes every time.
TEST(CliTest, ExampleIsDeterministic) {
  std::string args = "schedule --conf " + Example("gang-training/scheduler.conf") + " --cluster " +
                     Example("gang-training/cluster") + " --cycles 3";
  RunResult a = Basalt(args);
  RunResult b = Basalt(args);
  ASSERT_EQ(a.exit_code, 0) << a.out;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find("\"cycles\""), std::string::npos);
}

// Without --conf, Volcano's default configuration applies.
TEST(CliTest, DefaultConfiguration) {
  RunResult r = Basalt("schedule --cluster " + Example("gang-training/cluster"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
}

// --log-level takes spdlog's level names; anything else exits 2 naming the
// flag. -v is accepted by every command and leaves stdout (the JSON) alone.
TEST(CliTest, LogLevelFlags) {
  const std::string cluster = " schedule --cluster " + Example("gang-training/cluster");
  RunResult bad = Basalt("--log-level loud" + cluster);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("--log-level: unknown level \"loud\""), std::string::npos) << bad.out;
  RunResult quiet = Basalt("--log-level error" + cluster);
  RunResult verbose = Basalt("-v" + cluster);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.out;
  ASSERT_EQ(verbose.exit_code, 0) << verbose.out;
  EXPECT_EQ(quiet.out, verbose.out);
}

// A malformed manifest exits 2 naming the file, the object and the field.
TEST(CliTest, BadManifestExitsTwo) {
  TempDir dir;
  std::string file = dir.Write("bad.yaml",
                               "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
                               "status: {allocatable: {cpu: lots, pods: \"10\"}}\n");
  RunResult r = Basalt("schedule --cluster " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(file + ":1: Node n1: status.allocatable.cpu: invalid quantity \"lots\""),
            std::string::npos)
      << r.out;
}

// A seed that is not a whole number in 0..2^64-1 is refused, not wrapped.
TEST(CliTest, NegativeOrOversizedSeedExitsTwo) {
  for (const char* seed : {"-1", "18446744073709551616", "1.5"}) {
    RunResult r =
        Basalt("simulate " + Example("tidal-day.yaml") + " --out /tmp/never --seed " + seed);
    EXPECT_EQ(r.exit_code, 2) << seed << ": " << r.out;
    EXPECT_NE(r.out.find("--seed: want a whole number from 0 to 18446744073709551615"),
              std::string::npos)
        << r.out;
  }
}

// A misspelt command is named, with the nearest command, at any depth.
TEST(CliTest, UnknownCommandSuggestsTheNearest) {
  struct Case {
    const char* args;
    const char* said;
  };
  for (const Case& c : {
           Case{"schedul",
                "unknown command \"schedul\" for \"basalt\"; did you mean \"schedule\"?"},
           Case{"-v simulat x.yaml", "did you mean \"simulate\"?"},
           Case{"--log-level info valdate", "did you mean \"validate\"?"},
           Case{"queue lst",
                "unknown command \"lst\" for \"basalt queue\"; did you mean \"list\"?"},
           Case{"frobnicate", "unknown command \"frobnicate\" for \"basalt\" (basalt --help"},
       }) {
    RunResult r = Basalt(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.out;
    EXPECT_NE(r.out.find(c.said), std::string::npos) << c.args << ": " << r.out;
  }
}

// The first example of `explain --help` runs as shown (from the repository
// root) and explains the job it names.
TEST(CliTest, ExplainHelpExampleRuns) {
  RunResult help = Basalt("explain --help");
  const std::string example =
      "basalt explain job/llm-finetune --conf examples/gang-training/scheduler.conf \\\n"
      "      --cluster examples/gang-training/cluster";
  ASSERT_NE(help.out.find(example), std::string::npos) << help.out;
  const std::string root = BASALT_SOURCE_DIR;
  RunResult r = Basalt("explain job/llm-finetune --conf " + root +
                       "/examples/gang-training/scheduler.conf --cluster " + root +
                       "/examples/gang-training/cluster");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("Job default/llm-finetune: Bound"), std::string::npos) << r.out;
}

TEST(CliTest, VersionCommandAndFlagAgree) {
  RunResult command = Basalt("version"), flag = Basalt("--version");
  EXPECT_EQ(command.exit_code, 0);
  EXPECT_EQ(flag.exit_code, 0);
  EXPECT_EQ(command.out, flag.out);
  EXPECT_EQ(command.out.rfind("basalt ", 0), 0u) << command.out;
}

// Paths that are not what the flag wants are named with the reason, before
// any work is done, and never block.
TEST(CliTest, WrongKindsOfPathExitTwoWithTheReason) {
  TempDir dir;
  std::string cluster = dir.Write("c.yaml",
                                  "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
                                  "status: {allocatable: {cpu: '1', pods: '10'}}\n");
  fs::create_directories(dir.path() + "/empty");
  std::string fifo = dir.path() + "/pipe.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  struct Case {
    std::string args, said;
  };
  for (const Case& c : {
           Case{"schedule --cluster " + cluster + " --conf " + dir.path(),
                dir.path() + ": cannot read scheduler configuration: is a folder, not a file"},
           Case{"validate " + dir.path() + "/empty", "/empty: no objects found"},
           Case{"validate " + fifo, "pipe.yaml: no objects found"},  // no writer: never waits
           Case{"simulate " + Example("tidal-day.yaml") + " --out " + cluster,
                "c.yaml: --out: cannot write the outputs there: Not a directory"},
       }) {
    RunResult r = Basalt(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.out;
    EXPECT_NE(r.out.find(c.said), std::string::npos) << c.args << ": " << r.out;
  }
}

// -o table / wide: the same decisions as the JSON, a row each; JSON stays the default.
TEST(CliTest, ScheduleTableShowsTheJsonDecisions) {
  const std::string base = "schedule --conf " + Example("gang-training/scheduler.conf") +
                           " --cluster " + Example("gang-training/cluster") + " --cycles 2";
  RunResult json = Basalt(base), table = Basalt(base + " -o table"),
            bare = Basalt(base + " -o table --no-headers"), wide = Basalt(base + " -o wide");
  ASSERT_EQ(json.exit_code, 0) << json.out;
  ASSERT_EQ(table.exit_code, 0) << table.out;
  nlohmann::json decisions = nlohmann::json::parse(json.out.substr(json.out.find('{')));
  EXPECT_EQ(table.out.rfind("CYCLE", 0), 0u) << table.out;
  EXPECT_EQ(bare.out.find("CYCLE"), std::string::npos) << bare.out;
  for (const auto& cycle : decisions["cycles"]) {
    for (const auto& b : cycle["binds"]) {
      std::string pod = b["pod"], node = b["node"];
      EXPECT_NE(table.out.find(pod + " "), std::string::npos) << pod;
      EXPECT_NE(table.out.find(node + "   Bound"), std::string::npos) << node;
    }
  }
  EXPECT_NE(wide.out.find("FINAL POD"), std::string::npos) << wide.out;
  EXPECT_EQ(Basalt(base + " -o yaml").exit_code, 2);
}

// Written cycle by cycle (a long run is not held in memory), the document is
// the same bytes as printed whole.
TEST(CliTest, CycleByCycleJsonIsTheSameBytes) {
  ScheduleRequest req;
  req.cluster_paths = {Example("gang-training/cluster")};
  req.cycles = 4;
  auto whole = RunSchedule(req);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  std::ostringstream streamed;
  ScheduleJsonWriter writer(streamed);
  req.on_cycle = [&writer](const nlohmann::ordered_json& c) { writer.Cycle(c); };
  auto rest = RunSchedule(req);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  EXPECT_TRUE((*rest)["cycles"].empty());
  writer.Finish(*rest);
  EXPECT_EQ(streamed.str(), whole->dump(2) + "\n");
}

// Malformed YAML exits 2 with the line and column.
TEST(CliTest, MalformedYamlExitsTwo) {
  TempDir dir;
  std::string file = dir.Write("broken.yaml", "kind: Node\nmetadata: {name: [\n");
  RunResult r = Basalt("schedule --cluster " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(file + ":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("malformed YAML"), std::string::npos) << r.out;
}

// An unknown action in the configuration exits 2 and lists the known ones.
TEST(CliTest, UnknownActionExitsTwo) {
  TempDir dir;
  std::string conf =
      dir.Write("s.conf", "actions: \"enqueue, alocate\"\ntiers:\n- plugins:\n  - name: gang\n");
  RunResult r =
      Basalt("schedule --conf " + conf + " --cluster " + Example("gang-training/cluster"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(conf + ":1: actions: unknown action \"alocate\" (known:"), std::string::npos)
      << r.out;
}

// A typo in a plugin argument key, and an empty action list, are warned about
// with the file and line; the run goes on (Volcano accepts both) and the
// decisions are those of the configuration without the typo.
TEST(CliTest, ArgumentTyposAndEmptyActionsWarn) {
  TempDir dir;
  std::string typo = dir.Write("typo.conf",
                               "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n"
                               "  - name: gang\n  - name: binpack\n    arguments:\n"
                               "      binpack.wieght: 3\n");
  std::string plain = dir.Write("plain.conf",
                                "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n"
                                "  - name: gang\n  - name: binpack\n");
  const std::string cluster = " --cluster " + Example("gang-training/cluster");
  RunResult r = Basalt("schedule --conf " + typo + cluster);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find(typo + ":7: plugin binpack: arguments.binpack.wieght: unknown argument, "
                              "ignored (it reads binpack.cpu, binpack.memory, binpack.resources, "
                              "binpack.weight)"),
            std::string::npos)
      << r.out;
  RunResult without = Basalt("schedule --conf " + plain + cluster);
  EXPECT_EQ(without.out.find("warning"), std::string::npos) << without.out;
  EXPECT_EQ(r.out.substr(r.out.find('{')), without.out);
  r = Basalt("validate --conf " + typo);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("binpack.wieght: unknown argument"), std::string::npos) << r.out;

  std::string none = dir.Write("none.conf", "actions: \"\"\ntiers: []\n");
  r = Basalt("schedule --conf " + none + cluster);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find(none + ":1: actions: no action listed; no pod will be scheduled"),
            std::string::npos)
      << r.out;
}

// A missing path exits 2 naming it.
TEST(CliTest, MissingClusterPathExitsTwo) {
  RunResult r = Basalt("schedule --cluster /nonexistent/cluster");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("/nonexistent/cluster: no such file or folder"), std::string::npos) << r.out;
}

// A bad command line (no --cluster, bad --cycles) exits 2.
TEST(CliTest, BadArgumentsExitTwo) {
  EXPECT_EQ(Basalt("schedule").exit_code, 2);
  EXPECT_EQ(
      Basalt("schedule --cluster " + Example("gang-training/cluster") + " --cycles 0").exit_code,
      2);
  EXPECT_EQ(Basalt("frobnicate").exit_code, 2);
}

// An empty configuration file is refused rather than read as "do nothing"
// (Volcano's loader would run zero actions).
TEST(CliTest, EmptyConfigurationExitsTwo) {
  TempDir dir;
  std::string conf = dir.Write("empty.conf", "\n");
  RunResult r =
      Basalt("schedule --conf " + conf + " --cluster " + Example("gang-training/cluster"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("empty scheduler configuration"), std::string::npos) << r.out;
}

// --scores adds a scores list per cycle.
TEST(CliTest, ScoresFlag) {
  RunResult r = Basalt("schedule --scores --conf " + Example("gang-training/scheduler.conf") +
                       " --cluster " + Example("gang-training/cluster"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"scores\""), std::string::npos);
}

// --check-invariants checks every action and changes nothing in the output.
TEST(CliTest, CheckInvariantsKeepsTheOutput) {
  const std::vector<std::string> runs = {
      "--conf " + Example("gang-training/scheduler.conf") + " --cluster " +
          Example("gang-training/cluster") + " --cycles 3",
      "--conf " + Example("reclaim-4-steps/proportion.conf") + " --cluster " +
          Example("reclaim-4-steps/common") + " --cluster " +
          Example("reclaim-4-steps/queues-proportion.yaml") + " --cycles 5",
  };
  for (const std::string& args : runs) {
    RunResult plain = Basalt("schedule " + args);
    RunResult checked = Basalt("schedule --check-invariants " + args);
    ASSERT_EQ(plain.exit_code, 0) << plain.out;
    EXPECT_EQ(checked.exit_code, 0) << checked.out;
    EXPECT_EQ(checked.out, plain.out) << args;
  }
  RunResult help = Basalt("schedule --help");
  EXPECT_NE(help.out.find("--check-invariants"), std::string::npos) << help.out;
}

// A deliberately wrong action: places every pending task of a job on the first
// node, whether it fits or not (no predicate, no statement).
class OvercommitAction : public Action {
 public:
  std::string_view Name() const override { return "overcommit"; }
  void Execute(Session& ssn) override {
    for (TaskInfo& t : ssn.tasks()) {
      if (t.status == TaskStatus::kPending && t.job != kNone)
        Statement::CommitAtOnce(ssn).Allocate(t, ssn.node(0));
    }
  }
};

ScheduleRequest OvercommitRequest() {
  ScheduleRequest req;
  req.conf_text =
      "actions: \"enqueue, overcommit\"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n";
  req.cluster_text = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec:
  schedulerName: volcano
  containers: [{name: c, resources: {requests: {cpu: "2"}}}]
status: {phase: Pending}
)";
  req.cycles = 2;
  req.register_extra = [](PluginRegistry&, ActionRegistry& actions) {
    (void)actions.Register("overcommit", [] { return std::make_unique<OvercommitAction>(); });
  };
  return req;
}

// With --check-invariants, a violation ends the run with exit code 3 and a
// message naming the cycle, the action and the node; without, the (wrong)
// decisions are printed.
TEST(CliTest, InvariantViolationExitsThree) {
  ScheduleRequest req = OvercommitRequest();
  auto unchecked = RunSchedule(req);
  ASSERT_TRUE(unchecked.ok()) << unchecked.status().ToString();
  EXPECT_EQ(ScheduleExitCode(unchecked.status()), 0);

  req.check_invariants = true;
  auto checked = RunSchedule(req);
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(ScheduleExitCode(checked.status()), kScheduleExitInvariantViolated);
  EXPECT_EQ(kScheduleExitInvariantViolated, 3);
  const std::string& msg = checked.status().message();
  EXPECT_EQ(msg.rfind("invariant violated: cycle 1, after action overcommit: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("n1"), std::string::npos) << msg;

  // Bad input stays exit code 2.
  EXPECT_EQ(ScheduleExitCode(Status::InvalidArgument("x")), kScheduleExitBadInput);
}

// Regression: the first random-cycle run stopped with a segfault on a world
// reduced to one Pod with tolerations (traced to a stale incremental build, not
// the code). The input itself stays under test: it loads and schedules with
// every invariant checked.
TEST(CliTest, SinglePodWithTolerationsSchedules) {
  ScheduleRequest req;
  req.cluster_text = R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  schedulerName: volcano
  tolerations:
  - {key: gpu, operator: Exists, effect: NoSchedule}
  - {key: zone, operator: Equal, value: a}
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
)";
  req.cycles = 3;
  req.check_invariants = true;
  auto out = RunSchedule(req);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["final"]["pods"].size(), 1u) << out->dump();
}

}  // namespace
}  // namespace basalt
