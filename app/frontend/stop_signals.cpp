#include "stop_signals.hpp"

#include <csignal>

namespace simscope::app {
namespace {

volatile std::sig_atomic_t g_signal = 0;

// The first signal counts; a SIGTERM that mpirun sends after a Ctrl+C does not replace it.
extern "C" void on_stop_signal(int sig) {
  if (g_signal == 0) g_signal = sig;
}

}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int stop_signal() { return int(g_signal); }

void clear_stop_signal() { g_signal = 0; }

const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : "SIGTERM"; }

}  // namespace simscope::app
