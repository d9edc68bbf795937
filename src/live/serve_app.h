// The live process behind `basalt serve`: the scheduler on a Kubernetes API server (docs/serve.md).
//
//   informers (one thread each) -> ClusterState <- ServeLoop (the leader's cycles)
//   LeaderElector (Lease)          EndpointServer (/healthz /readyz /metrics)
//
// `ServeApp` is the whole process minus signals and real time: `Tick` does one
// round of the main loop (configuration reload, lease, cycle when due) on an
// injectable clock, so tests drive it step by step against a loopback server.
// `RunServe` (cli/serve.h) wraps it for the CLI: exit code 2 on a bad kubeconfig, flag or
// configuration; SIGTERM/SIGINT finish the cycle, release the lease and exit 0.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/client.h"
#include "kube/endpoint_server.h"
#include "kube/informer.h"
#include "kube/kubeconfig.h"
#include "kube/leader.h"
#include "kube/metrics.h"
#include "live/live_controllers.h"
#include "live/serve_loop.h"
#include "live/webhook_lookup.h"
#include "state/cluster_state.h"

namespace basalt {

struct ServeRequest {
  std::string kubeconfig;  // empty: $KUBECONFIG, else in-cluster
  std::string context;
  std::string conf_path;  // empty: Volcano's default configuration
  std::string period = "1s";
  std::string listen = "127.0.0.1:8080";
  bool leader_elect = true;
  std::string lease_namespace;  // empty: the kubeconfig's namespace, else "default"
  std::string lease_name = "basalt";
  std::string scheduler_name = "volcano";
  std::string identity;  // empty: "<hostname>_<random>"
  // Volcano's scheduler defaults (--kube-api-qps / --kube-api-burst): a
  // scheduler binds in bursts and must not be throttled below what the API
  // server accepts.
  double qps = 2000;
  int burst = 2000;
  int bind_parallelism = 128;
  // Run the vcjob, PodGroup and Queue controllers (live/live_controllers.h);
  // off when Volcano's controller manager runs beside basalt.
  bool controllers = true;
  WebhookOptions webhook;  // port 0: no admission webhooks (docs/webhooks.md)
};

// The cycle period: a Go duration ("500ms", "1s", "1.5s", "2m", "1h30m") or,
// as the flag has always taken, a bare decimal number of seconds ("2", "0.5");
// more than zero and at most a day, rounded to the nearest millisecond.
Result<std::chrono::milliseconds> ParsePeriod(const std::string& text);

struct ServeAppOptions {
  ServeRequest request;
  kube::KubeConfig kubeconfig;
  std::string conf_text;         // as read from request.conf_path (reloaded when the file changes)
  kube::Clock* clock = nullptr;  // null: real time
  kube::InformerOptions informer;
  // Lease timing (defaults: 15 s / 10 s / 2 s).
  std::chrono::seconds lease_duration{15};
  std::chrono::seconds renew_deadline{10};
  std::chrono::seconds retry_period{2};
  std::function<std::string()> wall_now;  // lease MicroTimes; null: system clock
  // Renew the lease from a thread of its own (`basalt serve`); off, `Tick`
  // renews (tests drive the lease step by step on a manual clock).
  bool renew_in_background = false;
  // Client retry tuning (tests shorten the backoff).
  int max_attempts = 5;
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds request_timeout{30000};
  // On Stop: how long binds on the wire and queued events may still take.
  std::chrono::milliseconds shutdown_grace{2000};
  // Set (by a signal handler) when the process must stop: from then on no new
  // write is sent, even by the cycle in progress. Null: only Stop stops.
  const std::atomic<bool>* interrupted = nullptr;
};

class ServeApp {
 public:
  explicit ServeApp(ServeAppOptions options);
  ~ServeApp();

  // Checks the configuration, starts the informers and (when `listen` is not
  // empty) the endpoint server. Errors are user errors (exit 2).
  Status Start();
  // One round: reload the configuration if its file changed, tick the lease,
  // run a cycle when leading, synced and a period has passed. Returns the
  // time until the next round is due.
  std::chrono::milliseconds Tick();
  // Stops the informers, releases the lease, stops the endpoints.
  void Stop();
  // Waits (at most `limit`) for the binds on the wire and adds their answers
  // to the last cycle's summary (tests step through cycles with it).
  void AwaitBinds(std::chrono::milliseconds limit);

  bool Synced();
  bool Ready();
  bool leader() const { return elector_ ? elector_->is_leader() : true; }
  kube::Metrics& metrics() { return metrics_; }
  ServeLoop& loop() { return *loop_; }
  kube::LeaderElector* elector() { return elector_.get(); }
  int endpoint_port() const { return endpoints_.port(); }
  int webhook_port() const { return webhook_ ? webhook_->port() : 0; }
  const std::vector<CycleSummary>& summaries() const { return summaries_; }
  // Runs `fn` with the store locked (tests inspect it).
  template <typename Fn>
  auto WithState(Fn fn) {
    std::lock_guard<std::mutex> lock(sink_.mutex());
    return fn(static_cast<const ClusterState&>(state_));
  }
  std::vector<kube::InformerStats> informer_stats();

 private:
  enum class ClientRole { kWrites, kWatches, kLease };
  std::unique_ptr<kube::Client> MakeClient(ClientRole role);
  bool Interrupted() const { return options_.interrupted && options_.interrupted->load(); }
  void RunLeaseThread();
  Status StartWebhook();
  void ReloadConfIfChanged();
  void UpdateInformerMetrics();
  kube::EndpointReply Readyz();
  kube::EndpointReply Healthz();

  ServeAppOptions options_;
  kube::Clock* clock_;
  std::chrono::milliseconds period_{1000};
  kube::Metrics metrics_;
  ClusterState state_;
  kube::StateSink sink_{&state_};
  std::atomic<bool> stop_{false};
  std::atomic<bool> abort_writes_{false};       // set at the end of a shutdown's grace
  std::unique_ptr<kube::Client> client_;        // binds, evictions, status, events (fenced)
  std::unique_ptr<kube::Client> watch_client_;  // lists and watches (cut by stop_)
  std::unique_ptr<kube::Client> lease_client_;  // the lease alone: never waits behind writes
  std::vector<std::unique_ptr<kube::Informer>> informers_;
  std::vector<std::string> informer_kinds_;
  std::vector<std::string> informer_logged_errors_;
  std::vector<int> informer_logged_lists_;
  bool logged_synced_ = false;
  std::chrono::steady_clock::time_point started_at_{};
  std::vector<std::thread> threads_;
  std::unique_ptr<ServeLoop> loop_;
  std::unique_ptr<LiveControllers> controllers_;  // null with --controllers=false
  std::unique_ptr<kube::LeaderElector> elector_;
  kube::EndpointServer endpoints_;
  bool started_ = false;
  bool ever_cycled_ = false;
  std::chrono::steady_clock::time_point last_cycle_{};
  std::atomic<int64_t> last_tick_ns_{0};  // real time, for /healthz
  int64_t conf_mtime_ = 0;
  std::vector<CycleSummary> summaries_;   // the last few (tests, logs)
  std::unique_ptr<LiveWebhook> webhook_;  // on every replica, leader or not
};

}  // namespace basalt
