#include "kube/leader.h"

#include <cstdio>
#include <ctime>
#include <iostream>

#include "api/log.h"

namespace basalt::kube {
namespace {

std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const Json& Spec(const Json& lease) {
  static const Json empty = Json::object();
  auto it = lease.find("spec");
  return it != lease.end() && it->is_object() ? *it : empty;
}

}  // namespace

LeaderElector::LeaderElector(Client* client, LeaderOptions options, Clock* clock)
    : client_(client), options_(std::move(options)), clock_(clock) {
  if (!options_.wall_now) options_.wall_now = WallMicroTimeNow;
}

std::string LeaderElector::holder() {
  std::lock_guard<std::mutex> lock(mu_);
  return holder_;
}

std::string LeaderElector::last_error() {
  std::lock_guard<std::mutex> lock(mu_);
  return last_error_;
}

Json LeaderElector::NewLease(const std::string& now) const {
  return Json{{"apiVersion", "coordination.k8s.io/v1"},
              {"kind", "Lease"},
              {"metadata", {{"name", options_.name}, {"namespace", options_.namespace_}}},
              {"spec",
               {{"holderIdentity", options_.identity},
                {"leaseDurationSeconds", options_.lease_duration.count()},
                {"acquireTime", now},
                {"renewTime", now},
                {"leaseTransitions", 0}}}};
}

std::chrono::steady_clock::time_point LeaderElector::last_renew() const {
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(last_renew_ns_.load()));
}

bool LeaderElector::Reachable(std::chrono::milliseconds within) const {
  auto last =
      std::chrono::steady_clock::time_point(std::chrono::nanoseconds(last_contact_ns_.load()));
  return last_contact_ns_.load() != 0 && clock_->Now() - last < within;
}

bool LeaderElector::MayWrite() const {
  return leader_.load() && clock_->Now() - last_renew() < options_.renew_deadline;
}

void LeaderElector::BecomeLeader(bool was, std::chrono::steady_clock::time_point sent) {
  last_renew_ns_ =
      std::chrono::duration_cast<std::chrono::nanoseconds>(sent.time_since_epoch()).count();
  if (!was) {
    ++transitions_;
    Log("leader").info("msg=\"acquired lease\" lease={}/{} identity={}", options_.namespace_,
                       options_.name, LogValue(options_.identity));
  }
  leader_ = true;
  std::lock_guard<std::mutex> lock(mu_);
  holder_ = options_.identity;
}

void LeaderElector::StepDown(const std::string& why) {
  if (leader_.exchange(false)) {
    Log("leader").warn("msg=\"lost lease, writes stop\" lease={}/{} reason={}", options_.namespace_,
                       options_.name, LogValue(why));
  }
}

bool LeaderElector::TryAcquireOrRenew() {
  const bool was = leader_.load();
  auto note_error = [&](const ApiError& e) {
    std::lock_guard<std::mutex> lock(mu_);
    last_error_ = e.ToString();
  };
  const std::string now = options_.wall_now();
  // Our claim counts from before the request left: the server stores it later.
  const auto sent = clock_->Now();
  auto got = client_->GetLease(options_.namespace_, options_.name);
  if (got.ok()) {
    last_contact_ns_ =
        std::chrono::duration_cast<std::chrono::nanoseconds>(clock_->Now().time_since_epoch())
            .count();
  }
  if (!got.ok()) {
    note_error(got.error());
    return leader_.load();  // the renew deadline decides when errors cost the lease
  }
  if (!got->has_value()) {
    auto created = client_->CreateLease(options_.namespace_, NewLease(now));
    if (!created.ok()) {
      note_error(created.error());
      return leader_.load();
    }
    known_ = true;
    if (created->outcome == LeaseOutcome::kAcquired) {
      BecomeLeader(was, sent);
      return true;
    }
    StepDown("another candidate created the lease first");
    return false;
  }
  Json lease = std::move(**got);
  const Json& spec = Spec(lease);
  std::string holder = Str(spec, "holderIdentity");
  {
    std::lock_guard<std::mutex> lock(mu_);
    holder_ = holder;
  }
  // The record as a whole (holder + renew time + RV): any change restarts the
  // expiry countdown, measured on our clock.
  std::string record =
      holder + "|" + Str(spec, "renewTime") + "|" + Str(lease["metadata"], "resourceVersion");
  auto t = clock_->Now();
  if (record != observed_record_) {
    observed_record_ = record;
    observed_at_ = t;
  }
  int64_t duration = options_.lease_duration.count();
  auto d = spec.find("leaseDurationSeconds");
  if (d != spec.end() && d->is_number_integer()) duration = d->get<int64_t>();
  const bool held_by_other = !holder.empty() && holder != options_.identity;
  if (held_by_other && t < observed_at_ + std::chrono::seconds(duration)) {
    known_ = true;
    StepDown("held by " + holder);
    return false;
  }
  Json& s = lease["spec"];
  if (!s.is_object()) s = Json::object();
  if (holder != options_.identity) {
    s["acquireTime"] = now;
    int64_t transitions = 0;
    auto tr = s.find("leaseTransitions");
    if (tr != s.end() && tr->is_number_integer()) transitions = tr->get<int64_t>();
    s["leaseTransitions"] = transitions + 1;
  }
  s["holderIdentity"] = options_.identity;
  s["leaseDurationSeconds"] = options_.lease_duration.count();
  s["renewTime"] = now;
  auto updated = client_->UpdateLease(options_.namespace_, lease);
  if (!updated.ok()) {
    note_error(updated.error());
    return leader_.load();
  }
  known_ = true;
  if (updated->outcome == LeaseOutcome::kAcquired) {
    BecomeLeader(was, sent);
    return true;
  }
  // 409: someone else wrote the lease since our GET. If we were leading, our
  // claim is no longer the stored one: step down now, re-check next period.
  observed_record_.clear();
  StepDown("lease update conflict: " + updated->message);
  return false;
}

bool LeaderElector::Tick() {
  auto t = clock_->Now();
  if (leader_.load() && t - last_renew() >= options_.renew_deadline) {
    StepDown("not renewed within " + std::to_string(options_.renew_deadline.count()) + "s");
  }
  if (!attempted_ || t >= next_attempt_) {
    attempted_ = true;
    next_attempt_ = t + options_.retry_period;
    TryAcquireOrRenew();
    // Re-check the deadline: a failed renew must not extend leadership.
    if (leader_.load() && clock_->Now() - last_renew() >= options_.renew_deadline) {
      StepDown("not renewed within " + std::to_string(options_.renew_deadline.count()) + "s");
    }
  }
  return leader_.load();
}

void LeaderElector::Release() {
  if (!leader_.load()) return;
  leader_ = false;
  auto got = client_->GetLease(options_.namespace_, options_.name);
  if (!got.ok() || !got->has_value()) return;
  Json lease = std::move(**got);
  if (Str(Spec(lease), "holderIdentity") != options_.identity) return;
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["leaseDurationSeconds"] = 1;
  lease["spec"]["renewTime"] = options_.wall_now();
  auto r = client_->UpdateLease(options_.namespace_, lease);
  if (!r.ok()) {
    Log("leader").warn("msg=\"release failed\" error={}", LogValue(r.error().ToString()));
  } else {
    Log("leader").info("msg=\"released lease\" lease={}/{}", options_.namespace_, options_.name);
  }
}

}  // namespace basalt::kube
