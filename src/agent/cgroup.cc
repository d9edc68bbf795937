#include "agent/cgroup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>
#include <vector>

#include "api/file_text.h"
#include "api/log.h"

namespace basalt::agent {
namespace {

std::vector<std::string> SplitFields(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(line);
  while (std::getline(in, cur, sep)) {
    if (!cur.empty()) out.push_back(cur);
  }
  return out;
}

// Mount points in mountinfo escape space, tab, newline and backslash as \ooo.
std::string UnescapeMountPoint(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      int v = 0;
      auto [p, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 4, v, 8);
      if (ec == std::errc() && p == s.data() + i + 4) {
        out.push_back(static_cast<char>(v));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

std::string Join(const std::string& dir, const std::string& group) {
  std::string out = dir;
  if (!group.empty()) {
    if (out.empty() || out.back() != '/') out += '/';
    out += group[0] == '/' ? group.substr(1) : group;
  }
  return out;
}

Result<uint64_t> ParseUnsigned(const std::string& text, const std::string& what) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) {
    return Status::InvalidArgument(what + ": not a number: \"" + text + "\"");
  }
  return v;
}

// "key value" lines (cpu.stat) into a map.
std::map<std::string, uint64_t> ParseKeyValues(const std::string& text) {
  std::map<std::string, uint64_t> out;
  std::istringstream in(text);
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) out[key] = value;
  return out;
}

const Controller kAllControllers[] = {Controller::kCpu, Controller::kCpuacct, Controller::kMemory};

}  // namespace

const char* ControllerName(Controller controller) {
  switch (controller) {
    case Controller::kCpu:
      return "cpu";
    case Controller::kCpuacct:
      return "cpuacct";
    case Controller::kMemory:
      return "memory";
  }
  return "?";
}

Result<CgroupLayout> ParseCgroupLayout(const std::string& mountinfo, const std::string& where,
                                       const std::string& host_prefix) {
  CgroupLayout v1;
  v1.version = CgroupVersion::kV1;
  std::string v2_mount;
  std::istringstream in(mountinfo);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    // "36 25 0:31 / /sys/fs/cgroup/cpu rw,relatime shared:9 - cgroup cgroup rw,cpu"
    auto fields = SplitFields(line, ' ');
    size_t dash = 0;
    while (dash < fields.size() && fields[dash] != "-") ++dash;
    if (fields.size() < 5 || dash + 3 > fields.size()) {
      return Status::InvalidArgument(where + ":" + std::to_string(line_no) +
                                     ": not a mountinfo line: \"" + line + "\"");
    }
    const std::string mount_point = host_prefix + UnescapeMountPoint(fields[4]);
    const std::string& fstype = fields[dash + 1];
    if (fstype == "cgroup2") {
      if (v2_mount.empty()) v2_mount = mount_point;
      continue;
    }
    if (fstype != "cgroup") continue;
    for (const auto& option : SplitFields(fields[dash + 3], ',')) {
      for (Controller c : kAllControllers) {
        if (option == ControllerName(c) && !v1.mounts.count(c)) v1.mounts[c] = mount_point;
      }
    }
  }
  if (!v1.mounts.empty()) return v1;
  if (v2_mount.empty()) {
    return Status::NotFound(where + ": no cgroup (v1 cpu, cpuacct, memory) or cgroup2 mount");
  }
  CgroupLayout v2;
  v2.version = CgroupVersion::kV2;
  // The root lists the controllers it has; cpu statistics (cpu.stat
  // usage_usec) exist without the cpu controller, so cpuacct always does.
  auto controllers = ReadFileText(Join(v2_mount, "cgroup.controllers"));
  for (const auto& name : SplitFields(controllers.value_or(""), ' ')) {
    std::string trimmed = name;
    while (!trimmed.empty() && (trimmed.back() == '\n')) trimmed.pop_back();
    if (trimmed == "cpu") v2.mounts[Controller::kCpu] = v2_mount;
    if (trimmed == "memory") v2.mounts[Controller::kMemory] = v2_mount;
  }
  v2.mounts[Controller::kCpuacct] = v2_mount;
  return v2;
}

