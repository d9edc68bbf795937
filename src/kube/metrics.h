// A small Prometheus registry for `basalt serve`'s /metrics: counters, gauges
// and histograms with labels, rendered in the Prometheus text exposition format
// (version 0.0.4). Thread-safe: the scheduling loop, the informers and the
// HTTP endpoint thread all touch it.
//
// Families are declared once (`Counter`, `Gauge`, `Histogram`) with their help
// text; samples are addressed by label values in the declared label order.
// Rendering sorts families by name and samples by labels, so the output is
// deterministic (tests compare it).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace basalt::kube {

class Metrics {
 public:
  // Declarations. Redeclaring a family with the same name is a no-op.
  void Counter(const std::string& name, const std::string& help,
               std::vector<std::string> labels = {});
  void Gauge(const std::string& name, const std::string& help,
             std::vector<std::string> labels = {});
  // `buckets`: upper bounds, ascending; +Inf is implicit.
  void Histogram(const std::string& name, const std::string& help, std::vector<double> buckets,
                 std::vector<std::string> labels = {});

  // Updates. An undeclared family or a wrong number of label values is a
  // programming error (asserted); values are label values in declared order.
  void Inc(const std::string& name, const std::vector<std::string>& values = {}, double by = 1);
  void Set(const std::string& name, const std::vector<std::string>& values, double value);
  void Set(const std::string& name, double value) { Set(name, {}, value); }
  // Removes every sample of a gauge (before re-setting the current set, so
  // series of deleted queues disappear).
  void ClearGauge(const std::string& name);
  // Removes one series (a counter's, a gauge's or a histogram's) of a
  // declared family: the object it described is gone.
  void Erase(const std::string& name, const std::vector<std::string>& values);
  void Observe(const std::string& name, const std::vector<std::string>& values, double value);
  void Observe(const std::string& name, double value) { Observe(name, {}, value); }

  // Current value of a counter or gauge sample (0 when absent); for tests.
  double Value(const std::string& name, const std::vector<std::string>& values = {});

  // The text exposition format.
  std::string Render();

 private:
  enum class Type { kCounter, kGauge, kHistogram };
  struct HistogramData {
    std::vector<uint64_t> counts;  // per bucket (not cumulative), plus +Inf last
    double sum = 0;
    uint64_t count = 0;
  };
  struct Family {
    Type type;
    std::string help;
    std::vector<std::string> labels;
    std::vector<double> buckets;
    std::map<std::vector<std::string>, double> values;
    std::map<std::vector<std::string>, HistogramData> histograms;
  };
  void Declare(const std::string& name, Type type, const std::string& help,
               std::vector<std::string> labels, std::vector<double> buckets);
  Family& Get(const std::string& name, const std::vector<std::string>& values);

  std::mutex mu_;
  std::map<std::string, Family> families_;
};

// Escapes a label value for the text format (backslash, quote, newline).
std::string EscapeLabelValue(const std::string& v);
// Formats a sample value: integers without a fraction, +Inf/-Inf/NaN spelled
// as Prometheus expects.
std::string FormatMetricValue(double v);
// Formats a histogram bound (`le`) as Prometheus' Go client does: the
// shortest text that reads back as the same double, in exponent form below
// 1e-4 and from 1e6 on ("0.1", "4999.999999999997", "1e+06"), so a bound
// computed as Go computes it is the same label.
std::string FormatBucketBound(double v);

}  // namespace basalt::kube
