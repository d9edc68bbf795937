#include "api/numatopology.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

#include "api/decode_fields.h"
#include "api/json_field.h"
#include "api/quantity.h"

namespace basalt {
namespace {

using decode_fields::ExpectMap;
using decode_fields::FieldError;
using decode_fields::Join;
using decode_fields::KindOf;
using decode_fields::Present;

Result<std::string> ScalarText(const YAML::Node& n, const std::string& field, const char* want) {
  if (!n.IsScalar())
    return FieldError(field, std::string("expected ") + want + ", got " + KindOf(n));
  return n.Scalar();
}

// A non-negative decimal integer of at most `max` (no sign, no other spelling).
Result<int64_t> ParseNonNegative(const std::string& text, const std::string& field, int64_t max) {
  if (text.empty()) return FieldError(field, "expected a non-negative integer, got \"\"");
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return FieldError(field, "expected a non-negative integer, got \"" + text + "\"");
    v = v * 10 + (c - '0');
    if (v > max)
      return FieldError(field, "value " + text + " out of range [0, " + std::to_string(max) + "]");
  }
  return v;
}

// Kubelet's CPU ids and NUMA/socket/core ids are small; the bound keeps sets
// and masks cheap and refuses nonsense early.
constexpr int64_t kMaxTopologyId = 4095;
// The NUMA nodes of one machine: the plugin enumerates their subsets.
constexpr size_t kMaxNumaNodes = 16;

Status CheckPolicyValue(const std::string& key, const std::string& value,
                        const std::string& field) {
  static const std::set<std::string> kCpu = {"none", "static"};
  static const std::set<std::string> kTopology = {"none", "best-effort", "restricted",
                                                  "single-numa-node"};
  const std::set<std::string>* known = key == kCpuManagerPolicyKey        ? &kCpu
                                       : key == kTopologyManagerPolicyKey ? &kTopology
                                                                          : nullptr;
  if (known == nullptr || known->count(value)) return Status::Ok();
  std::string want;
  for (const std::string& v : *known) want += (want.empty() ? "" : ", ") + v;
  return FieldError(field, "unknown policy \"" + value + "\" (want one of " + want + ")");
}

Status DecodePolicies(const YAML::Node& n, const std::string& path, Numatopology* out) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  if (!Present(n)) return Status::Ok();
  for (const auto& kv : n) {
    BASALT_ASSIGN_OR_RETURN(std::string key, ScalarText(kv.first, path, "a string key"));
    const std::string field = Join(path, key);
    std::string value;
    if (Present(kv.second)) {
      BASALT_ASSIGN_OR_RETURN(value, ScalarText(kv.second, field, "a string"));
    }
    BASALT_RETURN_IF_ERROR(CheckPolicyValue(key, value, field));
    out->policies[key] = value;
  }
  return Status::Ok();
}

Status DecodeReserved(const YAML::Node& n, const std::string& path, Numatopology* out) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  if (!Present(n)) return Status::Ok();
  for (const auto& kv : n) {
    BASALT_ASSIGN_OR_RETURN(std::string key, ScalarText(kv.first, path, "a string key"));
    const std::string field = Join(path, key);
    BASALT_ASSIGN_OR_RETURN(std::string text, ScalarText(kv.second, field, "a quantity"));
    // cpu in milli-CPU; every other resource (memory, hugepages) in units.
    Result<int64_t> v = key == "cpu" ? ParseQuantityMilli(text) : ParseQuantityUnits(text);
    if (!v.ok()) return v.status().WithContext(field);
    if (*v < 0) return FieldError(field, "negative quantity \"" + text + "\"");
    if (key == "cpu") out->reserved_milli_cpu = *v;
    out->res_reserved[key] = text;
  }
  return Status::Ok();
}

