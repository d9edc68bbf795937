#include "kube/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>

namespace basalt::kube {
namespace {

// curl_global_init is not thread-safe; run it once before any handle exists.
void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// State shared with libcurl's callbacks for one transfer.
struct Transfer {
  long status = 0;
  bool headers_done = false;
  bool stopped_by_caller = false;
  std::map<std::string, std::string> headers;
  std::string body;  // Do only
  const StreamHeadersFn* on_headers = nullptr;
  const StreamDataFn* on_data = nullptr;
  const std::atomic<bool>* cancel = nullptr;
  CURL* handle = nullptr;
};

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    // A new status line (e.g. after "100 Continue"): start over.
    t->headers.clear();
    return size * n;
  }
  auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name = Lower(std::string(line.substr(0, colon)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() &&
           (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
      value.remove_suffix(1);
    }
    t->headers[name] = std::string(value);
  }
  return size * n;
}

void DeliverHeaders(Transfer* t) {
  if (t->headers_done) return;
  t->headers_done = true;
  curl_easy_getinfo(t->handle, CURLINFO_RESPONSE_CODE, &t->status);
  if (t->on_headers != nullptr && *t->on_headers)
    (*t->on_headers)(static_cast<int>(t->status), t->headers);
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  if (t->on_data == nullptr) {
    t->body.append(data, len);
    return len;
  }
  DeliverHeaders(t);
  if (t->cancel != nullptr && t->cancel->load()) {
    t->stopped_by_caller = true;
    return 0;  // aborts the transfer
  }
  if (!(*t->on_data)(std::string_view(data, len))) {
    t->stopped_by_caller = true;
    return 0;
  }
  return len;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->cancel != nullptr && t->cancel->load()) {
    t->stopped_by_caller = true;
    return 1;
  }
  return 0;
}

struct EasyDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

// Configures everything common to `Do` and `Stream`. Returns a message on a
// setup failure (e.g. a libcurl built without blob support).
Status Setup(CURL* c, const HttpRequest& req, const CurlOptions& opt, Transfer* t,
             curl_slist** headers) {
  curl_easy_setopt(c, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM-based timeouts
  // Only the API server's own schemes; a redirect is never followed, because a
  // token must not be sent anywhere the configuration did not name.
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(opt.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, t);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, t);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, t);
  // Kubernetes replies may be gzip-free JSON; let curl announce what it can decode.
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");

  const TlsConfig& tls = opt.tls;
  if (!tls.ca_pem.empty()) {
    curl_blob blob{const_cast<char*>(tls.ca_pem.data()), tls.ca_pem.size(), CURL_BLOB_COPY};
    if (curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob) != CURLE_OK) {
      return Status::Unavailable("libcurl cannot take inline CA data (CURLOPT_CAINFO_BLOB)");
    }
  } else if (!tls.ca_file.empty()) {
    curl_easy_setopt(c, CURLOPT_CAINFO, tls.ca_file.c_str());
  }
  if (!tls.client_cert_pem.empty()) {
    curl_blob blob{const_cast<char*>(tls.client_cert_pem.data()), tls.client_cert_pem.size(),
                   CURL_BLOB_COPY};
    if (curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &blob) != CURLE_OK) {
      return Status::Unavailable("libcurl cannot take inline client certificates");
    }
    curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
  } else if (!tls.client_cert_file.empty()) {
    curl_easy_setopt(c, CURLOPT_SSLCERT, tls.client_cert_file.c_str());
  }
  if (!tls.client_key_pem.empty()) {
    curl_blob blob{const_cast<char*>(tls.client_key_pem.data()), tls.client_key_pem.size(),
                   CURL_BLOB_COPY};
    if (curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &blob) != CURLE_OK) {
      return Status::Unavailable("libcurl cannot take inline client keys");
    }
    curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
  } else if (!tls.client_key_file.empty()) {
    curl_easy_setopt(c, CURLOPT_SSLKEY, tls.client_key_file.c_str());
  }
  if (tls.insecure_skip_verify) {
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
  }

  if (req.method == "GET") {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  }
  if (!req.body.empty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, req.body.data());
  }
  for (const auto& [name, value] : req.headers) {
    std::string line = name + ": " + value;
    *headers = curl_slist_append(*headers, line.c_str());
  }
  // No "Expect: 100-continue" round trip for bodies (the API server answers
  // directly; the extra wait would only add latency to binds).
  *headers = curl_slist_append(*headers, "Expect:");
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, *headers);
  return Status::Ok();
}

