// The input edges of the commands, through the binary: one loader for
// `validate`, `schedule` and `explain` (cli/cluster_input.h: the same input
// is refused by each with the same message), the size limit and binary
// refusal of every file read (api/file_text.h), and "did you mean" for a
// misspelt flag.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scratch_dir.h"
#include "testing.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;

using ::basalt::testing::Basalt;
using ::basalt::testing::RunResult;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

using Scratch = ::basalt::testing::ScratchDir;

constexpr char kNode[] = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110", nvidia.com/gpu: "2"}}
)";

// The "basalt: ..." lines of `out`, warnings left out.
std::vector<std::string> ErrorLines(const std::string& out) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    if (line.rfind("basalt: ", 0) == 0 && line.rfind("basalt: warning", 0) != 0)
      lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// Every input that loads no cluster is refused by the three commands alike:
// exit 2 and the same first line (schedule used to exit 0 with nothing).
TEST(CliInputTest, ValidateScheduleAndExplainRefuseTheSameInputs) {
  Scratch s;
  const std::string txt_only = s.Dir("txt-only");
  s.Write("txt-only/nodes.txt", kNode);
  const std::vector<std::string> inputs = {
      s.Dir("empty"),
      s.Write("blank.yaml", "  \n\n\t\n"),
      txt_only,
      s.Dir("folder.yaml"),
      "/dev/null",
      s.Write("jobflow.yaml",
              std::string(kNode) +
                  "---\napiVersion: flow.volcano.sh/v1alpha1\nkind: JobFlow\n"
                  "metadata: {name: f, namespace: default}\nspec: {flows: [{name: missing}]}\n"),
      s.Write("dup.yaml", std::string(kNode) + "---\n" + kNode),
  };
  for (const std::string& input : inputs) {
    RunResult v = Basalt("validate " + input);
    RunResult sc = Basalt("schedule --cluster " + input);
    RunResult e = Basalt("explain pod/x --cluster " + input);
    EXPECT_EQ(v.exit_code, 2) << input << "\n" << v.out;
    EXPECT_EQ(sc.exit_code, 2) << input << "\n" << sc.out;
    EXPECT_EQ(e.exit_code, 2) << input << "\n" << e.out;
    const std::vector<std::string> lines = ErrorLines(v.out);
    ASSERT_FALSE(lines.empty()) << input << "\n" << v.out;
    EXPECT_EQ(lines, ErrorLines(sc.out)) << input;
    EXPECT_EQ(lines, ErrorLines(e.out)) << input;
  }
}

// A JobFlow naming a JobTemplate not in the input: validate says what
// schedule says (validate used to accept it).
TEST(CliInputTest, ValidateRefusesAJobFlowWithoutItsTemplate) {
  Scratch s;
  const std::string file =
      s.Write("c.yaml", std::string(kNode) +
                            "---\napiVersion: flow.volcano.sh/v1alpha1\nkind: JobFlow\n"
                            "metadata: {name: f, namespace: default}\n"
                            "spec: {flows: [{name: missing}]}\n");
  RunResult v = Basalt("validate " + file);
  EXPECT_EQ(v.exit_code, 2) << v.out;
  EXPECT_TRUE(Has(v.out, "JobFlow default/f: spec.flows[0].name: no JobTemplate default/missing"))
      << v.out;
}

// Every file that fails to decode is named, not only the first.
TEST(CliInputTest, EveryBrokenFileIsReported) {
  Scratch s;
  const std::string dir = s.Dir("c");
  s.Write("c/a.yaml", "kind: [\n");
  s.Write("c/b.yaml", std::string(kNode));
  s.Write("c/c.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: 3}\n");
  for (const std::string& cmd : {"validate " + dir, "schedule --cluster " + dir}) {
    RunResult r = Basalt(cmd);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_TRUE(Has(r.out, "/c/a.yaml")) << cmd << "\n" << r.out;
    EXPECT_TRUE(Has(r.out, "/c/c.yaml")) << cmd << "\n" << r.out;
  }
}

