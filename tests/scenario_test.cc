// The data-driven scenario suite: every tests/scenarios/**/*.yaml file is one
// test. A scenario holds a scheduler configuration, manifests and the expected
// subset of `basalt schedule` output (see tests/scenarios/README.md).
//
// Each scenario is also checked for determinism: a second run gives the same
// bytes, and a run with fewer cycles is a prefix of the full run.
#include <stdlib.h>
#include <time.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/yaml_json.h"
#include "cli/schedule.h"
#include "framework/config.h"
#include "testing.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::vector<std::string> ScenarioFiles() {
  std::vector<std::string> files;
  fs::path root = fs::path(BASALT_SOURCE_DIR) / "tests" / "scenarios";
  if (!fs::exists(root)) return files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml")
      files.push_back(fs::relative(e.path(), root).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool Equal(const Json& want, const Json& got) {
  if (want.is_number() && got.is_number()) {
    return std::fabs(want.get<double>() - got.get<double>()) <=
           1e-6 * std::max(1.0, std::fabs(want.get<double>()));
  }
  if (want.type() != got.type()) return false;
  if (want.is_array()) {
    if (want.size() != got.size()) return false;
    for (size_t i = 0; i < want.size(); ++i) {
      if (!Equal(want[i], got[i])) return false;
    }
    return true;
  }
  if (want.is_object()) {
    if (want.size() != got.size()) return false;
    for (auto it = want.begin(); it != want.end(); ++it) {
      if (!got.contains(it.key()) || !Equal(it.value(), got[it.key()])) return false;
    }
    return true;
  }
  return want == got;
}

class ScenarioTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ScenarioTest, Matches) {
  // Plugins that read the time of day (tdm's revocable-zone windows) read it
  // in the local time zone, as Volcano does; scenarios are written in UTC.
  setenv("TZ", "UTC", 1);
  tzset();
  const std::string path =
      (fs::path(BASALT_SOURCE_DIR) / "tests" / "scenarios" / GetParam()).string();
  YAML::Node doc;
  ASSERT_NO_THROW(doc = YAML::LoadFile(path)) << path;
  for (const char* key : {"name", "description", "cluster"}) {
    ASSERT_TRUE(doc[key] && doc[key].IsScalar()) << path << ": needs a `" << key << "`";
  }
  ASSERT_TRUE(doc["expect"] || doc["expect_error"]) << path << ": needs `expect` or `expect_error`";
  ScheduleRequest req;
  if (doc["conf"]) {
    req.conf_text = doc["conf"].Scalar();
    req.conf_source = GetParam() + ":conf";
  }
  req.cluster_text = doc["cluster"].Scalar();
  req.cluster_source = GetParam() + ":cluster";
  req.cycles = doc["cycles"] ? doc["cycles"].as<int>() : 1;
  req.scores = doc["scores"] && doc["scores"].as<bool>();
  if (doc["check_invariants"]) req.check_invariants = doc["check_invariants"].as<bool>();
  if (doc["now"]) req.now = doc["now"].Scalar();
  // `basalt schedule` reads configurations leniently unless --strict.
  const bool strict = doc["strict"] && doc["strict"].as<bool>();
  SetLenientSchedulerConfig(!strict);
  // --allow-missing-plugins: names the configuration may give that basalt lacks.
  std::vector<std::string> allowed_missing;
  if (doc["allow_missing_plugins"]) {
    for (const auto& n : doc["allow_missing_plugins"]) allowed_missing.push_back(n.Scalar());
  }
  SetAllowedMissingPlugins(allowed_missing);
  struct RestoreStrict {
    ~RestoreStrict() {
      SetLenientSchedulerConfig(false);
      SetAllowedMissingPlugins({});
    }
  } restore;
  // Every scenario also checks that each cycle's patched snapshot equals a full build.
  req.verify_snapshot_cache = true;

  auto out = RunSchedule(req);
  if (doc["expect_error"]) {
    ASSERT_FALSE(out.ok()) << "expected an error containing: " << doc["expect_error"].Scalar();
    EXPECT_NE(out.status().message().find(doc["expect_error"].Scalar()), std::string::npos)
        << "message: " << out.status().message();
    return;
  }
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Json& got = *out;
  // Scalars read as the manifests' YAML does (api/yaml_json.h): quoted ones stay strings.
  auto expect_yaml = YamlToJson(doc["expect"], GetParam() + ":expect");
  ASSERT_TRUE(expect_yaml.ok()) << expect_yaml.status().message();
  const Json expect(*expect_yaml);
  ASSERT_TRUE(expect.is_object()) << "`expect` must be a mapping";
  for (auto it = expect.begin(); it != expect.end(); ++it) {
    if (it.key() == "cycles") {
      for (const Json& want : it.value()) {
        ASSERT_TRUE(want.contains("cycle")) << "every expected cycle needs `cycle: N`";
        int n = want["cycle"].get<int>();
        ASSERT_GE(n, 1);
        ASSERT_LE(n, static_cast<int>(got["cycles"].size()))
            << "scenario runs fewer cycles than expected";
        const Json& cycle = got["cycles"][n - 1];
        for (auto f = want.begin(); f != want.end(); ++f) {
          ASSERT_TRUE(cycle.contains(f.key())) << "cycle " << n << " has no `" << f.key() << "`";
          EXPECT_TRUE(Equal(f.value(), cycle[f.key()]))
              << "cycle " << n << " " << f.key() << "\n  want: " << f.value().dump()
              << "\n  got:  " << cycle[f.key()].dump();
        }
      }
    } else if (it.key() == "final") {
      for (auto f = it.value().begin(); f != it.value().end(); ++f) {
        EXPECT_TRUE(Equal(f.value(), got["final"][f.key()]))
            << "final " << f.key() << "\n  want: " << f.value().dump()
            << "\n  got:  " << got["final"][f.key()].dump();
      }
    } else {
      ADD_FAILURE() << "unknown expect key `" << it.key() << "` (want cycles or final)";
    }
  }
  // Determinism: the same input gives the same bytes; fewer cycles give a prefix.
  auto again = RunSchedule(req);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(got.dump(), again->dump()) << "two runs differ";
  if (req.cycles > 1) {
    ScheduleRequest shorter = req;
    shorter.cycles = req.cycles - 1;
    auto prefix = RunSchedule(shorter);
    ASSERT_TRUE(prefix.ok());
    for (int i = 0; i < shorter.cycles; ++i) {
      EXPECT_EQ(got["cycles"][i].dump(), (*prefix)["cycles"][i].dump())
          << "cycle " << i + 1 << " differs between replays";
    }
  }
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - 5);  // drop ".yaml"
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ScenarioTest, ::testing::ValuesIn(ScenarioFiles()), TestName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ScenarioTest);

}  // namespace
}  // namespace basalt
