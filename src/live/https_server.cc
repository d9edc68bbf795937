#include "live/https_server.h"

#include <malloc.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "api/log.h"
#include "live/connection_limits.h"

namespace basalt {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

const char kTls12Ciphers[] =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

namespace {

constexpr int kIoThreads = 2;
constexpr auto kWarningInterval = std::chrono::seconds(1);
constexpr auto kLargeSlotPoll = std::chrono::milliseconds(20);
constexpr auto kStopGrace = std::chrono::seconds(5);

std::string ToString(beast::string_view s) { return std::string(s.data(), s.size()); }

}  // namespace

struct HttpsServer::Impl {
  Impl(std::string component_name, HttpsLimits server_limits, HttpsHandler server_handler)
      : component(std::move(component_name)),
        limits(server_limits),
        handler(std::move(server_handler)),
        slots(limits.max_connections, limits.max_connections_per_client),
        refusals(component, kWarningInterval),
        deadlines(component, kWarningInterval),
        oversized(component, kWarningInterval),
        ordinary(static_cast<size_t>(std::max(1, limits.ordinary_workers))),
        large(static_cast<size_t>(std::max(1, limits.max_large_requests))) {}

  bool TryAcquireLarge() {
    int n = large_in_flight.load();
    while (n < limits.max_large_requests)
      if (large_in_flight.compare_exchange_weak(n, n + 1)) return true;
    return false;
  }
  void ReleaseLarge() {
    // The body and the handler's allocations are gone: give their pages back
    // (glibc keeps freed memory in per-thread arenas otherwise).
    if (large_in_flight.fetch_sub(1) == 1) malloc_trim(0);
  }

  HttpsReply Handle(const HttpsRequest& request) {
    try {
      return handler(request);
    } catch (const std::exception& e) {
      Log(component).error("msg=\"handler failed\" path={} error={}", LogValue(request.path),
                           LogValue(e.what()));
      return {500, "text/plain; charset=utf-8", "internal error\n"};
    }
  }

  void Accept();
  void OnAccept(tcp::socket socket);

  const std::string component;
  const HttpsLimits limits;
  const HttpsHandler handler;
  TlsSetup tls_setup;
  HttpsCounters counters;
  std::atomic<int> replies_pending{0};  // handled, not yet written (Stop waits for them)
  ConnectionSlots slots;
  ThrottledWarning refusals, deadlines, oversized;
  std::atomic<int> large_in_flight{0};
  ssl::context tls{ssl::context::tls_server};
  asio::thread_pool ordinary, large;
  asio::io_context io;  // after what its handlers use: destroyed first
  std::optional<tcp::acceptor> acceptor;
  std::vector<std::thread> io_threads;
};

namespace {

// One client connection: handshake, then requests one at a time, each read
// within the deadline, handled on a worker lane, answered.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, HttpsServer::Impl& server, std::string client)
      : stream_(beast::tcp_stream(std::move(socket)), server.tls),
        server_(server),
        client_(std::move(client)),
        timer_(stream_.get_executor()) {}
  ~Connection() {
    if (holds_large_) server_.ReleaseLarge();
    server_.slots.Release(client_);
  }

  void Start() {
    BeginDeadline();
    stream_.async_handshake(ssl::stream_base::server,
                            [self = shared_from_this()](beast::error_code ec) {
                              if (ec) return self->OnReadError(ec, "TLS handshake");
                              self->ReadHeader();
                            });
  }

 private:
  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }

