#include "live/webhook_server.h"

#include <spdlog/spdlog.h>

#include <csignal>

#include "api/log.h"
#include "live/cert_store.h"

namespace basalt {

WebhookServer::WebhookServer(WebhookOptions options, AdmissionLookup* lookup)
    : options_(std::move(options)), lookup_(lookup) {}

WebhookServer::~WebhookServer() { Stop(); }

int64_t WebhookServer::cert_reloads() const { return certs_ ? certs_->reloads() : 0; }

const HttpsCounters& WebhookServer::counters() const { return server_->counters(); }

HttpsReply WebhookServer::Handle(const HttpsRequest& request) {
  if (request.method == "GET" && request.path == "/healthz")
    return {200, "text/plain; charset=utf-8", "ok\n"};
  for (const auto& [path, endpoint] : WebhookEndpoints()) {
    if (path != request.path) continue;
    if (request.method != "POST") return {405, "text/plain; charset=utf-8", "use POST\n"};
    AdmissionReply reply = ReviewAdmission(endpoint, request.body, *lookup_, options_.admission);
    return {reply.http_status, reply.content_type, std::move(reply.body)};
  }
  return {404, "text/plain; charset=utf-8", "not found\n"};
}

Status WebhookServer::Start() {
  if (options_.cert_file.empty() || options_.key_file.empty())
    return Status::InvalidArgument("--webhook-cert and --webhook-key are required");
  if (!options_.admission_config_file.empty()) {
    BASALT_ASSIGN_OR_RETURN(options_.admission.resource_groups,
                            LoadResourceGroups(options_.admission_config_file));
  }
  certs_ = std::make_unique<CertStore>(options_.cert_file, options_.key_file,
                                       options_.cert_check_interval);
  BASALT_RETURN_IF_ERROR(certs_->Load());
  // A client that hangs up mid-reply must not kill the process (TLS writes
  // can raise SIGPIPE).
  std::signal(SIGPIPE, SIG_IGN);
  server_ = std::make_unique<HttpsServer>(
      "webhook", options_.limits,
      [this](SSL_CTX* ctx) {
        certs_->InstallOn(ctx);
        return Status::Ok();
      },
      [this](const HttpsRequest& request) { return Handle(request); });
  Status s = server_->Start(options_.bind, options_.port);
  if (!s.ok()) {
    server_.reset();
    return Status::InvalidArgument("--webhook-bind-address, --webhook-port: " + s.message());
  }
  port_ = server_->port();
  Log("webhook").info("msg=\"serving https\" address={}:{}", options_.bind, port_);
  return Status::Ok();
}

void WebhookServer::Stop() {
  if (!server_) return;
  server_->Stop();
  server_.reset();
}

}  // namespace basalt
