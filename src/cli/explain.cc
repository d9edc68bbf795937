#include "cli/explain.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "actions/builtin.h"
#include "api/decode.h"
#include "api/log.h"
#include "api/object_rules.h"
#include "api/terminal_text.h"
#include "api/yaml_json.h"
#include "cli/cluster_input.h"
#include "cli/completion_hints.h"
#include "cli/limit_flags.h"
#include "cli/schedule.h"
#include "engine/cycle_runner.h"
#include "engine/explain_probe.h"
#include "live/live_state.h"
#include "plugins/builtin.h"

namespace basalt {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kExitRuns = 0;
constexpr int kExitWaits = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitUnavailable = 3;
// A vcjob admitted in the explained session has no pods until the job
// controller reacts; at most this many cycles are run to get to them.
constexpr int kMaxAdvances = 3;

// "pod/x", "po/x" -> Pod; "job/x", "vcjob/x", "vj/x" -> Job; "podgroup/x", "pg/x" -> PodGroup.
std::string KindOfWord(const std::string& word) {
  static const std::map<std::string, std::string> kKinds = {
      {"pod", "Pod"},           {"pods", "Pod"},           {"po", "Pod"},     {"job", "Job"},
      {"jobs", "Job"},          {"vcjob", "Job"},          {"vcjobs", "Job"}, {"vj", "Job"},
      {"podgroup", "PodGroup"}, {"podgroups", "PodGroup"}, {"pg", "PodGroup"}};
  std::string lower = word;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  auto it = kKinds.find(lower);
  return it == kKinds.end() ? "" : it->second;
}

struct ParsedTarget {
  std::string kind;  // "" = any
  std::string key;   // ns/name
};

Result<ParsedTarget> ParseTarget(const std::string& target, const std::string& ns) {
  ParsedTarget out;
  std::string rest = target;
  const size_t slash = rest.find('/');
  if (slash != std::string::npos && !KindOfWord(rest.substr(0, slash)).empty()) {
    out.kind = KindOfWord(rest.substr(0, slash));
    rest = rest.substr(slash + 1);
  }
  const size_t second = rest.find('/');
  if (rest.empty() || rest.front() == '/' || rest.back() == '/' ||
      (second != std::string::npos && rest.find('/', second + 1) != std::string::npos)) {
    return Status::InvalidArgument("target \"" + target + "\": expected [KIND/][NAMESPACE/]NAME");
  }
  out.key = second == std::string::npos ? ns + "/" + rest : rest;
  return out;
}

// The subject as it is in the store now (after the controllers' sync).
Result<ExplainSubject> FindSubject(const ClusterState& state, const ParsedTarget& t,
                                   const std::string& where) {
  const bool any = t.kind.empty();
  if ((any || t.kind == "Pod") && state.pods().count(t.key)) return ExplainSubject{"Pod", t.key};
  if ((any || t.kind == "Job") && state.jobs().count(t.key)) return ExplainSubject{"Job", t.key};
  if ((any || t.kind == "PodGroup") && state.podgroups().count(t.key))
    return ExplainSubject{"PodGroup", t.key};
  const std::string what = any ? "no Pod, Job or PodGroup" : "no " + t.kind;
  return Status::NotFound(what + " named " + t.key + " in " + where);
}

Result<std::string> ReadConf(const ExplainRequest& req, std::string* source) {
  if (!req.conf_text.empty()) {
    *source = "(inline configuration)";
    return req.conf_text;
  }
  if (req.conf_path.empty()) {
    *source = "(default configuration)";
    return std::string(DefaultSchedulerConfigText());
  }
  *source = req.conf_path;
  return ReadSchedulerConfFile(req.conf_path);
}

Json OptionalResource(const std::optional<Resource>& r) {
  return r ? ResourceJson(*r) : Json(nullptr);
}

Json VictimJson(const ExplainVictim& v) {
  return {{"pod", v.pod},
          {"node", v.node},
          {"queue", v.queue},
          {"podgroup", v.podgroup},
          {"action", v.action}};
}

// The gang's missing pods: minAvailable against what is placed after the
// session plus what could still be placed.
int32_t Shortfall(const ExplainReport& r) {
  return std::max(0, r.min_member - (r.placed_after + r.placeable));
}

std::string NodeList(const std::vector<std::string>& nodes) {
  constexpr size_t kShown = 5;
  std::string s;
  for (size_t i = 0; i < nodes.size() && i < kShown; ++i) s += (i ? ", " : "") + nodes[i];
  if (nodes.size() > kShown) s += ", +" + std::to_string(nodes.size() - kShown) + " more";
  return s;
}

std::string Plural(size_t n, const char* one) {
  return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

}  // namespace

Result<ExplainReport> RunExplain(const ExplainRequest& request) {
  if (request.cycles < 1) return Status::InvalidArgument("--cycles: must be at least 1");
  if (!request.output.empty() && request.output != "table" && request.output != "json" &&
      request.output != "yaml") {
    return Status::InvalidArgument("-o: unknown output format \"" + request.output +
                                   "\" (table, the default; json or yaml)");
  }
  BASALT_ASSIGN_OR_RETURN(ParsedTarget target, ParseTarget(request.target, request.namespace_));
  PluginRegistry plugins;
  RegisterBuiltinPlugins(plugins);
  ActionRegistry actions;
  RegisterBuiltinActions(actions);
  std::string conf_source;
  BASALT_ASSIGN_OR_RETURN(std::string conf_text, ReadConf(request, &conf_source));
  auto conf = ParseSchedulerConfig(conf_text, conf_source, plugins.Names(), actions.Names());
  if (!conf.ok()) return conf.status();
  for (const Tier& tier : conf->tiers) {
    for (const PluginOption& opt : tier.plugins) {
      auto p = plugins.Create(opt.name, opt.arguments);
      if (!p.ok()) return p.status().WithContext(conf_source);
    }
  }
  ClusterState state;
  const bool live = request.cluster_paths.empty() && request.cluster_text.empty();
  if (live) {
    BASALT_RETURN_IF_ERROR(LoadLiveState(request.kubeconfig, request.context, &state));
  } else {
    // The loader of `basalt validate` and `schedule` (cli/cluster_input.h).
    LoadedCluster loaded =
        LoadClusterInput({request.cluster_paths, request.cluster_text, "(inline)", request.limits});
    BASALT_RETURN_IF_ERROR(LoadErrorsStatus(loaded.errors));
    for (const std::string& w : loaded.warnings) CliLog().warn("warning: {}", w);
    if (std::vector<std::string> errors = RunErrorsAfterWarnings(loaded.objects); !errors.empty())
      return Status::InvalidArgument(errors.front());
    BASALT_RETURN_IF_ERROR(state.AddAll(std::move(loaded.objects)));
  }
  SessionOptions options;
  CycleRunner runner(state, *conf, plugins, actions, options);
  BASALT_ASSIGN_OR_RETURN(std::optional<int64_t> now, ParseNowFlag(request.now));
  if (now) runner.set_now(*now);
  Status init = runner.Init();
  if (!init.ok()) return init.WithContext(conf_source);
  // The controllers sync once, as `basalt serve` would next (a bare pod gets
  // its PodGroup); on a live cluster nothing is simulated further ahead.
  runner.SyncControllers();
  std::string where = live ? "the cluster" : "the manifests";
  if (!request.cluster_paths.empty()) {
    where = "--cluster " + request.cluster_paths.front() +
            (request.cluster_paths.size() > 1 ? " ..." : "");
  }
  int64_t cycles_run = 0;
  auto advance = [&]() -> Status {
    auto cycle = runner.RunCycle(false);
    if (!cycle.ok()) return cycle.status();
    runner.WorldStep();
    ++cycles_run;
    return Status::Ok();
  };
  for (int i = 1; i < request.cycles; ++i) BASALT_RETURN_IF_ERROR(advance());
  for (int advances = 0;; ++advances) {
    auto subject = FindSubject(state, target, where);
    if (!subject.ok()) return subject.status();
    SessionOptions probe = options;
    probe.cycle = cycles_run + 1;
    probe.now = runner.now();
    auto report = ProbeExplain(state, *conf, plugins, actions, probe, *subject);
    if (!report.ok()) return report.status();
    report->live = live;
    const bool waiting_for_pods = report->verdict == "NotCreated" && !report->podgroup.empty();
    if (live || !waiting_for_pods || advances == kMaxAdvances) return report;
    BASALT_RETURN_IF_ERROR(advance());
  }
}

Json ExplainJson(const ExplainReport& r) {
  Json out = Json::object();
  out["target"] = {{"kind", r.kind}, {"name", r.name}};
  out["cycle"] = r.cycle;
  out["verdict"] = r.verdict;
  if (r.live) out["simulatedNextCycle"] = true;
  if (!r.ignored_because.empty()) out["ignoredBecause"] = r.ignored_because;
  if (r.podgroup.empty()) {
    out["podgroup"] = nullptr;
  } else {
    out["podgroup"] = {{"name", r.podgroup},
                       {"phaseBefore", r.phase_before},
                       {"phaseAfter", r.phase_after},
                       {"minMember", r.min_member},
                       {"minResources", OptionalResource(r.min_resources)}};
  }
  const QueueFacts& q = r.queue;
  if (q.name.empty()) {
    out["queue"] = nullptr;
  } else {
    out["queue"] = {{"name", q.name},
                    {"exists", q.exists},
                    {"state", q.state},
                    {"weight", q.weight},
                    {"priority", q.priority},
                    {"reclaimable", q.reclaimable},
                    {"capability", OptionalResource(q.capability)},
                    {"deserved", OptionalResource(q.deserved)},
                    {"guarantee", OptionalResource(q.guarantee)},
                    {"allocated", ResourceJson(q.allocated)},
                    {"inqueue", ResourceJson(q.inqueue)}};
  }
  out["cluster"] = {{"allocatable", ResourceJson(r.cluster.allocatable)},
                    {"used", ResourceJson(r.cluster.used)},
                    {"inqueue", ResourceJson(r.cluster.inqueue)}};
  Json rejections = Json::array();
  for (const ExplainEvent& e : r.enqueue_rejections) {
    rejections.push_back({{"plugin", e.plugin},
                          {"object", e.object},
                          {"reason", e.reason},
                          {"message", e.message},
                          {"numbers", e.numbers}});
  }
  out["enqueue"] = {{"considered", r.enqueue_considered},
                    {"admitted", r.enqueue_admitted},
                    {"rejections", rejections}};
  out["gang"] = {{"minAvailable", r.min_member},    {"tasks", r.tasks_total},
                 {"placedBefore", r.placed_before}, {"placedAfter", r.placed_after},
                 {"placeable", r.placeable},        {"shortfall", Shortfall(r)}};
  if (!r.network_topology.empty()) {  // only for a job with a constraint
    out["networkTopology"] = {{"constraint", r.network_topology},
                              {"reason", r.network_topology_reason}};
  }
  out["pods"] = Json::array();
  for (const TaskExplanation& t : r.tasks) {
    Json p = {{"pod", t.pod},
              {"status", t.status},
              {"node", t.node},
              {"request", ResourceJson(t.request)},
              {"failedScheduling", t.failed_scheduling},
              {"prePredicate", t.pre_predicate},
              {"queueAllocatable", t.queue_allocatable},
              {"fittingNodes", t.fitting_nodes}};
    p["nodeGroups"] = Json::array();
    for (const NodeGroupFit& g : t.node_groups) {
      p["nodeGroups"].push_back(
          {{"count", g.nodes.size()}, {"reasons", g.reasons}, {"nodes", g.nodes}});
    }
    if (t.closest_node) {
      p["closestNode"] = {{"node", t.closest_node->node},
                          {"missing", ResourceJson(t.closest_node->missing)}};
    } else {
      p["closestNode"] = nullptr;
    }
    out["pods"].push_back(std::move(p));
  }
  out["events"] = Json::array();
  for (const ExplainEvent& e : r.events) {
    out["events"].push_back({{"action", e.action},
                             {"object", e.object},
                             {"type", e.type},
                             {"reason", e.reason},
                             {"message", e.message},
                             {"plugin", e.plugin}});
  }
  out["sessionVictims"] = Json::array();
  for (const ExplainVictim& v : r.session_victims) out["sessionVictims"].push_back(VictimJson(v));
  if (r.what_if) {
    Json w = {{"actions", r.what_if->actions}};
    w["victims"] = Json::array();
    for (const ExplainVictim& v : r.what_if->victims) w["victims"].push_back(VictimJson(v));
    w["placements"] = Json::array();
    for (const auto& [pod, node] : r.what_if->placements)
      w["placements"].push_back({{"pod", pod}, {"node", node}});
    w["admits"] = r.what_if->admits;
    out["whatIf"] = std::move(w);
  } else {
    out["whatIf"] = nullptr;
  }
  out["hints"] = r.hints;
  return out;
}

std::string ExplainText(const ExplainReport& r) {
  std::ostringstream o;
  o << r.kind << " " << r.name << ": " << r.verdict << " (cycle " << r.cycle << ")\n";
  if (r.live) {
    o << "  (the cluster as listed now, and what basalt's controllers and next cycle would do "
         "on it: nothing here was written to the cluster)\n";
  }
  if (!r.ignored_because.empty()) o << "  not scheduled by basalt: " << r.ignored_because << "\n";
  if (!r.podgroup.empty()) {
    o << "  PodGroup " << r.podgroup << ": " << r.phase_before << " -> " << r.phase_after
      << ", minMember " << r.min_member;
    if (r.min_resources) o << ", minResources " << ResourceText(*r.min_resources);
    o << "\n";
  }
  const QueueFacts& q = r.queue;
  if (!q.name.empty()) {
    if (!q.exists) {
      o << "  Queue " << q.name << ": does not exist (the PodGroup takes no part in scheduling)\n";
    } else {
      o << "  Queue " << q.name << ": " << q.state << ", weight " << q.weight << ", capability "
        << (q.capability ? ResourceText(*q.capability) : "unlimited") << "; allocated "
        << ResourceText(q.allocated) << ", reserved by admitted PodGroups "
        << ResourceText(q.inqueue) << "\n";
    }
  }
  if (r.enqueue_considered) {
    o << "  Enqueue: " << (r.enqueue_admitted ? "admitted" : "refused") << "\n";
    for (const ExplainEvent& e : r.enqueue_rejections) {
      o << "    " << (e.plugin.empty() ? "(plugin unknown)" : e.plugin) << ": " << e.reason << ": "
        << e.message << "\n";
      if (!e.numbers.empty()) o << "      " << e.numbers << "\n";
    }
  }
  if (r.min_member > 0 && !r.tasks.empty()) {
    o << "  Gang: minAvailable " << r.min_member << ", " << Plural(r.tasks_total, "pod")
      << "; placed " << r.placed_before << " before the session, " << r.placed_after << " after; "
      << r.placeable << " more could be placed now";
    if (Shortfall(r) > 0) o << "; " << Shortfall(r) << " short";
    o << "\n";
  }
  if (!r.network_topology.empty()) {
    o << "  Network topology: " << r.network_topology;
    if (!r.network_topology_reason.empty()) o << "; " << r.network_topology_reason;
    o << "\n";
  }
  for (const TaskExplanation& t : r.tasks) {
    o << "  Pod " << t.pod << ": " << t.status;
    if (!t.node.empty())
      o << (r.live && t.status == "Binding" ? " (next cycle) on " : " on ") << t.node;
    o << " (request " << ResourceText(t.request) << ")\n";
    if (!t.failed_scheduling.empty()) o << "    FailedScheduling: " << t.failed_scheduling << "\n";
    if (!t.pre_predicate.empty()) o << "    every node: " << t.pre_predicate << "\n";
    if (!t.queue_allocatable)
      o << "    the queue refuses to place it (Allocatable: quota or state)\n";
    for (const NodeGroupFit& g : t.node_groups) {
      o << "    " << Plural(g.nodes.size(), "node") << ": ";
      for (size_t i = 0; i < g.reasons.size(); ++i) o << (i ? "; " : "") << g.reasons[i];
      o << " (" << NodeList(g.nodes) << ")\n";
    }
    if (t.fitting_nodes > 0 && t.status == "Pending")
      o << "    " << Plural(t.fitting_nodes, "node") << ": fits\n";
    if (t.closest_node) {
      o << "    closest node " << t.closest_node->node << ": missing "
        << ResourceText(t.closest_node->missing) << "\n";
    }
  }
  if (!r.events.empty()) {
    o << "  Events:\n";
    for (const ExplainEvent& e : r.events) {
      o << "    [" << e.action << "] " << e.object << " " << e.type << " " << e.reason << ": "
        << e.message;
      if (!e.plugin.empty()) o << " (" << e.plugin << ")";
      o << "\n";
    }
  }
  if (!r.hints.empty()) {
    o << "  What would let it run:\n";
    for (const std::string& h : r.hints) o << "    - " << h << "\n";
  }
  return o.str();
}

CLI::App* AddExplainCommand(CLI::App& app, ExplainRequest* request) {
  CLI::App* cmd =
      app.add_subcommand("explain", "Why a pod, vcjob or PodGroup is pending (docs/explain.md)");
  cmd->add_option("target", request->target,
                  "[KIND/][NAMESPACE/]NAME; KIND: pod, job (vcjob), podgroup")
      ->required();
  cmd->add_option("-n,--namespace", request->namespace_, "Namespace when TARGET names none")
      ->capture_default_str();
  cmd->add_option("--conf", request->conf_path,
                  "Volcano scheduler configuration file (default: Volcano's default)");
  cmd->add_option("--cluster", request->cluster_paths,
                  "Manifest file or folder (*.yaml, *.yml, *.json); repeatable");
  cmd->add_option("--kubeconfig", request->kubeconfig,
                  "Without --cluster: the live cluster of this kubeconfig (default: $KUBECONFIG, "
                  "~/.kube/config, in-cluster)");
  cmd->add_option("--context", request->context, "kubeconfig context (default: current-context)");
  cmd->add_option("--cycles", request->cycles,
                  "Explain the N-th session (the world moves between cycles)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--now", request->now,
                  "Clock of the first cycle, RFC 3339 (as basalt schedule --now)");
  AddLimitFlags(cmd, &request->limits,
                {LimitFlag::kObjects, LimitFlag::kJobPods, LimitFlag::kPods});
  OfferValues(cmd->add_option("-o,--output", request->output,
                              "Output format: table (default: the report as text), json or yaml"),
              {"table", "json", "yaml"});
  cmd->footer(
      "Exit code 0 when the target runs or will (Running, Bound, Pipelined, Completed),\n"
      "1 when it waits (Pending, NotCreated, PodGroupMissing, NodeMissing, Ignored), 2 on\n"
      "bad input or a target that does not exist, 3 when the API server cannot be reached.\n\n"
      "Examples:\n"
      "  basalt explain job/llm-finetune --conf examples/gang-training/scheduler.conf \\\n"
      "      --cluster examples/gang-training/cluster\n"
      "  basalt explain default/notebook --cluster examples/gang-training/cluster -o json\n"
      "  basalt explain pod/inference-0 --kubeconfig ~/.kube/config  # exit 1 while it waits");
  return cmd;
}

int RunExplainCommand(const ExplainRequest& request) {
  auto report = RunExplain(request);
  if (!report.ok()) {
    CliErrorLines(report.status().message());
    // The API server out of reach is no fault of the input.
    return report.status().code() == Status::Code::kUnavailable ? kExitUnavailable : kExitBadInput;
  }
  if (request.output == "json") {
    std::cout << ExplainJson(*report).dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  } else if (request.output == "yaml") {
    std::cout << TerminalSafe(JsonToYaml(nlohmann::json(ExplainJson(*report))));
  } else {
    std::cout << TerminalSafe(ExplainText(*report));
  }
  return ExplainExitCode(*report);
}

int ExplainExitCode(const ExplainReport& report) {
  // As `kubectl diff` and grep: 1 is an answer (it waits), not an error.
  static const std::set<std::string> kRuns = {"Running", "Bound", "Pipelined", "Completed"};
  return kRuns.count(report.verdict) ? kExitRuns : kExitWaits;
}

}  // namespace basalt
