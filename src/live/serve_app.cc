#include "live/serve_app.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "api/file_text.h"
#include "api/go_duration.h"
#include "api/log.h"

namespace basalt {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t FileMtime(const std::string& path) {
  std::error_code ec;
  auto t = std::filesystem::last_write_time(path, ec);
  if (ec) return 0;
  return static_cast<int64_t>(t.time_since_epoch().count());
}

std::string DefaultIdentity() {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == 0)
    std::snprintf(host, sizeof(host), "basalt");
  std::random_device rd;
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "%08x", rd());
  return std::string(host) + "_" + suffix;
}

}  // namespace

Result<std::chrono::milliseconds> ParsePeriod(const std::string& text) {
  // A bare number is seconds: the caller's rule on top of Go's grammar.
  const bool bare_number =
      !text.empty() && text.find_first_not_of("0123456789.") == std::string::npos;
  Result<int64_t> nanos = ParseGoDuration(bare_number ? text + "s" : text, "--period");
  constexpr int64_t kNanosPerMilli = 1'000'000;
  constexpr int64_t kMaxNanos = int64_t{86400} * kNanosPerSecond;
  if (!nanos.ok() || *nanos <= 0 || *nanos > kMaxNanos) {
    return Status::InvalidArgument("invalid duration \"" + text +
                                   "\": expected e.g. 500ms, 1s, 2m");
  }
  return std::chrono::milliseconds((*nanos + kNanosPerMilli / 2) / kNanosPerMilli);
}

ServeApp::ServeApp(ServeAppOptions options)
    : options_(std::move(options)),
      clock_(options_.clock ? options_.clock : kube::RealClock::Get()) {
  metrics_.Counter("basalt_api_errors_total",
                   "Failed API calls (each attempt) by HTTP code (0: no reply).", {"code"});
  metrics_.Gauge("basalt_leader", "1 while this replica holds the lease and schedules.");
  metrics_.Gauge("basalt_informer_synced", "1 once a resource's first list is in.", {"resource"});
  metrics_.Counter("basalt_informer_events_total", "Watch events applied.", {"resource"});
  metrics_.Counter("basalt_informer_relists_total", "Relists after 410 Gone.", {"resource"});
  metrics_.Counter("basalt_informer_failures_total", "List/watch failures (then backoff).",
                   {"resource"});
  DeclareServeMetrics(metrics_);
}

ServeApp::~ServeApp() { Stop(); }

std::unique_ptr<kube::Client> ServeApp::MakeClient(ClientRole role) {
  kube::ClientOptions opt;
  opt.server = options_.kubeconfig.server;
  opt.bearer_token = options_.kubeconfig.token;
  opt.user_agent = "basalt/0.1.0";
  opt.qps = options_.request.qps;
  opt.burst = options_.request.burst;
  opt.max_attempts = options_.max_attempts;
  opt.initial_backoff = options_.initial_backoff;
  opt.request_timeout = options_.request_timeout;
  opt.clock = clock_;
  opt.on_error = [this](const kube::ApiError& e) {
    metrics_.Inc("basalt_api_errors_total", {std::to_string(e.code)});
  };
  if (role == ClientRole::kWrites) {
    // A write sent while the lease is fresh must land (or fail) before the
    // lease can expire for the other replicas: bound its time by the margin
    // between the renew deadline and the lease duration (kube/leader.h).
    // After a shutdown's grace nothing more is sent (retries included).
    opt.may_write = [this] {
      return !abort_writes_ && !Interrupted() && (!elector_ || elector_->MayWrite());
    };
    auto margin = std::chrono::duration_cast<std::chrono::milliseconds>(options_.lease_duration -
                                                                        options_.renew_deadline);
    if (options_.request.leader_elect && margin.count() > 0)
      opt.request_timeout = std::min(opt.request_timeout, margin);
  }
  if (role == ClientRole::kLease) {
    // The lease is renewed every retry period; a renew stuck longer than that
    // is worth giving up and trying again.
    opt.qps = 0;  // never queued behind other calls
    opt.max_attempts = 1;
    opt.request_timeout =
        std::min(opt.request_timeout,
                 std::chrono::duration_cast<std::chrono::milliseconds>(options_.retry_period * 2));
  }
  kube::CurlOptions curl;
  curl.tls = options_.kubeconfig.tls;
  if (role == ClientRole::kWatches) curl.cancel = &stop_;
  if (role == ClientRole::kWrites) curl.cancel = &abort_writes_;
  return std::make_unique<kube::Client>(opt, std::make_unique<kube::CurlTransport>(curl));
}

