// The HTTPS server of the admission webhooks (docs/webhooks.md): one POST
// route per endpoint of live/admission_review.h, plus GET /healthz, served by
// live/https_server.h with its limits (docs/limits.md).
//
// TLS comes from two PEM files reloaded when they change (live/cert_store.h).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "api/status.h"
#include "live/admission_review.h"
#include "live/https_server.h"

namespace basalt {

struct WebhookOptions {
  int port = 0;  // `serve`: 0 = no webhooks. A server started with port <= 0 takes any free port
  // Loopback unless told otherwise: a webhook reachable from every network of
  // the host is an endpoint anyone there can load (deploy/ binds the Pod's IP).
  std::string bind = "127.0.0.1";
  std::string cert_file;  // PEM: the serving certificate, then any intermediates
  std::string key_file;   // PEM private key
  std::chrono::milliseconds cert_check_interval{1000};
  // Volcano's admission configuration (resource groups for /pods/mutate),
  // read once at Start; empty: none.
  std::string admission_config_file;
  AdmissionOptions admission;
  HttpsLimits limits;
};

class CertStore;

class WebhookServer {
 public:
  // `lookup` must outlive the server.
  WebhookServer(WebhookOptions options, AdmissionLookup* lookup);
  ~WebhookServer();
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;

  // Loads the certificate and key, binds and starts serving on a thread of its
  // own. Errors (unreadable or mismatched files, address in use) are user errors.
  Status Start();
  // Stops accepting, finishes the requests in progress and joins the thread.
  void Stop();

  int port() const { return port_; }
  // Certificate pairs loaded after the first (tests, logs).
  int64_t cert_reloads() const;
  // What the server refused or cut (tests, the benchmark); Start first.
  const HttpsCounters& counters() const;

 private:
  HttpsReply Handle(const HttpsRequest& request);

  WebhookOptions options_;
  AdmissionLookup* lookup_;
  std::unique_ptr<CertStore> certs_;
  std::unique_ptr<HttpsServer> server_;
  int port_ = 0;
};

}  // namespace basalt
