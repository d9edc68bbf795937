// Text a command prints that may quote its input (a file name, a key, a
// value): made safe for a terminal and a log pipeline. The stderr logger
// (api/log.h) passes every line through `TerminalSafe`; what a command writes
// to stdout itself passes through it too.
#pragma once

#include <string>
#include <string_view>

namespace basalt {

// `text` with control bytes (other than newline and tab) and bytes that are
// not valid UTF-8 written as \xNN.
std::string TerminalSafe(std::string_view text);

// `message` as command-line errors, one "basalt: <line>" per line of it (a
// loader reports every file's problem, one line each).
void CliErrorLines(std::string_view message);

}  // namespace basalt
