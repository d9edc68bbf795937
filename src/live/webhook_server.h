// The HTTPS server of the admission webhooks (docs/webhooks.md): cpp-httplib's
// SSLServer, one POST route per endpoint of live/admission_review.h, plus
// GET /healthz.
//
// TLS comes from two PEM files, cert-manager style (`tls.crt`, possibly with
// intermediates after the leaf, and `tls.key`). They are re-read when their
// modification time or size changes — checked at most once per
// `cert_check_interval`, at the start of a TLS handshake — so a renewed
// certificate is served to the next connection without a restart. A renewal
// caught half-written (a key that does not match the certificate, a file that
// does not parse) keeps the previous pair and is retried at the next check.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "api/status.h"
#include "live/admission_review.h"

namespace basalt {

struct WebhookOptions {
  int port = 0;  // `serve`: 0 = no webhooks. A server started with port <= 0 takes any free port
  std::string bind = "0.0.0.0";
  std::string cert_file;  // PEM: the serving certificate, then any intermediates
  std::string key_file;   // PEM private key
  std::chrono::milliseconds cert_check_interval{1000};
  // Volcano's admission configuration (resource groups for /pods/mutate),
  // read once at Start; empty: none.
  std::string admission_config_file;
  AdmissionOptions admission;
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

 private:
  struct Impl;
  WebhookOptions options_;
  AdmissionLookup* lookup_;
  std::unique_ptr<CertStore> certs_;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace basalt
