#include "cli/cluster_input.h"

#include <set>

#include "cli/command_suggest.h"
#include "framework/snapshot_builder.h"
#include "state/store_rules.h"

namespace basalt {
namespace {

// "a, b": the paths as given, for the message of an input without objects.
std::string PathList(const ClusterInput& input) {
  std::string given;
  for (const std::string& path : input.paths) given += (given.empty() ? "" : ", ") + path;
  if (given.empty()) given = input.text_source;
  return given;
}

// The resource names the nodes offer, and the ones every pod may ask for.
std::set<std::string> OfferedResources(const ClusterObjects& objects) {
  std::set<std::string> names = {"cpu", "memory", "pods", "ephemeral-storage"};
  for (const Node& n : objects.nodes) {
    for (const auto& [id, v] : n.allocatable.scalars()) names.insert(ResourceNames::Name(id));
  }
  return names;
}

// "<source>: <object>: requests <name>, which no node offers; did you mean <x>?"
void WarnUnknownResources(const Resource& asked, const std::string& where,
                          const std::set<std::string>& offered, std::vector<std::string>* out) {
  const std::vector<std::string> names(offered.begin(), offered.end());
  // Per-card shares (vgpu-memory, vgpu-cores) are offered by the cards a
  // node's device annotations describe, never in its allocatable.
  Resource request = asked;
  DropPerCardResources(&request);
  for (const auto& [id, v] : request.scalars()) {
    const std::string name = ResourceNames::Name(id);
    if (v <= 0 || offered.count(name) || name.rfind("hugepages-", 0) == 0) continue;
    std::string line = where + ": requests " + name + ", which no node offers";
    if (std::string best = ClosestName(name, names); !best.empty())
      line += "; did you mean " + best + "?";
    out->push_back(line);
  }
}

std::vector<std::string> ResourceNameWarnings(const ClusterObjects& objects) {
  std::vector<std::string> out;
  if (objects.nodes.empty()) return out;  // pods alone: nothing to compare with
  const std::set<std::string> offered = OfferedResources(objects);
  for (const Pod& p : objects.pods)
    WarnUnknownResources(p.spec.request, p.meta.source + ": Pod " + p.meta.Key(), offered, &out);
  for (const VcJob& j : objects.jobs) {
    for (size_t i = 0; i < j.tasks.size(); ++i) {
      WarnUnknownResources(
          j.tasks[i].template_spec.request,
          j.meta.source + ": Job " + j.meta.Key() + ": spec.tasks[" + std::to_string(i) + "]",
          offered, &out);
    }
  }
  return out;
}

}  // namespace

LoadedCluster LoadClusterInput(const ClusterInput& input) {
  LoadedCluster out;
  for (const std::string& path : input.paths) {
    for (const Status& st : LoadPathEveryFile(path, &out.objects, input.limits))
      out.errors.push_back(st.message());
  }
  if (!input.text.empty()) {
    Status st = DecodeText(input.text, input.text_source, &out.objects, input.limits);
    if (!st.ok()) out.errors.push_back(st.message());
  }
  if (!out.errors.empty()) return out;
  if (CountDecodedObjects(out.objects) == 0) {
    // Most likely a wrong path or extension: going on would hide it.
    out.errors.push_back(PathList(input) +
                         ": no objects found (folders are read for *.yaml, *.yml and *.json "
                         "files)");
    return out;
  }
  // Before the job controller expands any vcjob into pods.
  if (Status capped = CheckClusterLimits(out.objects, input.limits); !capped.ok()) {
    out.errors.push_back(capped.message());
    return out;
  }
  if (Status store = CheckStoreRules(out.objects); !store.ok()) {
    out.errors.push_back(store.message());
    return out;
  }
  out.warnings = ResourceNameWarnings(out.objects);
  return out;
}

Status LoadErrorsStatus(const std::vector<std::string>& errors) {
  if (errors.empty()) return Status::Ok();
  std::string joined;
  for (const std::string& e : errors) joined += (joined.empty() ? "" : "\n") + e;
  return Status::InvalidArgument(joined);
}

}  // namespace basalt
