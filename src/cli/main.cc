// basalt: a batch scheduler for Kubernetes that speaks Volcano's language.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "api/file_text.h"
#include "api/log.h"
#include "api/terminal_text.h"
#include "cli/agent.h"
#include "cli/bench.h"
#include "cli/command_suggest.h"
#include "cli/completion.h"
#include "cli/completion_hints.h"
#include "cli/explain.h"
#include "cli/fgd.h"
#include "cli/job_cmd.h"
#include "cli/limit_flags.h"
#include "cli/queue_cmd.h"
#include "cli/schedule.h"
#include "cli/schedule_table.h"
#include "cli/serve.h"
#include "cli/simulate.h"
#include "cli/validate.h"
#include "cli/webhook.h"
#include "framework/config.h"

namespace {

constexpr int kExitBadInput = 2;

// `basalt schedule --cycles N` above this writes its JSON cycle by cycle.
constexpr int kStreamCyclesAbove = 50;

// `basalt schedule`'s flags.
struct ScheduleCommand {
  std::string conf;
  std::vector<std::string> clusters;
  int cycles = 1;
  bool scores = false;
  bool check_invariants = false;
  std::string now;
  std::string output = "json";  // json (the default and the contract), table, wide
  bool no_headers = false;
  basalt::InputLimits limits;
};

int RunScheduleCommand(const ScheduleCommand& cmd) {
  basalt::ScheduleRequest req;
  req.now = cmd.now;
  if (!cmd.conf.empty()) {
    auto text = basalt::ReadSchedulerConfFile(cmd.conf);
    if (!text.ok()) {
      basalt::CliLog().error("{}", text.status().message());
      return kExitBadInput;
    }
    req.conf_text = std::move(*text);
    req.conf_source = cmd.conf;
  }
  req.cluster_paths = cmd.clusters;
  req.cycles = cmd.cycles;
  req.limits = cmd.limits;
  req.scores = cmd.scores;
  req.check_invariants = cmd.check_invariants;
  // A long run's cycles are written as they are decided, not held in memory;
  // the bytes are the same. (A failure after some cycles leaves those on stdout.)
  basalt::ScheduleJsonWriter writer(std::cout);
  const bool stream = cmd.output == "json" && cmd.cycles > kStreamCyclesAbove;
  if (stream) req.on_cycle = [&writer](const nlohmann::ordered_json& c) { writer.Cycle(c); };
  auto out = basalt::RunSchedule(req);
  if (!out.ok()) {
    basalt::CliErrorLines(out.status().message());
    return basalt::ScheduleExitCode(out.status());  // 2 bad input, 3 invariant violated
  }
  if (stream) {
    writer.Finish(*out);
  } else if (cmd.output == "json") {
    std::cout << basalt::ScheduleJsonText(*out);
  } else {
    std::cout << basalt::TerminalSafe(
        basalt::RenderScheduleTable(*out, {cmd.output == "wide", cmd.no_headers}));
  }
  return 0;
}

}  // namespace

constexpr const char* kVersion = "basalt 0.1.0";

