// Test helpers: build a ClusterState from YAML text and open a Session on it.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "api/decode.h"
#include "framework/action.h"
#include "framework/config.h"
#include "framework/session.h"
#include "state/cluster_state.h"

namespace basalt::testing {
// The Status of a Status or a Result<T>, for EXPECT_OK / ASSERT_OK.
inline const Status& StatusOf(const Status& s) { return s; }
template <typename T>
const Status& StatusOf(const Result<T>& r) {
  return r.status();
}
}  // namespace basalt::testing

#define EXPECT_OK(expr)                                                \
  do {                                                                 \
    auto&& _s = (expr);                                                \
    EXPECT_TRUE(_s.ok()) << ::basalt::testing::StatusOf(_s).message(); \
  } while (0)
#define ASSERT_OK(expr)                                                \
  do {                                                                 \
    auto&& _s = (expr);                                                \
    ASSERT_TRUE(_s.ok()) << ::basalt::testing::StatusOf(_s).message(); \
  } while (0)

namespace basalt::testing {

// Owns the state, the configuration and the session built on them.
class SessionFixture {
 public:
  // `cluster_yaml`: multi-document manifests. `conf_yaml`: a scheduler configuration
  // (empty = Volcano's default). Aborts the test on any error.
  SessionFixture(const std::string& cluster_yaml, const std::string& conf_yaml = "");

  Session& ssn() { return *session_; }
  ClusterState& state() { return state_; }
  const TaskInfo& Task(const std::string& key);
  const JobInfo& Job(const std::string& key);
  const NodeInfo& NodeNamed(const std::string& name);
  const QueueInfo& QueueNamed(const std::string& name);
  // Runs the named actions in order.
  void RunActions(const std::vector<std::string>& actions);
  Decisions Close() { return session_->Close(); }

 private:
  ClusterState state_;
  SchedulerConfig conf_;
  PluginRegistry plugins_;
  ActionRegistry actions_;
  std::unique_ptr<Session> session_;
};

// The `basalt` binary run as a user runs it (BASALT_BINARY), with stdout and
// stderr together.
struct RunResult {
  int exit_code = -1;
  std::string out;
};
RunResult Basalt(const std::string& args);

// The bytes of the file at `path` ("" when it cannot be read).
std::string ReadAll(const std::string& path);

// The folder of Volcano v1.15.1's source: BASALT_VOLCANO_SOURCE when set, else
// what scripts/volcano-source extracts; "" when neither works (the tests that
// need it fail then: Volcano's files are what they check against).
std::string VolcanoSource();

}  // namespace basalt::testing
