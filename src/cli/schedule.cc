#include "cli/schedule.h"

#include <algorithm>
#include <memory>
#include <tuple>

#include "actions/builtin.h"
#include "api/decode.h"
#include "api/file_text.h"
#include "api/log.h"
#include "api/quantity.h"
#include "api/text.h"
#include "api/well_known.h"
#include "cli/cluster_input.h"
#include "engine/cycle_runner.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

using Json = nlohmann::ordered_json;

Json CycleJson(const CycleResult& c, bool scores) {
  const Decisions& d = c.decisions;
  Json out = Json::object();
  out["cycle"] = c.cycle;
  auto binds = d.binds;
  std::sort(binds.begin(), binds.end(), [](const auto& a, const auto& b) {
    return std::tie(a.pod, a.node) < std::tie(b.pod, b.node);
  });
  out["binds"] = Json::array();
  for (const auto& b : binds) out["binds"].push_back({{"pod", b.pod}, {"node", b.node}});
  auto pipelined = d.pipelined;
  std::sort(pipelined.begin(), pipelined.end(), [](const auto& a, const auto& b) {
    return std::tie(a.pod, a.node) < std::tie(b.pod, b.node);
  });
  out["pipelined"] = Json::array();
  for (const auto& p : pipelined) out["pipelined"].push_back({{"pod", p.pod}, {"node", p.node}});
  auto evictions = d.evictions;
  std::stable_sort(evictions.begin(), evictions.end(),
                   [](const auto& a, const auto& b) { return a.pod < b.pod; });
  out["evictions"] = Json::array();
  for (const auto& e : evictions) {
    out["evictions"].push_back({{"pod", e.pod}, {"action", e.action}, {"reason", e.reason}});
  }
  out["podgroups"] = Json::array();
  for (const auto& [name, phase] : c.podgroup_phases)
    out["podgroups"].push_back({{"name", name}, {"phase", PodGroupPhaseName(phase)}});
  auto events = d.events;
  std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
    return std::tie(a.object, a.reason, a.type, a.message) <
           std::tie(b.object, b.reason, b.type, b.message);
  });
  events.erase(std::unique(events.begin(), events.end(),
                           [](const auto& a, const auto& b) {
                             return a.object == b.object && a.reason == b.reason &&
                                    a.type == b.type && a.message == b.message;
                           }),
               events.end());
  out["events"] = Json::array();
  for (const auto& e : events) {
    out["events"].push_back(
        {{"object", e.object}, {"type", e.type}, {"reason", e.reason}, {"message", e.message}});
  }
  if (scores) {
    auto s = c.scores;
    std::sort(s.begin(), s.end(), [](const auto& a, const auto& b) {
      return std::tie(a.pod, a.node) < std::tie(b.pod, b.node);
    });
    out["scores"] = Json::array();
    for (const auto& e : s)
      out["scores"].push_back({{"pod", e.pod}, {"node", e.node}, {"score", e.score}});
  }
  return out;
}

Json FinalJson(const ClusterState& state) {
  Json out = Json::object();
  out["pods"] = Json::array();
  std::map<std::string, Resource> queue_alloc;
  for (const auto& [name, q] : state.queues()) queue_alloc[name] = Resource();
  for (const auto& [key, pod] : state.pods()) {
    Json p = {{"pod", key}, {"phase", pod.phase}};
    if (!pod.spec.node_name.empty()) p["node"] = pod.spec.node_name;
    out["pods"].push_back(p);
    // Queue usage: pods on a node that have not finished, by their PodGroup's queue.
    if (pod.spec.node_name.empty() || pod.meta.deleting ||
        (pod.phase != "Running" && pod.phase != "Pending"))
      continue;
    auto g = pod.meta.annotations.find(kGroupNameAnnotation);
    if (g == pod.meta.annotations.end()) continue;
    auto pg = state.podgroups().find(pod.meta.namespace_ + "/" + g->second);
    if (pg == state.podgroups().end()) continue;
    std::string q = pg->second.queue.empty() ? "default" : pg->second.queue;
    auto it = queue_alloc.find(q);
    if (it != queue_alloc.end()) it->second += pod.spec.request;
  }
  out["podgroups"] = Json::array();
  for (const auto& [key, pg] : state.podgroups()) {
    out["podgroups"].push_back({{"name", key}, {"phase", PodGroupPhaseName(pg.phase)}});
  }
  out["jobs"] = Json::array();
  for (const auto& [key, job] : state.jobs()) {
    out["jobs"].push_back({{"name", key}, {"phase", job.phase}, {"retryCount", job.retry_count}});
  }
  out["queues"] = Json::array();
  for (const auto& [name, q] : state.queues()) {
    out["queues"].push_back(
        {{"name", name}, {"state", q.state}, {"allocated", ResourceJson(queue_alloc[name])}});
  }
  return out;
}

}  // namespace

nlohmann::ordered_json ResourceJson(const Resource& r) {
  Json j = Json::object();
  j["cpu"] = FormatDimension(ResourceNames::kCpu, r.milli_cpu());
  j["memory"] = FormatDimension(ResourceNames::kMemory, r.memory());
  std::vector<std::pair<std::string, std::string>> scalars;
  for (const auto& [id, v] : r.scalars()) {
    if (id == ResourceNames::kPods || v == 0) continue;
    scalars.emplace_back(ResourceNames::Name(id), FormatDimension(id, v));
  }
  std::sort(scalars.begin(), scalars.end());
  for (const auto& [name, value] : scalars) j[name] = value;
  return j;
}

