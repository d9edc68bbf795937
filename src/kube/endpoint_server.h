// The tiny HTTP/1.1 server behind `basalt serve --listen`: /healthz, /readyz
// and /metrics for kubelet probes and Prometheus. GET (and HEAD) only, one
// request per connection (`Connection: close`), one thread; each handler runs
// on that thread and must be quick (they read atomics and render metrics).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include "api/status.h"

namespace basalt::kube {

struct EndpointReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using EndpointHandler = std::function<EndpointReply()>;

class EndpointServer {
 public:
  EndpointServer() = default;
  ~EndpointServer();
  EndpointServer(const EndpointServer&) = delete;
  EndpointServer& operator=(const EndpointServer&) = delete;

  // Registers `handler` for the exact path `path` (before Start).
  void Handle(const std::string& path, EndpointHandler handler);
  // Listens on "HOST:PORT" (IPv4 literal or "localhost"; port 0: ephemeral)
  // and serves on a thread. Errors name the address.
  Status Start(const std::string& listen);
  void Stop();
  int port() const { return port_; }

 private:
  void Loop();
  void Serve(int fd);

  std::map<std::string, EndpointHandler> handlers_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// Splits "HOST:PORT"; false when malformed (no colon, port not 0..65535).
bool ParseListenAddress(const std::string& listen, std::string* host, int* port);

}  // namespace basalt::kube
