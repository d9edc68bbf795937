// Google Benchmark cases over the profiles of bench/profiles.h.
//
//   nice ./build/basalt_bench --benchmark_filter=Profile/alloc-1k
//   nice ./build/basalt_bench --benchmark_filter=Scale
//
// BM_Profile/<name>: the profile's cycle (as `basalt bench --profile <name>`);
// the time is the median cycle wall time of 3 cycles (manual time), counters
// give CPU time, pods bound, pods evicted and peak RSS. BM_Scale/nodes/pods:
// the alloc profile scaled, for the scaling table of bench/README.md. Add
// `/reference` to a name for the reference node selection.
#include <benchmark/benchmark.h>

#include <algorithm>

#include "profiles.h"

namespace basalt::bench {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void RunCase(benchmark::State& st, const Profile& profile, bool reference) {
  RunOptions options;
  options.runs = 3;
  options.reference = reference;
  ProfileResult last;
  for (auto _ : st) {
    auto r = RunProfile(profile, options);
    if (!r.ok()) {
      st.SkipWithError(r.status().message().c_str());
      return;
    }
    std::vector<double> wall;
    for (const CycleStats& c : r->cycles) wall.push_back(c.wall);
    st.SetIterationTime(Median(wall));
    last = std::move(r).value();
  }
  std::vector<double> cpu;
  for (const CycleStats& c : last.cycles) cpu.push_back(c.cpu);
  st.counters["cpu_ms"] = Median(cpu) * 1e3;
  st.counters["bound"] = last.cycles.empty() ? 0 : static_cast<double>(last.cycles.back().bound);
  st.counters["evicted"] =
      last.cycles.empty() ? 0 : static_cast<double>(last.cycles.back().evicted);
  st.counters["rss_mb"] = static_cast<double>(last.peak_rss_bytes) / (1 << 20);
}

void RegisterAll() {
  for (const Profile& p : Profiles()) {
    for (bool reference : {false, true}) {
      std::string name = "BM_Profile/" + p.name + (reference ? "/reference" : "");
      benchmark::RegisterBenchmark(
          name.c_str(), [&p, reference](benchmark::State& st) { RunCase(st, p, reference); })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
  const std::pair<int, int> grid[] = {
      {1000, 1000},  {1000, 4000},   {1000, 16000},  {1000, 64000},   {2500, 10000},
      {5000, 20000}, {10000, 10000}, {10000, 40000}, {10000, 100000},
  };
  for (const auto& [nodes, pods] : grid) {
    for (bool reference : {false, true}) {
      std::string name = "BM_Scale/" + std::to_string(nodes) + "/" + std::to_string(pods) +
                         (reference ? "/reference" : "");
      benchmark::RegisterBenchmark(name.c_str(),
                                   [nodes = nodes, pods = pods, reference](benchmark::State& st) {
                                     RunCase(st, Scaled(nodes, pods), reference);
                                   })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace
}  // namespace basalt::bench

int main(int argc, char** argv) {
  basalt::bench::RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
