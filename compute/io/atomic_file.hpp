#pragma once
/// @file A file written whole or not at all: the bytes go to a temporary file next to the target
/// (PATH.tmpPID_N), which replaces the target by rename only when every write succeeded. The one
/// atomic writer: .npy files, images, presets, checkpoints, profiles and videos use it.
#include <cstdio>
#include <string>

namespace simscope::io {

/// Writes through file() into a temporary file; commit() renames it onto the target. Destroyed
/// without commit() (an exception, an early return), it removes the temporary file and leaves
/// the target as it was.
class AtomicFile {
 public:
  /// Opens the temporary file for `path`. `what` names the file in messages ("preset": "PATH:
  /// cannot write preset (why)"); `durable`: commit() also flushes the file and its folder to
  /// disk (checkpoints). Throws simscope::Error "PATH: cannot write[ WHAT] (why)".
  explicit AtomicFile(std::string path, std::string what = "", bool durable = false);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::FILE* file() const { return f_; }
  const std::string& path() const { return path_; }
  /// Flushes, closes and renames onto the target. Throws simscope::Error "PATH: cannot write[
  /// WHAT] (why)" naming the first failure (a write error noted by the stream included).
  void commit();

 private:
  [[noreturn]] void fail(const std::string& why) const;
  std::string path_, what_, tmp_;
  bool durable_ = false;
  std::FILE* f_ = nullptr;
};

/// `bytes` written to `path` through an AtomicFile(path, what, durable). Throws as it does.
void write_file_atomic(const std::string& path, const std::string& bytes,
                       const std::string& what = "", bool durable = false);

}  // namespace simscope::io
