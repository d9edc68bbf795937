// HTTP for the Kubernetes client: a small request/response model, a transport
// interface (so tests substitute a fake or talk to a loopback server) and the
// libcurl implementation used in production.
//
// Two kinds of exchange exist, because the API server has two:
//   - `Do`: a bounded request whose whole body is read into memory (list pages,
//     binds, evictions, patches). A total timeout applies.
//   - `Stream`: a watch. The body arrives in chunks of arbitrary size over
//     minutes; the callback sees each chunk as it arrives and may stop the
//     transfer. Only the connect timeout and a "no bytes for N seconds" limit
//     apply, since a quiet watch legitimately sends nothing for a long time.
//
// Transport failures (refused connection, TLS failure, timeout, connection
// reset) come back as `Status::Unavailable` with libcurl's message; an HTTP
// error status is *not* a transport failure and comes back as a response.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"

namespace basalt::kube {

struct HttpRequest {
  std::string method = "GET";  // GET, POST, PUT, PATCH, DELETE
  std::string url;             // absolute: "https://10.0.0.1:6443/api/v1/pods?limit=500"
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // sent when non-empty (and always for POST/PUT/PATCH)
  // Total time for `Do`; for `Stream`, the longest silence tolerated.
  std::chrono::milliseconds timeout{30000};
};

struct HttpResponse {
  int status = 0;
  // Header names lower-cased (HTTP header names are case-insensitive).
  std::map<std::string, std::string> headers;
  std::string body;

  // The header's value or "" (name given in lower case).
  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// Called once the status line and headers of a streamed response are in.
using StreamHeadersFn =
    std::function<void(int status, const std::map<std::string, std::string>& headers)>;
// Called with each body chunk; return false to stop the transfer (not an error).
using StreamDataFn = std::function<bool(std::string_view chunk)>;

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // A bounded exchange. Non-2xx statuses are responses, not errors.
  virtual Result<HttpResponse> Do(const HttpRequest& request) = 0;
  // A streamed exchange. Returns the HTTP status once the stream has ended
  // (server closed cleanly, or `on_data` returned false); a connection that
  // breaks mid-body or stays silent longer than `request.timeout` is
  // `Unavailable`. For a non-2xx status the body is still fed to `on_data`.
  virtual Result<int> Stream(const HttpRequest& request, const StreamHeadersFn& on_headers,
                             const StreamDataFn& on_data) = 0;
};

// TLS material, as kubeconfig gives it: file paths or inline PEM ("-data"
// fields, already base64-decoded). Inline data wins over a file when both are set.
struct TlsConfig {
  std::string ca_file;
  std::string ca_pem;
  std::string client_cert_file;
  std::string client_cert_pem;
  std::string client_key_file;
  std::string client_key_pem;
  // Disables server certificate verification. Only ever set from an explicit
  // `insecure-skip-tls-verify: true` in the configuration.
  bool insecure_skip_verify = false;
};

struct CurlOptions {
  TlsConfig tls;
  std::chrono::milliseconds connect_timeout{10000};
  // Set by the owner to abort in-flight streams promptly (checked about once a
  // second by libcurl's progress callback, and on every chunk).
  const std::atomic<bool>* cancel = nullptr;
};

// libcurl transport. Calls may come from several threads at once (binds run
// in parallel): each takes an idle easy handle from a small pool, or makes
// one, and gives it back after the call. A handle keeps its connections open,
// so requests reuse kept-alive connections and TLS sessions instead of paying
// a TCP and TLS handshake each (HTTP/2 where the server offers it). Streams
// (watches) hold their connection for as long as they run and use handles of
// their own.
class CurlTransport : public HttpTransport {
 public:
  explicit CurlTransport(CurlOptions options);
  ~CurlTransport() override;
  Result<HttpResponse> Do(const HttpRequest& request) override;
  Result<int> Stream(const HttpRequest& request, const StreamHeadersFn& on_headers,
                     const StreamDataFn& on_data) override;

 private:
  void* TakeHandle();
  void GiveBack(void* handle);
  CurlOptions options_;
  std::mutex pool_mu_;
  std::vector<void*> idle_;  // CURL*, each used by one call at a time
};

}  // namespace basalt::kube
