#pragma once
/// @file The few collective operations a run split across processes needs (distributed_run.hpp),
/// as an interface: the run layer knows no MPI; app/mpi/ implements it over MPI.
#include <string>
#include <vector>

namespace simscope::app {

/// A group of `size()` processes ("ranks") running one job; rank 0 gathers and writes. Every
/// method is collective: every rank calls it, in the same order. Implementations throw
/// simscope::Error when the transport fails.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Rank 0 receives every rank's `mine` in rank order (its own first); the others get {}.
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
  /// Starts an element-wise sum of `v` (the same length on every rank) without waiting for it.
  virtual void start_sum(const std::vector<double>& v) = 0;
  /// True once the sum started last is complete, with the sums in `out`; false: not yet (call
  /// again later; it does not block). Only one sum is in flight at a time.
  virtual bool test_sum(std::vector<double>& out) = 0;
  /// Rank 0 receives the element-wise sum of every rank's `v` (the same length on every rank;
  /// the order of the additions is the transport's); the others get {}. Blocking.
  virtual std::vector<double> reduce_sum(const std::vector<double>& v) = 0;
};

}  // namespace simscope::app
