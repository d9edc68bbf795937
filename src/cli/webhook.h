// `basalt webhook` (only the admission webhooks) and the webhook flags that
// `basalt serve` shares with it (docs/webhooks.md).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "live/webhook_server.h"

namespace basalt {

struct WebhookRequest {
  std::string kubeconfig;  // empty: $KUBECONFIG, else in-cluster
  std::string context;
  double qps = 50;
  int burst = 100;
  WebhookOptions webhook;
};

// --webhook-port, --webhook-cert, --webhook-key, --webhook-bind-address and
// the webhook server's limits (docs/limits.md).
void AddWebhookFlags(CLI::App* command, WebhookOptions* options);

// The `webhook` subcommand; its flags fill `*request`.
CLI::App* AddWebhookCommand(CLI::App& app, WebhookRequest* request);

// Serves the webhooks until SIGTERM or SIGINT. Exit code 2 on a bad
// kubeconfig, flag or certificate; 0 after a clean stop.
int RunWebhook(const WebhookRequest& request);

}  // namespace basalt
