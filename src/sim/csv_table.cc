#include "sim/csv_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace basalt {

Result<std::vector<std::string>> SplitCsvLine(const std::string& line) {
  if (line.find('"') != std::string::npos)
    return Status::InvalidArgument("quoted CSV fields are not supported");
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    out.push_back(
        line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Result<CsvTable> CsvTable::Parse(const std::string& text, const std::string& file,
                                 const std::vector<std::string>& required) {
  CsvTable t;
  t.file_ = file;
  std::istringstream in(text);
  std::string line;
  int64_t number = 0;
  bool have_header = false;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    auto cells = SplitCsvLine(line);
    if (!cells.ok())
      return Status::InvalidArgument(file + ":row " + std::to_string(number) + ": " +
                                     cells.status().message());
    if (!have_header) {
      have_header = true;
      for (size_t i = 0; i < cells->size(); ++i) t.columns_.emplace((*cells)[i], i);
      for (const auto& r : required) {
        if (!t.columns_.count(r))
          return Status::InvalidArgument(file + ":row 1: missing column \"" + r + "\"");
      }
      t.width_ = cells->size();
      continue;
    }
    if (cells->size() != t.width_) {
      return Status::InvalidArgument(file + ":row " + std::to_string(number) + ": expected " +
                                     std::to_string(t.width_) + " columns, got " +
                                     std::to_string(cells->size()));
    }
    t.rows_.push_back({number, std::move(*cells)});
  }
  if (!have_header) return Status::InvalidArgument(file + ": empty file (no header row)");
  return t;
}

Status CsvTable::Error(const Row& row, const std::string& column,
                       const std::string& problem) const {
  return Status::InvalidArgument(file_ + ":row " + std::to_string(row.line) + ": " + column + ": " +
                                 problem);
}

Result<int64_t> CsvTable::Int(const Row& row, const std::string& column, int64_t lo, int64_t hi,
                              bool empty_ok) const {
  const std::string& s = Cell(row, column);
  if (s.empty()) {
    if (empty_ok) return int64_t{-1};
    return Error(row, column, "empty");
  }
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size())
    return Error(row, column, "\"" + s + "\" is not an integer");
  if (v < lo || v > hi) {
    return Error(
        row, column,
        std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return v;
}

Result<int64_t> CsvTable::Seconds(const Row& row, const std::string& column, bool empty_ok) const {
  const std::string& s = Cell(row, column);
  if (s.empty()) {
    if (empty_ok) return int64_t{-1};
    return Error(row, column, "empty");
  }
  const bool plain =
      std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }) &&
      std::count(s.begin(), s.end(), '.') <= 1 && s.front() != '.' && s.back() != '.';
  if (!plain) return Error(row, column, "not a time in seconds: \"" + s + "\"");
  const double v = std::strtod(s.c_str(), nullptr);
  if (!(v <= static_cast<double>(int64_t{1} << 40)))
    return Error(row, column, "out of range: " + s);
  return static_cast<int64_t>(std::llround(v));
}

Result<double> CsvTable::Double(const Row& row, const std::string& column, double lo,
                                double hi) const {
  const std::string& s = Cell(row, column);
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) {
    return Error(row, column, "\"" + s + "\" is not a number");
  }
  if (v < lo || v > hi)
    return Error(row, column,
                 s + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

}  // namespace basalt