Status ServeApp::Start() {
  const ServeRequest& req = options_.request;
  auto period = ParsePeriod(req.period);
  if (!period.ok()) return period.status().WithContext("--period");
  period_ = *period;
  client_ = MakeClient(ClientRole::kWrites);
  watch_client_ = MakeClient(ClientRole::kWatches);
  lease_client_ = MakeClient(ClientRole::kLease);
  ServeLoopOptions lo;
  lo.scheduler_name = req.scheduler_name;
  lo.bind_parallelism = req.bind_parallelism;
  lo.stopping = [this] { return Interrupted() || stop_.load(); };
  std::string identity = req.identity.empty() ? DefaultIdentity() : req.identity;
  lo.reporting_instance = identity;
  loop_ =
      std::make_unique<ServeLoop>(client_.get(), &state_, &sink_.mutex(), &metrics_, clock_, lo);
  sink_.add_apply_observer([this](const std::string& kind, bool deleted, const std::string& key,
                                  const kube::Json& object, const ClusterState& before) {
    loop_->ObserveObject(kind, deleted, key, object, before);
  });
  const std::string source = req.conf_path.empty() ? "(default configuration)" : req.conf_path;
  BASALT_RETURN_IF_ERROR(loop_->Configure(options_.conf_text, source));
  if (!req.conf_path.empty()) conf_mtime_ = FileMtime(req.conf_path);
  if (req.leader_elect) {
    kube::LeaderOptions lo2;
    lo2.namespace_ = !req.lease_namespace.empty()              ? req.lease_namespace
                     : !options_.kubeconfig.namespace_.empty() ? options_.kubeconfig.namespace_
                                                               : "default";
    lo2.name = req.lease_name;
    lo2.identity = identity;
    lo2.lease_duration = options_.lease_duration;
    lo2.renew_deadline = options_.renew_deadline;
    lo2.retry_period = options_.retry_period;
    lo2.wall_now = options_.wall_now;
    elector_ = std::make_unique<kube::LeaderElector>(lease_client_.get(), lo2, clock_);
  }
  if (!req.listen.empty()) {
    endpoints_.Handle("/healthz", [this] { return Healthz(); });
    endpoints_.Handle("/readyz", [this] { return Readyz(); });
    endpoints_.Handle("/metrics", [this] {
      UpdateInformerMetrics();
      return kube::EndpointReply{200, "text/plain; version=0.0.4; charset=utf-8",
                                 metrics_.Render()};
    });
    BASALT_RETURN_IF_ERROR(endpoints_.Start(req.listen));
  }
  if (req.controllers) {
    LiveControllerOptions co;
    co.scheduler_names = {req.scheduler_name};
    controllers_ = std::make_unique<LiveControllers>(client_.get(), &state_, &sink_, &metrics_, co);
  }
  for (const kube::InformerSpec& spec : kube::DefaultInformerSpecs()) {
    informer_kinds_.push_back(spec.kind);
    informers_.push_back(
        std::make_unique<kube::Informer>(watch_client_.get(), spec, &sink_, options_.informer));
  }
  informer_logged_errors_.assign(informers_.size(), "");
  informer_logged_lists_.assign(informers_.size(), 0);
  if (req.webhook.port != 0) BASALT_RETURN_IF_ERROR(StartWebhook());
  stop_ = false;
  for (auto& inf : informers_) threads_.emplace_back([this, i = inf.get()] { i->Run(stop_); });
  if (elector_ && options_.renew_in_background) threads_.emplace_back([this] { RunLeaseThread(); });
  started_ = true;
  started_at_ = std::chrono::steady_clock::now();
  last_tick_ns_ = NowNs();
  Log("serve").info(
      "msg=started server={} kubeconfig={} scheduler={} period={} lease={} identity={}",
      LogValue(options_.kubeconfig.server), LogValue(options_.kubeconfig.source),
      LogValue(req.scheduler_name), req.period,
      elector_ ? LogValue(elector_->options().namespace_ + "/" + elector_->options().name) : "none",
      LogValue(identity));
  return Status::Ok();
}

// Admission answers on every replica: the queues come from the store once the
// informers have synced, from the API server before.
Status ServeApp::StartWebhook() {
  WebhookOptions options = options_.request.webhook;
  options.admission.scheduler_name = options_.request.scheduler_name;
  webhook_ = std::make_unique<LiveWebhook>(options, MakeClient(ClientRole::kLease),
                                           [this]() -> std::optional<std::vector<Queue>> {
                                             if (!Synced()) return std::nullopt;
                                             return WithState([](const ClusterState& state) {
                                               std::vector<Queue> queues;
                                               for (const auto& [name, q] : state.queues())
                                                 queues.push_back(q);
                                               return queues;
                                             });
                                           });
  return webhook_->Start();
}

bool ServeApp::Synced() {
  for (auto& inf : informers_) {
    if (!inf->synced()) return false;
  }
  return !informers_.empty();
}

