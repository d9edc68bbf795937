// `basalt agent`: the colocation node agent (docs/agent.md).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace basalt {

struct AgentRequest {
  std::string config_path;
  std::string node_name;  // default: $NODE_NAME
  std::string kubeconfig;
  std::string context;
  std::string pods_file;  // standalone: pods from this file, no API server
  std::string listen = "0.0.0.0:9102";
  std::string proc_root = "/proc";
  std::string mountinfo = "/proc/self/mountinfo";
  std::string cgroup_prefix;  // host prefix of the cgroup mount points
  int ticks = 0;              // 0: until SIGTERM
};

// Adds the subcommand and its flags.
CLI::App* AddAgentCommand(CLI::App& app, AgentRequest* request);

// Runs the agent. Exit code 2 on a bad flag, configuration or kubeconfig;
// 0 after SIGTERM / SIGINT or the requested number of periods (cgroup values
// restored either way).
int RunAgent(const AgentRequest& request);

}  // namespace basalt
