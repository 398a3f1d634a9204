// bench_ops compare and bench_ops history: the entry points src/cli/main.cpp dispatches to. Neither
// needs a GPU: they read reports and write reports.
//
// Exit codes: 0 no regression (compare) / done (history); 1 a regression of the framework (compare);
// 2 bad input or command line (unreadable file, schema mismatch, reports from different GPUs, drivers
// or settings, no baseline found); 4 a report or the history could not be written.
#pragma once

namespace opbench::compare {

enum CompareExit : int { kCompareOk = 0, kCompareRegression = 1, kCompareBadInput = 2, kCompareWriteFailed = 4 };

// argv[0] is "compare" / "history".
int main(int argc, char** argv);
int history_main(int argc, char** argv);

}  // namespace opbench::compare
