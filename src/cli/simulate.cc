#include "cli/simulate.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "api/log.h"
#include "cli/progress_line.h"
#include "sim/chart_asset.h"
#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "sim/summary_table.h"
#include "sim/topology_report.h"

namespace basalt {
namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitIo = 1;

bool WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

// Why the outputs cannot be written to `dir`, or empty when they can: checked
// before a simulation that may take minutes, not after it.
std::string OutputFolderProblem(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return ec.message();
  if (!std::filesystem::is_directory(dir, ec)) return "is not a folder";
  if (::access(dir.c_str(), W_OK) != 0) return std::strerror(errno);
  return "";
}

// topology.csv, one row per training job, when the scenario has a topology section.
bool WriteTopologyCsv(const Simulator& sim, const std::filesystem::path& dir) {
  return !sim.placement() || WriteFile(dir / "topology.csv", sim.placement()->Csv());
}

// The colocation numbers of the summary, in one line.
void LogColocation(const nlohmann::ordered_json& c) {
  CliLog().info(
      "simulate: colocation ({} mode, {} nodes): agents oversold {} CPU core-hours, BE pods used "
      "{} of them; {} BE evictions by the agents; online CPU peak {} cores ({} of capacity) at "
      "hour {:.2f}; CPU used {} online, {} with BE",
      c["mode"].get<std::string>(), c["nodes"].dump(), c["cpu_core_hours"]["oversold"].dump(),
      c["cpu_core_hours"]["be_used"].dump(), c["be_evictions"]["total"].dump(),
      c["online_cpu_peak"]["cores"].dump(), c["online_cpu_peak"]["share_of_capacity"].dump(),
      c["online_cpu_peak"]["t"].get<int64_t>() / 3600.0, c["cpu_used_share"]["online"].dump(),
      c["cpu_used_share"]["online_and_be"].dump());
}

}  // namespace

int RunSimulate(const SimulateRequest& request) {
  auto scenario = LoadScenario(request.scenario_path);
  if (!scenario.ok()) {
    CliLog().error("{}", scenario.status().message());
    return kExitBadInput;
  }
  if (request.topology_jobs) {
    if (!scenario->topology.present) {
      CliLog().error("{}: --topology-jobs: the scenario has no topology section (docs/simulate.md)",
                     request.scenario_path);
      return kExitBadInput;
    }
    scenario->topology.jobs = *request.topology_jobs;
    scenario->topology.jobs_line = 0;  // messages name the flag
  }
  if (std::string why = OutputFolderProblem(request.out_dir); !why.empty()) {
    CliLog().error("{}: --out: cannot write the outputs there: {}", request.out_dir, why);
    return kExitBadInput;
  }
  SimulatorOptions options;
  options.seed = request.seed;
  options.limits = request.limits;
  // The progress line is redrawn in place: only on a terminal (in a log it
  // would be one endless line).
  if (request.progress && ProgressOnTerminal()) {
    FinishProgressLineOnSignals();
    // Simulated time only: the line says how far the simulation is, not how long it took.
    options.progress = [](int64_t now, int64_t duration) {
      std::fprintf(stderr, "\rsimulate: day %.2f of %.2f (%3lld%%)", now / 86400.0,
                   duration / 86400.0,
                   static_cast<long long>(duration > 0 ? now * 100 / duration : 100));
      if (now >= duration) std::fprintf(stderr, "\n");
      std::fflush(stderr);
    };
  }
  auto sim = Simulator::Create(std::move(scenario).value(), options);
  if (!sim.ok()) {
    CliLog().error("{}", sim.status().message());
    return kExitBadInput;
  }
  Status run = (*sim)->Run();
  if (!run.ok()) {
    CliLog().error("{}", std::string(request.scenario_path) + ": " + run.message());
    return kExitBadInput;
  }
  const MetricsRecorder& m = (*sim)->metrics();
  const Scenario& s = (*sim)->scenario();
  auto summary =
      m.SummaryJson(s.name.empty() ? request.scenario_path : s.name, (*sim)->seed(), s.duration);
  if ((*sim)->placement()) summary["topology"] = (*sim)->placement()->SummaryJson();
  auto metrics = m.MetricsJson();
  std::error_code ec;
  std::filesystem::create_directories(request.out_dir, ec);
  const std::filesystem::path dir(request.out_dir);
  const std::string html = RenderReport(summary, metrics, ChartLibrarySource(), ChartLibraryName());
  if (ec || !WriteFile(dir / "summary.json", summary.dump(2) + "\n") ||
      !WriteFile(dir / "metrics.json", metrics.dump(1) + "\n") ||
      !WriteFile(dir / "metrics.csv", m.MetricsCsv()) || !WriteFile(dir / "report.html", html) ||
      !WriteTopologyCsv(**sim, dir)) {
    CliLog().error("{}: cannot write the outputs: {}", request.out_dir,
                   ec ? ec.message() : std::string(std::strerror(errno)));
    return kExitIo;
  }
  CliLog().info("simulate: wrote {}, summary.json, metrics.json, metrics.csv{}",
                (dir / "report.html").string(), (*sim)->placement() ? ", topology.csv" : "");
  if (summary.contains("colocation")) LogColocation(summary["colocation"]);
  if (std::string line = TopologySummaryLine(summary); !line.empty())
    CliLog().info("simulate: {}", line);
  // The human summary on stdout (nothing else is printed there); scripts read
  // summary.json.
  std::cout << SimulateSummaryTable(summary, metrics) << std::flush;
  return 0;
}

}  // namespace basalt
