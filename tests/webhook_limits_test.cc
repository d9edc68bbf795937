// The webhook server's limits (docs/limits.md, "Admission webhooks") against
// the real server on loopback: bodies counted whatever their encoding, a
// deadline per request, connection caps, the default address, memory given
// back after large reviews.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "live/webhook_server.h"
#include "webhook_fixture.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// A plain TCP connection to 127.0.0.1:port; -1 on failure.
int ConnectTcp(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// True when the peer closes `fd` (or resets it) within `wait`.
bool ClosedByPeerWithin(int fd, std::chrono::milliseconds wait) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
  char c;
  return ::recv(fd, &c, 1, MSG_PEEK) <= 0;
}

// A TLS client connection that trusts anything (the tests' own server), with
// the plain writes and reads the attacks need.
class RawTlsClient {
 public:
  RawTlsClient() : ctx_(SSL_CTX_new(TLS_client_method())) {}
  ~RawTlsClient() {
    if (ssl_) SSL_free(ssl_);
    if (fd_ >= 0) ::close(fd_);
    SSL_CTX_free(ctx_);
  }
  bool Connect(int port) {
    fd_ = ConnectTcp(port);
    if (fd_ < 0) return false;
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, fd_);
    return SSL_connect(ssl_) == 1;
  }
  bool Write(std::string_view data) {
    while (!data.empty()) {
      int n = SSL_write(ssl_, data.data(), static_cast<int>(data.size()));
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // What arrives until the peer closes or `wait` passes.
  std::string ReadFor(std::chrono::milliseconds wait) {
    std::string out;
    auto end = Clock::now() + wait;
    char buf[4096];
    while (Clock::now() < end) {
      pollfd p{fd_, POLLIN, 0};
      if (SSL_pending(ssl_) == 0 && ::poll(&p, 1, 50) <= 0) continue;
      int n = SSL_read(ssl_, buf, sizeof(buf));
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }

 private:
  SSL_CTX* ctx_;
  SSL* ssl_ = nullptr;
  int fd_ = -1;
};

// A ~2 MB vcjob review: one task whose container has many environment
// variables, the shape of a large generated manifest.
std::string LargeJobReview(int variables) {
  nlohmann::json env = nlohmann::json::array();
  for (int i = 0; i < variables; ++i)
    env.push_back({{"name", "VARIABLE_" + std::to_string(i)},
                   {"value", "a-value-of-some-length-" + std::to_string(i * 7919)}});
  nlohmann::json job = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
                        {"kind", "Job"},
                        {"metadata", {{"name", "big"}, {"namespace", "default"}}},
                        {"spec",
                         {{"minAvailable", 1},
                          {"queue", "default"},
                          {"tasks",
                           {{{"name", "worker"},
                             {"replicas", 1},
                             {"template",
                              {{"spec",
                                {{"containers",
                                  {{{"name", "main"},
                                    {"image", "trainer:1"},
                                    {"env", env},
                                    {"resources", {{"requests", {{"cpu", "1"}}}}}}}}}}}}}}}}}};
  nlohmann::json review = {
      {"apiVersion", "admission.k8s.io/v1"},
      {"kind", "AdmissionReview"},
      {"request",
       {{"uid", "big-1"}, {"operation", "CREATE"}, {"namespace", "default"}, {"object", job}}}};
  return review.dump();
}

int64_t ResidentBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  return 0;
}

class WebhookLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("basalt-webhook-limits-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    MakeCert(dir_, "limits", "tls.crt", "tls.key");
    lookup_.SetQueues(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: default}\n"
        "spec: {weight: 1}\n");
    options_.cert_file = (dir_ / "tls.crt").string();
    options_.key_file = (dir_ / "tls.key").string();
  }
  void TearDown() override {
    server_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void StartServer() {
    server_ = std::make_unique<WebhookServer>(options_, &lookup_);
    Status s = server_->Start();
    ASSERT_TRUE(s.ok()) << s.message();
  }

  // An ordinary review (a small Queue); returns its latency, or a huge one
  // when it was not answered 200.
  Clock::duration OrdinaryReview() {
    httplib::SSLClient cli("127.0.0.1", server_->port());
    cli.enable_server_certificate_verification(false);
    cli.set_connection_timeout(5, 0);
    cli.set_read_timeout(5, 0);
    const std::string body =
        R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"q",)"
        R"("operation":"CREATE","object":{"apiVersion":"scheduling.volcano.sh/v1beta1",)"
        R"("kind":"Queue","metadata":{"name":"q1"},"spec":{"weight":1}}}})";
    auto start = Clock::now();
    auto res = cli.Post("/queues/validate", body, "application/json");
    if (!res || res->status != 200) return 1h;
    return Clock::now() - start;
  }

  fs::path dir_;
  FakeLookup lookup_;
  WebhookOptions options_;
  std::unique_ptr<WebhookServer> server_;
};

// A chunked body has no Content-Length to check up front: it must be counted
// as it arrives and refused once past the limit, not read whole (a 1 GiB body
// used to be read to the end, 4.5 GB of memory, before the 413).
TEST_F(WebhookLimitsTest, ChunkedBodyIsRefusedAtTheLimitNotReadWhole) {
  StartServer();
  RawTlsClient client;
  ASSERT_TRUE(client.Connect(server_->port()));
  ASSERT_TRUE(
      client.Write("POST /jobs/validate HTTP/1.1\r\nHost: webhook\r\nContent-Type: "
                   "application/json\r\nTransfer-Encoding: chunked\r\n\r\n"));
  const std::string chunk = "10000\r\n" + std::string(0x10000, ' ') + "\r\n";  // 64 KiB
  const size_t one_gib = size_t{1} << 30, give_up = size_t{32} << 20;
  size_t sent = 0;
  // Stops when the server answers and closes (the next write fails); past
  // 32 MiB the server is reading the body whole, which is the failure. (Not
  // "readable": TLS 1.3 session tickets make the socket readable at once.)
  while (sent < one_gib && sent < give_up && client.Write(chunk)) sent += 0x10000;
  EXPECT_LT(sent, give_up) << "the server kept reading a chunked body past 4x its 8 MiB limit";
  std::string reply = client.ReadFor(3000ms);
  if (!reply.empty()) {
    EXPECT_EQ(reply.substr(0, 12), "HTTP/1.1 413") << reply.substr(0, 200);
  }
  EXPECT_EQ(server_->counters().too_large.load(), 1);
}

TEST_F(WebhookLimitsTest, DeclaredLengthOverTheLimitIsRefusedBeforeTheBody) {
  StartServer();
  RawTlsClient client;
  ASSERT_TRUE(client.Connect(server_->port()));
  ASSERT_TRUE(
      client.Write("POST /jobs/validate HTTP/1.1\r\nHost: webhook\r\nContent-Type: "
                   "application/json\r\nContent-Length: 1073741824\r\n\r\n"));
  std::string reply = client.ReadFor(3000ms);
  EXPECT_EQ(reply.substr(0, 12), "HTTP/1.1 413") << reply.substr(0, 200);
}

