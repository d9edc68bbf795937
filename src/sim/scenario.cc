#include "sim/scenario.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numbers>
#include <set>
#include <sstream>

#include "api/decode.h"
#include "api/file_text.h"
#include "sim/scenario_reader.h"
#include "sim/topology_section.h"

namespace basalt {
namespace {

using scenario_yaml::Assign;
using scenario_yaml::Idx;
using scenario_yaml::Reader;

constexpr int64_t kMaxSeconds = int64_t{10} * 365 * 86400;

Status ParseDuration(const Reader& r, const YAML::Node& n, const std::string& f, DurationDist* d) {
  if (n.IsScalar()) {  // shorthand: a fixed duration
    d->kind = "fixed";
    SIM_READ(d->value, r.Duration(n, f, 1));
    return Status::Ok();
  }
  BASALT_RETURN_IF_ERROR(
      r.KnownKeys(n, f, {"distribution", "value", "min", "max", "mean", "median", "sigma"}));
  if (!n["distribution"])
    return r.Error(n, f + ".distribution", "required (fixed, uniform, exponential, lognormal)");
  SIM_READ(d->kind, r.String(n["distribution"], f + ".distribution"));
  if (n["min"]) SIM_READ(d->min, r.Duration(n["min"], f + ".min", 1));
  if (n["max"]) SIM_READ(d->max, r.Duration(n["max"], f + ".max", 1));
  if (d->kind == "fixed") {
    if (!n["value"]) return r.Error(n, f + ".value", "required for distribution fixed");
    SIM_READ(d->value, r.Duration(n["value"], f + ".value", 1));
  } else if (d->kind == "uniform") {
    if (!n["min"] || !n["max"]) return r.Error(n, f, "distribution uniform needs min and max");
  } else if (d->kind == "exponential") {
    if (!n["mean"]) return r.Error(n, f + ".mean", "required for distribution exponential");
    SIM_READ(d->mean, r.Duration(n["mean"], f + ".mean", 1));
  } else if (d->kind == "lognormal") {
    if (!n["median"]) return r.Error(n, f + ".median", "required for distribution lognormal");
    SIM_READ(d->median, r.Duration(n["median"], f + ".median", 1));
    if (n["sigma"]) SIM_READ(d->sigma, r.Double(n["sigma"], f + ".sigma", 0, 10));
  } else {
    return r.Error(
        n["distribution"], f + ".distribution",
        "unknown distribution \"" + d->kind + "\" (fixed, uniform, exponential, lognormal)");
  }
  if (d->max > 0 && d->min > d->max) return r.Error(n, f, "min must not exceed max");
  return Status::Ok();
}

Status ParseCurve(const Reader& r, const YAML::Node& n, const std::string& f, TideCurve* c) {
  BASALT_RETURN_IF_ERROR(
      r.KnownKeys(n, f, {"curve", "min", "max", "period", "peak_at", "step", "points"}));
  if (!n["curve"]) return r.Error(n, f + ".curve", "required (sine or table)");
  SIM_READ(c->kind, r.String(n["curve"], f + ".curve"));
  if (n["period"]) SIM_READ(c->period, r.Duration(n["period"], f + ".period", 60));
  if (n["step"]) SIM_READ(c->step, r.Duration(n["step"], f + ".step", 1));
  if (c->kind == "sine") {
    if (!n["min"] || !n["max"]) return r.Error(n, f, "curve sine needs min and max");
    SIM_READ(c->min, r.Int(n["min"], f + ".min", 0, 100000));
    SIM_READ(c->max, r.Int(n["max"], f + ".max", 0, 100000));
    if (c->min > c->max) return r.Error(n["min"], f + ".min", "must not exceed max");
    if (n["peak_at"]) SIM_READ(c->peak_at, r.Duration(n["peak_at"], f + ".peak_at", 0));
  } else if (c->kind == "table") {
    const YAML::Node pts = n["points"];
    if (!pts || !pts.IsSequence() || pts.size() == 0) {
      return r.Error(n, f + ".points", "curve table needs a non-empty list of [time, replicas]");
    }
    for (size_t i = 0; i < pts.size(); ++i) {
      const std::string pf = Idx(f + ".points", i);
      if (!pts[i].IsSequence() || pts[i].size() != 2)
        return r.Error(pts[i], pf, "must be [time, replicas]");
      int64_t at = 0, rep = 0;
      SIM_READ(at, r.Duration(pts[i][0], pf + "[0]", 0));
      SIM_READ(rep, r.Int(pts[i][1], pf + "[1]", 0, 100000));
      if (!c->points.empty() && at <= c->points.back().first) {
        return r.Error(pts[i], pf, "times must increase");
      }
      c->points.emplace_back(at, static_cast<int32_t>(rep));
    }
    if (!n["period"]) c->period = 0;  // a table repeats only when asked to
  } else {
    return r.Error(n["curve"], f + ".curve", "unknown curve \"" + c->kind + "\" (sine or table)");
  }
  return Status::Ok();
}

Status ParsePolicies(const Reader& r, const YAML::Node& n, const std::string& f,
                     std::vector<LifecyclePolicy>* out) {
  if (!n.IsSequence()) return r.Error(n, f, "must be a list of {event, action}");
  static const std::set<std::string> kEvents = {"PodEvicted", "PodFailed", "TaskCompleted",
                                                "Unknown", "*"};
  static const std::set<std::string> kActions = {"AbortJob", "RestartJob", "RestartTask",
                                                 "TerminateJob", "CompleteJob"};
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string pf = Idx(f, i);
    BASALT_RETURN_IF_ERROR(r.KnownKeys(n[i], pf, {"event", "action"}));
    LifecyclePolicy p;
    if (!n[i]["event"] || !n[i]["action"]) return r.Error(n[i], pf, "needs event and action");
    std::string ev, act;
    SIM_READ(ev, r.String(n[i]["event"], pf + ".event"));
    SIM_READ(act, r.String(n[i]["action"], pf + ".action"));
    if (!kEvents.count(ev))
      return r.Error(n[i]["event"], pf + ".event", "unknown event \"" + ev + "\"");
    if (!kActions.count(act))
      return r.Error(n[i]["action"], pf + ".action", "unknown action \"" + act + "\"");
    p.events = {ev};
    p.action = act;
    out->push_back(p);
  }
  return Status::Ok();
}

Status ParseTraining(const Reader& r, const YAML::Node& n, const std::string& f,
                     TrainingWorkload* w) {
  BASALT_RETURN_IF_ERROR(
      r.KnownKeys(n, f,
                  {"name", "namespace", "queue", "priority_class", "card_model", "arrival", "tasks",
                   "duration", "policies", "max_jobs", "network_topology"}));
  if (!n["name"]) return r.Error(n, f + ".name", "required");
  w->yaml_line = n.Mark().line + 1;
  SIM_READ(w->name, r.String(n["name"], f + ".name"));
  if (n["namespace"]) SIM_READ(w->namespace_, r.String(n["namespace"], f + ".namespace"));
  if (n["queue"]) SIM_READ(w->queue, r.String(n["queue"], f + ".queue"));
  if (n["priority_class"])
    SIM_READ(w->priority_class, r.String(n["priority_class"], f + ".priority_class"));
  if (n["card_model"]) SIM_READ(w->card_model, r.String(n["card_model"], f + ".card_model"));
  if (n["max_jobs"]) SIM_READ(w->max_jobs, r.Int(n["max_jobs"], f + ".max_jobs", 0, 10000000));
  const YAML::Node a = n["arrival"];
  if (!a) return r.Error(n, f + ".arrival", "required ({process: poisson|fixed, interval: 10m})");
  BASALT_RETURN_IF_ERROR(r.KnownKeys(a, f + ".arrival", {"process", "interval", "start", "stop"}));
  if (a["process"]) SIM_READ(w->arrival, r.String(a["process"], f + ".arrival.process"));
  if (w->arrival != "poisson" && w->arrival != "fixed") {
    return r.Error(a["process"], f + ".arrival.process", "must be poisson or fixed");
  }
  if (!a["interval"]) return r.Error(a, f + ".arrival.interval", "required");
  SIM_READ(w->interval, r.Duration(a["interval"], f + ".arrival.interval", 1));
  if (a["start"]) SIM_READ(w->start, r.Duration(a["start"], f + ".arrival.start", 0));
  if (a["stop"]) SIM_READ(w->stop, r.Duration(a["stop"], f + ".arrival.stop", 0));
  const YAML::Node tasks = n["tasks"];
  if (!tasks || !tasks.IsSequence() || tasks.size() == 0)
    return r.Error(n, f + ".tasks", "required: a non-empty list");
  std::set<std::string> names;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const std::string tf = Idx(f + ".tasks", i);
    BASALT_RETURN_IF_ERROR(r.KnownKeys(tasks[i], tf, {"name", "replicas", "requests"}));
    TrainingTask t;
    if (tasks[i]["name"]) SIM_READ(t.name, r.String(tasks[i]["name"], tf + ".name"));
    if (!names.insert(t.name).second)
      return r.Error(tasks[i], tf + ".name", "duplicate task name \"" + t.name + "\"");
    const YAML::Node rep = tasks[i]["replicas"];
    if (!rep)
      return r.Error(tasks[i], tf + ".replicas", "required (a number or a list to draw from)");
    if (rep.IsSequence()) {
      if (rep.size() == 0) return r.Error(rep, tf + ".replicas", "must not be empty");
      for (size_t k = 0; k < rep.size(); ++k) {
        int64_t v = 0;
        SIM_READ(v, r.Int(rep[k], Idx(tf + ".replicas", k), 1, 10000));
        t.replicas.push_back(static_cast<int32_t>(v));
      }
    } else {
      int64_t v = 0;
      SIM_READ(v, r.Int(rep, tf + ".replicas", 1, 10000));
      t.replicas.push_back(static_cast<int32_t>(v));
    }
    if (!tasks[i]["requests"]) return r.Error(tasks[i], tf + ".requests", "required");
    SIM_READ(t.request, r.Resources(tasks[i]["requests"], tf + ".requests"));
    w->tasks.push_back(std::move(t));
  }
  if (!n["duration"]) return r.Error(n, f + ".duration", "required");
  BASALT_RETURN_IF_ERROR(ParseDuration(r, n["duration"], f + ".duration", &w->duration));
  if (n["policies"])
    BASALT_RETURN_IF_ERROR(ParsePolicies(r, n["policies"], f + ".policies", &w->policies));
  if (n["network_topology"]) {
    BASALT_RETURN_IF_ERROR(ParseWorkloadTopology(r, n["network_topology"], f + ".network_topology",
                                                 &w->network_topology));
  }
  return Status::Ok();
}