Status DecodeNumaResources(const YAML::Node& n, const std::string& path, Numatopology* out) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  if (!Present(n)) return Status::Ok();
  for (const auto& kv : n) {
    BASALT_ASSIGN_OR_RETURN(std::string name, ScalarText(kv.first, path, "a string key"));
    const std::string field = Join(path, name);
    BASALT_RETURN_IF_ERROR(ExpectMap(kv.second, field));
    NumaResourceInfo info;
    if (Present(kv.second)) {
      for (const auto& f : kv.second) {
        BASALT_ASSIGN_OR_RETURN(std::string key, ScalarText(f.first, field, "a string key"));
        const std::string ffield = Join(field, key);
        if (key == "allocatable") {
          if (!Present(f.second)) continue;
          BASALT_ASSIGN_OR_RETURN(std::string text,
                                  ScalarText(f.second, ffield, "a cpu-set list such as \"0-3,8\""));
          Result<std::vector<int32_t>> set = ParseCpuSetList(text);
          if (!set.ok()) return set.status().WithContext(ffield);
          info.allocatable = std::move(set).value();
        } else if (key == "capacity") {
          if (!Present(f.second)) continue;
          BASALT_ASSIGN_OR_RETURN(std::string text, ScalarText(f.second, ffield, "an integer"));
          BASALT_ASSIGN_OR_RETURN(info.capacity, ParseNonNegative(text, ffield, INT32_MAX));
        } else {
          return FieldError(ffield, "unknown field (want allocatable, capacity)");
        }
      }
    }
    out->numa_resources[name] = std::move(info);
  }
  return Status::Ok();
}

Status DecodeCpuDetail(const YAML::Node& n, const std::string& path, Numatopology* out) {
  BASALT_RETURN_IF_ERROR(ExpectMap(n, path));
  if (!Present(n)) return Status::Ok();
  std::set<int32_t> numa_ids;
  for (const auto& kv : n) {
    BASALT_ASSIGN_OR_RETURN(std::string key, ScalarText(kv.first, path, "a cpu id key"));
    const std::string field = Join(path, key);
    Result<int64_t> id = ParseNonNegative(key, field, kMaxTopologyId);
    if (!id.ok())
      return FieldError(field, "cpu ids must be non-negative integers (got \"" + key + "\")");
    BASALT_RETURN_IF_ERROR(ExpectMap(kv.second, field));
    CpuPlacement p;
    if (Present(kv.second)) {
      for (const auto& f : kv.second) {
        BASALT_ASSIGN_OR_RETURN(std::string fkey, ScalarText(f.first, field, "a string key"));
        const std::string ffield = Join(field, fkey);
        int32_t* slot = fkey == "numa"     ? &p.numa
                        : fkey == "socket" ? &p.socket
                        : fkey == "core"   ? &p.core
                                           : nullptr;
        if (slot == nullptr) return FieldError(ffield, "unknown field (want numa, socket, core)");
        if (!Present(f.second)) continue;
        BASALT_ASSIGN_OR_RETURN(std::string text, ScalarText(f.second, ffield, "an integer"));
        BASALT_ASSIGN_OR_RETURN(int64_t v, ParseNonNegative(text, ffield, kMaxTopologyId));
        *slot = static_cast<int32_t>(v);
      }
    }
    numa_ids.insert(p.numa);
    if (numa_ids.size() > kMaxNumaNodes) {
      return FieldError(Join(field, "numa"),
                        "more than " + std::to_string(kMaxNumaNodes) + " NUMA nodes");
    }
    out->cpu_detail[static_cast<int32_t>(*id)] = p;
  }
  return Status::Ok();
}

// requests, limits of one container's cpu or memory: -1 when absent.
template <typename NodeT>
int64_t QuantityOr(const NodeT& list, const char* name, bool milli) {
  if (!Present(list) || !list.IsMap()) return -1;
  auto q = list[name];
  if (!Present(q) || !q.IsScalar()) return -1;
  Result<int64_t> v = milli ? ParseQuantityMilli(q.Scalar()) : ParseQuantityUnits(q.Scalar());
  return v.ok() ? *v : -1;
}

}  // namespace

const std::string& Numatopology::Policy(const char* key) const {
  static const std::string kEmpty;
  auto it = policies.find(key);
  return it == policies.end() ? kEmpty : it->second;
}

Result<std::vector<int32_t>> ParseCpuSetList(const std::string& text) {
  std::set<int32_t> ids;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t comma = text.find(',', start);
    std::string part =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    auto bad = [&] {
      return Status::InvalidArgument("invalid cpu-set list \"" + text + "\": bad part \"" + part +
                                     "\" (want ids and ranges such as \"0-3,8\")");
    };
    size_t dash = part.find('-');
    std::string lo_text = part.substr(0, dash);
    std::string hi_text = dash == std::string::npos ? lo_text : part.substr(dash + 1);
    Result<int64_t> lo = ParseNonNegative(lo_text, "", kMaxTopologyId);
    Result<int64_t> hi = ParseNonNegative(hi_text, "", kMaxTopologyId);
    if (!lo.ok() || !hi.ok() || *lo > *hi) return bad();
    for (int64_t i = *lo; i <= *hi; ++i) ids.insert(static_cast<int32_t>(i));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return std::vector<int32_t>(ids.begin(), ids.end());
}

