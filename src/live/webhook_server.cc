#include "live/webhook_server.h"

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <filesystem>
#include <mutex>

#include "api/file_text.h"
#include "api/log.h"

namespace basalt {

// ---- the certificate pair, reloaded when its files change ----

class CertStore {
 public:
  struct Pair {
    X509* leaf = nullptr;
    STACK_OF(X509) * chain = nullptr;  // intermediates, possibly empty
    EVP_PKEY* key = nullptr;
    ~Pair() {
      X509_free(leaf);
      sk_X509_pop_free(chain, X509_free);
      EVP_PKEY_free(key);
    }
  };

  CertStore(std::string cert_file, std::string key_file, std::chrono::milliseconds interval)
      : cert_file_(std::move(cert_file)), key_file_(std::move(key_file)), interval_(interval) {}

  // The first load: any problem is the caller's error.
  Status Load() {
    std::lock_guard<std::mutex> lock(mu_);
    stamp_ = Stamp();
    auto pair = ReadPair();
    if (!pair.ok()) return pair.status();
    current_ = std::move(*pair);
    last_check_ = std::chrono::steady_clock::now();
    return Status::Ok();
  }

  // The pair to serve now, re-read first if the files changed.
  std::shared_ptr<const Pair> Current() {
    std::lock_guard<std::mutex> lock(mu_);
    auto now = std::chrono::steady_clock::now();
    if (now - last_check_ >= interval_) {
      last_check_ = now;
      ReloadIfChangedLocked();
    }
    return current_;
  }

  int64_t reloads() const { return reloads_.load(); }

 private:
  // Modification times and sizes of both files (a renewal changes them).
  std::string Stamp() const {
    std::string out;
    for (const std::string& f : {cert_file_, key_file_}) {
      std::error_code ec;
      auto t = std::filesystem::last_write_time(f, ec);
      auto size = std::filesystem::file_size(f, ec);
      out += std::to_string(ec ? 0 : t.time_since_epoch().count()) + "/" +
             std::to_string(ec ? 0 : size) + ";";
    }
    return out;
  }

  void ReloadIfChangedLocked() {
    std::string stamp = Stamp();
    if (stamp == stamp_) return;
    auto pair = ReadPair();
    if (!pair.ok()) {
      // Most likely caught between the certificate and the key being
      // replaced: keep serving the old pair, look again at the next check.
      if (stamp != failed_stamp_)
        Log("webhook").warn("msg=\"TLS files changed but not reloaded\" error={}",
                            LogValue(pair.status().message()));
      failed_stamp_ = stamp;
      return;
    }
    stamp_ = stamp;
    current_ = std::move(*pair);
    ++reloads_;
    Log("webhook").info("msg=\"TLS certificate reloaded\" path={}", LogValue(cert_file_));
  }

  static std::string OpenSslError() {
    unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (e == 0) return "no PEM data";
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    return buf;
  }

  Result<std::shared_ptr<Pair>> ReadPair() const {
    std::optional<std::string> cert = ReadFileText(cert_file_);
    if (!cert) return Status::InvalidArgument(cert_file_ + ": cannot read the TLS certificate");
    std::optional<std::string> key = ReadFileText(key_file_);
    if (!key) return Status::InvalidArgument(key_file_ + ": cannot read the TLS private key");
    ERR_clear_error();
    auto pair = std::make_shared<Pair>();
    std::unique_ptr<BIO, decltype(&BIO_free)> cert_bio(
        BIO_new_mem_buf(cert->data(), static_cast<int>(cert->size())), BIO_free);
    pair->leaf = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
    if (pair->leaf == nullptr) {
      return Status::InvalidArgument(cert_file_ + ": not a PEM certificate: " + OpenSslError());
    }
    pair->chain = sk_X509_new_null();
    while (X509* extra = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr))
      sk_X509_push(pair->chain, extra);
    ERR_clear_error();  // the end of the PEM stream
    std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(
        BIO_new_mem_buf(key->data(), static_cast<int>(key->size())), BIO_free);
    pair->key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
    if (pair->key == nullptr) {
      return Status::InvalidArgument(key_file_ + ": not a PEM private key: " + OpenSslError());
    }
    if (X509_check_private_key(pair->leaf, pair->key) != 1) {
      ERR_clear_error();
      return Status::InvalidArgument(key_file_ + ": the private key does not match " + cert_file_);
    }
    return pair;
  }

  const std::string cert_file_, key_file_;
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::shared_ptr<const Pair> current_;
  std::string stamp_, failed_stamp_;
  std::chrono::steady_clock::time_point last_check_{};
  std::atomic<int64_t> reloads_{0};
};

namespace {

// OpenSSL asks for the certificate at each handshake: the connection gets the
// current pair (its own references), so a reload never touches a live one.
int SelectCertificate(SSL* ssl, void* arg) {
  std::shared_ptr<const CertStore::Pair> pair = static_cast<CertStore*>(arg)->Current();
  if (!pair) return 0;
  return SSL_use_cert_and_key(ssl, pair->leaf, pair->key, pair->chain, /*override=*/1) == 1 ? 1 : 0;
}

constexpr size_t kMaxBodyBytes = size_t{8} << 20;  // the API server sends at most ~3 MiB objects

}  // namespace

struct WebhookServer::Impl {
  explicit Impl(CertStore* certs)
      : server([certs](SSL_CTX& ctx) {
          SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
          SSL_CTX_set_cert_cb(&ctx, SelectCertificate, certs);
          return true;
        }) {}
  httplib::SSLServer server;
};

WebhookServer::WebhookServer(WebhookOptions options, AdmissionLookup* lookup)
    : options_(std::move(options)), lookup_(lookup) {}

WebhookServer::~WebhookServer() { Stop(); }

int64_t WebhookServer::cert_reloads() const { return certs_ ? certs_->reloads() : 0; }

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
  impl_ = std::make_unique<Impl>(certs_.get());
  httplib::SSLServer& s = impl_->server;
  if (!s.is_valid()) return Status::Internal("webhook: cannot create the TLS context");
  s.set_payload_max_length(kMaxBodyBytes);
  s.set_read_timeout(10, 0);
  s.set_write_timeout(10, 0);
  for (const auto& [path, endpoint] : WebhookEndpoints()) {
    s.Post(path, [this, endpoint = endpoint](const httplib::Request& req, httplib::Response& res) {
      AdmissionReply reply = ReviewAdmission(endpoint, req.body, *lookup_, options_.admission);
      res.status = reply.http_status;
      res.set_content(reply.body, reply.content_type.c_str());
    });
  }
  s.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain; charset=utf-8");
  });
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content("internal error\n", "text/plain; charset=utf-8");
  });
  const std::string where = options_.bind + ":" + std::to_string(options_.port);
  port_ = options_.port <= 0 ? s.bind_to_any_port(options_.bind)
                             : (s.bind_to_port(options_.bind, options_.port) ? options_.port : -1);
  if (port_ <= 0) {
    impl_.reset();
    port_ = 0;
    return Status::InvalidArgument("--webhook-port: cannot listen on " + where);
  }
  thread_ = std::thread([&s] { s.listen_after_bind(); });
  // Stop() before the loop runs would be lost: wait until it does.
  for (int i = 0; i < 500 && !s.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  Log("webhook").info("msg=\"serving https\" address={}:{}", options_.bind, port_);
  return Status::Ok();
}

void WebhookServer::Stop() {
  if (!impl_) return;
  impl_->server.stop();
  if (thread_.joinable()) thread_.join();
  impl_.reset();
}

}  // namespace basalt
