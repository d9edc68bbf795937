#include "cli/job_cmd.h"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include "admission/admission.h"
#include "api/decode.h"
#include "api/file_text.h"
#include "api/quantity.h"
#include "api/yaml_json.h"
#include "cli/completion_hints.h"

namespace basalt {
namespace {

struct JobFlags {
  BackendFlags backend;
  std::string name;
  std::string namespace_ = "default";
  std::string output;
  // run
  std::string queue;
  std::string image = "busybox";
  int min = 1;
  int replicas = 1;
  std::string requests = "cpu=1000m,memory=100Mi";
  std::string limits = "cpu=1000m,memory=100Mi";
  std::string scheduler = "volcano";
  std::string filename;
  // list
  bool all_namespaces = false;
  std::string list_queue;
  std::string list_scheduler;
  std::string selector;
  bool no_headers = false;
};

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// "2026-11-22" of an RFC 3339 creationTimestamp, as vcctl prints Creation.
std::string CreationDate(const Json& job) {
  auto t = ParseTimestamp(Meta(job, "creationTimestamp"));
  if (Meta(job, "creationTimestamp").empty() || !t.ok()) return "<unknown>";
  std::time_t secs = static_cast<std::time_t>(*t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

int64_t TotalReplicas(const Json& job) {
  int64_t n = 0;
  auto tasks = job.find("spec");
  if (tasks == job.end() || !tasks->is_object() || !tasks->contains("tasks") ||
      !(*tasks)["tasks"].is_array())
    return 0;
  for (const Json& t : (*tasks)["tasks"]) n += IntAt(t, "/replicas");
  return n;
}

std::string JobType(const Json& job) {
  std::string t = StrAt(job, "/metadata/labels/volcano.sh~1job-type");
  return t.empty() ? "Batch" : t;
}

// `-R cpu=1,memory=1Gi` as vcctl reads it: comma-separated resource=quantity.
Result<Json> ResourceListFlag(const std::string& flag, const std::string& spec) {
  Json out = Json::object();
  if (spec.empty()) return out;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || item.find('=', eq + 1) != std::string::npos) {
      return Status::InvalidArgument(flag + ": invalid argument syntax \"" + item +
                                     "\", expected <resource>=<value>");
    }
    std::string value = item.substr(eq + 1);
    auto q = ParseQuantityMilli(value);
    if (!q.ok()) return q.status().WithContext(flag + ": " + item.substr(0, eq));
    out[item.substr(0, eq)] = value;
  }
  return out;
}

// The job vcctl builds from the run flags: one task of `replicas` pods of one
// container, restartPolicy Never, labelled job.volcano.sh=<name>.
Result<Json> JobFromFlags(const JobFlags& f) {
  BASALT_ASSIGN_OR_RETURN(Json requests, ResourceListFlag("--requests", f.requests));
  BASALT_ASSIGN_OR_RETURN(Json limits, ResourceListFlag("--limits", f.limits));
  Json container = {{"name", f.name},
                    {"image", f.image},
                    {"imagePullPolicy", "IfNotPresent"},
                    {"resources", Json::object()}};
  if (!requests.empty()) container["resources"]["requests"] = requests;
  if (!limits.empty()) container["resources"]["limits"] = limits;
  Json task = {
      {"replicas", f.replicas},
      {"template",
       {{"metadata", {{"name", f.name}, {"labels", {{"job.volcano.sh", f.name}}}}},
        {"spec", {{"restartPolicy", "Never"}, {"containers", Json::array({container})}}}}}};
  Json spec = {
      {"minAvailable", f.min}, {"schedulerName", f.scheduler}, {"tasks", Json::array({task})}};
  if (!f.queue.empty()) spec["queue"] = f.queue;
  return Json{{"apiVersion", "batch.volcano.sh/v1alpha1"},
              {"kind", "Job"},
              {"metadata", {{"name", f.name}, {"namespace", f.namespace_}}},
              {"spec", spec}};
}

// The text of --filename: a .yaml/.yml/.json file, or standard input for "-".
Result<std::string> ReadJobManifest(const std::string& filename) {
  if (filename == "-") {
    Result<std::string> text = ReadStandardInput();
    if (!text.ok())
      return Status::InvalidArgument("<stdin>: --filename: " + text.status().message());
    return text;
  }
  const std::string ext = std::filesystem::path(filename).extension().string();
  if (ext != ".yaml" && ext != ".yml" && ext != ".json") {
    return Status::InvalidArgument(
        filename + ": --filename: want a .yaml, .yml or .json file, or - for stdin");
  }
  return ReadFileOrError(filename, "--filename");
}

Result<Json> JobFromFile(const JobFlags& f, bool namespace_given) {
  const std::string source = f.filename == "-" ? "<stdin>" : f.filename;
  BASALT_ASSIGN_OR_RETURN(std::string text, ReadJobManifest(f.filename));
  BASALT_ASSIGN_OR_RETURN(Json job, ParseYamlDocument(text, source));
  if (!job.is_object() || StrAt(job, "/kind") != "Job" ||
      StrAt(job, "/apiVersion") != "batch.volcano.sh/v1alpha1") {
    return Status::InvalidArgument(source + ": kind: want a batch.volcano.sh/v1alpha1 Job");
  }
  if (!f.name.empty()) job["metadata"]["name"] = f.name;
  std::string file_ns = Meta(job, "namespace");
  if (!file_ns.empty() && namespace_given && file_ns != f.namespace_) {
    return Status::InvalidArgument(source + ": metadata.namespace: \"" + file_ns +
                                   "\" differs from --namespace \"" + f.namespace_ + "\"");
  }
  job["metadata"]["namespace"] = file_ns.empty() ? f.namespace_ : file_ns;
  return job;
}

// The job as Volcano's admission webhook would see it: decoded (field errors
// name the source) and validated (replicas, minAvailable, task names, ...).
// The store's queues take part, so a job for a missing or closed queue is
// refused as the webhook refuses it.
Status CheckJob(const Json& job, const std::string& source, VcStore& store) {
  ClusterObjects objs;
  BASALT_RETURN_IF_ERROR(DecodeText(job.dump(), source, &objs));
  BASALT_ASSIGN_OR_RETURN(std::vector<Json> queues, store.List(VcKind::kQueue, ""));
  for (const Json& q : queues) {
    BASALT_RETURN_IF_ERROR(
        DecodeText(q.dump(), store.Describe() + ": Queue " + Meta(q, "name"), &objs));
  }
  std::vector<AdmissionProblem> problems = ValidateObjects(objs);
  for (const AdmissionProblem& p : problems) {
    if (p.object.rfind("Job ", 0) == 0) {
      return Status::InvalidArgument(source + ": " + p.object + ": " + p.field + ": " + p.message);
    }
  }
  return Status::Ok();
}

// Without -L the limits are vcctl's defaults, so requests raised with -R alone
// can exceed them: that refusal says how to raise the limits too.
Status RunJob(const JobFlags& f, bool namespace_given, bool limits_given) {
  Json job;
  std::string source;
  if (!f.filename.empty()) {
    BASALT_ASSIGN_OR_RETURN(job, JobFromFile(f, namespace_given));
    source = f.filename == "-" ? "<stdin>" : f.filename;
  } else {
    if (f.name.empty())
      return Status::InvalidArgument("job run: --name: job name cannot be left blank");
    BASALT_ASSIGN_OR_RETURN(job, JobFromFlags(f));
    source = "job run flags";
  }
  if (Meta(job, "name").empty())
    return Status::InvalidArgument(source + ": metadata.name: missing (give --name)");
  BASALT_ASSIGN_OR_RETURN(std::unique_ptr<VcStore> store, OpenStore(f.backend.store));
  if (Status checked = CheckJob(job, source, *store); !checked.ok()) {
    if (f.filename.empty() && !limits_given &&
        checked.message().find(" limit of ") != std::string::npos) {
      return Status::InvalidArgument(checked.message() + " (the limits default to " +
                                     JobFlags().limits + ", as vcctl's; raise them with -L)");
    }
    return checked;
  }
  BASALT_RETURN_IF_ERROR(StampNewObject(f.backend, &job));
  BASALT_ASSIGN_OR_RETURN(Json created, store->Create(VcKind::kJob, Meta(job, "namespace"), job));
  std::cout << "run job " << Meta(created, "name") << " successfully\n";
  return Status::Ok();
}

Status ListJobs(const JobFlags& f) {
  BASALT_RETURN_IF_ERROR(CheckListOutputFormat(f.output));
  BASALT_ASSIGN_OR_RETURN(std::unique_ptr<VcStore> store, OpenStore(f.backend.store));
  BASALT_ASSIGN_OR_RETURN(std::vector<Json> all,
                          store->List(VcKind::kJob, f.all_namespaces ? "" : f.namespace_));
  std::vector<Json> jobs;
  for (Json& j : all) {
    // vcctl: --scheduler exact, --selector a substring of the name.
    if (!f.list_scheduler.empty() && StrAt(j, "/spec/schedulerName") != f.list_scheduler) continue;
    if (Meta(j, "name").find(f.selector) == std::string::npos) continue;
    std::string queue = StrAt(j, "/spec/queue");
    if (!f.list_queue.empty() && (queue.empty() ? "default" : queue) != f.list_queue) continue;
    jobs.push_back(std::move(j));
  }
  if (f.output == "name") {
    PrintNames(jobs, std::cout);
    return Status::Ok();
  }
  if (f.output == "json" || f.output == "yaml") {
    PrintObject(Json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", jobs}}, f.output, std::cout);
    return Status::Ok();
  }
  if (jobs.empty()) {
    std::cout << "No resources found\n";
    return Status::Ok();
  }
  JobTableOptions table;
  table.all_namespaces = f.all_namespaces;
  table.wide = f.output == "wide";
  table.headers = !f.no_headers;
  table.not_yet_controlled = FolderMode(f.backend);
  PrintJobTable(jobs, table, std::cout);
  return Status::Ok();
}

void Line(std::ostream& out, int level, const std::string& text) {
  out << std::string(static_cast<size_t>(level) * 2, ' ') << text << "\n";
}

std::string JoinMap(const Json& obj, const char* pointer) {
  Json::json_pointer p(pointer);
  if (!obj.contains(p) || !obj.at(p).is_object() || obj.at(p).empty()) return "<none>";
  return obj.at(p).dump();
}

// vcctl's `job view` layout, trimmed to the fields basalt and Volcano use.
void PrintJobView(const Json& job, int64_t now, std::ostream& out) {
  Line(out, 0, "Name:       \t" + Meta(job, "name"));
  Line(out, 0, "Namespace:  \t" + Meta(job, "namespace"));
  Line(out, 0, "Labels:     \t" + JoinMap(job, "/metadata/labels"));
  Line(out, 0, "Annotations:\t" + JoinMap(job, "/metadata/annotations"));
  Line(out, 0, "API Version:\t" + StrAt(job, "/apiVersion"));
  Line(out, 0, "Kind:       \t" + StrAt(job, "/kind"));
  Line(out, 0, "Metadata:");
  std::string created = Meta(job, "creationTimestamp");
  auto t = ParseTimestamp(created);
  std::string age = created.empty() || !t.ok() ? "<unknown>" : HumanDuration(now - *t);
  Line(out, 1,
       "Creation Timestamp:\t" + (created.empty() ? "<unknown>" : created) + " (age " + age + ")");
  Line(out, 1, "Resource Version:  \t" + Meta(job, "resourceVersion"));
  Line(out, 1, "UID:               \t" + Meta(job, "uid"));
  Line(out, 0, "Spec:");
  Line(out, 1, "Min Available:     \t" + std::to_string(IntAt(job, "/spec/minAvailable")));
  std::string queue = StrAt(job, "/spec/queue");
  Line(out, 1, "Queue:             \t" + (queue.empty() ? "default" : queue));
  Line(out, 1, "Scheduler Name:    \t" + StrAt(job, "/spec/schedulerName"));
  Line(out, 1, "Plugins:           \t" + JoinMap(job, "/spec/plugins"));
  Line(out, 1, "Tasks:");
  Json::json_pointer tasks_ptr("/spec/tasks");
  if (job.contains(tasks_ptr) && job.at(tasks_ptr).is_array()) {
    for (const Json& task : job.at(tasks_ptr)) {
      Line(out, 2, "Name:\t" + StrAt(task, "/name"));
      Line(out, 2, "Replicas:\t" + std::to_string(IntAt(task, "/replicas")));
      Json::json_pointer containers("/template/spec/containers");
      if (!task.contains(containers) || !task.at(containers).is_array()) continue;
      Line(out, 2, "Containers:");
      for (const Json& c : task.at(containers)) {
        Line(out, 3, "Name: \t" + StrAt(c, "/name"));
        Line(out, 3, "Image:\t" + StrAt(c, "/image"));
        Line(out, 3, "Requests:\t" + JoinMap(c, "/resources/requests"));
        Line(out, 3, "Limits:  \t" + JoinMap(c, "/resources/limits"));
      }
      Line(out, 2, "Restart Policy:\t" + StrAt(task, "/template/spec/restartPolicy"));
    }
  }
  Line(out, 0, "Status:");
  const std::pair<const char*, const char*> counts[] = {
      {"Succeeded:    \t", "/status/succeeded"},   {"Pending:      \t", "/status/pending"},
      {"Running:      \t", "/status/running"},     {"Failed:       \t", "/status/failed"},
      {"Terminating:  \t", "/status/terminating"}, {"Unknown:      \t", "/status/unknown"},
      {"RetryCount:   \t", "/status/retryCount"},  {"Min Available:\t", "/status/minAvailable"},
      {"Version:      \t", "/status/version"}};
  for (auto [label, pointer] : counts) {
    // As vcctl: counters that are zero are left out.
    if (IntAt(job, pointer) > 0) Line(out, 1, label + std::to_string(IntAt(job, pointer)));
  }
  Line(out, 1, "State:");
  std::string phase = StrAt(job, "/status/state/phase");
  Line(out, 2, "Phase:\t" + (phase.empty() ? "Pending" : phase));
}

Status ViewJob(const JobFlags& f) {
  BASALT_RETURN_IF_ERROR(CheckOutputFormat(f.output));
  if (f.name.empty())
    return Status::InvalidArgument("job view: job name (JOB or --name) is mandatory");
  BASALT_ASSIGN_OR_RETURN(int64_t now, NowSeconds(f.backend));
  BASALT_ASSIGN_OR_RETURN(std::unique_ptr<VcStore> store, OpenStore(f.backend.store));
  BASALT_ASSIGN_OR_RETURN(Json job, store->Get(VcKind::kJob, f.namespace_, f.name));
  if (!f.output.empty()) {
    PrintObject(job, f.output, std::cout);
  } else {
    PrintJobView(job, now, std::cout);
  }
  return Status::Ok();
}

// suspend (AbortJob) and resume (ResumeJob) post a Command for the job.
Status CommandJob(const JobFlags& f, const std::string& verb, const std::string& action) {
  if (f.name.empty())
    return Status::InvalidArgument("job " + verb + ": job name (JOB or --name) is mandatory");
  BASALT_ASSIGN_OR_RETURN(std::unique_ptr<VcStore> store, OpenStore(f.backend.store));
  BASALT_ASSIGN_OR_RETURN(Json job, store->Get(VcKind::kJob, f.namespace_, f.name));
  BASALT_ASSIGN_OR_RETURN(
      Json cmd, store->Create(VcKind::kCommand, f.namespace_, MakeVcctlCommand(job, action)));
  std::cout << verb << " job " << f.namespace_ << "/" << f.name << ": Command "
            << Meta(cmd, "namespace") << "/" << Meta(cmd, "name") << " (" << action
            << ") created\n";
  return Status::Ok();
}

Status DeleteJob(const JobFlags& f) {
  if (f.name.empty())
    return Status::InvalidArgument("job delete: job name (JOB or --name) is mandatory");
  BASALT_ASSIGN_OR_RETURN(std::unique_ptr<VcStore> store, OpenStore(f.backend.store));
  BASALT_RETURN_IF_ERROR(store->Delete(VcKind::kJob, f.namespace_, f.name));
  std::cout << "delete job " << f.name << " successfully\n";
  return Status::Ok();
}

// JOB positional or vcctl's --name/-N, and --namespace/-n.
void AddNameFlags(CLI::App* cmd, JobFlags* f) {
  cmd->add_option("job", f->name, "Job name");
  cmd->add_option("--name,-N", f->name, "Job name (vcctl's flag; same as JOB)");
  cmd->add_option("--namespace,-n", f->namespace_, "Namespace of the job")->capture_default_str();
}

}  // namespace

std::string QueueOf(const Json& job) {
  std::string queue = StrAt(job, "/spec/queue");
  return queue.empty() ? "default" : queue;
}

// Min and Phase of a job: its status, as vcctl prints them; a job with no
// status at all in a folder has not met the controllers yet, so it shows what
// they would write first (spec.minAvailable, Pending) instead of 0 and blank.
std::pair<std::string, std::string> MinAndPhase(const Json& job, bool not_yet_controlled) {
  if (not_yet_controlled && !job.contains("status")) {
    return {std::to_string(IntAt(job, "/spec/minAvailable")), "Pending"};
  }
  return {std::to_string(IntAt(job, "/status/minAvailable")), StrAt(job, "/status/state/phase")};
}

void PrintJobTable(const std::vector<Json>& jobs, const JobTableOptions& options,
                   std::ostream& out) {
  const bool all_namespaces = options.all_namespaces;
  size_t name_width = 4, ns_width = 9;  // "Name", "Namespace"
  for (const Json& j : jobs) {
    name_width = std::max(name_width, Meta(j, "name").size());
    ns_width = std::max(ns_width, Meta(j, "namespace").size());
  }
  name_width += 3;
  ns_width += 3;
  size_t queue_width = 5;  // "Queue"
  for (const Json& j : jobs) queue_width = std::max(queue_width, QueueOf(j).size());
  queue_width += 2;
  // vcctl's column widths after the name: 15 12 12 12 6 10 10 12 10 12 10.
  static const size_t kWidths[] = {15, 12, 12, 12, 6, 10, 10, 12, 10, 12, 10};
  auto row = [&](const std::string& ns, const std::string& name,
                 const std::vector<std::string>& cells) {
    std::string line;
    if (all_namespaces) line += Pad(ns, ns_width);
    line += Pad(name, name_width);
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i < std::size(kWidths)) {
        line += Pad(cells[i], kWidths[i]);
      } else {  // -o wide: Queue as wide as its longest value, then Scheduler
        line += i == std::size(kWidths) ? "  " + Pad(cells[i], queue_width) : cells[i];
      }
    }
    out << line << "\n";
  };
  if (options.headers) {
    std::vector<std::string> header = {"Creation", "Phase",   "JobType",   "Replicas",
                                       "Min",      "Pending", "Running",   "Succeeded",
                                       "Failed",   "Unknown", "RetryCount"};
    if (options.wide) header.insert(header.end(), {"Queue", "Scheduler"});
    row("Namespace", "Name", header);
  }
  for (const Json& j : jobs) {
    auto [min, phase] = MinAndPhase(j, options.not_yet_controlled);
    auto n = [&](const char* p) { return std::to_string(IntAt(j, p)); };
    std::vector<std::string> cells = {CreationDate(j),
                                      phase,
                                      JobType(j),
                                      std::to_string(TotalReplicas(j)),
                                      min,
                                      n("/status/pending"),
                                      n("/status/running"),
                                      n("/status/succeeded"),
                                      n("/status/failed"),
                                      n("/status/unknown"),
                                      n("/status/retryCount")};
    if (options.wide) {
      cells.push_back(QueueOf(j));
      cells.push_back(StrAt(j, "/spec/schedulerName"));
    }
    row(Meta(j, "namespace"), Meta(j, "name"), cells);
  }
}

