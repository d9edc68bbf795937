#include "kube_fake_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

namespace basalt::testing {
namespace {

const char* StatusText(int code) {
  switch (code) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 406:
      return "Not Acceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else if (s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

// Reads until `pred(buffer)` or EOF/timeout (2 s without data: tests are local).
bool ReadMore(int fd, std::string* buf) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 2000) <= 0) return false;
  char tmp[16384];
  ssize_t n = read(fd, tmp, sizeof(tmp));
  if (n <= 0) return false;
  buf->append(tmp, static_cast<size_t>(n));
  return true;
}

}  // namespace

bool FakeResponder::WriteAll(const std::string& data) {
  if (fd_ < 0) return false;
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

void FakeResponder::Respond(int status, const std::string& body,
                            const std::map<std::string, std::string>& headers) {
  std::ostringstream out;
  out << "HTTP/1.1 " << status << " " << StatusText(status) << "\r\n";
  out << "Content-Type: application/json\r\n";
  for (const auto& [k, v] : headers) {
    if (Lower(k) == "content-type" || Lower(k) == "transfer-encoding") continue;
    out << k << ": " << v << "\r\n";
  }
  out << "Content-Length: " << body.size() << "\r\nConnection: close\r\n\r\n" << body;
  WriteAll(out.str());
}

void FakeResponder::BeginStream(int status) {
  std::ostringstream out;
  out << "HTTP/1.1 " << status << " " << StatusText(status) << "\r\n"
      << "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: "
         "close\r\n\r\n";
  WriteAll(out.str());
}

bool FakeResponder::StreamLine(const std::string& line, bool split) {
  std::string data = line + "\n";
  auto chunk = [&](const std::string& part) {
    std::ostringstream out;
    out << std::hex << part.size() << "\r\n" << part << "\r\n";
    return WriteAll(out.str());
  };
  if (split && data.size() > 2) {
    size_t half = data.size() / 2;
    return chunk(data.substr(0, half)) && chunk(data.substr(half));
  }
  return chunk(data);
}

bool FakeResponder::PeerClosed() const {
  if (fd_ < 0) return true;
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

void FakeResponder::EndStream() { WriteAll("0\r\n\r\n"); }

void FakeResponder::Abort() {
  if (fd_ < 0) return;
  shutdown(fd_, SHUT_RDWR);
  fd_ = -1;  // the owner closes the descriptor
}

FakeKubeServer::~FakeKubeServer() { Stop(); }

bool FakeKubeServer::Start(FakeHandler handler, int port) {
  handler_ = std::move(handler);
  stopping_ = false;
  listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) return false;
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(listen_fd_, 64) != 0) {
    close(listen_fd_);
    listen_fd_ = -1;
    return false;
  }
  socklen_t len = sizeof(addr);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
  return true;
}

void FakeKubeServer::Stop() {
  stopping_ = true;
  if (listen_fd_ >= 0) {
    shutdown(listen_fd_, SHUT_RDWR);
    close(listen_fd_);
    listen_fd_ = -1;
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    workers.swap(workers_);
  }
  for (auto& t : workers) t.join();
}

std::vector<FakeRequest> FakeKubeServer::requests() {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

size_t FakeKubeServer::CountRequests(const std::string& method, const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& r : requests_) n += (r.method == method && r.path == path);
  return n;
}

void FakeKubeServer::AcceptLoop() {
  while (!stopping_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    workers_.emplace_back([this, fd] { Serve(fd); });
  }
}

void FakeKubeServer::Serve(int fd) {
  std::string buf;
  size_t header_end;
  while ((header_end = buf.find("\r\n\r\n")) == std::string::npos) {
    if (!ReadMore(fd, &buf)) {
      close(fd);
      return;
    }
  }
  FakeRequest req;
  std::istringstream head(buf.substr(0, header_end));
  std::string line, target, version;
  std::getline(head, line);
  std::istringstream(line) >> req.method >> target >> version;
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    req.headers[Lower(line.substr(0, colon))] = value;
  }
  auto q = target.find('?');
  req.path = target.substr(0, q);
  if (q != std::string::npos) {
    std::istringstream qs(target.substr(q + 1));
    std::string kv;
    while (std::getline(qs, kv, '&')) {
      auto eq = kv.find('=');
      req.query[Unescape(kv.substr(0, eq))] =
          eq == std::string::npos ? "" : Unescape(kv.substr(eq + 1));
    }
  }
  size_t content_length = 0;
  if (req.headers.count("content-length"))
    content_length = std::stoul(req.headers["content-length"]);
  std::string body = buf.substr(header_end + 4);
  while (body.size() < content_length && ReadMore(fd, &body)) {
  }
  req.body = body.substr(0, content_length);
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(req);
  }
  FakeResponder resp(fd);
  handler_(req, resp);
  close(fd);
}

std::string ReadFixtureText(const std::string& name) {
  std::ifstream in(std::string(BASALT_SOURCE_DIR) + "/tests/kube_fixtures/" + name + ".json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace basalt::testing
