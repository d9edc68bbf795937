// Whole scheduling cycles on generated clusters (Google Benchmark).
//
//   ./build/basalt_bench --benchmark_filter=Cycle
//
// Node shape: 32 CPU, 256 Gi, 8 GPUs; pods 4 CPU, 32 Gi, 1 GPU in gangs of 8;
// the default plugin set plus binpack; actions enqueue, allocate, backfill.
#include <benchmark/benchmark.h>

#include "actions/builtin.h"
#include "cluster_generator.h"
#include "framework/config.h"
#include "plugins/builtin.h"
#include "sim/cycle_runner.h"

namespace basalt::bench {
namespace {

constexpr const char* kConf = R"(actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
)";

// One enqueue+allocate+backfill cycle over `nodes` nodes and `pods` pending pods,
// including the snapshot and plugin set-up.
void BM_AllocateCycle(benchmark::State& st) {
  const int nodes = static_cast<int>(st.range(0));
  const int pods = static_cast<int>(st.range(1));
  PluginRegistry plugins;
  RegisterBuiltinPlugins(plugins);
  ActionRegistry actions;
  RegisterBuiltinActions(actions);
  SchedulerConfig conf = *ParseSchedulerConfig(kConf, "bench.conf", plugins.Names(), actions.Names());
  int64_t bound = 0;
  for (auto _ : st) {
    st.PauseTiming();
    ClusterState state;
    Generate({.nodes = nodes}, {.queues = 4, .pending_pods = pods}, &state);
    CycleRunner runner(state, conf, plugins, actions, SessionOptions());
    (void)runner.Init();
    st.ResumeTiming();
    auto result = runner.RunCycle(false);
    bound = static_cast<int64_t>(result->decisions.binds.size());
    benchmark::DoNotOptimize(bound);
  }
  st.counters["bound"] = static_cast<double>(bound);
  st.counters["pods_per_s"] = benchmark::Counter(static_cast<double>(bound), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AllocateCycle)
    ->ArgNames({"nodes", "pods"})
    ->Args({100, 400})
    ->Args({500, 2000})
    ->Args({1000, 4000})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

constexpr const char* kEvictConf = R"(actions: "enqueue, allocate, preempt, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
)";

// One cycle with eviction work on a full cluster: `nodes` nodes filled by 8
// running pods each (gangs of 8, minMember 1, low priority). Mode 0 (preempt):
// 4 pending high-priority pods per 8 running, in the same queue. Mode 1
// (reclaim): the running pods sit in queue-0, a pending gang in queue-1.
void BM_EvictionCycle(benchmark::State& st) {
  const int nodes = static_cast<int>(st.range(0));
  const bool reclaim = st.range(1) == 1;
  PluginRegistry plugins;
  RegisterBuiltinPlugins(plugins);
  ActionRegistry actions;
  RegisterBuiltinActions(actions);
  SchedulerConfig conf = *ParseSchedulerConfig(kEvictConf, "bench.conf", plugins.Names(), actions.Names());
  int64_t evicted = 0;
  for (auto _ : st) {
    st.PauseTiming();
    ClusterState state;
    WorkloadProfile w;
    w.queues = 2;
    w.running_pods = nodes * 8;
    w.running_queue = "queue-0";
    w.running_min_member = 1;
    w.pending_pods = reclaim ? 8 : nodes * 4;
    w.pending_queue = reclaim ? "queue-1" : "queue-0";
    w.pending_priority_class = reclaim ? "" : "high";
    Generate({.nodes = nodes}, w, &state);
    CycleRunner runner(state, conf, plugins, actions, SessionOptions());
    (void)runner.Init();
    st.ResumeTiming();
    auto result = runner.RunCycle(false);
    evicted = static_cast<int64_t>(result->decisions.evictions.size());
    benchmark::DoNotOptimize(evicted);
  }
  st.counters["evicted"] = static_cast<double>(evicted);
}
BENCHMARK(BM_EvictionCycle)
    ->ArgNames({"nodes", "reclaim"})
    ->Args({1000, 0})
    ->Args({1000, 1})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Iterations(1);

}  // namespace
}  // namespace basalt::bench

BENCHMARK_MAIN();
