#include "kube/metrics.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "api/check.h"

namespace basalt::kube {

std::string EscapeLabelValue(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string FormatMetricValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.0f", v);
    return buf;
  }
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

std::string FormatBucketBound(double v) {
  if (std::isnan(v) || std::isinf(v) || v == 0) return FormatMetricValue(v);
  char buf[64];
  auto done = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  const std::string sci(buf, done.ptr);  // "-d.ddde+XX", shortest round trip
  const size_t e = sci.find('e');
  const std::string mantissa = sci.substr(0, e);
  const int exponent = std::stoi(sci.substr(e + 1));
  if (exponent < -4 || exponent >= 6) {
    char exp_text[8];
    std::snprintf(exp_text, sizeof(exp_text), "e%+03d", exponent);
    return mantissa + exp_text;
  }
  const bool negative = mantissa[0] == '-';
  std::string digits;
  for (char c : mantissa) {
    if (c >= '0' && c <= '9') digits += c;
  }
  std::string out;
  if (exponent < 0) {
    out = "0." + std::string(-exponent - 1, '0') + digits;
  } else if (static_cast<int>(digits.size()) <= exponent + 1) {
    out = digits + std::string(exponent + 1 - digits.size(), '0');
  } else {
    out = digits.substr(0, exponent + 1) + "." + digits.substr(exponent + 1);
  }
  return negative ? "-" + out : out;
}

void Metrics::Declare(const std::string& name, Type type, const std::string& help,
                      std::vector<std::string> labels, std::vector<double> buckets) {
  std::lock_guard<std::mutex> lock(mu_);
  if (families_.count(name)) return;
  Family f;
  f.type = type;
  f.help = help;
  f.labels = std::move(labels);
  f.buckets = std::move(buckets);
  families_.emplace(name, std::move(f));
}

void Metrics::Counter(const std::string& name, const std::string& help,
                      std::vector<std::string> labels) {
  Declare(name, Type::kCounter, help, std::move(labels), {});
}
void Metrics::Gauge(const std::string& name, const std::string& help,
                    std::vector<std::string> labels) {
  Declare(name, Type::kGauge, help, std::move(labels), {});
}
void Metrics::Histogram(const std::string& name, const std::string& help,
                        std::vector<double> buckets, std::vector<std::string> labels) {
  Declare(name, Type::kHistogram, help, std::move(labels), std::move(buckets));
}

Metrics::Family& Metrics::Get(const std::string& name, const std::vector<std::string>& values) {
  auto it = families_.find(name);
  BASALT_CHECK(it != families_.end()) << "undeclared metric " << name;
  BASALT_CHECK(it->second.labels.size() == values.size())
      << "metric " << name << ": wrong label count";
  return it->second;
}

void Metrics::Inc(const std::string& name, const std::vector<std::string>& values, double by) {
  std::lock_guard<std::mutex> lock(mu_);
  Get(name, values).values[values] += by;
}

void Metrics::Set(const std::string& name, const std::vector<std::string>& values, double value) {
  std::lock_guard<std::mutex> lock(mu_);
  Get(name, values).values[values] = value;
}

void Metrics::ClearGauge(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = families_.find(name);
  if (it != families_.end()) it->second.values.clear();
}

void Metrics::Erase(const std::string& name, const std::vector<std::string>& values) {
  std::lock_guard<std::mutex> lock(mu_);
  Family& f = Get(name, values);
  f.values.erase(values);
  f.histograms.erase(values);
}

void Metrics::Observe(const std::string& name, const std::vector<std::string>& values,
                      double value) {
  std::lock_guard<std::mutex> lock(mu_);
  Family& f = Get(name, values);
  HistogramData& h = f.histograms[values];
  if (h.counts.empty()) h.counts.assign(f.buckets.size() + 1, 0);
  size_t i = 0;
  while (i < f.buckets.size() && value > f.buckets[i]) ++i;
  ++h.counts[i];
  h.sum += value;
  ++h.count;
}

double Metrics::Value(const std::string& name, const std::vector<std::string>& values) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = families_.find(name);
  if (it == families_.end()) return 0;
  auto v = it->second.values.find(values);
  return v == it->second.values.end() ? 0 : v->second;
}

namespace {

std::string LabelText(const std::vector<std::string>& names, const std::vector<std::string>& values,
                      const std::string& extra_name = "", const std::string& extra_value = "") {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (out.empty() ? "" : ",") + names[i] + "=\"" + EscapeLabelValue(values[i]) + "\"";
  }
  if (!extra_name.empty())
    out += (out.empty() ? "" : ",") + extra_name + "=\"" + extra_value + "\"";
  return out.empty() ? "" : "{" + out + "}";
}

std::string EscapeHelp(const std::string& help) {
  std::string out;
  for (char c : help) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string Metrics::Render() {
  std::lock_guard<std::mutex> lock(mu_);
  std::ostringstream out;
  for (const auto& family : families_) {
    // Plain references, not bindings: the lambda below captures them (clang < 16).
    const std::string& name = family.first;
    const auto& f = family.second;
    const char* type = f.type == Type::kCounter ? "counter"
                       : f.type == Type::kGauge ? "gauge"
                                                : "histogram";
    out << "# HELP " << name << " " << EscapeHelp(f.help) << "\n";
    out << "# TYPE " << name << " " << type << "\n";
    if (f.type != Type::kHistogram) {
      for (const auto& [values, v] : f.values)
        out << name << LabelText(f.labels, values) << " " << FormatMetricValue(v) << "\n";
      // An unlabelled counter or gauge is always exposed, at 0 until touched.
      if (f.values.empty() && f.labels.empty()) out << name << " 0\n";
      continue;
    }
    auto render = [&](const std::vector<std::string>& values, const HistogramData* h) {
      uint64_t cumulative = 0;
      for (size_t i = 0; i <= f.buckets.size(); ++i) {
        if (h) cumulative += h->counts[i];
        std::string le = i < f.buckets.size() ? FormatBucketBound(f.buckets[i]) : "+Inf";
        out << name << "_bucket" << LabelText(f.labels, values, "le", le) << " " << cumulative
            << "\n";
      }
      out << name << "_sum" << LabelText(f.labels, values) << " "
          << FormatMetricValue(h ? h->sum : 0) << "\n";
      out << name << "_count" << LabelText(f.labels, values) << " " << (h ? h->count : 0) << "\n";
    };
    for (const auto& [values, h] : f.histograms) render(values, &h);
    if (f.histograms.empty() && f.labels.empty()) render({}, nullptr);
  }
  return out.str();
}

}  // namespace basalt::kube
