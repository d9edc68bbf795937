// basalt_webhook_bench: the admission webhook under attack (bench/README.md,
// "Webhook under load"). The server (live/webhook_server.h, default limits)
// runs in a child process; this process sends `--requests` AdmissionReviews of
// `--body-mb` MB from `--senders` connections, keeps `--slow` clients sending
// one header byte a second (reconnecting when cut), and meanwhile sends an
// ordinary review every 100 ms. It prints one JSON object: the server's peak
// RSS, the ordinary reviews' latencies throughout, wall and CPU seconds.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "api/decode.h"
#include "live/webhook_server.h"

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;
using namespace std::chrono_literals;

struct Flags {
  int requests = 1000;
  double body_mb = 2;
  int senders = 4;
  int slow = 20;
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string name = argv[i];
    double v = std::stod(argv[i + 1]);
    if (name == "--requests")
      f.requests = static_cast<int>(v);
    else if (name == "--body-mb")
      f.body_mb = v;
    else if (name == "--senders")
      f.senders = static_cast<int>(v);
    else if (name == "--slow")
      f.slow = static_cast<int>(v);
    else {
      std::cerr << "usage: basalt_webhook_bench [--requests 1000] [--body-mb 2] [--senders 4] "
                   "[--slow 20]\n";
      std::exit(2);
    }
  }
  return f;
}

// ---- the server, in a child process ----

class OneQueue : public basalt::AdmissionLookup {
 public:
  basalt::Result<std::vector<basalt::Queue>> Queues() override {
    basalt::ClusterObjects objs;
    basalt::Status s = basalt::DecodeText(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: default}\n"
        "spec: {weight: 1}\n",
        "queues.yaml", &objs);
    if (!s.ok()) return s;
    return objs.queues;
  }
  std::optional<std::map<std::string, std::string>> NamespaceAnnotations(
      const std::string&) override {
    return std::map<std::string, std::string>{};
  }
  basalt::Result<std::vector<basalt::HyperNode>> HyperNodes() override {
    return std::vector<basalt::HyperNode>{};
  }
};

// Serves until the parent closes `done`; writes the port to `ready`.
[[noreturn]] void RunServer(const std::string& dir, int ready, int done) {
  OneQueue lookup;
  basalt::WebhookOptions options;
  options.cert_file = dir + "/tls.crt";
  options.key_file = dir + "/tls.key";
  basalt::WebhookServer server(options, &lookup);
  basalt::Status s = server.Start();
  int port = s.ok() ? server.port() : 0;
  if (write(ready, &port, sizeof(port)) != sizeof(port) || port == 0) _exit(1);
  char c;
  while (read(done, &c, 1) > 0) {
  }
  server.Stop();
  _exit(0);
}

// ---- the clients ----