Result<Json> RunSchedule(const ScheduleRequest& request) {
  if (request.cycles < 1) return Status::InvalidArgument("--cycles: must be at least 1");
  BASALT_RETURN_IF_ERROR(CheckCycles(request.cycles, request.limits));
  PluginRegistry plugins;
  RegisterBuiltinPlugins(plugins);
  ActionRegistry actions;
  RegisterBuiltinActions(actions);
  if (request.register_extra) request.register_extra(plugins, actions);
  const std::string conf_text =
      request.conf_text.empty() ? DefaultSchedulerConfigText() : request.conf_text;
  auto conf =
      ParseSchedulerConfig(conf_text, request.conf_source, plugins.Names(), actions.Names());
  if (!conf.ok()) return conf.status();
  // Plugin arguments are checked once up front, so a typo fails before any cycle.
  for (const Tier& tier : conf->tiers) {
    for (const PluginOption& opt : tier.plugins) {
      auto p = plugins.Create(opt.name, opt.arguments);
      if (!p.ok()) return p.status().WithContext(request.conf_source);
    }
  }
  // The loader of `basalt validate` (cli/cluster_input.h): the same input is
  // refused with the same messages.
  LoadedCluster loaded = LoadClusterInput(
      {request.cluster_paths, request.cluster_text, request.cluster_source, request.limits});
  BASALT_RETURN_IF_ERROR(LoadErrorsStatus(loaded.errors));
  for (const std::string& w : loaded.warnings) CliLog().warn("warning: {}", w);
  ClusterObjects objects = std::move(loaded.objects);
  // What could never exist in a cluster stops the run; the rest only warns.
  if (std::vector<std::string> errors = RunErrorsAfterWarnings(objects); !errors.empty())
    return Status::InvalidArgument(errors.front());
  ClusterState state;
  BASALT_RETURN_IF_ERROR(state.AddAll(std::move(objects)));
  SessionOptions options;
  // The first violation of the run; later ones are consequences of it.
  auto violation = std::make_shared<Status>();
  if (request.check_invariants || request.verify_snapshot_cache) {
    options.check_invariants = request.check_invariants;
    options.verify_snapshot_cache = request.verify_snapshot_cache;
    options.on_invariant_violation = [violation](const Status& s) {
      if (violation->ok()) *violation = s;
    };
  }
  CycleRunner runner(state, *conf, plugins, actions, options);
  BASALT_ASSIGN_OR_RETURN(std::optional<int64_t> now, ParseNowFlag(request.now));
  if (now) runner.set_now(*now);
  Status init = runner.Init();
  if (!init.ok()) return init.WithContext(request.conf_source);
  runner.SyncControllers();
  Json out = Json::object();
  out["cycles"] = Json::array();
  for (int i = 0; i < request.cycles; ++i) {
    auto cycle = runner.RunCycle(request.scores);
    if (!violation->ok()) return Status::Internal("invariant violated: " + violation->message());
    if (!cycle.ok()) return cycle.status();
    if (request.on_cycle) {
      request.on_cycle(CycleJson(*cycle, request.scores));
    } else {
      out["cycles"].push_back(CycleJson(*cycle, request.scores));
    }
    runner.WorldStep();
  }
  out["final"] = FinalJson(state);
  return out;
}

Result<std::optional<int64_t>> ParseNowFlag(const std::string& text) {
  if (text.empty()) return std::optional<int64_t>();
  auto now = ParseTimestamp(text);
  if (!now.ok()) return now.status().WithContext("--now");
  return std::optional<int64_t>(*now);
}

Result<std::string> ReadSchedulerConfFile(const std::string& path) {
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadFileOrError(path, "scheduler configuration"));
  if (Trim(text).empty()) return Status::InvalidArgument(path + ": empty scheduler configuration");
  return text;
}

int ScheduleExitCode(const Status& status) {
  if (status.ok()) return kScheduleExitOk;
  return status.code() == Status::Code::kInternal ? kScheduleExitInvariantViolated
                                                  : kScheduleExitBadInput;
}

namespace {

// What a JSON dump of valid UTF-8 prints; a name holding invalid UTF-8 is
// written with U+FFFD in its place instead of throwing.
std::string SafeDump(const Json& j) {
  return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

// `text` with `pad` after every newline (and before it all when `first`).
std::string Indented(const std::string& text, const std::string& pad, bool first) {
  std::string out = first ? pad : "";
  for (char c : text) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

}  // namespace

std::string ScheduleJsonText(const nlohmann::ordered_json& document) {
  return SafeDump(document) + "\n";
}

void ScheduleJsonWriter::Cycle(const Json& cycle) {
  out_ << (any_cycle_ ? ",\n" : "{\n  \"cycles\": [\n") << Indented(SafeDump(cycle), "    ", true);
  any_cycle_ = true;
}

void ScheduleJsonWriter::Finish(const Json& document) {
  out_ << (any_cycle_ ? "\n  ],\n" : "{\n  \"cycles\": [],\n") << "  \"final\": "
       << Indented(SafeDump(document.value("final", Json::object())), "  ", false) << "\n}\n";
  out_.flush();
}

}  // namespace basalt