int main(int argc, char** argv) {
  // Every cycle builds a snapshot of vectors that run to megabytes and frees it
  // at close. glibc would hand such blocks back to the kernel (mmap above
  // 128 KiB, heap trimming) and fault the pages in again next cycle; keeping
  // them in the process makes the next cycle's snapshot reuse warm memory.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  CLI::App app{"basalt: a batch scheduler for Kubernetes that speaks Volcano's language"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(kVersion));
  // Logging level, for every command; set while parsing, before the job and
  // queue commands (which run from their parse callbacks) log anything.
  app.fallthrough();
  basalt::Status log_level = basalt::Status::Ok();
  basalt::OfferValues(
      app.add_option_function<std::string>(
             "--log-level",
             [&log_level](const std::string& level) { log_level = basalt::SetLogLevel(level); },
             "Log level: trace, debug, info (default), warn, error, off")
          ->trigger_on_parse(),
      {"trace", "debug", "info", "warn", "error", "off"});
  app.add_flag_function(
         "-v,--verbose",
         [&log_level](int64_t count) {
           log_level = basalt::SetLogLevel(count > 1 ? "trace" : "debug");
         },
         "More logging: -v debug, -vv trace")
      ->trigger_on_parse();

  // One cap for every file any command reads (api/file_text.h, docs/limits.md).
  app.add_option_function<int64_t>(
         "--max-file-bytes", [](int64_t bytes) { basalt::SetMaxInputFileBytes(bytes); },
         "Most bytes one input file may hold, for every command (default 268435456: 256 MiB; "
         "docs/limits.md)")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()))
      ->trigger_on_parse()
      ->group("Limits");

  ScheduleCommand sched;
  CLI::App* schedule =
      app.add_subcommand("schedule", "Schedule a folder of manifests once; decisions as JSON");
  schedule->add_option("--conf", sched.conf,
                       "Volcano scheduler configuration file (default: Volcano's default)");
  schedule
      ->add_option("--cluster", sched.clusters,
                   "Manifest file or folder (*.yaml, *.yml, *.json); repeatable")
      ->required();
  schedule
      ->add_option("--cycles", sched.cycles,
                   "Scheduling cycles to run, with the world moving between them")
      ->check(CLI::PositiveNumber);  // the most is --max-cycles
  schedule->add_flag("--scores", sched.scores,
                     "Print node-order scores of every pod not yet running");
  const std::vector<std::string> schedule_outputs = {"json", "table", "wide"};
  basalt::OfferValues(
      schedule
          ->add_option("-o,--output", sched.output,
                       "json (default: the decisions as JSON, docs/schedule.md), table (a row per "
                       "decision and per reason given) or wide (also the event type and where "
                       "every pod ends)")
          ->check(CLI::IsMember(schedule_outputs))
          ->capture_default_str(),
      schedule_outputs);
  schedule->add_flag("--no-headers", sched.no_headers, "Tables without their header row");
  bool strict = false;  // one flag shared by schedule, simulate and serve
  const char* strict_help =
      "Refuse an unknown plugin name or a plugin argument of the wrong type (exit 2) instead of "
      "warning and going on as Volcano does (docs/configuration.md)";
  schedule->add_flag("--strict", strict, strict_help);
  // One list shared by every command that reads a scheduler configuration.
  std::vector<std::string> allow_missing_plugins;
  const char* allow_missing_help =
      "Plugin names (comma-separated) the configuration may name although basalt does not "
      "implement them: each is skipped with a warning. Without it such a configuration is "
      "refused (exit 2), so no plugin, and no protection it gives, is dropped silently "
      "(docs/configuration.md)";
  auto add_allow_missing = [&](CLI::App* cmd) {
    cmd->add_option("--allow-missing-plugins", allow_missing_plugins, allow_missing_help)
        ->delimiter(',');
  };
  add_allow_missing(schedule);
  schedule->add_flag("--check-invariants", sched.check_invariants,
                     "Check the scheduler's invariants after every action; a violation exits 3 "
                     "(docs/reliability.md)");
  schedule->add_option(
      "--now", sched.now,
      "Clock of the first cycle, RFC 3339 (default: the newest creation time in the input)");
  basalt::AddLimitFlags(schedule, &sched.limits,
                        {basalt::LimitFlag::kObjects, basalt::LimitFlag::kJobPods,
                         basalt::LimitFlag::kPods, basalt::LimitFlag::kCycles});
  schedule->footer(
      "Example:\n  basalt schedule --conf examples/gang-training/scheduler.conf \\\n"
      "      --cluster examples/gang-training/cluster --cycles 2\n"
      "  basalt schedule --cluster examples/gang-training/cluster --cycles 2 -o table");

  std::vector<std::string> validate_paths;
  CLI::App* validate = app.add_subcommand(
      "validate",
      "Check manifests as Volcano's admission webhooks would; every problem, one per line");
  std::string validate_conf;
  validate->add_option("paths", validate_paths,
                       "Manifest file or folder (*.yaml, *.yml, *.json); several allowed");
  validate->add_option("--conf", validate_conf,
                       "Scheduler configuration to check too (plugin names, switches, arguments)");
  add_allow_missing(validate);
  basalt::InputLimits validate_limits;
  basalt::AddLimitFlags(
      validate, &validate_limits,
      {basalt::LimitFlag::kObjects, basalt::LimitFlag::kJobPods, basalt::LimitFlag::kPods});
  validate->footer(
      "Prints `file:line: Kind ns/name: field: message` per problem, or `ok: N objects valid`.\n"
      "With --conf, configuration problems name the entry (`tiers[1].plugins[0]: plugin ...`).\n"
      "Exit code 0 when valid, 2 on a decode error or any problem.\n\n"
      "Examples:\n  basalt validate examples/gang-training/cluster\n"
      "  basalt validate --conf examples/gang-training/scheduler.conf");

  basalt::SimulateRequest sim;
  uint64_t sim_seed = 0;
  CLI::App* simulate = app.add_subcommand(
      "simulate",
      "Discrete-event cluster simulation of a scenario file; metrics, summary and an HTML report");
  simulate->add_option("scenario", sim.scenario_path, "Scenario file (docs/simulate.md)")
      ->required();
  CLI::Option* seed_opt =
      simulate->add_option("--seed", sim_seed, "Random seed (overrides the scenario's)")
          ->check(CLI::Validator(
              [](std::string& text) -> std::string {
                // CLI11 would read "-1" into an unsigned seed as 2^64 - 1.
                uint64_t value = 0;
                auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
                bool whole = !text.empty() && text[0] != '-' && ec == std::errc() &&
                             end == text.data() + text.size();
                return whole ? ""
                             : "want a whole number from 0 to 18446744073709551615, got \"" + text +
                                   "\"";
              },
              "SEED"));
  simulate->add_option("--out", sim.out_dir, "Output folder (default: simulate-out)");
  simulate
      ->add_option("--topology-jobs", sim.topology_jobs,
                   "Network topology constraint of every training job: hard, soft, none or "
                   "as_written (overrides the scenario's topology.jobs)")
      ->check(CLI::IsMember({"hard", "soft", "none", "as_written"}));
  simulate->add_flag("--strict", strict, strict_help);
  add_allow_missing(simulate);
  basalt::AddLimitFlags(simulate, &sim.limits,
                        {basalt::LimitFlag::kNodes, basalt::LimitFlag::kJobPods,
                         basalt::LimitFlag::kObjects, basalt::LimitFlag::kPods});
  simulate->footer("Example:\n  basalt simulate examples/tidal-day.yaml --out /tmp/tidal");

  basalt::ServeRequest serve_req;
  bool no_leader_elect = false;
  CLI::App* serve = app.add_subcommand(
      "serve",
      "Run as the scheduler of a Kubernetes cluster (informers, leader election, /metrics)");
  serve->add_option("--kubeconfig", serve_req.kubeconfig,
                    "kubeconfig file (default: $KUBECONFIG, else the in-cluster service account)");
  serve->add_option("--context", serve_req.context,
                    "kubeconfig context (default: current-context)");
  serve->add_option("--conf", serve_req.conf_path,
                    "Volcano scheduler configuration file, reloaded when it changes (default: "
                    "Volcano's default)");
  serve
      ->add_option("--period,--schedule-period", serve_req.period,
                   "Time between cycles (e.g. 1s, 500ms)")
      ->capture_default_str();
  serve
      ->add_option("--listen", serve_req.listen,
                   "Address of /healthz, /readyz and /metrics (\"\" to disable)")
      ->capture_default_str();
  serve
      ->add_option("--scheduler-name", serve_req.scheduler_name,
                   "Schedule pods with this spec.schedulerName")
      ->capture_default_str();
  serve->add_option(
      "--lease-namespace", serve_req.lease_namespace,
      "Namespace of the leader-election Lease (default: the kubeconfig's, else default)");
  serve->add_option("--lease-name", serve_req.lease_name, "Name of the leader-election Lease")
      ->capture_default_str();
  serve->add_flag("--controllers,!--no-controllers", serve_req.controllers,
                  "Run the vcjob, PodGroup and Queue controllers (default true; "
                  "--controllers=false when Volcano's controller manager runs)");
  serve->add_flag("--no-leader-elect", no_leader_elect,
                  "Schedule without a Lease (one replica only!)");
  serve->add_option("--identity", serve_req.identity,
                    "Lease holder identity (default: hostname_random)");
  serve->add_option("--qps", serve_req.qps, "Client-side request rate limit")
      ->capture_default_str();
  serve->add_option("--burst", serve_req.burst, "Client-side request burst")->capture_default_str();
  serve
      ->add_option("--bind-parallelism", serve_req.bind_parallelism,
                   "Concurrent bind calls per cycle")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  serve->add_flag("--strict", strict, strict_help);
  add_allow_missing(serve);
  basalt::AddWebhookFlags(serve, &serve_req.webhook);
  serve->footer(
      "Exit code 2 on a bad kubeconfig, flag or configuration; 0 after SIGTERM (lease "
      "released).\n\n"
      "Example:\n  basalt serve --kubeconfig ~/.kube/config --conf scheduler.conf --period 1s");

  basalt::WebhookRequest webhook_req;
  CLI::App* webhook = basalt::AddWebhookCommand(app, &webhook_req);

  basalt::BenchRequest bench_req;
  CLI::App* bench =
      app.add_subcommand("bench", "Run a benchmark profile (bench/README.md); one JSON object");
  bench->add_option("--profile", bench_req.profile, "Profile name, or `list`")->required();
  bench
      ->add_option("--runs", bench_req.runs,
                   "Cycles to time (fresh cluster each, or one store for idle/churn)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  bench->add_flag("--reference", bench_req.reference,
                  "Use the reference node selection instead of the fast one");
  bench->add_flag(
      "--full-snapshots", bench_req.full_snapshots,
      "Build every cycle's snapshot in full instead of patching the previous one (idle, churn)");
  bench->footer("Example:\n  basalt bench --profile alloc-1k --runs 5");

  basalt::ExplainRequest explain_req;
  CLI::App* explain = basalt::AddExplainCommand(app, &explain_req);
  add_allow_missing(explain);

  basalt::AgentRequest agent_req;
  CLI::App* agent_cmd = basalt::AddAgentCommand(app, &agent_req);

  // vcctl's job and queue commands, and completion (added last: it walks the tree).
  basalt::CliOutcome vc_outcome;
  basalt::AddJobCommands(app, &vc_outcome);
  basalt::AddQueueCommands(app, &vc_outcome);
  basalt::AddCompletionCommand(app, &vc_outcome);

  basalt::FgdRequest fgd_req;
  CLI::App* fgd = app.add_subcommand("fgd",
                                     "The FGD paper's fragmentation experiment on the Alibaba "
                                     "openb trace; one JSON object (docs/fgd.md)");
  fgd->add_option("--trace", fgd_req.trace_dir, "Trace folder (csv/, derived/)")->required();
  fgd->add_option("--pods", fgd_req.pods, "Pod list: a path, or a name under TRACE/csv")
      ->capture_default_str();
  fgd->add_option("--nodes", fgd_req.nodes,
                  "Node list (default: TRACE/csv/openb_node_list_gpu_node.csv)");
  fgd->add_option("--policies", fgd_req.policies, "Comma-separated policies")
      ->capture_default_str();
  fgd->add_option("--seeds", fgd_req.seeds, "Number of seeds")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  fgd->add_option("--first-seed", fgd_req.first_seed, "First seed (the paper's are 42..51)")
      ->capture_default_str();
  fgd->add_option("--tune", fgd_req.tune, "Inflate the workload to this multiple of GPU capacity")
      ->check(CLI::Range(1.0, 3.0))
      ->capture_default_str();
  fgd->add_option("--jobs", fgd_req.jobs, "Runs in parallel")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  fgd->add_option("--out", fgd_req.out_dir, "Also write OUT/result.json and OUT/curves.csv");
  fgd->footer(
      "Example (a small synthetic trace in openb's format; docs/fgd.md runs the real one):\n"
      "  basalt fgd --trace examples/fgd-mini-trace --pods openb_pod_list_default \\\n"
      "      --policies FGD,BestFit --seeds 10");

  CLI::App* version =
      app.add_subcommand("version", "Print basalt's version (the same as --version)");
  // A misspelt command is named as such (CLI11 would only say that a
  // subcommand is required), also below `job` and `queue`.
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::string line = "basalt";
  size_t from = 0;
  CLI::App* deepest = &app;
  for (CLI::App* parent = &app; parent != nullptr;) {
    auto subs = parent->get_subcommands([](CLI::App*) { return true; });
    auto at = subs.empty() ? std::nullopt
                           : basalt::CommandWord(args, from, {"--log-level", "--max-file-bytes"});
    if (!at) break;
    std::vector<std::string> names;
    for (const CLI::App* sub : subs) names.push_back(sub->get_name());
    if (auto error = basalt::UnknownCommandError(args[*at], names, line)) {
      basalt::CliLog().error("{}", *error);
      return kExitBadInput;
    }
    parent = parent->get_subcommand(args[*at]);
    deepest = parent;
    line += " " + args[*at];
    from = *at + 1;
  }
  // A misspelt flag likewise (CLI11 would say "arguments were not expected").
  std::vector<std::string> flags;
  for (const CLI::App* a = deepest; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* opt : a->get_options()) {
      for (const std::string& name : opt->get_lnames()) flags.push_back("--" + name);
    }
  }
  if (auto error = basalt::UnknownFlagError(args, 0, flags, line)) {
    basalt::CliLog().error("{}", *error);
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }
  if (!log_level.ok()) {
    basalt::CliLog().error("{}", log_level.message());
    return kExitBadInput;
  }
  if (vc_outcome.ran) return vc_outcome.exit_code;
  if (version->parsed()) {
    std::cout << kVersion << "\n";
    return 0;
  }
  // Volcano reads its configuration leniently; validate and --strict do not.
  basalt::SetLenientSchedulerConfig((schedule->parsed() || simulate->parsed() || serve->parsed()) &&
                                    !strict);
  basalt::SetAllowedMissingPlugins(allow_missing_plugins);
  // The last net: whatever escaped a command (out of memory on a huge but
  // allowed input) is a message and an exit code, never an abort.
  auto run = [&]() -> int {
    if (schedule->parsed()) return RunScheduleCommand(sched);
    if (serve->parsed()) {
      serve_req.leader_elect = !no_leader_elect;
      return basalt::RunServe(serve_req);
    }
    if (webhook->parsed()) return basalt::RunWebhook(webhook_req);
    if (validate->parsed())
      return basalt::RunValidate(validate_paths, validate_conf, validate_limits);
    if (bench->parsed()) return basalt::RunBench(bench_req);
    if (fgd->parsed()) return basalt::RunFgd(fgd_req);
    if (agent_cmd->parsed()) return basalt::RunAgent(agent_req);
    if (explain->parsed()) return basalt::RunExplainCommand(explain_req);
    if (simulate->parsed()) {
      if (seed_opt->count() > 0) sim.seed = sim_seed;
      return basalt::RunSimulate(sim);
    }
    return 0;
  };
  try {
    return run();
  } catch (const std::bad_alloc&) {
    basalt::CliLog().error("out of memory: the input is too large for this machine");
  } catch (const std::exception& e) {
    basalt::CliLog().error("internal error: {}", e.what());
  }
  return 1;
}