Status ParseInference(const Reader& r, const YAML::Node& n, const std::string& f,
                      InferenceWorkload* w) {
  BASALT_RETURN_IF_ERROR(r.KnownKeys(
      n, f,
      {"name", "namespace", "queue", "priority_class", "card_model", "requests", "replicas"}));
  if (!n["name"]) return r.Error(n, f + ".name", "required");
  w->yaml_line = n.Mark().line + 1;
  SIM_READ(w->name, r.String(n["name"], f + ".name"));
  if (n["namespace"]) SIM_READ(w->namespace_, r.String(n["namespace"], f + ".namespace"));
  if (n["queue"]) SIM_READ(w->queue, r.String(n["queue"], f + ".queue"));
  if (n["priority_class"])
    SIM_READ(w->priority_class, r.String(n["priority_class"], f + ".priority_class"));
  if (n["card_model"]) SIM_READ(w->card_model, r.String(n["card_model"], f + ".card_model"));
  if (!n["requests"]) return r.Error(n, f + ".requests", "required");
  SIM_READ(w->request, r.Resources(n["requests"], f + ".requests"));
  if (!n["replicas"]) return r.Error(n, f + ".replicas", "required ({curve: sine|table, ...})");
  return ParseCurve(r, n["replicas"], f + ".replicas", &w->replicas);
}

