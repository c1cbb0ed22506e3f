#pragma once
/// @file Files written whole or not at all. The one atomic writer of simscope:
/// .npy files, images, presets, checkpoints, profiles and videos use it.
#include <cstdio>
#include <string>

namespace simscope::io {

/// Writes into a temporary file PATH.tmpPID_N next to the target, via file().
/// commit() renames it onto the target. Destroyed without commit(), it removes the temporary
/// file and leaves the target unchanged.
class AtomicFile {
 public:
  /// Opens the temporary file for `path`. `what` names the file in messages, e.g. "preset".
  /// With `durable`, commit() also flushes the file and its folder to disk.
  /// Throws simscope::Error "PATH: cannot write[ WHAT] (why)".
  explicit AtomicFile(std::string path, std::string what = "", bool durable = false);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::FILE* file() const { return f_; }
  const std::string& path() const { return path_; }
  /// Flushes, closes and renames onto the target. Throws simscope::Error
  /// "PATH: cannot write[ WHAT] (why)" naming the first failure, stream write errors included.
  void commit();

 private:
  [[noreturn]] void fail(const std::string& why) const;
  std::string path_, what_, tmp_;
  bool durable_ = false;
  std::FILE* f_ = nullptr;
};

/// Writes `bytes` to `path` through AtomicFile(path, what, durable). Throws as AtomicFile does.
void write_file_atomic(const std::string& path, const std::string& bytes,
                       const std::string& what = "", bool durable = false);

}  // namespace simscope::io
