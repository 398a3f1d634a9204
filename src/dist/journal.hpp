// A worker's journal: how a bench_ops worker tells its parent what it did, so that a crash (a kernel
// fault that poisons the CUDA context, a segfault in a library) loses nothing but the problem it hit.
// JSON Lines, appended with one write(2) each, in this order:
//
//   {"event":"start","report":{...}}             context of the worker (a report with no results)
//   {"event":"begin","id":"element/add/..."}     before a problem (again before each repetition)
//   {"event":"done","id":...,"report":{...}}     after it: a report holding that one problem (repetitions
//                                                pooled so far; the last "done" of an id is the result)
//   {"event":"end"}                              the worker finished normally
//
// A problem whose last event is "begin" when the worker dies is the one it died on.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "opbench/result.hpp"

namespace opbench::dist {

class JournalWriter {
 public:
  explicit JournalWriter(const std::string& path);  // creates or truncates; throws std::runtime_error
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  void start(const RunContext& context);
  void begin(const std::string& id);
  void done(const RunContext& context, const ProblemResult& result);
  void end();

 private:
  void append(const std::string& line);
  std::string path_;
  int fd_ = -1;
};

// What a journal says so far. Read incrementally: the parent polls it while the worker runs.
class JournalReader {
 public:
  explicit JournalReader(std::string path) : path_(std::move(path)) {}

  // Reads what was appended since the last call; returns the ids that got a "done" in it, in order.
  // A torn last line (the worker died while writing it) is left for a later call, then ignored.
  // Throws std::runtime_error on a line that is not a journal entry.
  std::vector<std::string> poll();

  const std::optional<RunContext>& context() const { return context_; }  // latest (start or done)
  bool ended() const { return ended_; }
  const std::vector<std::string>& begun() const { return begun_; }  // each id once, first-begun order
  std::optional<std::string> pending() const;                       // begun, and no "done" since
  const std::map<std::string, ProblemResult>& results() const { return results_; }

 private:
  std::string path_;
  std::size_t offset_ = 0;
  std::optional<RunContext> context_;
  bool ended_ = false;
  std::vector<std::string> begun_;
  std::map<std::string, bool> open_;  // id -> last event was "begin"
  std::map<std::string, ProblemResult> results_;
};

}  // namespace opbench::dist
