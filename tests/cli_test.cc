// The `basalt` binary as a user runs it: exit codes, stderr messages, and
// byte-identical stdout across runs.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "testing.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;

using ::basalt::testing::Basalt;
using ::basalt::testing::RunResult;

std::string Example(const std::string& rel) { return std::string(BASALT_SOURCE_DIR) + "/examples/" + rel; }

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("basalt-cli-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(path_ / name) << text;
    return (path_ / name).string();
  }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

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

// A malformed manifest exits 2 naming the file, the object and the field.
TEST(CliTest, BadManifestExitsTwo) {
  TempDir dir;
  std::string file = dir.Write("bad.yaml",
                               "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
                               "status: {allocatable: {cpu: lots, pods: \"10\"}}\n");
  RunResult r = Basalt("schedule --cluster " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(file + ":1: Node n1: status.allocatable.cpu: invalid quantity \"lots\""), std::string::npos)
      << r.out;
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
  std::string conf = dir.Write("s.conf", "actions: \"enqueue, alocate\"\ntiers:\n- plugins:\n  - name: gang\n");
  RunResult r = Basalt("schedule --conf " + conf + " --cluster " + Example("gang-training/cluster"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(conf + ":1: actions: unknown action \"alocate\" (known:"), std::string::npos) << r.out;
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
  EXPECT_EQ(Basalt("schedule --cluster " + Example("gang-training/cluster") + " --cycles 0").exit_code, 2);
  EXPECT_EQ(Basalt("frobnicate").exit_code, 2);
}

// An empty configuration file is refused rather than read as "do nothing"
// (Volcano's loader would run zero actions).
TEST(CliTest, EmptyConfigurationExitsTwo) {
  TempDir dir;
  std::string conf = dir.Write("empty.conf", "\n");
  RunResult r = Basalt("schedule --conf " + conf + " --cluster " + Example("gang-training/cluster"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("empty scheduler configuration"), std::string::npos) << r.out;
}

// --scores adds a scores list per cycle.
TEST(CliTest, ScoresFlag) {
  RunResult r = Basalt("schedule --scores --conf " + Example("gang-training/scheduler.conf") + " --cluster " +
                 Example("gang-training/cluster"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"scores\""), std::string::npos);
}

}  // namespace
}  // namespace basalt
