#include "cli/queue_cmd.h"

#include <algorithm>
#include <iostream>
#include <memory>

#include "admission/admission.h"
#include "api/decode.h"
#include "cli/completion_hints.h"

namespace basalt {
namespace {

// vcctl posts queue Commands into its --namespace flag's default.
constexpr const char* kCommandNamespace = "default";

struct QueueFlags {
  BackendFlags backend;
  std::string name;
  int weight = 1;
  std::string state = "Open";
  std::string parent;
  std::string output;
  bool no_headers = false;
  // -n/--namespace: accepted and ignored, as kubectl does for cluster-scoped
  // objects; remembered only to explain a missing name.
  std::string namespace_;
};

// The name every command but list needs. vcctl users type `-n NAME`; here -n
// is the namespace (kubectl's habit), so the message says what to type.
Status NeedName(const QueueFlags& f, const std::string& verb) {
  if (!f.name.empty()) return Status::Ok();
  std::string message = "queue " + verb + ": queue name (QUEUE or --name) is mandatory";
  if (!f.namespace_.empty()) message += "; -n is the namespace, as in kubectl";
  return Status::InvalidArgument(message);
}

// The `default` queue Volcano creates at start-up and `basalt schedule` adds
// to a folder that has none: weight 1, Open.
Json ImplicitDefaultQueue() {
  return Json{{"apiVersion", "scheduling.volcano.sh/v1beta1"},
              {"kind", "Queue"},
              {"metadata", {{"name", "default"}}},
              {"spec", {{"weight", 1}}},
              {"status", {{"state", "Open"}}}};
}

// A folder's queues as `basalt schedule` sees them: the implicit default
// queue included, in name order.
void AddImplicitDefault(std::vector<Json>* queues) {
  for (const Json& q : *queues) {
    if (Meta(q, "name") == "default") return;
  }
  auto at = std::find_if(queues->begin(), queues->end(),
                         [](const Json& q) { return Meta(q, "name") > "default"; });
  queues->insert(at, ImplicitDefaultQueue());
}

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// Volcano's queue webhook on create: the new queue checked together with the
// existing ones (weight, state, parent, capabilities).
Status CheckNewQueue(const Json& queue, VcStore& store) {
  ClusterObjects objs;
  BASALT_ASSIGN_OR_RETURN(std::vector<Json> queues, store.List(VcKind::kQueue, ""));
  for (const Json& q : queues) {
    BASALT_RETURN_IF_ERROR(
        DecodeText(q.dump(), store.Describe() + ": Queue " + Meta(q, "name"), &objs));
  }
  const std::string source = "queue create flags";
  BASALT_RETURN_IF_ERROR(DecodeText(queue.dump(), source, &objs));
  for (const AdmissionProblem& p : ValidateObjects(objs)) {
    if (p.object == "Queue " + Meta(queue, "name")) {
      return Status::InvalidArgument(source + ": " + p.object + ": " + p.field + ": " + p.message);
    }
  }
  return Status::Ok();
}

Status CreateQueue(const QueueFlags& f) {
  BASALT_RETURN_IF_ERROR(NeedName(f, "create"));
  if (std::vector<std::string> errs = ObjectNameErrors(f.name); !errs.empty()) {
    std::string why;
    for (const std::string& e : errs) why += (why.empty() ? "" : "; ") + e;
    return Status::InvalidArgument("queue create: queue name \"" + f.name + "\": " + why);
  }
  if (f.state != "Open" && f.state != "Closed") {
    return Status::InvalidArgument("queue create: --state: want Open or Closed, got \"" + f.state +
                                   "\"");
  }
  Json spec = {{"weight", f.weight}};
  if (!f.parent.empty()) spec["parent"] = f.parent;
  Json queue = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "Queue"},
                {"metadata", {{"name", f.name}}},
                {"spec", spec},
                {"status", {{"state", f.state}}}};
  BASALT_ASSIGN_OR_RETURN(std::unique_ptr<VcStore> store, OpenStore(f.backend.store));
  BASALT_RETURN_IF_ERROR(CheckNewQueue(queue, *store));
  BASALT_RETURN_IF_ERROR(StampNewObject(f.backend, &queue));
  BASALT_ASSIGN_OR_RETURN(Json created, store->Create(VcKind::kQueue, "", queue));
  std::cout << "create queue " << Meta(created, "name") << " successfully\n";
  return Status::Ok();
}