void AddJobCommands(CLI::App& app, CliOutcome* outcome) {
  auto f = std::make_shared<JobFlags>();
  CLI::App* job =
      app.add_subcommand("job", "vcctl's job commands: run, list, view, suspend, resume, delete");
  job->require_subcommand(1);
  job->footer(Examples({"basalt job list --all-namespaces",
                        "basalt job run --name demo --replicas 2 --min 2",
                        "basalt job suspend demo --cluster ./cluster"}));

  CLI::App* run =
      job->add_subcommand("run", "Create a vcjob from flags (one task) or from a YAML file");
  AddBackendFlags(run, &f->backend);
  run->add_option("--name,-N", f->name, "Job name (also the container's and the task template's)");
  CLI::Option* ns_opt = run->add_option("--namespace,-n", f->namespace_, "Namespace of the job")
                            ->capture_default_str();
  run->add_option("--queue,-q", f->queue, "Queue (spec.queue; empty: default)");
  run->add_option("--image,-i", f->image, "Container image")->capture_default_str();
  run->add_option("--min,-m", f->min, "spec.minAvailable")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  run->add_option("--replicas,-r", f->replicas, "Pods of the task")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  run->add_option("--requests,-R", f->requests, "Requests per pod, resource=quantity,...")
      ->capture_default_str();
  CLI::Option* limits_opt =
      run->add_option("--limits,-L", f->limits, "Limits per pod, resource=quantity,...")
          ->capture_default_str();
  run->add_option("--scheduler,-S", f->scheduler, "spec.schedulerName")->capture_default_str();
  run->add_option("--filename,-f", f->filename,
                  "Submit this Job manifest (.yaml/.yml/.json; - reads standard input) instead "
                  "of building one");
  run->footer(Examples(
      {"basalt job run --name train --queue research --replicas 4 --min 4 -R cpu=2,memory=4Gi "
       "-L cpu=2,memory=4Gi",
       "basalt job run -f examples/mpi-example.yaml --cluster ./cluster",
       "cat examples/mpi-example.yaml | basalt job run -f - --cluster ./cluster --now "
       "2026-11-20T08:00:00Z"}));
  SetAction(run, outcome, [f, ns_opt, limits_opt] {
    return RunJob(*f, ns_opt->count() > 0, limits_opt->count() > 0);
  });

  CLI::App* list =
      job->add_subcommand("list", "List vcjobs as vcctl does (or -o json|yaml|name|wide)");
  AddBackendFlags(list, &f->backend);
  list->add_option("--namespace,-n", f->namespace_, "Namespace")->capture_default_str();
  list->add_flag("--all-namespaces,-A", f->all_namespaces,
                 "Jobs of every namespace (adds a Namespace column)");
  list->add_option("--queue,-q", f->list_queue, "Only jobs of this queue");
  list->add_option("--scheduler,-S", f->list_scheduler, "Only jobs with this spec.schedulerName");
  list->add_option("--selector", f->selector, "Only jobs whose name contains this text (as vcctl)");
  OfferValues(list->add_option("--output,-o", f->output,
                               "json, yaml or name instead of the table; wide adds Queue and "
                               "Scheduler"),
              ListOutputFormats());
  list->add_flag("--no-headers", f->no_headers, "Leave out the table's header line");
  list->footer(Examples({"basalt job list", "basalt job list -A --queue research -o wide",
                         "basalt job list --cluster examples/gang-training/cluster -o yaml",
                         "basalt job list -o name"}));
  SetAction(list, outcome, [f] { return ListJobs(*f); });

  CLI::App* view = job->add_subcommand("view", "Show one vcjob in detail");
  AddBackendFlags(view, &f->backend);
  AddNameFlags(view, f.get());
  CompleteObjectNames(view, "job");
  OfferValues(view->add_option("--output,-o", f->output, "json or yaml: the whole object"),
              ObjectOutputFormats());
  view->footer(
      Examples({"basalt job view train -n research", "basalt job view --name train -o yaml"}));
  SetAction(view, outcome, [f] { return ViewJob(*f); });

  CLI::App* suspend =
      job->add_subcommand("suspend", "Abort a running job (a Command with action AbortJob)");
  AddBackendFlags(suspend, &f->backend);
  AddNameFlags(suspend, f.get());
  CompleteObjectNames(suspend, "job");
  suspend->footer(Examples(
      {"basalt job suspend train", "basalt job suspend -N train -n research --cluster ./cluster"}));
  SetAction(suspend, outcome, [f] { return CommandJob(*f, "suspend", "AbortJob"); });

  CLI::App* resume =
      job->add_subcommand("resume", "Resume a suspended job (a Command with action ResumeJob)");
  AddBackendFlags(resume, &f->backend);
  AddNameFlags(resume, f.get());
  CompleteObjectNames(resume, "job");
  resume->footer(Examples(
      {"basalt job resume train", "basalt job resume -N train --cluster ./cluster --seed 7"}));
  SetAction(resume, outcome, [f] { return CommandJob(*f, "resume", "ResumeJob"); });

  CLI::App* del = job->add_subcommand("delete", "Delete a vcjob");
  AddBackendFlags(del, &f->backend);
  AddNameFlags(del, f.get());
  CompleteObjectNames(del, "job");
  del->footer(Examples(
      {"basalt job delete train -n research", "basalt job delete train --cluster ./cluster"}));
  SetAction(del, outcome, [f] { return DeleteJob(*f); });
}

}  // namespace basalt