std::string Describe(CURLcode rc, const char* errbuf) {
  std::string msg = errbuf[0] != '\0' ? std::string(errbuf) : std::string(curl_easy_strerror(rc));
  return msg;
}

}  // namespace

CurlTransport::CurlTransport(CurlOptions options) : options_(std::move(options)) { GlobalInit(); }

CurlTransport::~CurlTransport() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* CurlTransport::TakeHandle() {
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!idle_.empty()) {
      CURL* c = static_cast<CURL*>(idle_.back());
      idle_.pop_back();
      curl_easy_reset(c);  // options off, connections and TLS sessions kept
      return c;
    }
  }
  return curl_easy_init();
}

void CurlTransport::GiveBack(void* handle) {
  std::lock_guard<std::mutex> lock(pool_mu_);
  idle_.push_back(handle);
}

Result<HttpResponse> CurlTransport::Do(const HttpRequest& request) {
  struct Lease {
    CurlTransport* owner;
    CURL* handle;
    ~Lease() {
      if (handle) owner->GiveBack(handle);
    }
    CURL* get() const { return handle; }
  } c{this, static_cast<CURL*>(TakeHandle())};
  if (!c.get()) return Status::Internal("curl_easy_init failed");
  Transfer t;
  t.handle = c.get();
  t.cancel = options_.cancel;
  curl_slist* raw_headers = nullptr;
  Status s = Setup(c.get(), request, options_, &t, &raw_headers);
  std::unique_ptr<curl_slist, SlistDeleter> headers(raw_headers);
  if (!s.ok()) return s;
  curl_easy_setopt(c.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c.get(), CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(c.get());
  if (rc != CURLE_OK) {
    return Status::Unavailable(request.method + " " + request.url + ": " + Describe(rc, errbuf));
  }
  HttpResponse resp;
  long code = 0;
  curl_easy_getinfo(c.get(), CURLINFO_RESPONSE_CODE, &code);
  resp.status = static_cast<int>(code);
  resp.headers = std::move(t.headers);
  resp.body = std::move(t.body);
  return resp;
}

Result<int> CurlTransport::Stream(const HttpRequest& request, const StreamHeadersFn& on_headers,
                                  const StreamDataFn& on_data) {
  std::unique_ptr<CURL, EasyDeleter> c(curl_easy_init());
  if (!c) return Status::Internal("curl_easy_init failed");
  Transfer t;
  t.handle = c.get();
  t.cancel = options_.cancel;
  t.on_headers = &on_headers;
  t.on_data = &on_data;
  curl_slist* raw_headers = nullptr;
  Status s = Setup(c.get(), request, options_, &t, &raw_headers);
  std::unique_ptr<curl_slist, SlistDeleter> headers(raw_headers);
  if (!s.ok()) return s;
  // A silent watch is normal; a connection that delivers nothing for longer
  // than the request's timeout (the server's own timeoutSeconds plus slack)
  // is presumed dead, which catches half-open TCP connections.
  long silence_s = std::max<long>(1, static_cast<long>(request.timeout.count() / 1000));
  curl_easy_setopt(c.get(), CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c.get(), CURLOPT_LOW_SPEED_TIME, silence_s);
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c.get(), CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(c.get());
  if (rc == CURLE_OK) DeliverHeaders(&t);  // a response with an empty body still has headers
  if (rc != CURLE_OK &&
      !(t.stopped_by_caller && (rc == CURLE_WRITE_ERROR || rc == CURLE_ABORTED_BY_CALLBACK))) {
    return Status::Unavailable(request.method + " " + request.url + ": " + Describe(rc, errbuf));
  }
  return static_cast<int>(t.status);
}

}  // namespace basalt::kube