Status ParseTrace(const Reader& r, const YAML::Node& n, const std::string& f,
                  const std::string& base, TraceWorkload* w) {
  BASALT_RETURN_IF_ERROR(
      r.KnownKeys(n, f,
                  {"kind", "path", "namespace", "queues", "node_selectors", "priority_class",
                   "card_model", "time_scale", "time_offset", "default_duration", "max_rows"}));
  if (!n["kind"] || !n["path"])
    return r.Error(n, f, "needs kind (openb-pods or dlrm-inference) and path");
  w->yaml_line = n.Mark().line + 1;
  SIM_READ(w->kind, r.String(n["kind"], f + ".kind"));
  if (w->kind != "openb-pods" && w->kind != "dlrm-inference") {
    return r.Error(n["kind"], f + ".kind",
                   "unknown trace kind \"" + w->kind + "\" (openb-pods, dlrm-inference)");
  }
  SIM_READ(w->path, r.String(n["path"], f + ".path"));
  if (!w->path.empty() && w->path[0] != '/') w->path = base + w->path;
  if (n["namespace"]) SIM_READ(w->namespace_, r.String(n["namespace"], f + ".namespace"));
  if (n["queues"]) SIM_READ(w->queue_by_class, r.StringMap(n["queues"], f + ".queues"));
  if (const YAML::Node sel = n["node_selectors"]) {
    if (!sel.IsMap())
      return r.Error(sel, f + ".node_selectors",
                     "must map a class to labels, e.g. {CN: {pool: cpu}}");
    for (const auto& kv : sel) {
      const std::string cls = kv.first.Scalar();
      SIM_READ(w->node_selector_by_class[cls],
               r.StringMap(kv.second, f + ".node_selectors." + cls));
    }
  }
  if (n["priority_class"])
    SIM_READ(w->priority_class, r.String(n["priority_class"], f + ".priority_class"));
  if (n["card_model"]) SIM_READ(w->card_model, r.String(n["card_model"], f + ".card_model"));
  if (n["time_scale"])
    SIM_READ(w->time_scale, r.Double(n["time_scale"], f + ".time_scale", 1e-6, 1e6));
  if (n["time_offset"])
    SIM_READ(w->time_offset, r.Duration(n["time_offset"], f + ".time_offset", 0));
  if (n["default_duration"]) {
    SIM_READ(w->default_duration, r.Duration(n["default_duration"], f + ".default_duration", 1));
  }
  if (n["max_rows"]) SIM_READ(w->max_rows, r.Int(n["max_rows"], f + ".max_rows", 0, 100000000));
  return Status::Ok();
}

