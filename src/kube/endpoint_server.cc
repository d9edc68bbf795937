#include "kube/endpoint_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>

namespace basalt::kube {

bool ParseListenAddress(const std::string& listen, std::string* host, int* port) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos || colon + 1 >= listen.size()) return false;
  *host = listen.substr(0, colon);
  if (host->empty()) *host = "0.0.0.0";
  if (*host == "localhost") *host = "127.0.0.1";
  int p = -1;
  const char* b = listen.data() + colon + 1;
  const char* e = listen.data() + listen.size();
  auto [ptr, ec] = std::from_chars(b, e, p);
  if (ec != std::errc() || ptr != e || p < 0 || p > 65535) return false;
  *port = p;
  return true;
}

EndpointServer::~EndpointServer() { Stop(); }

void EndpointServer::Handle(const std::string& path, EndpointHandler handler) {
  handlers_[path] = std::move(handler);
}

Status EndpointServer::Start(const std::string& listen) {
  std::string host;
  int port = 0;
  if (!ParseListenAddress(listen, &host, &port)) {
    return Status::InvalidArgument("--listen " + listen +
                                   ": expected HOST:PORT (e.g. 127.0.0.1:8080)");
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    return Status::InvalidArgument("--listen " + listen +
                                   ": host must be an IPv4 address or localhost");
  }
  listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0)
    return Status::Unavailable("--listen " + listen + ": socket: " + std::strerror(errno));
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(listen_fd_, 16) != 0) {
    std::string err = std::strerror(errno);
    close(listen_fd_);
    listen_fd_ = -1;
    return Status::Unavailable("--listen " + listen + ": " + err);
  }
  socklen_t len = sizeof(addr);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  stopping_ = false;
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void EndpointServer::Stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) {
    close(listen_fd_);
    listen_fd_ = -1;
  }
}

void EndpointServer::Loop() {
  while (!stopping_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    Serve(fd);
    close(fd);
  }
}

namespace {

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

void WriteAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

}  // namespace

void EndpointServer::Serve(int fd) {
  // Read the request head (bounded: 8 KiB, 2 s); the body, if any, is ignored.
  std::string buf;
  while (buf.find("\r\n\r\n") == std::string::npos && buf.size() < 8192) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 2000) <= 0) return;
    char tmp[2048];
    ssize_t n = read(fd, tmp, sizeof(tmp));
    if (n <= 0) return;
    buf.append(tmp, static_cast<size_t>(n));
  }
  std::istringstream line(buf.substr(0, buf.find("\r\n")));
  std::string method, target;
  line >> method >> target;
  std::string path = target.substr(0, target.find('?'));
  EndpointReply reply;
  auto it = handlers_.find(path);
  if (method != "GET" && method != "HEAD") {
    reply = {405, "text/plain; charset=utf-8", "method not allowed\n"};
  } else if (it == handlers_.end()) {
    reply = {404, "text/plain; charset=utf-8", "not found\n"};
  } else {
    reply = it->second();
  }
  std::ostringstream out;
  out << "HTTP/1.1 " << reply.status << " " << Reason(reply.status)
      << "\r\nContent-Type: " << reply.content_type << "\r\nContent-Length: " << reply.body.size()
      << "\r\nConnection: close\r\n\r\n";
  if (method != "HEAD") out << reply.body;
  WriteAll(fd, out.str());
}

}  // namespace basalt::kube
