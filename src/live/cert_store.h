// The serving certificate and key of the admission webhooks, cert-manager
// style (`tls.crt`, possibly with intermediates after the leaf, and
// `tls.key`), re-read when their modification time or size changes — checked
// at most once per interval, at the start of a TLS handshake — so a renewed
// certificate is served to the next connection without a restart. A renewal
// caught half-written (a key that does not match the certificate, a file that
// does not parse) keeps the previous pair and is retried at the next check.
#pragma once

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "api/status.h"

namespace basalt {

class CertStore {
 public:
  struct Pair {
    X509* leaf = nullptr;
    STACK_OF(X509) * chain = nullptr;  // intermediates, possibly empty
    EVP_PKEY* key = nullptr;
    ~Pair();
  };

  CertStore(std::string cert_file, std::string key_file, std::chrono::milliseconds interval)
      : cert_file_(std::move(cert_file)), key_file_(std::move(key_file)), interval_(interval) {}

  // The first load: any problem is the caller's error.
  Status Load();
  // The pair to serve now, re-read first if the files changed.
  std::shared_ptr<const Pair> Current();
  int64_t reloads() const { return reloads_.load(); }

  // Makes `ctx` ask this store for the pair at each handshake; the store must
  // outlive the context's connections.
  void InstallOn(SSL_CTX* ctx);

 private:
  std::string Stamp() const;
  void ReloadIfChangedLocked();
  Result<std::shared_ptr<Pair>> ReadPair() const;

  const std::string cert_file_, key_file_;
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::shared_ptr<const Pair> current_;
  std::string stamp_, failed_stamp_;
  std::chrono::steady_clock::time_point last_check_{};
  std::atomic<int64_t> reloads_{0};
};

}  // namespace basalt