Status ParsePool(const Reader& r, const YAML::Node& n, const std::string& f, NodePool* p) {
  BASALT_RETURN_IF_ERROR(
      r.KnownKeys(n, f, {"pool", "count", "allocatable", "labels", "taints", "card_model"}));
  if (!n["pool"])
    return r.Error(n, f + ".pool", "required (the pool name; nodes are <pool>-<index>)");
  SIM_READ(p->name, r.String(n["pool"], f + ".pool"));
  p->yaml_line = n.Mark().line + 1;
  if (!n["count"]) return r.Error(n, f + ".count", "required");
  SIM_READ(p->count, r.Int(n["count"], f + ".count", 0, 100000));
  if (!n["allocatable"]) return r.Error(n, f + ".allocatable", "required");
  SIM_READ(p->allocatable, r.Resources(n["allocatable"], f + ".allocatable"));
  if (n["labels"]) SIM_READ(p->labels, r.StringMap(n["labels"], f + ".labels"));
  if (n["card_model"]) SIM_READ(p->card_model, r.String(n["card_model"], f + ".card_model"));
  if (const YAML::Node t = n["taints"]) {
    if (!t.IsSequence()) return r.Error(t, f + ".taints", "must be a list of {key, value, effect}");
    for (size_t i = 0; i < t.size(); ++i) {
      const std::string tf = Idx(f + ".taints", i);
      BASALT_RETURN_IF_ERROR(r.KnownKeys(t[i], tf, {"key", "value", "effect"}));
      Taint taint;
      if (!t[i]["key"] || !t[i]["effect"]) return r.Error(t[i], tf, "needs key and effect");
      SIM_READ(taint.key, r.String(t[i]["key"], tf + ".key"));
      if (t[i]["value"]) SIM_READ(taint.value, r.String(t[i]["value"], tf + ".value"));
      SIM_READ(taint.effect, r.String(t[i]["effect"], tf + ".effect"));
      if (taint.effect != "NoSchedule" && taint.effect != "PreferNoSchedule" &&
          taint.effect != "NoExecute") {
        return r.Error(t[i]["effect"], tf + ".effect",
                       "must be NoSchedule, PreferNoSchedule or NoExecute");
      }
      p->taints.push_back(taint);
    }
  }
  return Status::Ok();
}