// One queue; in a folder, `default` is there even without a manifest.
Result<Json> GetQueue(const QueueFlags& f, VcStore& store) {
  Result<Json> q = store.Get(VcKind::kQueue, "", f.name);
  if (!q.ok() && q.status().code() == Status::Code::kNotFound && f.name == "default" &&
      FolderMode(f.backend)) {
    return ImplicitDefaultQueue();
  }
  return q;
}

Status ListQueues(const QueueFlags& f, bool one) {
  BASALT_RETURN_IF_ERROR(CheckListOutputFormat(f.output));
  if (one) BASALT_RETURN_IF_ERROR(NeedName(f, "get"));
  BASALT_ASSIGN_OR_RETURN(std::unique_ptr<VcStore> store, OpenStore(f.backend.store));
  std::vector<Json> queues;
  if (one) {
    BASALT_ASSIGN_OR_RETURN(Json q, GetQueue(f, *store));
    if (f.output == "json" || f.output == "yaml") {
      PrintObject(q, f.output, std::cout);
      return Status::Ok();
    }
    queues.push_back(std::move(q));
  } else {
    BASALT_ASSIGN_OR_RETURN(queues, store->List(VcKind::kQueue, ""));
    if (FolderMode(f.backend)) AddImplicitDefault(&queues);
    if (f.output == "json" || f.output == "yaml") {
      PrintObject(Json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", queues}}, f.output,
                  std::cout);
      return Status::Ok();
    }
  }
  if (f.output == "name") {
    PrintNames(queues, std::cout);
    return Status::Ok();
  }
  if (queues.empty()) {
    std::cout << "No resources found\n";
    return Status::Ok();
  }
  PrintQueueTable(queues, QueueTableOptions{f.output == "wide", !f.no_headers}, std::cout);
  return Status::Ok();
}

// Folder mode: what Volcano's queue controller does a moment after vcctl
// posts the Command (and then deletes the Command): OpenQueue opens;
// CloseQueue closes, or leaves the queue Closing while PodGroups are in it.
Status ApplyInFolder(const QueueFlags& f, VcStore& store, Json queue, const std::string& verb,
                     const std::string& action) {
  std::string state = "Open";
  size_t groups = 0;
  if (action == "CloseQueue") {
    ClusterObjects objs;
    BASALT_RETURN_IF_ERROR(LoadPath(f.backend.store.cluster_dir, &objs));
    for (const PodGroup& pg : objs.podgroups) {
      if ((pg.queue.empty() ? "default" : pg.queue) == f.name) ++groups;
    }
    state = groups == 0 ? "Closed" : "Closing";
  }
  if (!queue["status"].is_object()) queue["status"] = Json::object();
  queue["status"]["state"] = state;
  // The folder store has no update: the queue's document is rewritten as
  // queue-<name>.yaml, every other field kept.
  BASALT_RETURN_IF_ERROR(store.Delete(VcKind::kQueue, "", f.name));
  BASALT_ASSIGN_OR_RETURN(Json stored, store.Create(VcKind::kQueue, "", queue));
  std::cout << verb << " queue " << f.name << ": state " << state;
  if (groups > 0) {
    std::cout << " (" << groups << " PodGroup" << (groups == 1 ? " is" : "s are")
              << " in it; Closed once they are gone)";
  }
  std::cout << "\n";
  return Status::Ok();
}

// open (OpenQueue) and close (CloseQueue) post a Command for the queue; in a
// folder they are applied at once instead (ApplyInFolder).
Status CommandQueue(const QueueFlags& f, const std::string& verb, const std::string& action) {
  BASALT_RETURN_IF_ERROR(NeedName(f, verb));
  BASALT_ASSIGN_OR_RETURN(std::unique_ptr<VcStore> store, OpenStore(f.backend.store));
  BASALT_ASSIGN_OR_RETURN(Json queue, store->Get(VcKind::kQueue, "", f.name));
  if (FolderMode(f.backend)) return ApplyInFolder(f, *store, std::move(queue), verb, action);
  BASALT_ASSIGN_OR_RETURN(Json cmd, store->Create(VcKind::kCommand, kCommandNamespace,
                                                  MakeVcctlCommand(queue, action)));
  std::cout << verb << " queue " << f.name << ": Command " << Meta(cmd, "namespace") << "/"
            << Meta(cmd, "name") << " (" << action << ") created\n";
  return Status::Ok();
}

