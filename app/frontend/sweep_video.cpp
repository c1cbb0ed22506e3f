#include "sweep_video.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "io/atomic_file.hpp"
#include "view_png_export.hpp"

extern char** environ;

namespace simscope::app {
namespace {

/// The executable `name` on PATH, or "".
std::string find_executable(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t a = 0; a <= dirs.size();) {
    std::size_t b = dirs.find(':', a);
    if (b == std::string::npos) b = dirs.size();
    const std::string d = b > a ? dirs.substr(a, b - a) : ".";
    const std::string f = d + "/" + name;
    if (::access(f.c_str(), X_OK) == 0 && !std::filesystem::is_directory(f)) return f;
    a = b + 1;
  }
  return "";
}

/// Runs `argv` with stderr captured, keeping at most 300 characters. Returns the exit status;
/// -1 when it could not start, was killed, or ran past `seconds`.
int run_captured(const std::vector<std::string>& argv, double seconds, std::string& err) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    err = "cannot start " + argv[0];
    return -1;
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  char buf[4096];
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, int(std::min<long long>(left.count(), 1000))) < 0) continue;
    if (!(p.revents & (POLLIN | POLLHUP))) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    if (err.size() < 300) err.append(buf, std::size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (err.size() > 300) err.resize(300);
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  if (timed_out) {
    err = "ffmpeg took longer than " + std::to_string(int(seconds)) + " s";
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string make_sweep_video(const std::string& dir, std::string& note) {
  const std::string ffmpeg = find_executable("ffmpeg");
  if (ffmpeg.empty()) {
    note = "ffmpeg not found: no sweep.mp4 (install ffmpeg for a video of the frames)";
    return "";
  }
  const std::filesystem::path d(dir);
  const std::string out = (d / "sweep.mp4").string();
  std::string err;
  const int rc = run_captured({ffmpeg, "-y", "-loglevel", "error", "-framerate", "10", "-i",
                               (d / "frames" / "%04d.png").string(), "-vf",
                               "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt",
                               "yuv420p", out},
                              600, err);
  if (rc != 0) {
    note = "ffmpeg failed, no sweep.mp4: " + err;
    return "";
  }
  return out;
}

Json sweep_manifest(const std::string& workload, const std::string& backend, const SweepSpec& spec,
                    const std::string& video, const Json& frames) {
  Json m;
  m["workload"] = workload;
  m["backend"] = backend;
  m["simscope"] = {{"version", SIMSCOPE_VERSION}};
  for (const auto& [k, val] : front_end_versions()) m["simscope"][k] = val;
  m["sweep"] = {{"param", spec.param},
                {"start", json_number(spec.start)},
                {"stop", json_number(spec.stop)},
                {"frames", spec.frames},
                {"video", video.empty() ? Json() : Json("sweep.mp4")}};
  m["frames"] = frames;
  return m;
}

void write_json_file(const std::string& path, const Json& j) {
  io::AtomicFile out(path);
  const std::string text = json_text(j);
  std::fwrite(text.data(), 1, text.size(), out.file());
  out.commit();
}

}  // namespace simscope::app