  // Everything until the body's last byte must arrive by this deadline.
  void BeginDeadline() {
    deadline_ = std::chrono::steady_clock::now() + server_.limits.request_timeout;
    Lowest().expires_at(deadline_);
  }

  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_.limits.max_header_bytes));
    parser_->body_limit(server_.limits.max_body_bytes);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (ec) return self->OnReadError(ec, "request header");
                              self->OnHeader();
                            });
  }

  void OnHeader() {
    auto length = parser_->content_length();  // empty: chunked, or no body
    bool large = parser_->chunked() || (length && *length > server_.limits.large_body_bytes);
    if (large) return WaitForLargeSlot();
    ReadBody();
  }

  // A large body is read only when a large slot is free; the wait counts
  // against the request's deadline.
  void WaitForLargeSlot() {
    if (server_.TryAcquireLarge()) {
      holds_large_ = true;
      return ReadBody();
    }
    if (std::chrono::steady_clock::now() >= deadline_)
      return OnReadError(beast::error::timeout, "waiting for a large-request slot");
    timer_.expires_after(kLargeSlotPoll);
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->Close();
      self->WaitForLargeSlot();
    });
  }

  void ReadBody() {
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) return self->OnReadError(ec, "request body");
                       self->Dispatch();
                     });
  }

  // The handler runs on a worker lane, never on the I/O threads.
  void Dispatch() {
    Lowest().expires_never();
    auto& message = parser_->get();
    HttpsRequest request;
    request.method = ToString(message.method_string());
    std::string target = ToString(message.target());
    request.path = target.substr(0, target.find('?'));
    request.body = std::move(message.body());
    request.client = client_;
    keep_alive_ = message.keep_alive();
    version_ = message.version();
    parser_.reset();
    ++server_.replies_pending;
    auto& lane = holds_large_ ? server_.large : server_.ordinary;
    asio::post(lane, [self = shared_from_this(), request = std::move(request)]() mutable {
      HttpsReply reply = self->server_.Handle(request);
      request = HttpsRequest();
      if (self->holds_large_) {
        self->holds_large_ = false;
        self->server_.ReleaseLarge();
      }
      asio::post(self->stream_.get_executor(), [self, reply = std::move(reply)]() mutable {
        self->counts_as_pending_ = true;
        self->Write(std::move(reply));
      });
    });
  }

  void OnReadError(beast::error_code ec, const char* stage) {
    const std::string where = "client=" + LogValue(client_) + " stage=" + LogValue(stage);
    if (ec == http::error::body_limit) {
      ++server_.counters.too_large;
      server_.oversized.Warn("msg=\"request refused: body too large\" " + where +
                             " limit_bytes=" + std::to_string(server_.limits.max_body_bytes));
      return Refuse(
          413, "request body over " + std::to_string(server_.limits.max_body_bytes) + " bytes");
    }
    if (ec == http::error::header_limit) {
      server_.oversized.Warn("msg=\"request refused: header too large\" " + where);
      return Refuse(431, "request header too large");
    }
    if (ec == beast::error::timeout) {
      ++server_.counters.timed_out;
      server_.deadlines.Warn(
          "msg=\"connection cut: request not received in time\" " + where +
          " deadline_ms=" + std::to_string(server_.limits.request_timeout.count()));
      return Close();
    }
    if (ec == http::error::end_of_stream || ec == asio::error::eof ||
        ec == ssl::error::stream_truncated || ec == asio::error::connection_reset ||
        ec == asio::error::operation_aborted)
      return Close();
    if (ec.category() == http::make_error_code(http::error::bad_method).category())
      return Refuse(400, "malformed HTTP request: " + ec.message());
    Log(server_.component)
        .debug("msg=\"connection closed\" {} error={}", where, LogValue(ec.message()));
    Close();
  }

  // Answers and closes: what follows on the connection is not read.
  void Refuse(int status, std::string message) {
    parser_.reset();
    keep_alive_ = false;
    Write({status, "text/plain; charset=utf-8", message + "\n"});
  }

  void Write(HttpsReply reply) {
    auto response = std::make_shared<http::response<http::string_body>>();
    response->version(version_);
    response->result(static_cast<unsigned>(reply.status));
    response->set(http::field::content_type, reply.content_type);
    response->body() = std::move(reply.body);
    response->keep_alive(keep_alive_);
    response->prepare_payload();
    Lowest().expires_after(server_.limits.request_timeout);
    http::async_write(stream_, *response,
                      [self = shared_from_this(), response](beast::error_code ec, size_t) {
                        if (self->counts_as_pending_) --self->server_.replies_pending;
                        self->counts_as_pending_ = false;
                        if (ec) return self->Close();
                        ++self->server_.counters.answered;
                        if (!self->keep_alive_) return self->Close();
                        self->WaitForNextRequest();
                      });
  }

  // A kept-alive connection may wait `idle_timeout` for its next request's
  // first byte; from then on the request deadline runs.
  void WaitForNextRequest() {
    if (buffer_.size() > 0) {
      BeginDeadline();
      return ReadHeader();
    }
    Lowest().expires_after(server_.limits.idle_timeout);
    stream_.async_read_some(buffer_.prepare(4096),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->Close();
                              self->buffer_.commit(n);
                              self->BeginDeadline();
                              self->ReadHeader();
                            });
  }

  void Close() {
    beast::error_code ignored;
    timer_.cancel();
    Lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    Lowest().close();
  }

  beast::ssl_stream<beast::tcp_stream> stream_;
  HttpsServer::Impl& server_;
  const std::string client_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::chrono::steady_clock::time_point deadline_{};
  bool holds_large_ = false;
  bool counts_as_pending_ = false;  // the reply being written is counted in replies_pending
  bool keep_alive_ = true;
  unsigned version_ = 11;
};

}  // namespace

