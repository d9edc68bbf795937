#include "agent/usage.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "api/file_text.h"

namespace basalt::agent {

Result<CpuTimes> ParseProcStat(const std::string& text, const std::string& where) {
  std::istringstream in(text);
  std::string line;
  CpuTimes times;
  bool found = false;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0) continue;
    if (line.size() > 3 && line[3] >= '0' && line[3] <= '9') {
      ++times.cpus;
      continue;
    }
    // cpu user nice system idle iowait irq softirq steal guest guest_nice
    std::istringstream fields(line.substr(3));
    std::vector<uint64_t> v;
    uint64_t x = 0;
    while (fields >> x) v.push_back(x);
    if (v.size() < 4) {
      return Status::InvalidArgument(where + ": the cpu line has " + std::to_string(v.size()) +
                                     " numbers, want at least 4: \"" + line + "\"");
    }
    v.resize(8, 0);
    times.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    times.total = times.busy + v[3] + v[4];
    found = true;
  }
  if (!found) return Status::InvalidArgument(where + ": no aggregate \"cpu\" line");
  if (times.cpus == 0) times.cpus = 1;
  return times;
}

Result<MemInfo> ParseMeminfo(const std::string& text, const std::string& where) {
  std::istringstream in(text);
  std::string key;
  int64_t kib = 0;
  std::string unit;
  MemInfo info;
  bool total = false, available = false;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    if (!(fields >> key >> kib)) continue;
    if (key == "MemTotal:") info.total_bytes = kib * 1024, total = true;
    if (key == "MemAvailable:") info.available_bytes = kib * 1024, available = true;
  }
  if (!total || !available) {
    return Status::InvalidArgument(where + ": want MemTotal and MemAvailable lines");
  }
  return info;
}

int64_t CpuMilliBetween(uint64_t before_nanos, uint64_t after_nanos, int64_t elapsed_nanos) {
  if (after_nanos < before_nanos || elapsed_nanos <= 0) return 0;
  // Millicores = used ns / elapsed ns x 1000; in long double to keep precision.
  long double milli =
      static_cast<long double>(after_nanos - before_nanos) * 1000.0L / elapsed_nanos;
  return static_cast<int64_t>(milli + 0.5L);
}

Result<std::optional<NodeUsage>> NodeSampler::Sample() {
  const std::string stat_path = proc_root_ + "/stat";
  const std::string meminfo_path = proc_root_ + "/meminfo";
  BASALT_ASSIGN_OR_RETURN(std::string stat_text, ReadFileOrError(stat_path, "cpu statistics"));
  BASALT_ASSIGN_OR_RETURN(std::string mem_text, ReadFileOrError(meminfo_path, "memory statistics"));
  BASALT_ASSIGN_OR_RETURN(CpuTimes now, ParseProcStat(stat_text, stat_path));
  BASALT_ASSIGN_OR_RETURN(MemInfo mem, ParseMeminfo(mem_text, meminfo_path));
  std::optional<CpuTimes> before = last_;
  last_ = now;
  if (!before) return std::optional<NodeUsage>();
  NodeUsage usage;
  usage.cpu_capacity_milli = int64_t{now.cpus} * 1000;
  uint64_t total = now.total > before->total ? now.total - before->total : 0;
  uint64_t busy = now.busy > before->busy ? now.busy - before->busy : 0;
  usage.cpu_used_milli =
      total == 0 ? 0
                 : static_cast<int64_t>(
                       static_cast<long double>(busy) * usage.cpu_capacity_milli / total + 0.5L);
  usage.memory_total_bytes = mem.total_bytes;
  usage.memory_used_bytes = mem.used_bytes();
  return std::optional<NodeUsage>(usage);
}

Result<std::optional<int64_t>> GroupCpuSampler::Sample(const Cgroups& cgroups,
                                                       const std::string& group,
                                                       int64_t now_nanos) {
  auto counter = cgroups.CpuUsageNanos(group);
  if (!counter.ok()) {
    last_.erase(group);
    return counter.status();
  }
  auto it = last_.find(group);
  std::optional<int64_t> milli;
  if (it != last_.end())
    milli = CpuMilliBetween(it->second.nanos, *counter, now_nanos - it->second.at);
  last_[group] = Reading{now_nanos, *counter};
  return milli;
}

void GroupCpuSampler::Forget(int64_t before_nanos) {
  std::erase_if(last_, [&](const auto& kv) { return kv.second.at < before_nanos; });
}

void SlidingWindow::Add(int64_t at_nanos, int64_t value) {
  samples_.emplace_back(at_nanos, value);
  while (!samples_.empty() && samples_.front().first <= at_nanos - window_) samples_.pop_front();
}

int64_t SlidingWindow::Mean() const {
  if (samples_.empty()) return 0;
  long double sum = 0;
  for (const auto& s : samples_) sum += s.second;
  return static_cast<int64_t>(sum / samples_.size() + 0.5L);
}

int64_t SlidingWindow::Max() const {
  int64_t m = 0;
  for (const auto& s : samples_) m = std::max(m, s.second);
  return m;
}

}  // namespace basalt::agent
