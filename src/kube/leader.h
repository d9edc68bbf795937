// Leader election on a coordination.k8s.io/v1 Lease, so that of several
// `basalt serve` replicas exactly one schedules.
//
// The protocol (the one every Kubernetes component follows, implemented here
// from its observable behaviour):
//   - A lease names its holder (`spec.holderIdentity`), how long a holder's
//     claim lasts (`leaseDurationSeconds`) and when it last renewed
//     (`renewTime`). Writes carry the lease's resourceVersion, so two
//     candidates racing for it cannot both win: the loser gets 409.
//   - A candidate GETs the lease. Absent (404): it creates it (409
//     AlreadyExists: someone was faster). Held by another: the holder is valid
//     while the lease keeps changing; the candidate measures expiry on its
//     *own* clock from the moment it last saw the record change (never by
//     comparing its clock with the holder's `renewTime`, which would make clock
//     skew decide leadership). Expired, free (empty holder) or our own: PUT
//     the lease with us as holder (409 Conflict: lost the race).
//   - The leader renews every `retry_period`. If it has not renewed
//     successfully for `renew_deadline` (< lease duration) it steps down on
//     its own, before anybody else can take over: a non-leader schedules
//     nothing, so there is never a moment with two leaders scheduling.
//   - On shutdown the leader releases the lease (empty holder, duration 1 s),
//     so a standby takes over at once instead of waiting out the duration.
//
// Renewal must never wait for other work: `basalt serve` calls `Tick` from a
// thread of its own, so a long scheduling cycle cannot outlast the lease.
// Writes are fenced: `MayWrite` is true only while the last successful renew
// (timed from *before* its request was sent) is younger than `renew_deadline`.
// A replica that cannot renew therefore stops writing at least
// `lease_duration - renew_deadline` before anybody else may take over; the
// owner bounds each write's request time below that margin, so no write
// issued under the fence can land after the lease could have expired.
//
// All timing is on an injectable `Clock`; tests call `Tick` by hand with a
// manual clock.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>

#include "kube/client.h"

namespace basalt::kube {

struct LeaderOptions {
  std::string namespace_ = "default";
  std::string name = "basalt";
  std::string identity;  // unique per replica: "<hostname>_<random>"
  std::chrono::seconds lease_duration{15};
  std::chrono::seconds renew_deadline{10};
  std::chrono::seconds retry_period{2};
  // Wall time for the lease's MicroTime fields; null: the system clock.
  std::function<std::string()> wall_now;
};

class LeaderElector {
 public:
  LeaderElector(Client* client, LeaderOptions options, Clock* clock);

  // Tries to acquire or renew when due (every retry_period; at once on the
  // first call), and steps down when the renew deadline passed. Returns
  // whether we lead after this tick.
  bool Tick();
  // One acquire-or-renew attempt, whatever the schedule.
  bool TryAcquireOrRenew();
  // Gives the lease up (when leading). Best effort: errors are logged.
  void Release();

  bool is_leader() const { return leader_.load(); }
  // Whether writes may be sent now: leading, and renewed within the renew
  // deadline. Thread-safe; cheap (one clock read).
  bool MayWrite() const;
  // Whether the last attempt (leader or not) got an answer from the API
  // server within `within`: every replica reads the lease each retry period,
  // so this is a live probe of the server for /readyz.
  bool Reachable(std::chrono::milliseconds within) const;
  // True once one attempt reached the server (we know whether we lead).
  bool known() const { return known_.load(); }
  std::string holder();
  std::string last_error();
  int transitions() const { return transitions_.load(); }  // times we became leader
  const LeaderOptions& options() const { return options_; }

 private:
  Json NewLease(const std::string& now) const;
  void BecomeLeader(bool was, std::chrono::steady_clock::time_point sent);
  std::chrono::steady_clock::time_point last_renew() const;
  void StepDown(const std::string& why);

  Client* client_;
  LeaderOptions options_;
  Clock* clock_;
  std::atomic<bool> leader_{false};
  std::atomic<bool> known_{false};
  std::atomic<int> transitions_{0};
  bool attempted_ = false;
  std::chrono::steady_clock::time_point next_attempt_{};
  // When the request of the last successful renew was sent (the clock's
  // nanoseconds since its epoch), read by writer threads through `MayWrite`.
  std::atomic<int64_t> last_renew_ns_{0};
  std::atomic<int64_t> last_contact_ns_{0};  // the last answered GET of the lease
  // The last lease record seen from another holder and when (our clock) it changed.
  std::string observed_record_;
  std::chrono::steady_clock::time_point observed_at_{};
  std::mutex mu_;  // guards holder_, last_error_
  std::string holder_;
  std::string last_error_;
};

}  // namespace basalt::kube
