#include "api/log.h"

#include <spdlog/sinks/base_sink.h>

#include <cstdio>
#include <mutex>

#include "api/terminal_text.h"

namespace basalt {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when the bytes there are
// not one (a stray continuation byte, a truncated or overlong sequence).
size_t Utf8SequenceAt(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  if (n == 3 && c == 0xe0 && byte(i + 1) < 0xa0) return 0;  // overlong
  if (n == 4 && c == 0xf0 && byte(i + 1) < 0x90) return 0;  // overlong
  return n;
}

// Writes each line to stderr with its bytes made safe for a terminal and a
// log pipeline: a message may quote what a user gave (a name, a key of a
// configuration) and that can hold control or invalid UTF-8 bytes. Those are
// written as \xNN; tabs, newlines and valid UTF-8 pass unchanged.
class EscapingStderrSink final : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    const std::string out = TerminalSafe(std::string_view(formatted.data(), formatted.size()));
    std::fwrite(out.data(), 1, out.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }
};

struct Loggers {
  std::mutex mu;
  spdlog::level::level_enum level = spdlog::level::info;
  spdlog::sink_ptr sink = std::make_shared<EscapingStderrSink>();
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

void CliErrorLines(std::string_view message) {
  size_t start = 0;
  while (true) {
    const size_t end = message.find('\n', start);
    CliLog().error("{}", message.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return;
    start = end + 1;
  }
}

std::string TerminalSafe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t') {
      out += static_cast<char>(c);
      ++i;
    } else if (size_t n = c >= 0x80 ? Utf8SequenceAt(text, i) : 0; n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
    }
  }
  return out;
}

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
