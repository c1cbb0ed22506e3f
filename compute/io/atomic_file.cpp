#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/error.hpp"

namespace simscope::io {

AtomicFile::AtomicFile(std::string path, std::string what, bool durable)
    : path_(std::move(path)), what_(std::move(what)), durable_(durable) {
  static std::atomic<unsigned> counter{0};
  tmp_ = path_ + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(counter.fetch_add(1));
  f_ = std::fopen(tmp_.c_str(), "wb");
  if (!f_) {
    const std::string why = std::strerror(errno);
    tmp_.clear();
    fail(why);
  }
}

AtomicFile::~AtomicFile() {
  if (f_) std::fclose(f_);
  if (!tmp_.empty()) {
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
}

void AtomicFile::fail(const std::string& why) const {
  throw Error(path_ + ": cannot write" + (what_.empty() ? "" : " " + what_) + " (" + why + ")");
}

void AtomicFile::commit() {
  std::string why;
  if (std::ferror(f_) || std::fflush(f_) != 0) why = std::strerror(errno ? errno : EIO);
  if (why.empty() && durable_ && ::fsync(::fileno(f_)) != 0) why = std::strerror(errno);
  if (std::fclose(f_) != 0 && why.empty()) why = std::strerror(errno);
  f_ = nullptr;
  if (why.empty()) {
    std::error_code ec;
    std::filesystem::rename(tmp_, path_, ec);
    if (ec) why = ec.message();
  }
  if (!why.empty()) fail(why);  // ~ removes tmp_
  tmp_.clear();
  if (durable_) {  // the rename itself: best effort, some file systems refuse a folder's fsync
    const std::filesystem::path dir = std::filesystem::path(path_).parent_path();
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY);
    if (fd >= 0) {
      ::fsync(fd);
      ::close(fd);
    }
  }
}

void write_file_atomic(const std::string& path, const std::string& bytes, const std::string& what,
                       bool durable) {
  AtomicFile f(path, what, durable);
  if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), f.file());
  f.commit();
}

}  // namespace simscope::io
