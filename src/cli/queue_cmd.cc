#include "cli/queue_cmd.h"

#include <iostream>
#include <memory>

#include "admission/admission.h"
#include "api/decode.h"

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
};

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
  if (f.name.empty())
    return Status::InvalidArgument("queue create: queue name (QUEUE or --name) is mandatory");
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
  BASALT_ASSIGN_OR_RETURN(Json created, store->Create(VcKind::kQueue, "", queue));
  std::cout << "create queue " << Meta(created, "name") << " successfully\n";
  return Status::Ok();
}

Status ListQueues(const QueueFlags& f, bool one) {
  BASALT_RETURN_IF_ERROR(CheckOutputFormat(f.output));
  if (one && f.name.empty())
    return Status::InvalidArgument("queue get: queue name (QUEUE or --name) is mandatory");
  BASALT_ASSIGN_OR_RETURN(std::unique_ptr<VcStore> store, OpenStore(f.backend.store));
  std::vector<Json> queues;
  if (one) {
    BASALT_ASSIGN_OR_RETURN(Json q, store->Get(VcKind::kQueue, "", f.name));
    if (!f.output.empty()) {
      PrintObject(q, f.output, std::cout);
      return Status::Ok();
    }
    queues.push_back(std::move(q));
  } else {
    BASALT_ASSIGN_OR_RETURN(queues, store->List(VcKind::kQueue, ""));
    if (!f.output.empty()) {
      PrintObject(Json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", queues}}, f.output,
                  std::cout);
      return Status::Ok();
    }
  }
  if (queues.empty()) {
    std::cout << "No resources found\n";
    return Status::Ok();
  }
  PrintQueueTable(queues, std::cout);
  return Status::Ok();
}

// open (OpenQueue) and close (CloseQueue) post a Command for the queue.
Status CommandQueue(const QueueFlags& f, const std::string& verb, const std::string& action) {
  if (f.name.empty())
    return Status::InvalidArgument("queue " + verb + ": queue name (QUEUE or --name) is mandatory");
  BASALT_ASSIGN_OR_RETURN(std::unique_ptr<VcStore> store, OpenStore(f.backend.store));
  BASALT_ASSIGN_OR_RETURN(Json queue, store->Get(VcKind::kQueue, "", f.name));
  BASALT_ASSIGN_OR_RETURN(Json cmd, store->Create(VcKind::kCommand, kCommandNamespace,
                                                  MakeVcctlCommand(queue, action)));
  std::cout << verb << " queue " << f.name << ": Command " << Meta(cmd, "namespace") << "/"
            << Meta(cmd, "name") << " (" << action << ") created\n";
  return Status::Ok();
}

// Volcano's queue webhook on delete: not `default` or `root`, and only once
// the queue is Closed.
Status DeleteQueue(const QueueFlags& f) {
  if (f.name.empty())
    return Status::InvalidArgument("queue delete: queue name (QUEUE or --name) is mandatory");
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

void AddNameFlags(CLI::App* cmd, QueueFlags* f) {
  cmd->add_option("queue", f->name, "Queue name");
  cmd->add_option("--name,-n", f->name, "Queue name (vcctl's flag; same as QUEUE)");
}

}  // namespace

void PrintQueueTable(const std::vector<Json>& queues, std::ostream& out) {
  auto row = [&](const std::vector<std::string>& cells) {
    std::string line = Pad(cells[0], 25);
    for (size_t i = 1; i < cells.size(); ++i) line += Pad(cells[i], 8);
    out << line << "\n";
  };
  row({"Name", "Weight", "State", "Inqueue", "Pending", "Running", "Unknown", "Completed"});
  for (const Json& q : queues) {
    auto n = [&](const char* p) { return std::to_string(IntAt(q, p)); };
    row({Meta(q, "name"), n("/spec/weight"), StrAt(q, "/status/state"), n("/status/inqueue"),
         n("/status/pending"), n("/status/running"), n("/status/unknown"), n("/status/completed")});
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
                           "basalt queue create -n batch --cluster ./cluster"}));
  SetAction(create, outcome, [f] { return CreateQueue(*f); });

  CLI::App* list = queue->add_subcommand("list", "List queues as vcctl does (or -o json|yaml)");
  AddBackendFlags(list, &f->backend);
  list->add_option("--output,-o", f->output, "json or yaml instead of the table");
  list->footer(Examples(
      {"basalt queue list", "basalt queue list --cluster examples/gang-training/cluster -o json"}));
  SetAction(list, outcome, [f] { return ListQueues(*f, false); });

  CLI::App* get = queue->add_subcommand("get", "Show one queue");
  AddBackendFlags(get, &f->backend);
  AddNameFlags(get, f.get());
  get->add_option("--output,-o", f->output, "json or yaml: the whole object");
  get->footer(Examples({"basalt queue get research", "basalt queue get -n research -o yaml"}));
  SetAction(get, outcome, [f] { return ListQueues(*f, true); });

  CLI::App* open = queue->add_subcommand("open", "Open a queue (a Command with action OpenQueue)");
  AddBackendFlags(open, &f->backend);
  AddNameFlags(open, f.get());
  open->footer(Examples(
      {"basalt queue open research", "basalt queue open research --cluster ./cluster --seed 3"}));
  SetAction(open, outcome, [f] { return CommandQueue(*f, "open", "OpenQueue"); });

  CLI::App* close =
      queue->add_subcommand("close", "Close a queue (a Command with action CloseQueue)");
  AddBackendFlags(close, &f->backend);
  AddNameFlags(close, f.get());
  close->footer(Examples(
      {"basalt queue close research", "basalt queue close -n research --cluster ./cluster"}));
  SetAction(close, outcome, [f] { return CommandQueue(*f, "close", "CloseQueue"); });

  CLI::App* del = queue->add_subcommand("delete", "Delete a Closed queue");
  AddBackendFlags(del, &f->backend);
  AddNameFlags(del, f.get());
  del->footer(Examples({"basalt queue close research && basalt queue delete research"}));
  SetAction(del, outcome, [f] { return DeleteQueue(*f); });
}

}  // namespace basalt
