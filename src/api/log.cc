#include "api/log.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <mutex>

namespace basalt {
namespace {

struct Loggers {
  std::mutex mu;
  spdlog::level::level_enum level = spdlog::level::info;
  spdlog::sink_ptr sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
};

Loggers& State() {
  static Loggers* loggers = new Loggers();  // never destroyed: logging may run at exit
  return *loggers;
}

std::shared_ptr<spdlog::logger> Make(const std::string& name, const std::string& pattern) {
  Loggers& s = State();
  auto logger = std::make_shared<spdlog::logger>(name, s.sink);
  logger->set_pattern(pattern, spdlog::pattern_time_type::utc);
  logger->set_level(s.level);
  logger->flush_on(spdlog::level::trace);  // stderr lines appear as they happen
  spdlog::register_logger(logger);
  return logger;
}

}  // namespace

spdlog::logger& Log(std::string_view component) {
  Loggers& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  std::string name(component);
  if (auto existing = spdlog::get(name)) return *existing;
  return *Make(name, "%Y-%m-%dT%H:%M:%S.%eZ level=%l component=%n %v");
}

spdlog::logger& CliLog() {
  Loggers& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  if (auto existing = spdlog::get("cli")) return *existing;
  return *Make("cli", "basalt: %v");
}

Status SetLogLevel(std::string_view level) {
  auto parsed = spdlog::level::from_str(std::string(level));
  // from_str answers "off" for anything it does not know.
  if (parsed == spdlog::level::off && level != "off")
    return Status::InvalidArgument("--log-level: unknown level \"" + std::string(level) +
                                   "\" (trace, debug, info, warn, error, off)");
  Loggers& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  s.level = parsed;
  spdlog::apply_all([parsed](std::shared_ptr<spdlog::logger> l) { l->set_level(parsed); });
  return Status::Ok();
}

std::string LogValue(std::string_view value) {
  bool quote = value.empty() || value.find_first_of(" \"\\=\t\n") != std::string_view::npos;
  if (!quote) return std::string(value);
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace basalt