Result<CgroupLayout> DetectCgroupLayout(const std::string& mountinfo_path,
                                        const std::string& host_prefix) {
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadFileOrError(mountinfo_path, "mount table"));
  return ParseCgroupLayout(text, mountinfo_path, host_prefix);
}

Cgroups::Cgroups(CgroupLayout layout) : layout_(std::move(layout)) {}

bool Cgroups::Has(Controller controller, const char* feature) const {
  if (layout_.mounts.count(controller)) return true;
  if (reported_missing_.insert(controller).second) {
    Log("agent").warn("msg=\"cgroup controller missing, feature off\" controller={} feature={}",
                      ControllerName(controller), LogValue(feature));
  }
  return false;
}

bool Cgroups::GroupExists(Controller controller, const std::string& group) const {
  auto it = layout_.mounts.find(controller);
  if (it == layout_.mounts.end()) return false;
  struct stat st {};
  return ::stat(Join(it->second, group).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Result<std::string> Cgroups::FilePath(Controller controller, const std::string& group,
                                      const std::string& file) const {
  auto it = layout_.mounts.find(controller);
  if (it == layout_.mounts.end()) {
    return Status::FailedPrecondition(std::string("cgroup controller ") +
                                      ControllerName(controller) + " is not mounted");
  }
  return Join(Join(it->second, group), file);
}

Result<uint64_t> Cgroups::CpuUsageNanos(const std::string& group) const {
  if (layout_.version == CgroupVersion::kV1) {
    BASALT_ASSIGN_OR_RETURN(std::string path,
                            FilePath(Controller::kCpuacct, group, "cpuacct.usage"));
    BASALT_ASSIGN_OR_RETURN(std::string text, ReadControlFile(path));
    return ParseUnsigned(text, path);
  }
  BASALT_ASSIGN_OR_RETURN(std::string path, FilePath(Controller::kCpuacct, group, "cpu.stat"));
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadControlFile(path));
  auto values = ParseKeyValues(text);
  auto it = values.find("usage_usec");
  if (it == values.end()) return Status::InvalidArgument(path + ": no usage_usec line");
  return it->second * 1000;
}

Result<CpuThrottleStats> Cgroups::CpuStat(const std::string& group) const {
  // v2 keeps cpu.stat in every group; the throttling lines need the cpu controller.
  Controller c = layout_.version == CgroupVersion::kV1 ? Controller::kCpu : Controller::kCpuacct;
  BASALT_ASSIGN_OR_RETURN(std::string path, FilePath(c, group, "cpu.stat"));
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadControlFile(path));
  auto values = ParseKeyValues(text);
  CpuThrottleStats stats;
  stats.periods = values["nr_periods"];
  stats.throttled_periods = values["nr_throttled"];
  stats.throttled_nanos = layout_.version == CgroupVersion::kV1 ? values["throttled_time"]
                                                                : values["throttled_usec"] * 1000;
  return stats;
}

Result<int64_t> Cgroups::MemoryUsageBytes(const std::string& group) const {
  const char* file =
      layout_.version == CgroupVersion::kV1 ? "memory.usage_in_bytes" : "memory.current";
  BASALT_ASSIGN_OR_RETURN(std::string path, FilePath(Controller::kMemory, group, file));
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadControlFile(path));
  BASALT_ASSIGN_OR_RETURN(uint64_t v, ParseUnsigned(text, path));
  return static_cast<int64_t>(v);
}

Result<std::vector<int>> Cgroups::GroupPids(const std::string& group) const {
  Controller c = layout_.mounts.count(Controller::kCpu) ? Controller::kCpu : Controller::kCpuacct;
  BASALT_ASSIGN_OR_RETURN(std::string path, FilePath(c, group, "cgroup.procs"));
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadControlFile(path));
  std::vector<int> pids;
  std::istringstream in(text);
  int pid = 0;
  while (in >> pid) pids.push_back(pid);
  return pids;
}

