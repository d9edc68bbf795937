#include "live/cert_store.h"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <filesystem>
#include <optional>

#include "api/file_text.h"
#include "api/log.h"

namespace basalt {

namespace {

std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "no PEM data";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

// OpenSSL asks for the certificate at each handshake: the connection gets the
// current pair (its own references), so a reload never touches a live one.
int SelectCertificate(SSL* ssl, void* arg) {
  std::shared_ptr<const CertStore::Pair> pair = static_cast<CertStore*>(arg)->Current();
  if (!pair) return 0;
  return SSL_use_cert_and_key(ssl, pair->leaf, pair->key, pair->chain, /*override=*/1) == 1 ? 1 : 0;
}

}  // namespace

CertStore::Pair::~Pair() {
  X509_free(leaf);
  sk_X509_pop_free(chain, X509_free);
  EVP_PKEY_free(key);
}

Status CertStore::Load() {
  std::lock_guard<std::mutex> lock(mu_);
  stamp_ = Stamp();
  auto pair = ReadPair();
  if (!pair.ok()) return pair.status();
  current_ = std::move(*pair);
  last_check_ = std::chrono::steady_clock::now();
  return Status::Ok();
}

std::shared_ptr<const CertStore::Pair> CertStore::Current() {
  std::lock_guard<std::mutex> lock(mu_);
  auto now = std::chrono::steady_clock::now();
  if (now - last_check_ >= interval_) {
    last_check_ = now;
    ReloadIfChangedLocked();
  }
  return current_;
}

void CertStore::InstallOn(SSL_CTX* ctx) { SSL_CTX_set_cert_cb(ctx, SelectCertificate, this); }

// Modification times and sizes of both files (a renewal changes them).
std::string CertStore::Stamp() const {
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

void CertStore::ReloadIfChangedLocked() {
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

Result<std::shared_ptr<CertStore::Pair>> CertStore::ReadPair() const {
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

}  // namespace basalt
