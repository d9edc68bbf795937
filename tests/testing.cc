#include "testing.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "plugins/builtin.h"

namespace basalt::testing {

SessionFixture::SessionFixture(const std::string& cluster_yaml, const std::string& conf_yaml) {
  RegisterBuiltinPlugins(plugins_);
  RegisterBuiltinActions(actions_);
  ClusterObjects objs;
  Status st = DecodeText(cluster_yaml, "test.yaml", &objs);
  if (!st.ok()) {
    ADD_FAILURE() << st.message();
    std::abort();
  }
  st = state_.AddAll(std::move(objs));
  if (!st.ok()) {
    ADD_FAILURE() << st.message();
    std::abort();
  }
  auto conf = ParseSchedulerConfig(conf_yaml.empty() ? DefaultSchedulerConfigText() : conf_yaml,
                                   "test.conf", plugins_.Names(), actions_.Names());
  if (!conf.ok()) {
    ADD_FAILURE() << conf.status().message();
    std::abort();
  }
  conf_ = std::move(conf).value();
  auto ssn = Session::Open(state_, conf_, plugins_, SessionOptions());
  if (!ssn.ok()) {
    ADD_FAILURE() << ssn.status().message();
    std::abort();
  }
  session_ = std::move(ssn).value();
}

const TaskInfo& SessionFixture::Task(const std::string& key) {
  for (const auto& t : session_->tasks()) {
    if (t.key == key) return t;
  }
  ADD_FAILURE() << "no task " << key;
  std::abort();
}

const JobInfo& SessionFixture::Job(const std::string& key) {
  for (const auto& j : session_->jobs()) {
    if (j.key == key) return j;
  }
  ADD_FAILURE() << "no job " << key;
  std::abort();
}

const NodeInfo& SessionFixture::NodeNamed(const std::string& name) {
  auto id = session_->FindNode(name);
  if (!id) {
    ADD_FAILURE() << "no node " << name;
    std::abort();
  }
  return session_->node(*id);
}

const QueueInfo& SessionFixture::QueueNamed(const std::string& name) {
  auto id = session_->FindQueue(name);
  if (!id) {
    ADD_FAILURE() << "no queue " << name;
    std::abort();
  }
  return session_->queue(*id);
}

void SessionFixture::RunActions(const std::vector<std::string>& actions) {
  for (const auto& name : actions) {
    auto a = actions_.Create(name);
    if (!a.ok()) {
      ADD_FAILURE() << a.status().message();
      return;
    }
    const Arguments* args = conf_.ActionArguments(name);
    if (args) {
      Status st = (*a)->Configure(*args);
      if (!st.ok()) ADD_FAILURE() << st.message();
    }
    session_->Run(**a);
  }
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunResult Basalt(const std::string& args) {
  std::string cmd = std::string(BASALT_BINARY) + " " + args + " 2>&1";
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string VolcanoSource() {
  if (const char* env = std::getenv("BASALT_VOLCANO_SOURCE"); env && *env) return env;
  const std::string cmd = std::string(BASALT_SOURCE_DIR) + "/scripts/volcano-source 2>&1";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    if (::pclose(p) != 0) return "";
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace basalt::testing
