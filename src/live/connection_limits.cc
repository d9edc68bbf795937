#include "live/connection_limits.h"

#include "api/log.h"

namespace basalt {

std::string ConnectionSlots::TryAcquire(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  if (total_ >= max_total_)
    return std::to_string(max_total_) + " connections open in all (the cap of every client)";
  int& mine = per_client_[client];
  if (mine >= max_per_client_) {
    if (mine == 0) per_client_.erase(client);
    return std::to_string(max_per_client_) + " connections open from this client";
  }
  ++mine;
  ++total_;
  return "";
}

void ConnectionSlots::Release(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = per_client_.find(client);
  if (it == per_client_.end()) return;
  --total_;
  if (--it->second == 0) per_client_.erase(it);
}

int ConnectionSlots::open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

void ThrottledWarning::Warn(const std::string& fields) {
  int64_t left_out = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto now = std::chrono::steady_clock::now();
    if (last_ != std::chrono::steady_clock::time_point{} && now - last_ < interval_) {
      ++left_out_;
      return;
    }
    last_ = now;
    left_out = left_out_;
    left_out_ = 0;
  }
  if (left_out == 0)
    Log(component_).warn("{}", fields);
  else
    Log(component_).warn("{} similar_left_out={}", fields, left_out);
}

}  // namespace basalt
