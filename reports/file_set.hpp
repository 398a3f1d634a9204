// Files (and folders) published together, whole or not at all: every content goes to a hidden
// temporary next to its final name (same file system, so a rename is atomic), is flushed to disk, and
// only when all temporaries exist are they renamed into place. A failure part-way removes what this
// set created and puts back a folder it had moved aside; a reader never sees half a report.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace opbench::reports {

class ReportWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Removes a file or a folder with everything in it (no error when absent; what cannot be removed is
// left). POSIX nftw, not std::filesystem::remove_all: in a process that loads a PyTorch build of
// LibTorch, libtorch.so exports its own copy of std::filesystem, the dynamic linker binds our calls to
// it, and its remove_all jumps through a null pointer (SIGSEGV in the --devices parent on the H100 node,
// found with cuda-gdb). Every tree removal in bench_ops goes through here.
void remove_tree(const std::string& path) noexcept;

// A hidden, empty folder next to `path` (".<name>.tmp-XXXXXX"), to be filled and then published with
// FileSet::add_folder. Throws ReportWriteError.
std::string make_temp_folder(const std::string& path);

class FileSet {
 public:
  FileSet() = default;
  FileSet(const FileSet&) = delete;
  FileSet& operator=(const FileSet&) = delete;
  // Removes the temporaries of a set that was never committed (an exception on the way).
  ~FileSet();

  void add_file(const std::string& path, std::string content);
  // `filled` (from make_temp_folder) becomes `path`, replacing a folder already there.
  void add_folder(const std::string& path, const std::string& filled);
  // Throws ReportWriteError naming the path and the system's reason; nothing of the set is left then.
  void commit();
  // The final paths, in the order added.
  std::vector<std::string> paths() const;

 private:
  struct Entry {
    std::string path, content, temp;
    bool folder = false;
    std::string aside;  // the folder that was at path, moved away until the set is in place
  };
  void roll_back(std::size_t renamed);
  std::vector<Entry> entries_;
  bool committed_ = false;
};

// One file, atomically (temporary file + fsync + rename); throws ReportWriteError.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace opbench::reports
