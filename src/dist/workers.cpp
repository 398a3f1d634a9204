#include "src/dist/workers.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include "reports/format.hpp"
#include "reports/rows.hpp"
#include "src/dist/gpu_identity.hpp"
#include "src/dist/journal.hpp"

namespace fs = std::filesystem;

namespace opbench::dist {
namespace {

// Options only the parent acts on, and whether each takes a value.
const std::map<std::string, bool> kParentOptions = {
    {"--devices", true},     {"--device", true},       {"--shard", true},
    {"--isolate", false},    {"--replicate", false},   {"--balance-from", true},
    {"--output-dir", true},  {"--format", true},       {"--slow-gpu-margin", true},
    // Google Benchmark's own output file: every worker would write the same one.
    {"--benchmark_out", true}, {"--benchmark_out_format", true},
};

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    default: return nullptr;
  }
}

std::string tail_of(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string l; std::getline(in, l);) {
    last.push_back(l);
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const std::string& l : last) out += "    " + l + "\n";
  return out;
}

struct Attempt {
  pid_t pid = -1;
  std::vector<std::size_t> tasks;  // indices into the slot's tasks
  std::string log;
  JournalReader journal;
};

struct SlotState {
  const WorkerSlot* slot = nullptr;
  std::vector<bool> settled;
  std::map<std::string, std::size_t> task_of;
  std::map<std::size_t, ProblemResult> results;  // by task
  std::optional<Attempt> running;
  int attempts = 0, finished = 0;
  bool stopped = false;
  std::optional<RunContext> context;
};

// Kills and reaps the workers still running when the parent leaves early (an exception, an abort).
struct ChildGuard {
  std::vector<SlotState>& slots;
  ~ChildGuard() {
    for (SlotState& s : slots)
      if (s.running && s.running->pid > 0) {
        ::kill(s.running->pid, SIGTERM);
        int st = 0;
        ::waitpid(s.running->pid, &st, 0);
      }
  }
};

pid_t spawn(const WorkerCommand& cmd, const std::vector<std::string>& extra, const std::string& log) {
  std::vector<std::string> argv_s = {cmd.executable};
  argv_s.insert(argv_s.end(), cmd.args.begin(), cmd.args.end());
  argv_s.insert(argv_s.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("cannot start a worker: fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec. A worker dies with its parent.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(126);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      ::close(fd);
    }
    ::execv(argv[0], argv.data());
    const char msg[] = "bench_ops worker: exec failed\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  return pid;
}

ProblemResult failed_result(const WorkerTask& t, const std::string& message, const GpuId& gpu) {
  ProblemResult p = t.placeholder;
  p.gpu = gpu;
  ImplResult fw;
  fw.impl = ImplKind::framework;
  fw.status = Status::failed;
  fw.message = message;
  p.impls = {fw};
  return p;
}

std::string progress_line(const SlotState& s, const ProblemResult& p) {
  const ImplResult* fw = p.find(ImplKind::framework);
  const ImplResult* torch = p.find(ImplKind::torch);
  auto ms = [](const ImplResult* r) { return r && r->time_ms() > 0 ? reports::fmt_ms(r->time_ms()) + " ms" : "—"; };
  return fmt::format("[GPU {} {}/{}] {}: {}, framework {}, LibTorch {}\n", s.slot->device, s.finished,
                     s.slot->tasks.size(), p.id(), status_name(fw ? reports::verdict(*fw) : Status::failed), ms(fw), ms(torch));
}

}  // namespace

std::vector<std::string> worker_args(const std::vector<std::string>& user_args) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < user_args.size(); ++i) {
    const std::string& a = user_args[i];
    const auto eq = a.find('=');
    const std::string name = a.substr(0, eq);
    const auto it = kParentOptions.find(name);
    if (it == kParentOptions.end()) {
      out.push_back(a);
      continue;
    }
    if (it->second && eq == std::string::npos) ++i;  // "--opt value": skip the value too
  }
  return out;
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = signal_name(sig);
    return name ? fmt::format("was killed by signal {} ({})", sig, name) : fmt::format("was killed by signal {}", sig);
  }
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return "ended abnormally";
}

