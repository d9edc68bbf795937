#include "cli/webhook.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "api/log.h"
#include "kube/kubeconfig.h"
#include "live/webhook_lookup.h"

namespace basalt {
namespace {

constexpr int kExitBadInput = 2;

std::atomic<bool> g_stop{false};
extern "C" void OnStopSignal(int) { g_stop = true; }

// As `basalt serve`: --kubeconfig, else the first file of $KUBECONFIG, else in-cluster.
Result<kube::KubeConfig> LoadConfig(const WebhookRequest& request) {
  std::string path = request.kubeconfig;
  if (path.empty()) {
    if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != 0)
      path = std::string(env).substr(0, std::string(env).find(':'));
  }
  if (path.empty()) {
    auto config = kube::InClusterConfig();
    if (!config.ok()) {
      return Status::InvalidArgument(config.status().message() +
                                     " (no --kubeconfig given and not running in a cluster)");
    }
    return config;
  }
  return kube::LoadKubeconfig(path, request.context);
}

std::unique_ptr<kube::Client> MakeClient(const WebhookRequest& request,
                                         const kube::KubeConfig& config) {
  kube::ClientOptions opt;
  opt.server = config.server;
  opt.bearer_token = config.token;
  opt.user_agent = "basalt-webhook/0.1.0";
  opt.qps = request.qps;
  opt.burst = request.burst;
  // An admission reply is awaited by the API server (10 s by default): fail
  // fast rather than retry past that.
  opt.max_attempts = 2;
  opt.request_timeout = std::chrono::milliseconds(5000);
  kube::CurlOptions curl;
  curl.tls = config.tls;
  return std::make_unique<kube::Client>(opt, std::make_unique<kube::CurlTransport>(curl));
}

// Seconds on the command line, milliseconds in the options.
void AddSecondsFlag(CLI::App* command, const std::string& name, std::chrono::milliseconds* value,
                    const std::string& help) {
  command
      ->add_option_function<double>(
          name,
          [value](double seconds) {
            *value = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
          },
          help)
      ->check(CLI::Range(0.1, 3600.0))
      ->default_str(std::to_string(value->count() / 1000));
}

// The limits of docs/limits.md ("Admission webhooks").
void AddWebhookLimitFlags(CLI::App* command, HttpsLimits* limits) {
  AddSecondsFlag(command, "--webhook-request-timeout", &limits->request_timeout,
                 "Seconds a request may take to arrive whole (TLS handshake, headers, body)");
  AddSecondsFlag(command, "--webhook-idle-timeout", &limits->idle_timeout,
                 "Seconds a kept-alive connection may wait for its next request");
  command
      ->add_option("--webhook-max-connections", limits->max_connections,
                   "Connections open at once, from all clients")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  command
      ->add_option("--webhook-max-client-connections", limits->max_connections_per_client,
                   "Connections open at once from one client address")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  command
      ->add_option("--webhook-max-body-bytes", limits->max_body_bytes,
                   "Largest request body, whatever its transfer encoding (413 above)")
      ->check(CLI::Range(size_t{1} << 10, size_t{1} << 30))
      ->capture_default_str();
  command
      ->add_option("--webhook-max-large-requests", limits->max_large_requests,
                   "Requests with a body over 256 KiB (or chunked) read and reviewed at once")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
}

}  // namespace

void AddWebhookFlags(CLI::App* command, WebhookOptions* options) {
  command
      ->add_option("--webhook-port", options->port,
                   "HTTPS port of the admission webhooks (serve: 0 = no webhooks)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  command->add_option("--webhook-cert", options->cert_file,
                      "PEM serving certificate (tls.crt), reloaded when it changes");
  command->add_option("--webhook-key", options->key_file, "PEM private key (tls.key)");
  command
      ->add_option("--webhook-bind-address,--webhook-bind", options->bind,
                   "IP address the webhooks listen on (in a Pod: its IP, from the downward API)")
      ->capture_default_str();
  AddWebhookLimitFlags(command, &options->limits);
  command->add_option("--admission-config", options->admission_config_file,
                      "Volcano's admission configuration (resourceGroups for /pods/mutate)");
}

CLI::App* AddWebhookCommand(CLI::App& app, WebhookRequest* request) {
  request->webhook.port = 8443;
  CLI::App* cmd = app.add_subcommand(
      "webhook", "Serve only the admission webhooks (Jobs, Queues, PodGroups, Pods) over HTTPS");
  cmd->add_option("--kubeconfig", request->kubeconfig,
                  "kubeconfig file (default: $KUBECONFIG, else the in-cluster service account)");
  cmd->add_option("--context", request->context, "kubeconfig context (default: current-context)");
  cmd->add_option("--scheduler-name", request->webhook.admission.scheduler_name,
                  "Check pods with this spec.schedulerName; default of a Job's")
      ->capture_default_str();
  cmd->add_option("--qps", request->qps, "Client-side request rate limit")->capture_default_str();
  cmd->add_option("--burst", request->burst, "Client-side request burst")->capture_default_str();
  AddWebhookFlags(cmd, &request->webhook);
  cmd->footer(
      "Exit code 2 on a bad kubeconfig, flag or certificate; 0 after SIGTERM.\n\n"
      "Example:\n  basalt webhook --webhook-port 8443 --webhook-cert tls.crt --webhook-key "
      "tls.key");
  return cmd;
}

int RunWebhook(const WebhookRequest& request) {
  auto config = LoadConfig(request);
  if (!config.ok()) {
    CliLog().error("{}", config.status().message());
    return kExitBadInput;
  }
  if (request.webhook.port <= 0) {
    CliLog().error("--webhook-port: must be a port number (1-65535)");
    return kExitBadInput;
  }
  LiveWebhook webhook(request.webhook, MakeClient(request, *config), nullptr);
  Status s = webhook.Start();
  if (!s.ok()) {
    CliLog().error("{}", s.message());
    return kExitBadInput;
  }
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  webhook.Stop();
  return 0;
}

}  // namespace basalt
