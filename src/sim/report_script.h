// The simulation report's page script (sim/report.cc): draws the charts from
// the embedded metrics and the chart description of sim/report_axes.h. Kept
// free of any data-dependent text so the report is a pure function of its
// inputs.
//
// After drawing, each canvas carries what the chart shows, for the
// headless-browser tests: `data-y-title`, `data-x-ticks` (the tick labels the
// library drew, joined by "|") and `data-series` (the legend labels).
#pragma once

namespace basalt {

inline constexpr const char* kReportPageScript = R"JS(
(function () {
  const M = JSON.parse(document.getElementById('metrics').textContent);
  const SPEC = JSON.parse(document.getElementById('chart-spec').textContent);
  const hours = M.samples.map(s => s.t / 3600);
  const tickHours = SPEC.x_ticks.map(t => t.t / 3600);
  const tickLabel = new Map(SPEC.x_ticks.map(t => [t.t / 3600, t.label]));
  const lastHour = tickHours.length ? Math.max(tickHours[tickHours.length - 1],
                                               hours.length ? hours[hours.length - 1] : 0) : 0;
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
                   '#7f7f7f', '#bcbd22', '#17becf'];
  const points = values => values.map((v, i) => ({x: hours[i], y: v}));
  // x ticks on the day or hour boundaries of the chart description, not
  // wherever the library's spacing would put them.
  const xScale = () => ({
    type: 'linear', min: 0, max: lastHour,
    title: {display: true, text: SPEC.x_title},
    afterBuildTicks: axis => { axis.ticks = tickHours.map(v => ({value: v})); },
    ticks: {autoSkip: false, maxRotation: 0,
            callback: v => tickLabel.has(v) ? tickLabel.get(v) : ''}
  });
  function describe(canvas, chart, yTitle) {
    canvas.dataset.yTitle = yTitle;
    canvas.dataset.xTicks = chart.scales.x.ticks.map(t => t.label).join('|');
    canvas.dataset.series = chart.data.datasets.map(d => d.label).join('|');
  }
  // series: [{label, data, extra}]; opts: {yTitle, stacked, yMax}.
  function line(id, title, series, opts) {
    const canvas = document.getElementById(id);
    if (typeof Chart === 'undefined' || !canvas) return;
    const stacked = !!opts.stacked;
    const datasets = series.map((s, i) => Object.assign({
      label: s.label, data: points(s.data), borderColor: palette[i % palette.length],
      backgroundColor: palette[i % palette.length] + '55', pointRadius: 0, borderWidth: 1.5,
      // Stacked areas fill from the series below, not down to zero.
      fill: stacked ? (i === 0 ? 'origin' : '-1') : false
    }, s.extra || {}));
    const y = {stacked: stacked, beginAtZero: true, title: {display: true, text: opts.yTitle}};
    if (opts.yMax !== undefined) y.max = opts.yMax;
    const chart = new Chart(canvas, {
      type: 'line', data: {datasets: datasets},
      options: {animation: false, responsive: false, parsing: true,
                plugins: {title: {display: true, text: title}}, scales: {x: xScale(), y: y}}
    });
    describe(canvas, chart, opts.yTitle);
  }
  const pct = v => Math.round(v * 1000) / 10;
  line('chart-util', 'Utilisation (allocated / allocatable)',
       SPEC.utilization.map(u => ({label: u.label,
                                   data: M.samples.map(s => pct(s.utilization[u.key] || 0))})),
       {yTitle: '% allocated', yMax: 100});
  const queueSeries = M.queues.map(q => ({label: q.name + (q.role ? ' (' + q.role + ')' : ''),
                                          data: M.samples.map(s => s.queue_gpus[q.name] || 0)}));
  const gpuCapacity = (M.capacity || {})['nvidia.com/gpu'] || 0;
  if (gpuCapacity > 0) {
    // Its own stack: the capacity is drawn as a line, not stacked on the queues.
    queueSeries.push({label: 'GPU capacity', data: M.samples.map(() => gpuCapacity),
                      extra: {stack: 'capacity', fill: false, borderColor: '#000000',
                              backgroundColor: 'rgba(0, 0, 0, 0)', borderDash: [6, 4], borderWidth: 2}});
  }
  line('chart-queues', 'GPUs allocated per queue (stacked) and the cluster\'s GPU capacity',
       queueSeries, {yTitle: 'GPUs', stacked: true});
  line('chart-pending', 'Pending pods and jobs',
       [{label: 'pending pods', data: M.samples.map(s => s.pending_pods)},
        {label: 'pending jobs', data: M.samples.map(s => s.pending_jobs)},
        {label: 'running jobs', data: M.samples.map(s => s.running_jobs)},
        {label: 'inference replicas desired', data: M.samples.map(s => s.inference_desired)}],
       {yTitle: 'pods / jobs'});
  line('chart-evictions', 'Cumulative evictions, completions, gang violations',
       [{label: 'evictions', data: M.samples.map(s => s.evictions)},
        {label: 'jobs completed', data: M.samples.map(s => s.jobs_completed)},
        {label: 'gang violations', data: M.samples.map(s => s.gang_violations)}],
       {yTitle: 'count (cumulative)'});
  window.basaltLine = line;
})();
)JS";

}  // namespace basalt