bool ServeApp::Ready() { return Synced() && (!elector_ || elector_->known()); }

std::vector<kube::InformerStats> ServeApp::informer_stats() {
  std::vector<kube::InformerStats> out;
  for (auto& inf : informers_) out.push_back(inf->stats());
  return out;
}

void ServeApp::UpdateInformerMetrics() {
  for (size_t i = 0; i < informers_.size(); ++i) {
    kube::InformerStats s = informers_[i]->stats();
    const std::string& kind = informer_kinds_[i];
    metrics_.Set("basalt_informer_synced", {kind}, informers_[i]->synced() ? 1 : 0);
    metrics_.Set("basalt_informer_events_total", {kind}, s.events);
    metrics_.Set("basalt_informer_relists_total", {kind}, s.relists_on_gone);
    metrics_.Set("basalt_informer_failures_total", {kind}, s.failures);
  }
  metrics_.Set("basalt_leader", leader() ? 1 : 0);
}

kube::EndpointReply ServeApp::Healthz() {
  // Alive while the main loop keeps turning (a cycle may take a while; a
  // loop stuck for minutes is worth a restart).
  int64_t idle_ns = NowNs() - last_tick_ns_.load();
  if (started_ && idle_ns > int64_t{300} * 1000000000)
    return {503, "text/plain; charset=utf-8", "main loop stalled\n"};
  return {200, "text/plain; charset=utf-8", "ok\n"};
}

kube::EndpointReply ServeApp::Readyz() {
  std::string body;
  for (size_t i = 0; i < informers_.size(); ++i) {
    kube::InformerStats s = informers_[i]->stats();
    if (!informers_[i]->synced()) {
      body += "informer " + informer_kinds_[i] + " not synced" +
              (s.last_error.empty() ? "" : ": " + s.last_error) + "\n";
    } else if (!informers_[i]->healthy()) {
      body += "informer " + informer_kinds_[i] + " failing: " + s.last_error + "\n";
    }
  }
  if (informers_.empty()) body += "not started\n";
  if (elector_ && !elector_->known()) {
    std::string err = elector_->last_error();
    body += "leader election: lease state unknown" + (err.empty() ? "" : ": " + err) + "\n";
  }
  // Every replica reads the lease each retry period: no answer for a renew
  // deadline means the API server is out of reach (or frozen).
  if (elector_ && elector_->known() &&
      !elector_->Reachable(
          std::chrono::duration_cast<std::chrono::milliseconds>(options_.renew_deadline))) {
    body += "API server not answering: " + elector_->last_error() + "\n";
  }
  if (!body.empty()) return {503, "text/plain; charset=utf-8", body};
  std::string role = !elector_              ? "leader (no leader election)"
                     : elector_->MayWrite() ? "leader"
                                            : "standby (leader: " + elector_->holder() + ")";
  return {200, "text/plain; charset=utf-8", "ok: " + role + "\n"};
}

void ServeApp::ReloadConfIfChanged() {
  const std::string& path = options_.request.conf_path;
  if (path.empty()) return;
  int64_t m = FileMtime(path);
  if (m == 0 || m == conf_mtime_) return;
  conf_mtime_ = m;
  auto text = ReadFileOrError(path, "scheduler configuration");
  Status s = text.ok() ? loop_->Configure(*text, path) : text.status();
  if (!s.ok()) {
    Log("serve").warn("msg=\"configuration not reloaded, keeping the previous one\" error={}",
                      LogValue(s.message()));
    return;
  }
  options_.conf_text = *text;
  Log("serve").info("msg=\"configuration reloaded\" path={}", LogValue(path));
}