int ConnectTcp(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  timeval tv{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

class TlsConnection {
 public:
  explicit TlsConnection(SSL_CTX* ctx) : ssl_(SSL_new(ctx)) {}
  ~TlsConnection() {
    SSL_free(ssl_);
    if (fd_ >= 0) close(fd_);
  }
  bool Connect(int port) {
    fd_ = ConnectTcp(port);
    if (fd_ < 0) return false;
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
  // One response (Content-Length framed); its status, 0 on failure.
  int ReadResponse() {
    std::string in;
    char buf[16384];
    size_t header_end = std::string::npos, want = 0;
    while (true) {
      if (header_end == std::string::npos) {
        header_end = in.find("\r\n\r\n");
        if (header_end != std::string::npos) {
          auto at = in.find("Content-Length: ");
          if (at == std::string::npos) at = in.find("content-length: ");
          want = header_end + 4 + (at == std::string::npos ? 0 : std::stoul(in.substr(at + 16)));
        }
      }
      if (header_end != std::string::npos && in.size() >= want) break;
      int n = SSL_read(ssl_, buf, sizeof(buf));
      if (n <= 0) return 0;
      in.append(buf, static_cast<size_t>(n));
    }
    return in.size() > 12 ? std::atoi(in.c_str() + 9) : 0;
  }
  int Post(const std::string& path, const std::string& body) {
    std::string head = "POST " + path +
                       " HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\n"
                       "Content-Length: " +
                       std::to_string(body.size()) + "\r\n\r\n";
    if (!Write(head) || !Write(body)) return 0;
    return ReadResponse();
  }

 private:
  SSL* ssl_;
  int fd_ = -1;
};

std::string Review(const Json& object, const std::string& uid) {
  return Json{
      {"apiVersion", "admission.k8s.io/v1"},
      {"kind", "AdmissionReview"},
      {"request",
       {{"uid", uid}, {"operation", "CREATE"}, {"namespace", "default"}, {"object", object}}}}
      .dump();
}

// A vcjob of about `bytes`: one container with many environment variables.
std::string LargeJobReview(size_t bytes) {
  Json env = Json::array();
  for (size_t i = 0; env.dump().size() < bytes && i < 10'000'000; ++i) {
    for (int k = 0; k < 1000; ++k, ++i)
      env.push_back({{"name", "VARIABLE_" + std::to_string(i)},
                     {"value", "a-value-of-some-length-" + std::to_string(i * 7919)}});
  }
  Json container = {{"name", "main"}, {"image", "trainer:1"}, {"env", env}};
  Json job = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
              {"kind", "Job"},
              {"metadata", {{"name", "big"}, {"namespace", "default"}}},
              {"spec",
               {{"minAvailable", 1},
                {"queue", "default"},
                {"tasks",
                 {{{"name", "worker"},
                   {"replicas", 1},
                   {"template", {{"spec", {{"containers", {container}}}}}}}}}}}};
  return Review(job, "large");
}

std::string QueueReview() {
  return Review({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                 {"kind", "Queue"},
                 {"metadata", {{"name", "q1"}}},
                 {"spec", {{"weight", 1}}}},
                "ordinary");
}

struct ProcessStats {
  int64_t rss = 0, hwm = 0;
  double cpu_seconds = 0;
};

ProcessStats ReadStats(pid_t pid) {
  ProcessStats s;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) s.rss = std::stoll(line.substr(6)) * 1024;
    if (line.rfind("VmHWM:", 0) == 0) s.hwm = std::stoll(line.substr(6)) * 1024;
  }
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(stat)), {});
  std::istringstream rest(all.substr(all.rfind(')') + 2));
  std::string field;
  std::vector<std::string> fields;
  while (rest >> field) fields.push_back(field);
  if (fields.size() > 12)
    s.cpu_seconds =
        (std::stod(fields[11]) + std::stod(fields[12])) / static_cast<double>(sysconf(_SC_CLK_TCK));
  return s;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags = ParseFlags(argc, argv);
  std::string dir =
      std::filesystem::temp_directory_path() / ("basalt-webhook-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string cert =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
      "-days 1 -subj /CN=bench -keyout " +
      dir + "/tls.key -out " + dir + "/tls.crt >/dev/null 2>&1";
  if (std::system(cert.c_str()) != 0) return 1;
  int ready[2], done[2];
  if (pipe(ready) != 0 || pipe(done) != 0) return 1;
  pid_t child = fork();  // before any thread of this process
  if (child == 0) {
    close(ready[0]);
    close(done[1]);
    RunServer(dir, ready[1], done[0]);
  }
  close(ready[1]);
  close(done[0]);
  int port = 0;
  if (read(ready[0], &port, sizeof(port)) != sizeof(port) || port == 0) {
    std::cerr << "basalt_webhook_bench: the server did not start\n";
    return 1;
  }
  signal(SIGPIPE, SIG_IGN);
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  const std::string large = LargeJobReview(static_cast<size_t>(flags.body_mb * 1e6));
  const std::string ordinary = QueueReview();
  const ProcessStats start_stats = ReadStats(child);
  const auto start = Clock::now();
  std::atomic<bool> stop{false};
  std::atomic<int> next_request{0}, large_ok{0}, slow_cut{0};
  int64_t peak_rss = 0;
  std::vector<double> latencies;
  int probe_failures = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < flags.senders; ++i) {
    threads.emplace_back([&] {
      auto conn = std::make_unique<TlsConnection>(ctx);
      bool connected = conn->Connect(port);
      while (next_request.fetch_add(1) < flags.requests) {
        int status = connected ? conn->Post("/jobs/validate", large) : 0;
        if (status == 200) ++large_ok;
        if (status != 200) {  // a cut connection: a new one for the next request
          conn = std::make_unique<TlsConnection>(ctx);
          connected = conn->Connect(port);
        }
      }
    });
  }
  for (int i = 0; i < flags.slow; ++i) {
    threads.emplace_back([&] {
      const std::string header = "POST /queues/validate HTTP/1.1\r\nHost: webhook\r\nX-Slow: ";
      while (!stop) {
        TlsConnection conn(ctx);
        if (conn.Connect(port))
          for (size_t b = 0; !stop && conn.Write(std::string(1, header[b % header.size()])); ++b)
            std::this_thread::sleep_for(1s);
        if (!stop) ++slow_cut;
      }
    });
  }
  std::thread probe([&] {
    while (!stop) {
      auto t0 = Clock::now();
      TlsConnection conn(ctx);
      int status = conn.Connect(port) ? conn.Post("/queues/validate", ordinary) : 0;
      double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      if (status == 200)
        latencies.push_back(seconds);
      else
        ++probe_failures;
      std::this_thread::sleep_for(100ms);
    }
  });
  while (next_request.load() < flags.requests + flags.senders) {
    peak_rss = std::max(peak_rss, ReadStats(child).rss);
    std::this_thread::sleep_for(50ms);
  }
  for (int i = 0; i < flags.senders; ++i) threads[static_cast<size_t>(i)].join();
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  stop = true;
  for (size_t i = static_cast<size_t>(flags.senders); i < threads.size(); ++i) threads[i].join();
  probe.join();
  const ProcessStats end_stats = ReadStats(child);
  close(done[1]);
  int status = 0;
  waitpid(child, &status, 0);
  std::filesystem::remove_all(dir);
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  Json out = {
      {"requests", flags.requests},
      {"body_bytes", large.size()},
      {"large_answered_200", large_ok.load()},
      {"slow_clients", flags.slow},
      {"slow_connections_cut", slow_cut.load()},
      {"server_rss_start_bytes", start_stats.rss},
      {"server_peak_rss_bytes", std::max(peak_rss, end_stats.hwm)},
      {"server_rss_end_bytes", end_stats.rss},
      {"ordinary_reviews", latencies.size()},
      {"ordinary_failures", probe_failures},
      {"ordinary_latency_seconds",
       {{"p50", Percentile(latencies, 0.5)},
        {"p99", Percentile(latencies, 0.99)},
        {"max", latencies.empty() ? 0 : *std::max_element(latencies.begin(), latencies.end())}}},
      {"wall_seconds", wall},
      {"server_cpu_seconds", end_stats.cpu_seconds - start_stats.cpu_seconds},
      {"load_average", {load[0], load[1], load[2]}},
  };
  std::cout << out.dump(2) << "\n";
  return 0;
}