void HttpsServer::Impl::Accept() {
  acceptor->async_accept(asio::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
    if (!acceptor->is_open()) return;
    if (!ec) OnAccept(std::move(socket));
    Accept();
  });
}

void HttpsServer::Impl::OnAccept(tcp::socket socket) {
  beast::error_code ec;
  tcp::endpoint remote = socket.remote_endpoint(ec);
  if (ec) return;
  std::string client = remote.address().to_string();
  std::string refused = slots.TryAcquire(client);
  if (!refused.empty()) {
    ++counters.refused_connections;
    refusals.Warn("msg=\"connection refused\" client=" + LogValue(client) +
                  " reason=" + LogValue(refused));
    socket.close(ec);
    return;
  }
  std::make_shared<Connection>(std::move(socket), *this, std::move(client))->Start();
}

HttpsServer::HttpsServer(std::string component, HttpsLimits limits, TlsSetup tls,
                         HttpsHandler handler)
    : impl_(std::make_unique<Impl>(std::move(component), limits, std::move(handler))) {
  impl_->tls_setup = std::move(tls);
}

HttpsServer::~HttpsServer() { Stop(); }

const HttpsCounters& HttpsServer::counters() const { return impl_->counters; }

Status HttpsServer::Start(const std::string& address, int port) {
  SSL_CTX* ctx = impl_->tls.native_handle();
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(
      ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) != 1)
    return Status::Internal("TLS: no usable cipher suite");
  if (impl_->tls_setup) BASALT_RETURN_IF_ERROR(impl_->tls_setup(ctx));
  beast::error_code ec;
  asio::ip::address ip = asio::ip::make_address(address, ec);
  if (ec) return Status::InvalidArgument(address + ": not an IP address");
  tcp::endpoint endpoint(ip, static_cast<unsigned short>(std::max(port, 0)));
  auto& acceptor = impl_->acceptor.emplace(impl_->io);
  const std::string where = address + ":" + std::to_string(port);
  if (acceptor.open(endpoint.protocol(), ec) ||
      acceptor.set_option(asio::socket_base::reuse_address(true), ec) ||
      acceptor.bind(endpoint, ec) || acceptor.listen(impl_->limits.listen_backlog, ec)) {
    impl_->acceptor.reset();
    return Status::InvalidArgument("cannot listen on " + where + ": " + ec.message());
  }
  port_ = acceptor.local_endpoint().port();
  impl_->Accept();
  for (int i = 0; i < kIoThreads; ++i) impl_->io_threads.emplace_back([this] { impl_->io.run(); });
  return Status::Ok();
}

void HttpsServer::Stop() {
  if (!impl_ || !impl_->acceptor) return;
  asio::post(impl_->io, [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor->close(ignored);
  });
  // Handlers in progress finish; their replies are sent if the I/O threads
  // get to them within the grace.
  impl_->ordinary.join();
  impl_->large.join();
  auto give_up = std::chrono::steady_clock::now() + kStopGrace;
  while (impl_->replies_pending.load() > 0 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  impl_->io.stop();
  for (std::thread& t : impl_->io_threads) t.join();
  impl_->io_threads.clear();
  impl_->acceptor.reset();
}

}  // namespace basalt
