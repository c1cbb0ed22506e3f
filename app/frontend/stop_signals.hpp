#pragma once
/// @file Ctrl+C (SIGINT) and SIGTERM in a headless run.
/// A handler records the signal. The run polls stop_signal() between steps, cancels its job, writes
/// nothing partial (a study keeps its checkpoint) and exits 128 + the signal (130, 143). The
/// handler resets itself on its first call, so a second Ctrl+C ends the process at once.

namespace simscope::app {

/// Installs the handler for SIGINT and SIGTERM (SA_RESETHAND).
void install_stop_handlers();

/// The signal that asked the run to stop, SIGINT or SIGTERM; 0 if none.
int stop_signal();

/// Forgets the recorded signal, for a window opened again in the same process (simscope.show).
void clear_stop_signal();

/// "SIGINT" or "SIGTERM".
const char* signal_name(int sig);

}  // namespace simscope::app
