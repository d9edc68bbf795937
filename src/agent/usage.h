// Usage sampling for `basalt agent`: the node from /proc/stat and
// /proc/meminfo, groups (pods) from their cgroup counters, and a sliding
// window over the samples. Every reader takes its root as a parameter so tests
// feed synthetic files.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>

#include "agent/cgroup.h"
#include "api/status.h"

namespace basalt::agent {

// The aggregate "cpu" line of /proc/stat, in clock ticks. `busy` counts user,
// nice, system, irq, softirq and steal; `total` adds idle and iowait (guest
// time is already inside user). `cpus` is the number of "cpuN" lines.
struct CpuTimes {
  uint64_t busy = 0;
  uint64_t total = 0;
  int cpus = 0;
};
Result<CpuTimes> ParseProcStat(const std::string& text, const std::string& where);

// MemTotal and MemAvailable of /proc/meminfo, in bytes.
struct MemInfo {
  int64_t total_bytes = 0;
  int64_t available_bytes = 0;
  int64_t used_bytes() const { return total_bytes - available_bytes; }
};
Result<MemInfo> ParseMeminfo(const std::string& text, const std::string& where);

// CPU used between two readings of a cumulative nanosecond counter taken
// `elapsed_nanos` apart, in millicores; 0 when the counter went back (the
// group was recreated) or no time passed.
int64_t CpuMilliBetween(uint64_t before_nanos, uint64_t after_nanos, int64_t elapsed_nanos);

// The node's usage at one sample.
struct NodeUsage {
  int64_t cpu_capacity_milli = 0;  // cpus x 1000
  int64_t cpu_used_milli = 0;      // since the previous sample
  int64_t memory_total_bytes = 0;
  int64_t memory_used_bytes = 0;  // MemTotal - MemAvailable
};

// Reads PROC_ROOT/stat and PROC_ROOT/meminfo. The first call only records the
// counters and returns nullopt: a rate needs two readings.
class NodeSampler {
 public:
  explicit NodeSampler(std::string proc_root) : proc_root_(std::move(proc_root)) {}
  Result<std::optional<NodeUsage>> Sample();
  const std::string& proc_root() const { return proc_root_; }

 private:
  std::string proc_root_;
  std::optional<CpuTimes> last_;
};

// CPU rates of groups from their cumulative counters (Cgroups::CpuUsageNanos).
class GroupCpuSampler {
 public:
  // Millicores `group` used since its previous reading at `now_nanos`
  // (monotonic); nullopt on the first reading. A counter that cannot be read
  // is an error and forgets the group.
  Result<std::optional<int64_t>> Sample(const Cgroups& cgroups, const std::string& group,
                                        int64_t now_nanos);
  // Drops groups not read since `before_nanos` (pods that left).
  void Forget(int64_t before_nanos);

 private:
  struct Reading {
    int64_t at = 0;
    uint64_t nanos = 0;
  };
  std::map<std::string, Reading> last_;
};

// Samples over the last `window_nanos`: mean and maximum of what is inside.
class SlidingWindow {
 public:
  explicit SlidingWindow(int64_t window_nanos) : window_(window_nanos) {}
  void Add(int64_t at_nanos, int64_t value);
  bool empty() const { return samples_.empty(); }
  size_t size() const { return samples_.size(); }
  int64_t Mean() const;
  int64_t Max() const;
  int64_t Latest() const { return samples_.empty() ? 0 : samples_.back().second; }
  void set_window(int64_t window_nanos) { window_ = window_nanos; }

 private:
  int64_t window_;
  std::deque<std::pair<int64_t, int64_t>> samples_;
};

}  // namespace basalt::agent
