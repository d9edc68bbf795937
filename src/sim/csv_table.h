// CsvTable: the CSV reader of the trace loaders (sim/traces.cc for `basalt
// simulate`, sim/fgd/trace.cc for `basalt fgd`). A header row names the
// columns, the rows that follow hold plain cells (the traces quote nothing; a
// quote is an error). Cells are found by column name, so the loaders do not
// depend on column order, and every problem is reported as
// `file:row N: column: problem` (row 1 is the header).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/status.h"

namespace basalt {

// Splits one CSV line at its commas (an empty last cell after a trailing
// comma included). A quote is an error: no trace quotes its cells.
Result<std::vector<std::string>> SplitCsvLine(const std::string& line);

class CsvTable {
 public:
  struct Row {
    int64_t line = 0;  // 1-based line of the file
    std::vector<std::string> cells;
  };

  // Fails on a missing `required` column, a row with another number of cells
  // than the header, a quote, or a text without a header row. Empty lines are
  // skipped; a trailing '\r' is dropped.
  static Result<CsvTable> Parse(const std::string& text, const std::string& file,
                                const std::vector<std::string>& required);

  const std::vector<Row>& rows() const { return rows_; }
  bool Has(const std::string& column) const { return columns_.count(column) > 0; }
  // The cell of a column that Parse required or Has confirmed.
  const std::string& Cell(const Row& row, const std::string& column) const {
    return row.cells[columns_.at(column)];
  }

  Status Error(const Row& row, const std::string& column, const std::string& problem) const;
  // An integer cell within [lo, hi]; empty is an error unless `empty_ok` (then -1).
  Result<int64_t> Int(const Row& row, const std::string& column, int64_t lo, int64_t hi,
                      bool empty_ok = false) const;
  // Seconds: an integer or a decimal ("85.0", as the DLRM trace writes them),
  // rounded to the nearest second; empty is an error unless `empty_ok` (then -1).
  Result<int64_t> Seconds(const Row& row, const std::string& column, bool empty_ok = false) const;
  // A finite number within [lo, hi].
  Result<double> Double(const Row& row, const std::string& column, double lo, double hi) const;

 private:
  std::string file_;
  std::map<std::string, size_t> columns_;
  size_t width_ = 0;
  std::vector<Row> rows_;
};

}  // namespace basalt