Status ParseQueue(const Reader& r, const YAML::Node& n, const std::string& f, Queue* q) {
  BASALT_RETURN_IF_ERROR(r.KnownKeys(n, f,
                                     {"name", "weight", "priority", "reclaimable", "capability",
                                      "deserved", "guarantee", "parent"}));
  if (!n["name"]) return r.Error(n, f + ".name", "required");
  SIM_READ(q->meta.name, r.String(n["name"], f + ".name"));
  q->meta.source = r.file() + ":" + std::to_string(n.Mark().line + 1);
  if (n["weight"]) SIM_READ(q->weight, r.Int(n["weight"], f + ".weight", 1, 1 << 30));
  if (n["priority"])
    SIM_READ(q->priority, r.Int(n["priority"], f + ".priority", -(1 << 30), 1 << 30));
  if (n["reclaimable"]) {
    bool b = true;
    SIM_READ(b, r.Bool(n["reclaimable"], f + ".reclaimable"));
    q->reclaimable = b;
  }
  if (n["capability"]) SIM_READ(q->capability, r.Resources(n["capability"], f + ".capability"));
  if (n["deserved"]) SIM_READ(q->deserved, r.Resources(n["deserved"], f + ".deserved"));
  if (n["guarantee"]) SIM_READ(q->guarantee, r.Resources(n["guarantee"], f + ".guarantee"));
  if (n["parent"]) SIM_READ(q->parent, r.String(n["parent"], f + ".parent"));
  return Status::Ok();
}

