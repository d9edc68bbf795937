#include "cli/serve.h"

#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdlib>
#include <thread>

#include "api/file_text.h"
#include "api/log.h"
#include "api/text.h"
#include "live/serve_app.h"

namespace basalt {
namespace {

constexpr int kExitBadInput = 2;

std::atomic<bool> g_signalled{false};
extern "C" void OnSignal(int) { g_signalled = true; }

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
    CliLog().error("{}", config.status().message());
    if (kubeconfig.empty()) CliLog().error("(no --kubeconfig given and not running in a cluster)");
    return kExitBadInput;
  }
  opt.kubeconfig = std::move(config).value();
  if (!request.conf_path.empty()) {
    auto text = ReadFileOrError(request.conf_path, "scheduler configuration");
    if (!text.ok()) {
      CliLog().error("{}", text.status().message());
      return kExitBadInput;
    }
    if (Trim(*text).empty()) {
      CliLog().error("{}: empty scheduler configuration", request.conf_path);
      return kExitBadInput;
    }
    opt.conf_text = *text;
  }
  opt.renew_in_background = true;
  opt.interrupted = &g_signalled;
  ServeApp app(std::move(opt));
  Status s = app.Start();
  if (!s.ok()) {
    CliLog().error("{}", s.message());
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
  Log("serve").info("msg=\"signal received, stopping\"");
  app.Stop();
  return 0;
}

}  // namespace basalt