// Volcano's queue webhook on delete: not `default` or `root`, and only once
// the queue is Closed.
Status DeleteQueue(const QueueFlags& f) {
  BASALT_RETURN_IF_ERROR(NeedName(f, "delete"));
  if (f.name == "default" || f.name == "root") {
    return Status::FailedPrecondition("queue delete: `" + f.name + "` queue can not be deleted");
  }
  BASALT_ASSIGN_OR_RETURN(std::unique_ptr<VcStore> store, OpenStore(f.backend.store));
  BASALT_ASSIGN_OR_RETURN(Json queue, store->Get(VcKind::kQueue, "", f.name));
  std::string state = StrAt(queue, "/status/state");
  if (state != "Closed") {
    return Status::FailedPrecondition(
        "queue delete: only queue with state `Closed` can be deleted, queue `" + f.name +
        "` state is `" + (state.empty() ? "Open" : state) +
        "` (close it first: basalt queue close " + f.name + ")");
  }
  BASALT_RETURN_IF_ERROR(store->Delete(VcKind::kQueue, "", f.name));
  std::cout << "delete queue " << f.name << " successfully\n";
  return Status::Ok();
}

void AddNamespaceFlag(CLI::App* cmd, QueueFlags* f) {
  cmd->add_option("--namespace,-n", f->namespace_,
                  "Ignored: queues are cluster-scoped (accepted, as kubectl does)");
}

void AddNameFlags(CLI::App* cmd, QueueFlags* f) {
  cmd->add_option("queue", f->name, "Queue name");
  cmd->add_option("--name", f->name, "Queue name (vcctl's flag; same as QUEUE)");
  AddNamespaceFlag(cmd, f);
}

}  // namespace

void PrintQueueTable(const std::vector<Json>& queues, const QueueTableOptions& options,
                     std::ostream& out) {
  constexpr size_t kVcctlColumns = 8;
  auto parent = [](const Json& q) {
    std::string p = StrAt(q, "/spec/parent");
    return p.empty() ? std::string("<none>") : p;
  };
  size_t parent_width = 6;  // "Parent"
  for (const Json& q : queues) parent_width = std::max(parent_width, parent(q).size());
  parent_width += 2;
  // vcctl's widths: 25 for the name, 8 after (Completed, 9 long, touches the
  // line's end); -o wide gives Completed room and Parent its longest value.
  auto width = [&](size_t column) -> size_t {
    if (column + 1 < kVcctlColumns) return 8;
    if (column + 1 == kVcctlColumns) return options.wide ? 10 : 8;
    return column == kVcctlColumns ? parent_width : 0;
  };
  auto row = [&](const std::vector<std::string>& cells) {
    std::string line = Pad(cells[0], 25);
    for (size_t i = 1; i < cells.size(); ++i) line += Pad(cells[i], width(i));
    out << line << "\n";
  };
  if (options.headers) {
    std::vector<std::string> header = {"Name",    "Weight",  "State",   "Inqueue",
                                       "Pending", "Running", "Unknown", "Completed"};
    if (options.wide) header.insert(header.end(), {"Parent", "Reclaimable"});
    row(header);
  }
  for (const Json& q : queues) {
    auto n = [&](const char* p) { return std::to_string(IntAt(q, p)); };
    std::vector<std::string> cells = {Meta(q, "name"),           n("/spec/weight"),
                                      StrAt(q, "/status/state"), n("/status/inqueue"),
                                      n("/status/pending"),      n("/status/running"),
                                      n("/status/unknown"),      n("/status/completed")};
    if (options.wide) {
      Json::json_pointer reclaimable("/spec/reclaimable");
      bool yes = !q.contains(reclaimable) || !q.at(reclaimable).is_boolean() ||
                 q.at(reclaimable).get<bool>();
      cells.push_back(parent(q));
      cells.push_back(yes ? "true" : "false");
    }
    row(cells);
  }
}

