#include "cli/fgd.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "api/log.h"
#include "api/text.h"
#include "cli/progress_line.h"
#include "sim/chart_asset.h"
#include "sim/fgd/experiment.h"
#include "sim/fgd/report.h"
#include "sim/fgd/summary_table.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;

constexpr int kExitBadInput = 2;
constexpr int kExitOutput = 1;

// `pods` as given when it names a file, else DIR/csv/<pods>[.csv].
std::string ResolvePods(const std::string& dir, const std::string& pods) {
  if (fs::is_regular_file(pods)) return pods;
  for (const auto& candidate :
       {fs::path(dir) / "csv" / pods, fs::path(dir) / "csv" / (pods + ".csv")}) {
    if (fs::is_regular_file(candidate)) return candidate.string();
  }
  return pods;
}

// "a, b,,c" -> {"a", "b", "c"}: pieces trimmed, empty ones dropped.
std::vector<std::string> SplitList(const std::string& list) {
  std::vector<std::string> out;
  for (const std::string& piece : Split(list, ',')) {
    std::string_view item = Trim(piece);
    if (!item.empty()) out.emplace_back(item);
  }
  return out;
}

Status WriteOutputs(const std::string& dir, const fgd::ExperimentResult& result,
                    const std::vector<fgd::PublishedCurve>& published) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::Unavailable(dir + ": cannot create folder: " + ec.message());
  {
    std::ofstream out(fs::path(dir) / "result.json");
    out << result.summary.dump(2) << "\n";
    if (!out) return Status::Unavailable(dir + "/result.json: cannot write");
  }
  std::ofstream csv(fs::path(dir) / "curves.csv");
  csv << "policy,seed,arrived_pct,unallocated_pct,fragment_pct\n";
  char line[160];
  for (const auto& run : result.runs) {
    for (size_t k = 0; k < run.unallocated_pct.size(); ++k) {
      std::snprintf(line, sizeof line, ",%llu,%zu,%.4f,%.4f\n",
                    static_cast<unsigned long long>(run.seed), k, run.unallocated_pct[k],
                    run.fragment_pct[k]);
      csv << run.policy << line;
    }
  }
  if (!csv) return Status::Unavailable(dir + "/curves.csv: cannot write");
  std::ofstream html(fs::path(dir) / "report.html");
  html << fgd::RenderFgdReport(result.summary, published, ChartLibrarySource(), ChartLibraryName());
  if (!html) return Status::Unavailable(dir + "/report.html: cannot write");
  return Status::Ok();
}

// Runs done of all (policy, seed) runs, redrawn in place; ends the line after
// the last run.
void DrawProgress(size_t done, size_t total) {
  std::fprintf(stderr, "\rfgd: run %zu of %zu (%3zu%%)", done, total,
               total > 0 ? done * 100 / total : 100);
  if (done >= total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

}  // namespace

int RunFgd(const FgdRequest& request) {
  if (!fs::is_directory(request.trace_dir)) {
    CliLog().error("{}: --trace is not a folder", request.trace_dir);
    return kExitBadInput;
  }
  const std::string nodes =
      request.nodes.empty()
          ? (fs::path(request.trace_dir) / "csv" / "openb_node_list_gpu_node.csv").string()
          : request.nodes;
  const std::string pods = ResolvePods(request.trace_dir, request.pods);
  auto trace = fgd::LoadTrace(nodes, pods);
  if (!trace.ok()) {
    CliLog().error("{}", trace.status().message());
    return kExitBadInput;
  }
  fgd::ExperimentConfig config;
  config.workload = fs::path(pods).stem().string();
  config.policies = SplitList(request.policies);
  if (config.policies.empty()) {
    CliLog().error("--policies: empty list");
    return kExitBadInput;
  }
  for (int i = 0; i < request.seeds; ++i)
    config.seeds.push_back(request.first_seed + static_cast<uint64_t>(i));
  config.tune = request.tune;
  config.jobs = request.jobs;
  const bool progress = ProgressOnTerminal();
  if (progress) {
    FinishProgressLineOnSignals();
    config.on_run_done = DrawProgress;
    DrawProgress(0, config.policies.size() * config.seeds.size());
  }
  auto result = fgd::RunExperiment(*trace, config);
  if (!result.ok()) {
    if (progress) std::fputs("\n", stderr);  // the error on a line of its own
    CliLog().error("{}", result.status().message());
    return kExitBadInput;
  }
  const auto summary_csv =
      fs::path(request.trace_dir) / "derived" / "fgd_unallocated_gpu_summary.csv";
  auto published = fgd::LoadPublished(summary_csv.string(), config.workload);
  if (!published.ok()) {
    CliLog().error("{}", published.status().message());
    return kExitBadInput;
  }
  fgd::CompareWithPublished(result->summary, *published);
  if (!request.out_dir.empty()) {
    // The authors' per-run curves, for the band the report draws beside ours.
    const auto curves_csv =
        fs::path(request.trace_dir) / "fgd_expected_results" / "analysis_allo_discrete.csv";
    auto curves = fgd::LoadPublishedCurves(curves_csv.string(), config.workload, config.curve_from,
                                           config.curve_to);
    if (!curves.ok()) {
      CliLog().error("{}", curves.status().message());
      return kExitBadInput;
    }
    Status st = WriteOutputs(request.out_dir, *result, *curves);
    if (!st.ok()) {
      CliLog().error("{}", st.message());
      return kExitOutput;
    }
  }
  std::cout << result->summary.dump(2) << "\n" << std::flush;
  // The human table on stderr: stdout is the JSON object scripts read.
  std::fputs(fgd::FgdSummaryTable(result->summary).c_str(), stderr);
  return 0;
}

}  // namespace basalt
