#include "reports/file_set.hpp"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;

namespace opbench::reports {
namespace {

int remove_entry_cb(const char* path, const struct stat*, int, struct FTW*) {
  ::remove(path);  // a file, or a folder emptied before it (FTW_DEPTH)
  return 0;
}

[[noreturn]] void fail(const std::string& path, int err) {
  throw ReportWriteError(fmt::format("cannot write report {}: {}", path, std::strerror(err)));
}

std::string hidden_template(const std::string& path, const char* kind) {
  const fs::path p(path);
  return (p.parent_path() / fmt::format(".{}.{}-XXXXXX", p.filename().string(), kind)).string();
}

// The content in a hidden temporary next to `path`, flushed to disk.
std::string write_temp(const std::string& path, const std::string& content) {
  std::string tmpl = hidden_template(path, "tmp");
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) fail(path, errno);
  auto bail = [&](int err) {
    ::close(fd);
    ::unlink(tmpl.c_str());
    fail(path, err);
  };
  // mkstemp creates 0600; reports are meant to be read by everyone who can read the folder.
  if (::fchmod(fd, 0644) != 0) bail(errno);
  for (std::size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) bail(errno);
    done += std::size_t(n);
  }
  if (::fsync(fd) != 0) bail(errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    fail(path, err);
  }
  return tmpl;
}

// The files a tool wrote into a temporary folder reach the disk before the folder is published.
void sync_folder(const std::string& folder) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    const int fd = ::open(e.path().c_str(), O_RDONLY);
    if (fd < 0) fail(e.path().string(), errno);
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) fail(e.path().string(), err);
  }
  if (ec) throw ReportWriteError(fmt::format("cannot list {}: {}", folder, ec.message()));
}

void remove_entry(const std::string& path, bool folder) {
  if (folder) remove_tree(path);
  else ::unlink(path.c_str());
}

}  // namespace

void remove_tree(const std::string& path) noexcept {
  ::nftw(path.c_str(), remove_entry_cb, 16, FTW_DEPTH | FTW_PHYS);
}

std::string make_temp_folder(const std::string& path) {
  std::string tmpl = hidden_template(path, "tmp");
  if (::mkdtemp(tmpl.data()) == nullptr) fail(path, errno);
  ::chmod(tmpl.c_str(), 0755);  // mkdtemp creates 0700; published folders are read by everyone
  return tmpl;
}

FileSet::~FileSet() {
  if (committed_) return;
  for (const Entry& e : entries_)
    if (!e.temp.empty()) remove_entry(e.temp, e.folder);
}

void FileSet::add_file(const std::string& path, std::string content) {
  entries_.push_back({path, std::move(content), {}, false, {}});
}

void FileSet::add_folder(const std::string& path, const std::string& filled) {
  entries_.push_back({path, {}, filled, true, {}});
}

std::vector<std::string> FileSet::paths() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) out.push_back(e.path);
  return out;
}

void FileSet::roll_back(std::size_t renamed) {
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    if (i < renamed) {
      remove_entry(e.path, e.folder);
      if (!e.aside.empty()) ::rename(e.aside.c_str(), e.path.c_str());
    } else if (!e.temp.empty()) {
      remove_entry(e.temp, e.folder);
    }
    e.temp.clear();
  }
}

void FileSet::commit() {
  try {
    for (Entry& e : entries_) {
      if (e.folder) sync_folder(e.temp);
      else e.temp = write_temp(e.path, e.content);
    }
  } catch (...) {
    roll_back(0);
    throw;
  }
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    std::error_code ec;
    if (e.folder && fs::exists(e.path, ec)) {
      // rename() cannot replace a folder that has files, but may replace an empty one: move the old
      // folder onto a fresh empty one, so that it can be put back if the set fails.
      try {
        e.aside = make_temp_folder(e.path);
      } catch (...) {
        roll_back(i);
        throw;
      }
      if (::rename(e.path.c_str(), e.aside.c_str()) != 0) {
        const int err = errno;
        ::rmdir(e.aside.c_str());
        e.aside.clear();
        roll_back(i);
        fail(e.path, err);
      }
    }
    if (::rename(e.temp.c_str(), e.path.c_str()) != 0) {
      const int err = errno;
      if (!e.aside.empty()) ::rename(e.aside.c_str(), e.path.c_str());
      e.aside.clear();
      roll_back(i);
      fail(e.path, err);
    }
    e.temp.clear();
  }
  committed_ = true;
  for (const Entry& e : entries_)
    if (!e.aside.empty()) remove_entry(e.aside, true);
}

void write_file_atomic(const std::string& path, const std::string& content) {
  FileSet set;
  set.add_file(path, content);
  set.commit();
}

}  // namespace opbench::reports