Status DecodeNumatopologySpec(const YAML::Node& spec, const std::string& path, Numatopology* out) {
  BASALT_RETURN_IF_ERROR(ExpectMap(spec, path));
  if (!Present(spec)) return Status::Ok();
  for (const auto& kv : spec) {
    BASALT_ASSIGN_OR_RETURN(std::string key, ScalarText(kv.first, path, "a string key"));
    const std::string field = Join(path, key);
    if (key == "policies") {
      BASALT_RETURN_IF_ERROR(DecodePolicies(kv.second, field, out));
    } else if (key == "resReserved") {
      BASALT_RETURN_IF_ERROR(DecodeReserved(kv.second, field, out));
    } else if (key == "numares") {
      BASALT_RETURN_IF_ERROR(DecodeNumaResources(kv.second, field, out));
    } else if (key == "cpuDetail") {
      BASALT_RETURN_IF_ERROR(DecodeCpuDetail(kv.second, field, out));
    } else if (key == "MemoryDetail") {
      // Memory-manager detail: Volcano's numa-aware plugin does not read it either.
      BASALT_RETURN_IF_ERROR(ExpectMap(kv.second, field));
    } else {
      return FieldError(
          field, "unknown field (want policies, resReserved, numares, cpuDetail, MemoryDetail)");
    }
  }
  // A CPU the CPU manager may hand out but whose NUMA node is unknown would be
  // counted on NUMA node 0 by Volcano; refuse it instead.
  auto cpu = out->numa_resources.find("cpu");
  if (cpu != out->numa_resources.end()) {
    for (int32_t id : cpu->second.allocatable) {
      if (!out->cpu_detail.count(id)) {
        return FieldError(
            Join(path, "numares.cpu.allocatable"),
            "cpu " + std::to_string(id) + " is not described in " + Join(path, "cpuDetail"));
      }
    }
  }
  return Status::Ok();
}

namespace {

template <typename NodeT>
void CpuPinningInputs(const NodeT& spec, PodSpec* out) {
  out->qos_guaranteed = true;
  out->container_milli_cpu.clear();
  bool any_container = false;
  for (const char* list_key : {"containers", "initContainers"}) {
    auto list = spec[list_key];
    if (!Present(list) || !list.IsSequence()) continue;
    for (const auto& c : list) {
      any_container = true;
      NodeT res = Present(c) && c.IsMap() ? NodeT(c["resources"]) : NodeT();
      NodeT limits = Present(res) && res.IsMap() ? NodeT(res["limits"]) : NodeT();
      NodeT requests = Present(res) && res.IsMap() ? NodeT(res["requests"]) : NodeT();
      const int64_t cpu_limit = QuantityOr(limits, "cpu", true);
      const int64_t mem_limit = QuantityOr(limits, "memory", false);
      const int64_t cpu_request = QuantityOr(requests, "cpu", true);
      const int64_t mem_request = QuantityOr(requests, "memory", false);
      // Kubernetes' GetPodQOS: both limits set and non-zero; a request, when
      // given (the API server defaults it from the limit), equal to the limit.
      if (cpu_limit <= 0 || mem_limit <= 0) out->qos_guaranteed = false;
      if (cpu_request > 0 && cpu_request != cpu_limit) out->qos_guaranteed = false;
      if (mem_request > 0 && mem_request != mem_limit) out->qos_guaranteed = false;
      if (std::string(list_key) == "containers") {
        out->container_milli_cpu.push_back(cpu_request >= 0 ? cpu_request
                                                            : std::max<int64_t>(cpu_limit, 0));
      }
    }
  }
  if (!any_container) out->qos_guaranteed = false;
}

}  // namespace

void DecodeCpuPinningInputs(const YAML::Node& spec, PodSpec* out) { CpuPinningInputs(spec, out); }
void DecodeCpuPinningInputs(const JsonField& spec, PodSpec* out) { CpuPinningInputs(spec, out); }

}  // namespace basalt