Status Cgroups::CreateGroup(Controller controller, const std::string& group) const {
  BASALT_ASSIGN_OR_RETURN(std::string dir, FilePath(controller, group, ""));
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::Unavailable("mkdir " + dir + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Status Cgroups::RemoveGroup(Controller controller, const std::string& group) const {
  BASALT_ASSIGN_OR_RETURN(std::string dir, FilePath(controller, group, ""));
  if (::rmdir(dir.c_str()) != 0 && errno != ENOENT) {
    return Status::Unavailable("rmdir " + dir + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

uint64_t SharesToWeight(uint64_t shares) {
  if (shares < 2) shares = 2;
  if (shares > 262144) shares = 262144;
  return 1 + ((shares - 2) * 9999) / 262142;
}

Result<std::string> ReadControlFile(const std::string& path) {
  auto text = ReadFileText(path);
  if (!text) return Status::NotFound("cannot read " + path);
  std::string out = std::move(*text);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

Status WriteControlFile(const std::string& path, const std::string& value) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return Status::Unavailable("open " + path + ": " + std::strerror(errno));
  ssize_t n = ::write(fd, value.data(), value.size());
  int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(value.size())) {
    return Status::Unavailable("write \"" + value + "\" to " + path + ": " + std::strerror(err));
  }
  return Status::Ok();
}

namespace {

// v1 reports an unlimited memory limit as a huge page-aligned number, and
// takes -1 to set it.
bool SameValue(const std::string& current, const std::string& desired) {
  if (current == desired) return true;
  if (desired == "-1") {
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(current.data(), current.data() + current.size(), v);
    return ec == std::errc() && v >= (uint64_t{1} << 62);
  }
  return false;
}

}  // namespace

Status CgroupSetter::WriteValue(Controller controller, const std::string& group,
                                const std::string& file, const std::string& value,
                                const char* feature) {
  if (!cgroups_->Has(controller, feature)) {
    return Status::FailedPrecondition(std::string("cgroup controller ") +
                                      ControllerName(controller) + " is not mounted; " + feature +
                                      " is off");
  }
  BASALT_ASSIGN_OR_RETURN(std::string path, cgroups_->FilePath(controller, group, file));
  auto current = ReadControlFile(path);
  if (!current.ok()) {
    return Status::FailedPrecondition(path + " does not exist; " + feature + " is off");
  }
  return WritePath(group, path, value);
}

Status CgroupSetter::WritePath(const std::string& group, const std::string& path,
                               const std::string& value) {
  BASALT_ASSIGN_OR_RETURN(std::string current, ReadControlFile(path));
  if (SameValue(current, value)) return Status::Ok();
  BASALT_RETURN_IF_ERROR(WriteControlFile(path, value));
  ++writes_;
  auto& list = originals_[group];
  bool known = false;
  for (const auto& o : list) known = known || o.path == path;
  if (!known) list.push_back({path, current});
  return Status::Ok();
}

Status CgroupSetter::SetCpuQosLevel(const std::string& group, int level) {
  return WriteValue(Controller::kCpu, group, "cpu.qos_level", std::to_string(level),
                    "cpu qos level");
}

Status CgroupSetter::SetOomScoreAdj(const std::string& group, const std::string& proc_root,
                                    int adj) {
  BASALT_ASSIGN_OR_RETURN(std::vector<int> pids, cgroups_->GroupPids(group));
  Status first = Status::Ok();
  for (int pid : pids) {
    const std::string path = proc_root + "/" + std::to_string(pid) + "/oom_score_adj";
    if (!ReadControlFile(path).ok()) continue;  // the process has just exited
    Status st = WritePath(group, path, std::to_string(adj));
    if (!st.ok() && first.ok()) first = st;
  }
  return first;
}

Status CgroupSetter::SetCpuShares(const std::string& group, uint64_t shares) {
  if (cgroups_->version() == CgroupVersion::kV1) {
    return WriteValue(Controller::kCpu, group, "cpu.shares", std::to_string(shares), "cpu weight");
  }
  return WriteValue(Controller::kCpu, group, "cpu.weight", std::to_string(SharesToWeight(shares)),
                    "cpu weight");
}

Status CgroupSetter::SetCpuQuota(const std::string& group, const CpuQuota& quota) {
  if (cgroups_->version() == CgroupVersion::kV1) {
    BASALT_RETURN_IF_ERROR(WriteValue(Controller::kCpu, group, "cpu.cfs_period_us",
                                      std::to_string(quota.period_us), "cpu quota"));
    return WriteValue(Controller::kCpu, group, "cpu.cfs_quota_us",
                      std::to_string(quota.quota_us < 0 ? -1 : quota.quota_us), "cpu quota");
  }
  std::string max = quota.quota_us < 0 ? "max" : std::to_string(quota.quota_us);
  return WriteValue(Controller::kCpu, group, "cpu.max", max + " " + std::to_string(quota.period_us),
                    "cpu quota");
}

Status CgroupSetter::SetCpuIdle(const std::string& group, bool idle) {
  return WriteValue(Controller::kCpu, group, "cpu.idle", idle ? "1" : "0", "cpu idle");
}

Status CgroupSetter::SetMemoryLimit(const std::string& group, int64_t bytes) {
  if (cgroups_->version() == CgroupVersion::kV1) {
    return WriteValue(Controller::kMemory, group, "memory.limit_in_bytes",
                      bytes < 0 ? "-1" : std::to_string(bytes), "memory limit");
  }
  return WriteValue(Controller::kMemory, group, "memory.max",
                    bytes < 0 ? "max" : std::to_string(bytes), "memory limit");
}

Status CgroupSetter::SetMemoryHigh(const std::string& group, int64_t bytes) {
  if (cgroups_->version() == CgroupVersion::kV1) {
    return WriteValue(Controller::kMemory, group, "memory.soft_limit_in_bytes",
                      bytes < 0 ? "-1" : std::to_string(bytes), "memory high");
  }
  return WriteValue(Controller::kMemory, group, "memory.high",
                    bytes < 0 ? "max" : std::to_string(bytes), "memory high");
}

Status CgroupSetter::Restore(const std::string& group) {
  auto it = originals_.find(group);
  if (it == originals_.end()) return Status::Ok();
  Status first = Status::Ok();
  for (auto o = it->second.rbegin(); o != it->second.rend(); ++o) {
    if (!ReadControlFile(o->path).ok()) continue;  // the group has gone with its pod
    Status st = WriteControlFile(o->path, o->value);
    if (!st.ok() && first.ok()) first = st;
  }
  originals_.erase(it);
  return first;
}

Status CgroupSetter::RestoreCpuQuota(const std::string& group) {
  auto it = originals_.find(group);
  if (it == originals_.end()) return Status::Ok();
  Status first = Status::Ok();
  auto& list = it->second;
  for (auto o = list.end(); o != list.begin();) {
    --o;
    const std::string& p = o->path;
    bool quota = p.ends_with("/cpu.max") || p.ends_with("/cpu.cfs_quota_us") ||
                 p.ends_with("/cpu.cfs_period_us");
    if (!quota) continue;
    if (ReadControlFile(p).ok()) {
      Status st = WriteControlFile(p, o->value);
      if (!st.ok() && first.ok()) first = st;
    }
    o = list.erase(o);
  }
  if (list.empty()) originals_.erase(it);
  return first;
}

int CgroupSetter::Changed(const std::string& group) const {
  auto it = originals_.find(group);
  return it == originals_.end() ? 0 : static_cast<int>(it->second.size());
}

}  // namespace basalt::agent
