#pragma once
/// @file A file written whole or not at all: the bytes go to a temporary file next to the target
/// (PATH.tmpPID_N), which replaces the target by rename only when every write succeeded.
#include <cstdio>
#include <string>

namespace simscope::io {

/// Writes through file() into a temporary file; commit() renames it onto the target. Destroyed
/// without commit() (an exception, an early return), it removes the temporary file and leaves
/// the target as it was.
class AtomicFile {
 public:
  /// Opens the temporary file for `path`. Throws simscope::Error "PATH: cannot write (why)".
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::FILE* file() const { return f_; }
  const std::string& path() const { return path_; }
  /// Flushes, closes and renames onto the target. Throws simscope::Error "PATH: cannot write
  /// (why)" naming the first failure (a write error noted by the stream included).
  void commit();

 private:
  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
};

}  // namespace simscope::io
