#include "cli/serve.h"

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "api/file_text.h"
#include "live/serve_app.h"

namespace basalt {
namespace {

constexpr int kExitBadInput = 2;

// The serve process's log line, as src/live/serve_app.cc writes it.
void Log(const std::string& line) { std::cerr << "basalt serve: " << line << "\n"; }

std::atomic<bool> g_signalled{false};
extern "C" void OnSignal(int) { g_signalled = true; }

Result<std::string> ReadFile(const std::string& path, const char* what) {
  std::optional<std::string> text = ReadFileText(path);
  if (!text) return Status::InvalidArgument(path + ": cannot read " + what);
  return std::move(*text);
}

}  // namespace

int RunServe(const ServeRequest& request) {
  ServeAppOptions opt;
  opt.request = request;
  std::string kubeconfig = request.kubeconfig;
  if (kubeconfig.empty()) {
    if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != 0) {
      kubeconfig = env;
      auto colon = kubeconfig.find(':');
      if (colon != std::string::npos) kubeconfig = kubeconfig.substr(0, colon);  // the first file
    }
  }
  auto config = kubeconfig.empty() ? kube::InClusterConfig()
                                   : kube::LoadKubeconfig(kubeconfig, request.context);
  if (!config.ok()) {
    std::cerr << "basalt: " << config.status().message() << "\n";
    if (kubeconfig.empty())
      std::cerr << "basalt: (no --kubeconfig given and not running in a cluster)\n";
    return kExitBadInput;
  }
  opt.kubeconfig = std::move(config).value();
  if (!request.conf_path.empty()) {
    auto text = ReadFile(request.conf_path, "scheduler configuration");
    if (!text.ok()) {
      std::cerr << "basalt: " << text.status().message() << "\n";
      return kExitBadInput;
    }
    if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
      std::cerr << "basalt: " << request.conf_path << ": empty scheduler configuration\n";
      return kExitBadInput;
    }
    opt.conf_text = *text;
  }
  ServeApp app(std::move(opt));
  Status s = app.Start();
  if (!s.ok()) {
    std::cerr << "basalt: " << s.message() << "\n";
    return kExitBadInput;
  }
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  while (!g_signalled.load()) {
    auto wait = app.Tick();
    auto until = std::chrono::steady_clock::now() + wait;
    while (!g_signalled.load() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          until - std::chrono::steady_clock::now(), std::chrono::milliseconds(50)));
    }
  }
  Log("signal received: stopping (lease released)");
  app.Stop();
  return 0;
}

}  // namespace basalt