// /dev/zero never ends and holds only NUL bytes: refused at once, as a
// manifest and as a scheduler configuration, by validate and schedule alike.
TEST(CliInputTest, EndlessBinaryInputIsRefusedAtOnce) {
  const std::string nul = "holds a NUL byte at offset 0: not a text file";
  for (const std::string& cmd :
       {std::string("validate /dev/zero"), std::string("validate --conf /dev/zero"),
        std::string("schedule --cluster /dev/zero"),
        "schedule --conf /dev/zero --cluster " + std::string(BASALT_SOURCE_DIR) +
            "/examples/gang-training/cluster"}) {
    RunResult r = Basalt(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out;
    EXPECT_TRUE(Has(r.out, "/dev/zero")) << cmd << "\n" << r.out;
    EXPECT_TRUE(Has(r.out, nul)) << cmd << "\n" << r.out;
  }
}

// A file over --max-file-bytes is refused before it is read, naming the flag;
// raising the limit lets it load.
TEST(CliInputTest, FileSizeLimitNamesItsFlag) {
  Scratch s;
  const std::string file = s.Write("n.yaml", kNode);
  RunResult small = Basalt("--max-file-bytes 16 validate " + file);
  EXPECT_EQ(small.exit_code, 2) << small.out;
  EXPECT_TRUE(Has(small.out, file + ": cannot read file: is " +
                                 std::to_string(fs::file_size(file)) +
                                 " bytes, above the limit of 16 bytes per input file (raise it "
                                 "with --max-file-bytes)"))
      << small.out;
  RunResult after = Basalt("schedule --max-file-bytes 16 --cluster " + file);
  EXPECT_EQ(after.exit_code, 2) << after.out;
  EXPECT_TRUE(Has(after.out, "--max-file-bytes")) << after.out;
  RunResult fine = Basalt("--max-file-bytes 100000 validate " + file);
  EXPECT_EQ(fine.exit_code, 0) << fine.out;
}

// A problem line quoting a name with terminal escapes prints them escaped.
TEST(CliInputTest, ProblemLinesEscapeControlBytes) {
  Scratch s;
  const std::string file = s.Write("q.yaml",
                                   "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\n"
                                   "metadata: {name: \"q\\e[31m\"}\nspec: {weight: 1}\n");
  RunResult r = Basalt("validate " + file);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_FALSE(Has(r.out, "\x1b")) << r.out;
  EXPECT_TRUE(Has(r.out, "q\\x1b[31m")) << r.out;
}

// A resource no node offers warns with the closest name the nodes offer.
TEST(CliInputTest, UnknownResourceNameWarnsWithDidYouMean) {
  Scratch s;
  const std::string file = s.Write(
      "c.yaml", std::string(kNode) +
                    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
                    "spec:\n  schedulerName: volcano\n  containers: [{name: c, resources: "
                    "{requests: {nvidia.com/gpus: \"1\"}, limits: {nvidia.com/gpus: \"1\"}}}]\n");
  const std::string warning =
      "requests nvidia.com/gpus, which no node offers; did you mean nvidia.com/gpu?";
  for (const std::string& cmd :
       {"validate " + file, "schedule --cluster " + file, "explain pod/p --cluster " + file}) {
    RunResult r = Basalt(cmd);
    EXPECT_TRUE(Has(r.out, "basalt: warning: " + file + ":6: Pod default/p: " + warning))
        << cmd << "\n"
        << r.out;
  }
}

// A misspelt flag is named with the closest flag of its command.
TEST(CliInputTest, UnknownFlagSuggestsTheClosest) {
  struct Case {
    std::string args, said;
  };
  for (const Case& c : {
           Case{"schedule --cycle 2 --cluster x",
                "unknown flag \"--cycle\" for \"basalt schedule\"; did you mean \"--cycles\"?"},
           Case{"validate --conff a.conf",
                "unknown flag \"--conff\" for \"basalt validate\"; did you mean \"--conf\"?"},
           Case{"explain --outptu=json pod/x",
                "unknown flag \"--outptu\" for \"basalt explain\"; did you mean \"--output\"?"},
           Case{"queue list --frobnicate",
                "unknown flag \"--frobnicate\" for \"basalt queue list\" (basalt queue list "
                "--help lists the flags)"},
       }) {
    RunResult r = Basalt(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.out;
    EXPECT_TRUE(Has(r.out, c.said)) << c.args << ": " << r.out;
  }
  // Flags of the command and of basalt itself are known.
  RunResult ok = Basalt("schedule --log-level warn --no-headers --cluster /nonexistent");
  EXPECT_FALSE(Has(ok.out, "unknown flag")) << ok.out;
}

}  // namespace
}  // namespace basalt