Status ParseRoot(const Reader& r, const YAML::Node& root, const std::string& base, Scenario* s) {
  BASALT_RETURN_IF_ERROR(
      r.KnownKeys(root, "",
                  {"name", "description", "seed", "duration", "period", "metrics_interval",
                   "scheduler", "priority_classes", "queues", "nodes", "workloads", "node_events",
                   "card_label", "manifests", "colocation", "topology"}));
  if (root["name"]) SIM_READ(s->name, r.String(root["name"], "name"));
  if (root["seed"]) {
    int64_t seed = 0;
    SIM_READ(seed, r.Int(root["seed"], "seed", 0, INT64_MAX));
    s->seed = static_cast<uint64_t>(seed);
  }
  if (root["duration"]) SIM_READ(s->duration, r.Duration(root["duration"], "duration", 1));
  if (s->duration > kMaxSeconds) return r.Error(root["duration"], "duration", "at most 10 years");
  if (root["period"]) SIM_READ(s->period, r.Duration(root["period"], "period", 1));
  if (root["metrics_interval"])
    SIM_READ(s->metrics_interval, r.Duration(root["metrics_interval"], "metrics_interval", 1));
  if (root["card_label"]) SIM_READ(s->card_label, r.String(root["card_label"], "card_label"));
  if (const YAML::Node m = root["manifests"]) {
    if (!m.IsSequence())
      return r.Error(m, "manifests", "must be a list of manifest files or folders");
    for (size_t i = 0; i < m.size(); ++i) {
      std::string path;
      SIM_READ(path, r.String(m[i], Idx("manifests", i)));
      s->manifests.push_back(!path.empty() && path[0] != '/' ? base + path : path);
    }
  }
  if (!root["scheduler"])
    return r.Error(root, "scheduler", "required: the Volcano scheduler configuration, verbatim");
  SIM_READ(s->scheduler_conf, r.String(root["scheduler"], "scheduler"));
  if (const YAML::Node pcs = root["priority_classes"]) {
    if (!pcs.IsSequence())
      return r.Error(pcs, "priority_classes", "must be a list of {name, value}");
    for (size_t i = 0; i < pcs.size(); ++i) {
      const std::string f = Idx("priority_classes", i);
      BASALT_RETURN_IF_ERROR(r.KnownKeys(pcs[i], f, {"name", "value", "preemption_policy"}));
      PriorityClass pc;
      if (!pcs[i]["name"] || !pcs[i]["value"]) return r.Error(pcs[i], f, "needs name and value");
      SIM_READ(pc.meta.name, r.String(pcs[i]["name"], f + ".name"));
      int64_t v = 0;
      SIM_READ(v, r.Int(pcs[i]["value"], f + ".value", -2000000000, 2000000000));
      pc.value = static_cast<int32_t>(v);
      if (pcs[i]["preemption_policy"]) {
        SIM_READ(pc.preemption_policy,
                 r.String(pcs[i]["preemption_policy"], f + ".preemption_policy"));
      }
      s->priority_classes.push_back(pc);
    }
  }
  if (const YAML::Node qs = root["queues"]) {
    if (!qs.IsSequence()) return r.Error(qs, "queues", "must be a list");
    for (size_t i = 0; i < qs.size(); ++i) {
      Queue q;
      BASALT_RETURN_IF_ERROR(ParseQueue(r, qs[i], Idx("queues", i), &q));
      s->queues.push_back(std::move(q));
    }
  }
  const YAML::Node nodes = root["nodes"];
  if (!nodes || !nodes.IsSequence() || nodes.size() == 0) {
    return r.Error(nodes ? nodes : root, "nodes", "required: a non-empty list of node pools");
  }
  std::set<std::string> pool_names;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string f = Idx("nodes", i);
    if (nodes[i].IsMap() && nodes[i]["openb_trace"]) {
      BASALT_RETURN_IF_ERROR(r.KnownKeys(nodes[i], f, {"openb_trace", "limit"}));
      SIM_READ(s->openb_nodes_path, r.String(nodes[i]["openb_trace"], f + ".openb_trace"));
      if (!s->openb_nodes_path.empty() && s->openb_nodes_path[0] != '/')
        s->openb_nodes_path = base + s->openb_nodes_path;
      if (nodes[i]["limit"])
        SIM_READ(s->openb_nodes_limit, r.Int(nodes[i]["limit"], f + ".limit", 0, 1000000));
      continue;
    }
    NodePool p;
    BASALT_RETURN_IF_ERROR(ParsePool(r, nodes[i], f, &p));
    if (!pool_names.insert(p.name).second)
      return r.Error(nodes[i]["pool"], f + ".pool", "duplicate pool \"" + p.name + "\"");
    s->pools.push_back(std::move(p));
  }
  if (const YAML::Node t = root["topology"])
    BASALT_RETURN_IF_ERROR(ParseTopologySection(r, t, s->pools, &s->topology));
  if (const YAML::Node w = root["workloads"]) {
    BASALT_RETURN_IF_ERROR(r.KnownKeys(w, "workloads", {"training", "inference", "traces"}));
    std::set<std::string> names;
    if (const YAML::Node t = w["training"]) {
      if (!t.IsSequence()) return r.Error(t, "workloads.training", "must be a list");
      for (size_t i = 0; i < t.size(); ++i) {
        TrainingWorkload tw;
        BASALT_RETURN_IF_ERROR(ParseTraining(r, t[i], Idx("workloads.training", i), &tw));
        if (!names.insert(tw.name).second)
          return r.Error(t[i], Idx("workloads.training", i) + ".name", "duplicate workload name");
        s->training.push_back(std::move(tw));
      }
    }
    if (const YAML::Node in = w["inference"]) {
      if (!in.IsSequence()) return r.Error(in, "workloads.inference", "must be a list");
      for (size_t i = 0; i < in.size(); ++i) {
        InferenceWorkload iw;
        BASALT_RETURN_IF_ERROR(ParseInference(r, in[i], Idx("workloads.inference", i), &iw));
        if (!names.insert(iw.name).second)
          return r.Error(in[i], Idx("workloads.inference", i) + ".name", "duplicate workload name");
        s->inference.push_back(std::move(iw));
      }
    }
    if (const YAML::Node tr = w["traces"]) {
      if (!tr.IsSequence()) return r.Error(tr, "workloads.traces", "must be a list");
      for (size_t i = 0; i < tr.size(); ++i) {
        TraceWorkload t;
        BASALT_RETURN_IF_ERROR(ParseTrace(r, tr[i], Idx("workloads.traces", i), base, &t));
        s->traces.push_back(std::move(t));
      }
    }
  }
  if (const YAML::Node ev = root["node_events"]) {
    if (!ev.IsSequence())
      return r.Error(ev, "node_events", "must be a list of {at, action, nodes}");
    for (size_t i = 0; i < ev.size(); ++i) {
      const std::string f = Idx("node_events", i);
      BASALT_RETURN_IF_ERROR(r.KnownKeys(ev[i], f, {"at", "action", "nodes"}));
      NodeEvent e;
      e.yaml_line = ev[i].Mark().line + 1;
      if (!ev[i]["at"] || !ev[i]["action"] || !ev[i]["nodes"])
        return r.Error(ev[i], f, "needs at, action and nodes");
      SIM_READ(e.at, r.Duration(ev[i]["at"], f + ".at", 0));
      SIM_READ(e.action, r.String(ev[i]["action"], f + ".action"));
      if (e.action != "fail" && e.action != "recover" && e.action != "drain") {
        return r.Error(ev[i]["action"], f + ".action", "must be fail, recover or drain");
      }
      const YAML::Node ns = ev[i]["nodes"];
      if (!ns.IsSequence() || ns.size() == 0)
        return r.Error(ns, f + ".nodes", "must be a non-empty list of node names");
      for (size_t k = 0; k < ns.size(); ++k) {
        std::string name;
        SIM_READ(name, r.String(ns[k], Idx(f + ".nodes", k)));
        e.nodes.push_back(name);
      }
      s->node_events.push_back(std::move(e));
    }
  }
  if (const YAML::Node c = root["colocation"]) {
    BASALT_RETURN_IF_ERROR(ParseColocation(c, r.file(), &s->colocation.emplace()));
  }
  return Status::Ok();
}

}  // namespace

