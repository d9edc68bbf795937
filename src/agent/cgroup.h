// The cgroup interface of the node, v1 or v2, as `basalt agent` uses it.
//
// Detection reads the mount table (`/proc/self/mountinfo`): when the cpu,
// cpuacct or memory controllers are mounted as cgroup v1 hierarchies, the node
// is v1 (a hybrid node with an empty cgroup2 mount beside them is v1 too, since
// the controllers live on v1); when only a cgroup2 mount exists, it is v2 and
// its `cgroup.controllers` lists what is enabled. A controller that is absent
// is reported once and every operation needing it fails with a
// FailedPrecondition status: the feature is off, the process goes on.
//
// A group is named by its path below the hierarchy's root
// ("kubepods/besteffort/pod1234"); the same name addresses the group in every
// v1 controller hierarchy and in the single v2 tree.
//
// Writes go through `CgroupSetter`, which skips a write whose value is already
// there (idempotent) and remembers each file's value before its first write,
// so `Restore` can put a group back as it was found.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/status.h"

namespace basalt::agent {

enum class CgroupVersion { kV1, kV2 };
enum class Controller { kCpu, kCpuacct, kMemory };

const char* ControllerName(Controller controller);

// Where the hierarchies are, as detected.
struct CgroupLayout {
  CgroupVersion version = CgroupVersion::kV1;
  // v1: the mount point of each controller found; v2: the single tree for
  // every controller enabled in its root's cgroup.controllers.
  std::map<Controller, std::string> mounts;
};

// Parses a mountinfo text. `host_prefix` is put before every mount point (an
// agent that sees the host's /sys/fs/cgroup under /host passes "/host"); it
// is empty on the node itself. `where` names the text in errors.
Result<CgroupLayout> ParseCgroupLayout(const std::string& mountinfo, const std::string& where,
                                       const std::string& host_prefix = "");
// Reads `mountinfo_path` (default /proc/self/mountinfo) and parses it.
Result<CgroupLayout> DetectCgroupLayout(const std::string& mountinfo_path,
                                        const std::string& host_prefix = "");

// CFS bandwidth statistics of a group (v1 cpu.stat / v2 cpu.stat).
struct CpuThrottleStats {
  uint64_t periods = 0;
  uint64_t throttled_periods = 0;
  uint64_t throttled_nanos = 0;
};

// Quota of -1 means unlimited ("max" in v2).
struct CpuQuota {
  int64_t quota_us = -1;
  int64_t period_us = 100000;
  bool operator==(const CpuQuota&) const = default;
};

// Reads statistics and the settings of groups. Thread-compatible.
class Cgroups {
 public:
  explicit Cgroups(CgroupLayout layout);

  CgroupVersion version() const { return layout_.version; }
  const CgroupLayout& layout() const { return layout_; }
  // True when the controller is there. The first false for a controller logs
  // a warning naming it and the feature that goes off; later ones are quiet.
  bool Has(Controller controller, const char* feature) const;
  // True when the group's directory exists in the controller's hierarchy.
  bool GroupExists(Controller controller, const std::string& group) const;

  // Cumulative CPU time of the group: v1 cpuacct.usage, v2 cpu.stat usage_usec.
  Result<uint64_t> CpuUsageNanos(const std::string& group) const;
  Result<CpuThrottleStats> CpuStat(const std::string& group) const;
  // v1 memory.usage_in_bytes, v2 memory.current.
  Result<int64_t> MemoryUsageBytes(const std::string& group) const;

  // Absolute path of a control file of `group` ("cpu.shares") in the
  // hierarchy of `controller`; FailedPrecondition when the controller is absent.
  Result<std::string> FilePath(Controller controller, const std::string& group,
                               const std::string& file) const;
  // The processes of `group` (cgroup.procs of the cpu hierarchy, or of
  // cpuacct where cpu is absent).
  Result<std::vector<int>> GroupPids(const std::string& group) const;
  // Creates / removes a group directory in the hierarchy of `controller`
  // (tests and the demonstration; the kubelet owns pod groups).
  Status CreateGroup(Controller controller, const std::string& group) const;
  Status RemoveGroup(Controller controller, const std::string& group) const;

 private:
  CgroupLayout layout_;
  mutable std::set<Controller> reported_missing_;
};

// Converts v1 cpu.shares (2..262144) to v2 cpu.weight (1..10000), as the
// container runtimes do: 2 -> 1, 1024 -> 39, 262144 -> 10000.
uint64_t SharesToWeight(uint64_t shares);

// Applies settings idempotently and restores what it changed.
class CgroupSetter {
 public:
  explicit CgroupSetter(const Cgroups* cgroups) : cgroups_(cgroups) {}

  // CPU weight in v1 shares (converted to cpu.weight on v2).
  Status SetCpuShares(const std::string& group, uint64_t shares);
  Status SetCpuQuota(const std::string& group, const CpuQuota& quota);
  // cpu.idle (Linux 5.15+, v1 and v2): FailedPrecondition where the kernel lacks it.
  Status SetCpuIdle(const std::string& group, bool idle);
  // The kernel's cpu.qos_level (openEuler and derived kernels; -1 is offline):
  // FailedPrecondition where the kernel lacks it.
  Status SetCpuQosLevel(const std::string& group, int level);
  // v1 memory.limit_in_bytes, v2 memory.max; -1 means unlimited.
  Status SetMemoryLimit(const std::string& group, int64_t bytes);
  // v2 memory.high; on v1 (no such knob) memory.soft_limit_in_bytes, the
  // closest: reclaimed first under pressure. -1 means unlimited.
  Status SetMemoryHigh(const std::string& group, int64_t bytes);

  // Raises the OOM score of every process of `group` to `adj` (1000: killed
  // first) through PROC_ROOT/PID/oom_score_adj, remembering each first value
  // so Restore puts it back for the processes still alive.
  Status SetOomScoreAdj(const std::string& group, const std::string& proc_root, int adj);

  // Writes back every value of `group` this setter changed, in reverse order,
  // and forgets them. A group that has gone (the pod left) is not an error.
  Status Restore(const std::string& group);
  // Restores only the CPU quota files of `group` (lifting a throttle).
  Status RestoreCpuQuota(const std::string& group);
  // Number of files of `group` holding a value this setter wrote.
  int Changed(const std::string& group) const;
  // Writes performed (not skipped) since construction; tests check idempotence.
  int writes() const { return writes_; }

 private:
  // Writes `value` to the file unless it already reads so; remembers the
  // first value seen.
  Status WriteValue(Controller controller, const std::string& group, const std::string& file,
                    const std::string& value, const char* feature);
  // Writes `value` to `path` unless it already reads so, remembering the
  // first value under `group`.
  Status WritePath(const std::string& group, const std::string& path, const std::string& value);

  struct Original {
    std::string path;
    std::string value;
  };
  const Cgroups* cgroups_;
  std::map<std::string, std::vector<Original>> originals_;  // by group, in write order
  int writes_ = 0;
};

// Reads a whole control file, trailing newline dropped.
Result<std::string> ReadControlFile(const std::string& path);
// Writes a control file (one write call, as the kernel expects).
Status WriteControlFile(const std::string& path, const std::string& value);

}  // namespace basalt::agent
