#include "io/atomic_file.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/error.hpp"

namespace simscope::io {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  static std::atomic<unsigned> counter{0};
  tmp_ = path_ + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(counter.fetch_add(1));
  f_ = std::fopen(tmp_.c_str(), "wb");
  if (!f_) throw Error(path_ + ": cannot write (" + std::strerror(errno) + ")");
}

AtomicFile::~AtomicFile() {
  if (f_) std::fclose(f_);
  if (!tmp_.empty()) {
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
}

void AtomicFile::commit() {
  std::string why;
  if (std::ferror(f_) || std::fflush(f_) != 0) why = std::strerror(errno ? errno : EIO);
  if (std::fclose(f_) != 0 && why.empty()) why = std::strerror(errno);
  f_ = nullptr;
  if (why.empty()) {
    std::error_code ec;
    std::filesystem::rename(tmp_, path_, ec);
    if (ec) why = ec.message();
  }
  if (!why.empty()) throw Error(path_ + ": cannot write (" + why + ")");  // ~ removes tmp_
  tmp_.clear();
}

}  // namespace simscope::io
