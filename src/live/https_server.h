// An HTTPS server that bounds what a client controls (docs/limits.md,
// "Admission webhooks"), on Boost.Beast and Boost.Asio (Debian's
// libboost-dev) with OpenSSL.
//
// I/O is asynchronous: a connection waiting for bytes holds no thread, so slow
// clients cost a connection slot and a small buffer, never a worker. What a
// client controls is bounded:
//   - the whole request — TLS handshake (first request), headers and body — must
//     arrive within `request_timeout` from the moment the connection is ready
//     for it; a byte now and then does not extend it;
//   - the body is counted as it arrives whatever the transfer encoding: a
//     chunked body is refused (413) as soon as its running size passes
//     `max_body_bytes`, never read whole;
//   - connections: `max_connections` in all, `max_connections_per_client` from
//     one address; the rest are closed at once (logged, at most once a second);
//   - large bodies (over `large_body_bytes`, or chunked) are read and handled
//     `max_large_requests` at a time, on their own worker lane, so memory is
//     bounded and ordinary requests never wait behind them.
// After a large request the allocator's free memory is returned to the system.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "api/status.h"

namespace basalt {

struct HttpsLimits {
  size_t max_body_bytes = size_t{8} << 20;  // the API server sends objects of at most ~3 MiB
  size_t max_header_bytes = size_t{64} << 10;
  std::chrono::milliseconds request_timeout{10000};  // handshake + headers + body
  std::chrono::milliseconds idle_timeout{60000};     // a kept-alive connection between requests
  int max_connections = 512;
  int max_connections_per_client = 128;
  size_t large_body_bytes = size_t{256} << 10;
  int max_large_requests = 2;
  int listen_backlog = 1024;
  int ordinary_workers = 2;  // threads that run the handler for ordinary requests
};

struct HttpsRequest {
  std::string method;
  std::string path;  // the target without its query
  std::string body;
  std::string client;  // the peer's address
};

struct HttpsReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

using HttpsHandler = std::function<HttpsReply(const HttpsRequest&)>;
// Configures the TLS context (certificates, callbacks) before the first
// connection; the server has already restricted protocols and ciphers.
using TlsSetup = std::function<Status(SSL_CTX*)>;

// What the server refused or cut, for tests and the benchmark.
struct HttpsCounters {
  std::atomic<int64_t> refused_connections{0};  // over a connection cap
  std::atomic<int64_t> timed_out{0};            // request deadline passed
  std::atomic<int64_t> too_large{0};            // 413
  std::atomic<int64_t> answered{0};
};

class HttpsServer {
 public:
  // `component` names the log lines ("webhook").
  HttpsServer(std::string component, HttpsLimits limits, TlsSetup tls, HttpsHandler handler);
  ~HttpsServer();
  HttpsServer(const HttpsServer&) = delete;
  HttpsServer& operator=(const HttpsServer&) = delete;

  // Binds `address`:`port` (port 0: any free port) and serves on threads of
  // its own. Errors (bad address, port in use, TLS setup) are user errors.
  Status Start(const std::string& address, int port);
  // Stops accepting, lets handlers in progress finish (a few seconds at most)
  // and joins every thread.
  void Stop();

  int port() const { return port_; }
  const HttpsCounters& counters() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

// The OpenSSL cipher list of TLS 1.2 connections: forward-secret AEAD suites
// only (TLS 1.3 suites are all of that kind).
extern const char kTls12Ciphers[];

}  // namespace basalt