// Slow clients (a header byte now and then, or a TLS handshake never
// finished) are cut at the request deadline, and ordinary reviews are
// answered at once meanwhile: eight such clients used to hold every worker.
TEST_F(WebhookLimitsTest, SlowClientsAreCutAndDoNotStopReviews) {
  options_.limits.request_timeout = 1500ms;
  StartServer();
  const int slow = 20;
  std::atomic<int> cut_in_time{0};
  std::vector<std::thread> clients;
  auto start = Clock::now();
  for (int i = 0; i < slow; ++i) {
    clients.emplace_back([&, i] {
      if (i % 4 == 0) {  // connects and never starts TLS
        int fd = ConnectTcp(server_->port());
        if (fd >= 0 && ClosedByPeerWithin(fd, 3500ms)) ++cut_in_time;
        if (fd >= 0) ::close(fd);
        return;
      }
      RawTlsClient client;
      if (!client.Connect(server_->port())) return;
      const std::string header = "POST /queues/validate HTTP/1.1\r\nHost: webhook\r\nX-Slow: ";
      for (size_t b = 0; Clock::now() - start < 3500ms; ++b) {
        if (!client.Write(std::string(1, header[b % header.size()]))) break;
        std::this_thread::sleep_for(100ms);
      }
      if (Clock::now() - start < 3500ms) ++cut_in_time;
    });
  }
  std::this_thread::sleep_for(200ms);
  std::vector<double> latencies;
  for (int i = 0; i < 10; ++i) latencies.push_back(Seconds(OrdinaryReview()));
  for (std::thread& t : clients) t.join();
  for (double l : latencies) EXPECT_LT(l, 1.0) << "an ordinary review waited behind slow clients";
  EXPECT_EQ(cut_in_time.load(), slow) << "slow clients not cut by the 1.5 s request deadline";
}

// One client cannot take every connection: past its cap its connections are
// closed at once, and a slot freed is usable again.
TEST_F(WebhookLimitsTest, ConnectionsOverTheCapsAreRefused) {
  options_.limits.max_connections_per_client = 4;
  StartServer();
  std::vector<int> held;
  for (int i = 0; i < 4; ++i) held.push_back(ConnectTcp(server_->port()));
  std::this_thread::sleep_for(100ms);
  for (int fd : held) EXPECT_FALSE(ClosedByPeerWithin(fd, 50ms));
  int extra = ConnectTcp(server_->port());
  EXPECT_TRUE(ClosedByPeerWithin(extra, 1000ms)) << "a fifth connection was kept";
  ::close(extra);
  for (int fd : held) ::close(fd);
  std::this_thread::sleep_for(100ms);
  EXPECT_LT(Seconds(OrdinaryReview()), 1.0);
}

// The listening socket's local address in /proc/net/tcp ("0100007F" is
// 127.0.0.1, "00000000" every interface).
std::string ListeningAddressOfPort(int port) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  char hex_port[8];
  std::snprintf(hex_port, sizeof(hex_port), ":%04X", port);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    if (state == "0A" && local.ends_with(hex_port)) return local.substr(0, 8);
  }
  return "";
}

TEST_F(WebhookLimitsTest, ListensOnLoopbackUnlessToldOtherwise) {
  StartServer();
  EXPECT_EQ(ListeningAddressOfPort(server_->port()), "0100007F");
}

// Large reviews are answered and their memory given back: each ~2 MB review
// used to leave hundreds of MB behind.
TEST_F(WebhookLimitsTest, LargeReviewsGiveTheirMemoryBack) {
  // Two are reviewed at once, the others wait for a slot: a shared test
  // machine may take seconds per review, and the wait counts as the request's.
  options_.limits.request_timeout = 120s;
  StartServer();
  const std::string body = LargeJobReview(30000);
  ASSERT_GT(body.size(), size_t{1800} << 10);
  ASSERT_EQ(OrdinaryReview() < 1h, true);
  const int64_t before = ResidentBytes();
  std::vector<std::thread> senders;
  std::atomic<int> answered{0};
  for (int i = 0; i < 4; ++i) {
    senders.emplace_back([&] {
      httplib::SSLClient cli("127.0.0.1", server_->port());
      cli.enable_server_certificate_verification(false);
      cli.set_read_timeout(120, 0);
      auto res = cli.Post("/jobs/validate", body, "application/json");
      if (res && res->status == 200 && res->body.find("\"allowed\":true") != std::string::npos)
        ++answered;
    });
  }
  for (std::thread& t : senders) t.join();
  EXPECT_EQ(answered.load(), 4);
  const int64_t growth = ResidentBytes() - before;
  EXPECT_LT(growth, int64_t{64} << 20) << "RSS grew by " << (growth >> 20) << " MiB";
}

}  // namespace
}  // namespace basalt