std::chrono::milliseconds ServeApp::Tick() {
  last_tick_ns_ = NowNs();
  ReloadConfIfChanged();
  // Report each informer's new errors once (401/403 stay visible in the log
  // and in /readyz rather than being retried silently).
  for (size_t i = 0; i < informers_.size(); ++i) {
    kube::InformerStats stats = informers_[i]->stats();
    if (stats.lists != informer_logged_lists_[i]) {
      informer_logged_lists_[i] = stats.lists;
      Log("serve").info(
          "msg=listed kind={} objects={} pages={} seconds={:.3f} decode_and_apply_seconds={:.3f}",
          informer_kinds_[i], stats.last_list_objects, stats.last_list_pages,
          stats.last_list_seconds, stats.last_list_apply_seconds);
    }
    const std::string& err = stats.last_error;
    if (!err.empty() && err != informer_logged_errors_[i]) {
      if (stats.not_served) {
        Log("serve").info(
            "msg=\"resource not served (CRD not installed?): none of them, checked again "
            "later\" kind={} error={}",
            informer_kinds_[i], LogValue(err));
      } else {
        Log("serve").warn("msg=\"informer error\" kind={} error={}", informer_kinds_[i],
                          LogValue(err));
      }
      informer_logged_errors_[i] = err;
    }
  }
  bool lead = !elector_                      ? true
              : options_.renew_in_background ? elector_->is_leader()
                                             : elector_->Tick();
  metrics_.Set("basalt_leader", lead ? 1 : 0);
  auto now = clock_->Now();
  std::chrono::milliseconds next = period_;
  if (elector_) next = std::min<std::chrono::milliseconds>(next, options_.retry_period);
  if (!lead && controllers_) controllers_->Idle();
  if (!Synced()) return std::min<std::chrono::milliseconds>(next, std::chrono::milliseconds(100));
  if (!logged_synced_) {
    logged_synced_ = true;
    Log("serve").info(
        "msg=\"informers synced\" seconds_since_start={:.3f}",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_at_).count());
  }
  if (!lead) return std::min<std::chrono::milliseconds>(next, std::chrono::milliseconds(100));
  if (ever_cycled_ && now - last_cycle_ < period_) {
    return std::min(
        next, std::chrono::duration_cast<std::chrono::milliseconds>(period_ - (now - last_cycle_)));
  }
  ever_cycled_ = true;
  last_cycle_ = now;
  if (controllers_) {
    // Wall time: the controllers' timers (policy timeouts, TTLs) count real
    // seconds against the objects' creation timestamps.
    int64_t wall = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
    ControllerPassSummary pass = controllers_->Sync(wall);
    if (pass.creates || pass.deletes || pass.updates || pass.failures) {
      Log("controllers")
          .info("msg=pass created={} deleted={} updated={} adopted={} failed={}", pass.creates,
                pass.deletes, pass.updates, pass.adopted, pass.failures);
    }
  }
  CycleSummary sum = loop_->RunCycle();
  if (controllers_) {
    // Binds first: while binds queue for a worker, one slice per cycle, so
    // the bookkeeping still moves but never competes with them for long.
    ControllerPassSummary pass = controllers_->ApplyDeferred(
        loop_->binds_waiting() ? std::chrono::milliseconds(0) : period_ / 2);
    if (pass.creates || pass.updates || pass.failures) {
      Log("controllers")
          .info("msg=\"pass, bare pods' bookkeeping\" created={} updated={} adopted={} failed={}",
                pass.creates, pass.updates, pass.adopted, pass.failures);
    }
  }
  if (sum.binds_sent || sum.binds || sum.evictions || sum.evictions_blocked || sum.bind_conflicts ||
      sum.bind_failures || sum.api_failures) {
    Log("serve").info(
        "msg=cycle cycle={} binds_sent={} bound={} bind_conflicts={} bind_failures={} "
        "in_flight={} evicted={} evictions_blocked={} api_failures={} pending={} seconds={:.3f}",
        sum.cycle, sum.binds_sent, sum.binds, sum.bind_conflicts, sum.bind_failures,
        loop_->binds_in_flight(), sum.evictions, sum.evictions_blocked, sum.api_failures,
        sum.pending, sum.seconds);
  }
  summaries_.push_back(std::move(sum));
  if (summaries_.size() > 64) summaries_.erase(summaries_.begin());
  return next;
}

void ServeApp::AwaitBinds(std::chrono::milliseconds limit) {
  CycleSummary answers = loop_->AwaitBinds(limit);
  if (summaries_.empty()) summaries_.emplace_back();
  CycleSummary& last = summaries_.back();
  last.binds += answers.binds;
  last.bind_conflicts += answers.bind_conflicts;
  last.bind_failures += answers.bind_failures;
  last.events += answers.events;
  last.api_failures += answers.api_failures;
  last.errors.insert(last.errors.end(), answers.errors.begin(), answers.errors.end());
}

void ServeApp::RunLeaseThread() {
  while (!stop_.load()) {
    elector_->Tick();
    // Tick attempts at most once per retry period; waking often keeps the
    // step-down at the renew deadline prompt.
    for (int i = 0; i < 10 && !stop_.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// SIGTERM: take no new work; binds on the wire get a moment to be answered
// (a bind cut short either landed or did not — the next leader reads the pod
// and never binds it twice); then the lease is released so a standby takes
// over at once instead of waiting for it to expire.
void ServeApp::Stop() {
  if (!started_) return;
  started_ = false;
  stop_ = true;
  // Whatever is still on the wire after the grace is aborted.
  if (loop_) loop_->Shutdown(options_.shutdown_grace, [this] { abort_writes_ = true; });
  for (auto& t : threads_) t.join();
  threads_.clear();
  if (elector_) elector_->Release();
  if (webhook_) webhook_->Stop();
  endpoints_.Stop();
}

}  // namespace basalt