void AddQueueCommands(CLI::App& app, CliOutcome* outcome) {
  auto f = std::make_shared<QueueFlags>();
  CLI::App* queue =
      app.add_subcommand("queue", "vcctl's queue commands: create, list, get, open, close, delete");
  queue->require_subcommand(1);
  queue->footer(Examples({"basalt queue list", "basalt queue create research --weight 4",
                          "basalt queue close research --cluster ./cluster"}));

  CLI::App* create = queue->add_subcommand("create", "Create a queue");
  AddBackendFlags(create, &f->backend);
  AddNameFlags(create, f.get());
  create->add_option("--weight,-w", f->weight, "spec.weight")
      ->check(CLI::Range(1, 65535))
      ->capture_default_str();
  create->add_option("--state,-S", f->state, "status.state: Open or Closed")->capture_default_str();
  create->add_option("--parent,-p", f->parent, "spec.parent (hierarchical queues)");
  create->footer(Examples({"basalt queue create research --weight 4",
                           "basalt queue create --name batch --cluster ./cluster"}));
  SetAction(create, outcome, [f] { return CreateQueue(*f); });

  CLI::App* list =
      queue->add_subcommand("list", "List queues as vcctl does (or -o json|yaml|name|wide)");
  AddBackendFlags(list, &f->backend);
  AddNamespaceFlag(list, f.get());
  OfferValues(list->add_option("--output,-o", f->output,
                               "json, yaml or name instead of the table; wide adds Parent and "
                               "Reclaimable"),
              ListOutputFormats());
  list->add_flag("--no-headers", f->no_headers, "Leave out the table's header line");
  list->footer(Examples({"basalt queue list",
                         "basalt queue list --cluster examples/gang-training/cluster -o json",
                         "basalt queue list -o wide --no-headers"}));
  SetAction(list, outcome, [f] { return ListQueues(*f, false); });

  CLI::App* get = queue->add_subcommand("get", "Show one queue");
  AddBackendFlags(get, &f->backend);
  AddNameFlags(get, f.get());
  CompleteObjectNames(get, "queue");
  OfferValues(get->add_option("--output,-o", f->output,
                              "json or yaml: the whole object; name: its kind/name; wide: more "
                              "columns"),
              ListOutputFormats());
  get->add_flag("--no-headers", f->no_headers, "Leave out the table's header line");
  get->footer(Examples({"basalt queue get research", "basalt queue get --name research -o yaml"}));
  SetAction(get, outcome, [f] { return ListQueues(*f, true); });

  CLI::App* open = queue->add_subcommand(
      "open", "Open a queue (a Command with action OpenQueue; with --cluster: at once)");
  AddBackendFlags(open, &f->backend);
  AddNameFlags(open, f.get());
  CompleteObjectNames(open, "queue");
  open->footer(Examples(
      {"basalt queue open research", "basalt queue open research --cluster ./cluster --seed 3"}));
  SetAction(open, outcome, [f] { return CommandQueue(*f, "open", "OpenQueue"); });

  CLI::App* close =
      queue->add_subcommand("close",
                            "Close a queue (a Command with action CloseQueue; with --cluster: "
                            "at once, Closing while PodGroups are in it)");
  AddBackendFlags(close, &f->backend);
  AddNameFlags(close, f.get());
  CompleteObjectNames(close, "queue");
  close->footer(Examples(
      {"basalt queue close research", "basalt queue close --name research --cluster ./cluster"}));
  SetAction(close, outcome, [f] { return CommandQueue(*f, "close", "CloseQueue"); });

  CLI::App* del = queue->add_subcommand("delete", "Delete a Closed queue");
  AddBackendFlags(del, &f->backend);
  AddNameFlags(del, f.get());
  CompleteObjectNames(del, "queue");
  del->footer(Examples(
      {"basalt queue close research --cluster ./cluster && basalt queue delete research --cluster "
       "./cluster",
       "basalt queue delete research   # on a cluster: once the CloseQueue Command closed it"}));
  SetAction(del, outcome, [f] { return DeleteQueue(*f); });
}

}  // namespace basalt