Result<int64_t> ParseSimDuration(const std::string& text) {
  if (text.empty()) return Status::InvalidArgument("empty duration");
  int64_t total = 0;
  size_t i = 0;
  // Compound forms ("1d12h") are accepted: each number takes the unit after it.
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j == i || j - i > 12)
      return Status::InvalidArgument("invalid duration \"" + text + "\" (e.g. 90s, 15m, 2h, 1d)");
    int64_t v = std::stoll(text.substr(i, j - i));
    int64_t unit = 1;
    if (j < text.size()) {
      switch (text[j]) {
        case 's':
          unit = 1;
          break;
        case 'm':
          unit = 60;
          break;
        case 'h':
          unit = 3600;
          break;
        case 'd':
          unit = 86400;
          break;
        case 'w':
          unit = 7 * 86400;
          break;
        default:
          return Status::InvalidArgument("invalid duration \"" + text +
                                         "\" (units: s, m, h, d, w)");
      }
      ++j;
    } else if (i != 0) {
      return Status::InvalidArgument("invalid duration \"" + text +
                                     "\": a unit is required after each number");
    }
    if (v > kMaxSeconds / unit)
      return Status::InvalidArgument("duration \"" + text + "\" too large");
    total += v * unit;
    if (total > kMaxSeconds) return Status::InvalidArgument("duration \"" + text + "\" too large");
    i = j;
  }
  return total;
}

int32_t TideCurve::At(int64_t t) const {
  if (kind == "sine") {
    // A raised cosine: `max` at `peak_at`, `min` half a period later.
    const double phase =
        2 * std::numbers::pi * static_cast<double>(t - peak_at) / static_cast<double>(period);
    const double v = min + (max - min) * (1 + std::cos(phase)) / 2;
    return static_cast<int32_t>(std::lround(v));
  }
  if (points.empty()) return 0;
  int64_t x = period > 0 ? ((t % period) + period) % period : t;
  int32_t v = points.front().second;
  for (const auto& [at, rep] : points) {
    if (at > x) break;
    v = rep;
  }
  return v;
}

Result<Scenario> ParseScenario(const std::string& text, const std::string& file) {
  Scenario s;
  s.source = file;
  const size_t slash = file.rfind('/');
  const std::string base = slash == std::string::npos ? "" : file.substr(0, slash + 1);
  Reader r(file);
  try {
    YAML::Node root = YAML::Load(text);
    size_t budget = 1000000;
    int line = 0;
    Status shape = CheckYamlTree(root, &budget, &line);
    if (!shape.ok())
      return Status::InvalidArgument(file + ":" + std::to_string(line + 1) + ": " +
                                     shape.message());
    if (!root.IsMap())
      return Status::InvalidArgument(file + ":1: the scenario must be a YAML mapping");
    BASALT_RETURN_IF_ERROR(ParseRoot(r, root, base, &s));
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(file + ":" + std::to_string(e.mark.line + 1) + ":" +
                                   std::to_string(e.mark.column + 1) +
                                   ": malformed YAML: " + e.msg);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(file + ": " + e.what());
  }
  return s;
}

Result<Scenario> LoadScenario(const std::string& path) {
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadFileOrError(path, "scenario file"));
  return ParseScenario(text, path);
}

}  // namespace basalt
