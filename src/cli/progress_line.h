// The progress line long commands (`simulate`, `fgd`) redraw in place on
// stderr. Only on a terminal: in a log or a pipe it would be one endless line,
// so there the commands print no progress at all.
#pragma once

namespace basalt {

// Whether stderr is a terminal (the progress line is drawn only then).
bool ProgressOnTerminal();

// From now on, Ctrl-C (SIGINT) or SIGTERM first ends the progress line with a
// newline, so the shell's prompt starts on a line of its own, then ends the
// process by the signal (the shell reports 128 + signal: 130 for Ctrl-C).
void FinishProgressLineOnSignals();

}  // namespace basalt
