#pragma once
/// @file The Stuart-Landau oscillator model of the `oscillators` workload: its constants, the
/// state of an ensemble, initial states, the right-hand side and the observables.
///
/// Node i of member k, a network, has the state z_i = x_i + i y_i and follows
///   dx_i/dt = x_i - w y_i - (x_i + c y_i)(x_i^2 + y_i^2) + (e/2) sum_j G_ij (x_j - x_i)
///   dy_i/dt = y_i + w x_i - (y_i - c x_i)(x_i^2 + y_i^2)
/// i.e. dz/dt = (1 + i w) z - (1 - i c)|z|^2 z plus diffusive graph-Laplacian coupling of x.
/// G is the symmetric weighted adjacency matrix of the member's network.
/// On a ring with two neighbours the coupling equals the reference script's `(G.X - 2X) e/2`;
/// Model::form = Literal takes that form itself, (e/2)(sum_j G_ij x_j - d x_i) with one d for
/// every node, which differs from the Laplacian wherever a node's degree is not d.
/// An uncoupled oscillator settles on the limit cycle |z| = 1 with angular frequency w + c.
/// Sources: Stuart 1960; Landau 1944. It is the normal form of a Hopf bifurcation; see Kuramoto,
/// "Chemical Oscillations, Waves, and Turbulence", 1984.
///
/// Time is in the model's dimensionless unit; x and y are dimensionless.
/// Observables:
/// - msd(t) = (1/N) sum_i (x_i - mean_j x_j)^2, the mean square deviation;
/// - its time average over the steps after a transient;
/// - the Kuramoto order parameter R(t) = |(1/N) sum_i exp(i theta_i)|, Kuramoto 1984;
/// - the phases theta_i = atan2(y_i, x_i).
/// R(t) = |(1/N) sum_i exp(i theta_i)| (Kuramoto 1984), and the phases theta_i = atan2(y_i, x_i).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/precision.hpp"
#include "io/npy.hpp"
#include "oscillators/topology.hpp"

namespace simscope::oscillators {

/// Arithmetic of the integration: Fp64, the default and the reference script's, or Fp32 state
/// and stages. Observables are accumulated in double in both. Type from core/precision.hpp.
using Precision = simscope::Precision;

/// How node i's own x_i enters its coupling term (e/2)(sum_j G_ij x_j - s_i x_i):
/// Laplacian: s_i = sum_j G_ij, its weighted degree (diffusive coupling, zero when all x agree);
/// Literal: s_i = d for every node, the reference script's `(G.X - 2X) e/2` with d = 2.
enum class CouplingForm { Laplacian, Literal };

/// The model's constants, dimensionless.
struct Model {
  double omega = 1.0;     ///< w: linear frequency
  double c = 1.0;         ///< c: nonlinear frequency shift (limit-cycle frequency is w + c)
  double coupling = 0.2;  ///< e: coupling strength; the coupling term is scaled by e/2
  CouplingForm form = CouplingForm::Laplacian;
  double degree = 2.0;  ///< d of the Literal form
  /// s_i of a node whose weighted degree is `node_degree` (CouplingForm).
  double self_weight(double node_degree) const {
    return form == CouplingForm::Literal ? degree : node_degree;
  }
};

/// The weighted node degrees of networks against a degree d: their range, and how many of the
/// nodes differ from d. Parts of one ensemble (work ranges) add up with add().
struct DegreeSpread {
  double lo = 0, hi = 0;       ///< smallest and largest degree; meaningful when nodes > 0
  std::int64_t differ = 0;     ///< nodes whose degree is not d
  std::int64_t nodes = 0;      ///< nodes looked at: graphs x N
  std::int64_t graphs = 0;     ///< networks looked at
  bool shared = false;         ///< one network for every member: parts repeat it, not add to it
  /// Folds in `part`, the spread of other members of the same ensemble with the same d.
  void add(const DegreeSpread& part);
};
/// The spread of `t`'s networks around d.
DegreeSpread degree_spread(const Topologies& t, double d);

/// "" when the model's coupling is the Laplacian's on networks of spread `s` (form Laplacian,
/// or every node's weighted degree equal to d); otherwise a warning naming the degrees found
/// and the two forms. The overload on `t` takes degree_spread(t, model.degree).
std::string literal_coupling_warning(const DegreeSpread& s, const Model& model);
std::string literal_coupling_warning(const Topologies& t, const Model& model);

/// The state of K members of N oscillators: x[k*N + i], y[k*N + i].
struct State {
  int members = 0, nodes = 0;
  std::vector<double> x, y;
};

/// Initial states. "random": x and y independent standard normal, as the reference script's
/// `rng.standard_normal`. "uniform_phase": on the limit cycle, z = exp(i theta) with theta
/// uniform in [0, 2 pi). Member k uses its own stream from (seed, k).
/// Throws simscope::Error for an unknown kind.
/// With `first_member` f > 0, returns the states of members f .. f + members - 1, a work range.
State initial_state(const std::string& kind, int nodes, int members, std::uint64_t seed,
                    int first_member = 0);

/// Reads an initial state from .npy, float32 or float64. Shape (N, 2) [x, y] is used for every
/// member; (K, N, 2) gives one per member, as a study's state.npy holds.
/// Throws simscope::Error naming the file for a wrong shape, with the expected one, a wrong
/// dtype, or a non-finite value, with its index.
State load_initial_state(const std::string& path, int nodes, int members);
/// The initial state from an array as read from a .npy file, with load_initial_state's checks
/// and messages; `name` replaces the file name. The Python module passes numpy arrays here.
State initial_state_from_npy(const io::NpyArray& a, const std::string& name, int nodes,
                             int members);

/// (1/N) sum_i (x_i - mean x)^2, computed in two passes. 0 for n == 0.
double mean_square_deviation(const double* x, int n);
/// Kuramoto's R = |(1/N) sum_i exp(i theta_i)| with theta_i = atan2(y_i, x_i); theta = 0 at z = 0.
double order_parameter(const double* x, const double* y, int n);
/// theta = atan2(y, x) in (-pi, pi].
inline double phase(double x, double y) { return (x == 0 && y == 0) ? 0.0 : std::atan2(y, x); }

/// Right-hand side dx, dy for member k of `t` at state (x, y); N values each.
/// The Laplacian sum_j G_ij (x_j - x_i) is formed from the CSR rows, without a dense G.
/// Reference code for tests; the integrators inline the same formula (sl_rhs.hpp).
void rates(const Topologies& t, int member, const Model& model, const double* x, const double* y,
           double* dx, double* dy);

}  // namespace simscope::oscillators
