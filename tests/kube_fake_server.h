// A small HTTP/1.1 server on 127.0.0.1 (ephemeral port) for the kube client
// tests. It replays recorded API-server exchanges: a test installs a handler
// that sees each request and answers with a full response, a chunked stream of
// watch lines, or an abrupt close. Every response carries `Connection: close`,
// so one connection serves one request (the client opens one per call anyway).
//
// Loopback only: the socket binds 127.0.0.1 and nothing else.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace basalt::testing {

struct FakeRequest {
  std::string method;
  std::string path;                            // without the query
  std::map<std::string, std::string> query;    // decoded
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

// What the handler writes. Either `Respond` once, or `BeginStream` then
// `StreamLine`s, or `Abort` (close without a full reply) at any point.
class FakeResponder {
 public:
  explicit FakeResponder(int fd) : fd_(fd) {}
  void Respond(int status, const std::string& body,
               const std::map<std::string, std::string>& headers = {});
  void BeginStream(int status);
  // Writes `line` + "\n" as one chunk (or split in two chunks to exercise
  // buffering of partial lines when `split` is set).
  bool StreamLine(const std::string& line, bool split = false);
  void EndStream();  // the zero-length chunk: a clean end
  void Abort();      // closes the socket mid-reply
  bool aborted() const { return fd_ < 0; }
  // True when the client has gone away (closed or reset its end).
  bool PeerClosed() const;

 private:
  bool WriteAll(const std::string& data);
  int fd_;
};

using FakeHandler = std::function<void(const FakeRequest&, FakeResponder&)>;

class FakeKubeServer {
 public:
  FakeKubeServer() = default;
  ~FakeKubeServer();
  // Listens on 127.0.0.1:`port` (0: ephemeral). Returns false on failure.
  bool Start(FakeHandler handler, int port = 0);
  // Closes the listener and waits for in-flight connections to finish.
  void Stop();
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Every request seen so far, in arrival order.
  std::vector<FakeRequest> requests();
  size_t CountRequests(const std::string& method, const std::string& path);

 private:
  void AcceptLoop();
  void Serve(int fd);

  FakeHandler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  std::mutex mu_;
  std::vector<std::thread> workers_;
  std::vector<FakeRequest> requests_;
};

// Reads tests/kube_fixtures/NAME.json (the recorded exchange).
std::string ReadFixtureText(const std::string& name);

}  // namespace basalt::testing
