// The bookkeeping of live/https_server.h's connection caps, and its warnings
// that a client can trigger (refusals, deadlines), throttled so that an
// attacker cannot flood the log.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace basalt {

// Connections open, in all and per client address, against their caps.
// Thread-safe.
class ConnectionSlots {
 public:
  ConnectionSlots(int max_total, int max_per_client)
      : max_total_(max_total), max_per_client_(max_per_client) {}

  // Takes a slot for `client`: empty when granted, else why it is refused.
  std::string TryAcquire(const std::string& client);
  // Gives back a slot taken by TryAcquire.
  void Release(const std::string& client);
  int open() const;

 private:
  const int max_total_, max_per_client_;
  mutable std::mutex mu_;
  int total_ = 0;
  std::unordered_map<std::string, int> per_client_;
};

// A warning logged at most once per interval; the next line says how many
// were left out in between. Thread-safe.
class ThrottledWarning {
 public:
  ThrottledWarning(std::string component, std::chrono::milliseconds interval)
      : component_(std::move(component)), interval_(interval) {}

  // `fields`: the key=value fields of the line, `msg=...` first.
  void Warn(const std::string& fields);

 private:
  const std::string component_;
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point last_{};
  int64_t left_out_ = 0;
};

}  // namespace basalt