WorkerOutcome run_workers(const WorkerCommand& cmd, const std::vector<WorkerSlot>& slots, const WorkerSettings& set) {
  if (::access(cmd.executable.c_str(), X_OK) != 0)
    throw std::runtime_error(fmt::format("cannot start a worker: {}: {}", cmd.executable, std::strerror(errno)));
  std::error_code ec;
  fs::create_directories(set.work_dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create the worker folder {}: {}", set.work_dir, ec.message()));

  WorkerOutcome out;
  std::vector<SlotState> state(slots.size());
  for (std::size_t k = 0; k < slots.size(); ++k) {
    state[k].slot = &slots[k];
    state[k].settled.assign(slots[k].tasks.size(), false);
    for (std::size_t i = 0; i < slots[k].tasks.size(); ++i) state[k].task_of[slots[k].tasks[i].id] = i;
  }
  ChildGuard guard{state};
  auto say = [&](const std::string& s) {
    if (set.progress) *set.progress << s << std::flush;
  };
  const std::string parent_host = host_name();
  auto gpu_of = [&](const SlotState& s) {
    if (s.context && !s.context->gpus.empty()) return s.context->gpus.front().id;
    GpuId g;
    g.host = parent_host, g.index = s.slot->device;
    return g;
  };

  auto start = [&](std::size_t k) {
    SlotState& s = state[k];
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < s.settled.size(); ++i)
      if (!s.settled[i]) todo.push_back(i);
    if (todo.empty()) {
      s.stopped = true;
      return;
    }
    if (set.isolate) todo.resize(1);
    const std::string stem = (fs::path(set.work_dir) / fmt::format("gpu{}-slot{}-{}", s.slot->device, k, ++s.attempts)).string();
    std::ofstream list(stem + ".problems");
    for (std::size_t i : todo) list << s.slot->tasks[i].id << '\n';
    list.close();
    if (!list) throw std::runtime_error("cannot write the worker's problem list " + stem + ".problems");
    Attempt a{-1, todo, stem + ".log", JournalReader(stem + ".jsonl")};
    // The worker writes no report; --output-dir only points its start-up check at a folder that exists.
    a.pid = spawn(cmd,
                  {"--device", std::to_string(s.slot->device), "--worker-problems", stem + ".problems",
                   "--worker-journal", stem + ".jsonl", "--output-dir", set.work_dir},
                  a.log);
    s.running = std::move(a);
  };

  auto collect = [&](SlotState& s) {
    for (const std::string& id : s.running->journal.poll()) {
      const auto it = s.task_of.find(id);
      if (it == s.task_of.end()) continue;
      // With --benchmark_repetitions an id is done once per repetition: the latest is the pooled result.
      const bool first = !s.results.count(it->second);
      s.results[it->second] = s.running->journal.results().at(id);
      if (!first) continue;
      s.settled[it->second] = true;
      s.finished++;
      say(progress_line(s, s.results[it->second]));
    }
    if (s.running->journal.context()) s.context = s.running->journal.context();
  };

  // A worker ended: settle what it did and decide what the rest of its list needs.
  auto finish = [&](SlotState& s, int status) {
    collect(s);
    Attempt& a = *s.running;
    const int d = s.slot->device;
    if (a.journal.ended()) {
      // Listed but never begun: left out by --benchmark_filter, as in a one-process run.
      for (std::size_t i : a.tasks) s.settled[i] = true;
      s.running.reset();
      return;
    }
    out.crashes++;
    out.keep_work_dir = true;
    const std::string what = describe_wait_status(status);
    if (const auto id = a.journal.pending()) {
      const std::size_t i = s.task_of.at(*id);
      if (!s.results.count(i)) s.finished++;  // (a repetition after a finished one died: it is failed now)
      s.settled[i] = true;
      const std::string msg = fmt::format("the worker process running this problem on GPU {} {}; the rest of its list "
                                          "went on in a new worker (log: {})",
                                          d, what, a.log);
      s.results[i] = failed_result(s.slot->tasks[i], msg, gpu_of(s));
      say(fmt::format("[GPU {} {}/{}] {}: FAILED: worker {}; log {}:\n{}", d, s.finished, s.slot->tasks.size(), *id,
                      what, a.log, tail_of(a.log, 12)));
    } else if (a.journal.begun().empty()) {
      // It died before its first problem: the environment, not a problem. Bad command lines and a
      // LibTorch without CUDA would stop every worker alike, so the run stops with their exit code.
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      say(fmt::format("[GPU {}] worker {} before its first problem; log {}:\n{}", d, what, a.log, tail_of(a.log, 12)));
      if (code == 2 || code == 5) {
        out.abort_exit_code = code;
      } else {
        for (std::size_t i : a.tasks) {
          s.settled[i] = true;
          s.finished++;
          s.results[i] = failed_result(
              s.slot->tasks[i], fmt::format("the worker for GPU {} {} before running a problem (log: {})", d, what, a.log),
              gpu_of(s));
        }
        s.stopped = true;
      }
    } else {
      say(fmt::format("[GPU {}] worker {} between problems; a new worker takes the rest (log {})\n", d, what, a.log));
    }
    s.running.reset();
  };

  while (!out.abort_exit_code) {
    bool busy = false;
    for (std::size_t k = 0; k < state.size(); ++k) {
      if (!state[k].running && !state[k].stopped) start(k);
      busy = busy || state[k].running.has_value();
    }
    if (!busy) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (SlotState& s : state) {
      if (!s.running) continue;
      int status = 0;
      const pid_t r = ::waitpid(s.running->pid, &status, WNOHANG);
      if (r == s.running->pid) {
        s.running->pid = -1;
        finish(s, status);
        if (out.abort_exit_code) break;
      } else {
        collect(s);
      }
    }
  }

  for (const SlotState& s : state) {
    for (const auto& [task, p] : s.results) out.problems.push_back(p);
    if (!s.context) continue;
    out.contexts.push_back(*s.context);
    for (const FleetGpu& g : s.context->gpus) {
      auto same = std::find_if(out.gpus.begin(), out.gpus.end(), [&](const FleetGpu& o) { return o.id.same_board(g.id); });
      if (same == out.gpus.end()) {
        out.gpus.push_back(g);
      } else if (g.max_temperature_c) {
        same->max_temperature_c = std::max(same->max_temperature_c.value_or(*g.max_temperature_c), *g.max_temperature_c);
      }
    }
  }
  return out;
}

}  // namespace opbench::dist
