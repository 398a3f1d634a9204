#include "src/dist/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "reports/json_writer.hpp"

namespace opbench::dist {
namespace {

using nlohmann::json;

json report_of(const RunContext& c, const ProblemResult* p) {
  RunResults r;
  r.context = c;
  if (p) r.problems.push_back(*p);
  return reports::to_json(r);
}

}  // namespace

JournalWriter::JournalWriter(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot write the worker journal " + path + ": " + std::strerror(errno));
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void JournalWriter::append(const std::string& line) {
  // One write per line: what reaches the file before a crash is whole lines (the page cache keeps what
  // a dying process wrote; only a torn write of the last line can be partial).
  const std::string text = line + "\n";
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("cannot write the worker journal " + path_ + ": " + std::strerror(errno));
    done += std::size_t(n);
  }
}

void JournalWriter::start(const RunContext& c) {
  append(json{{"event", "start"}, {"report", report_of(c, nullptr)}}.dump());
}

void JournalWriter::begin(const std::string& id) { append(json{{"event", "begin"}, {"id", id}}.dump()); }

void JournalWriter::done(const RunContext& c, const ProblemResult& p) {
  append(json{{"event", "done"}, {"id", p.id()}, {"report", report_of(c, &p)}}.dump());
}

void JournalWriter::end() { append(json{{"event", "end"}}.dump()); }

std::vector<std::string> JournalReader::poll() {
  std::vector<std::string> finished;
  std::ifstream in(path_, std::ios::binary);
  if (!in) return finished;  // not created yet
  in.seekg(std::streamoff(offset_));
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::size_t pos = 0;
  for (std::size_t nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1) {
    const std::string line = text.substr(pos, nl - pos);
    if (line.empty()) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception& e) {
      throw std::runtime_error("worker journal " + path_ + ": unreadable line: " + e.what());
    }
    const std::string event = j.value("event", "");
    if (event == "start") {
      context_ = reports::from_json(j.at("report")).context;
    } else if (event == "begin") {
      const std::string id = j.at("id");
      if (!open_.count(id)) begun_.push_back(id);
      open_[id] = true;
    } else if (event == "done") {
      RunResults r = reports::from_json(j.at("report"));
      if (r.problems.size() != 1) throw std::runtime_error("worker journal " + path_ + ": a done entry without one result");
      const std::string id = j.at("id");
      if (!open_.count(id)) begun_.push_back(id);
      open_[id] = false;
      context_ = r.context;
      results_[id] = std::move(r.problems.front());
      finished.push_back(id);
    } else if (event == "end") {
      ended_ = true;
    } else {
      throw std::runtime_error("worker journal " + path_ + ": unknown event '" + event + "'");
    }
  }
  offset_ += pos;  // a torn last line stays unread
  return finished;
}

std::optional<std::string> JournalReader::pending() const {
  for (const std::string& id : begun_)
    if (open_.at(id)) return id;
  return std::nullopt;
}

}  // namespace opbench::dist
