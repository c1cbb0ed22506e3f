// The CPU ensemble (oscillators.hpp, Ensemble): OpenMP over members, each member integrated by a
// tight RK4 on its CSR rows with its state in cache-resident arrays.
//
// Per step and member: four stages, each a gather of sum_j G_ij xs_j over the CSR row (no dense
// G.X) followed by one vectorisable loop over the nodes (sl_rhs.hpp) that also forms the next
// stage's input and the RK4 sum k1 + 2 k2 + 2 k3 + k4; then the msd of the new x (two passes)
// when it is needed (after the transient or at a sample), and R at samples. Work is split into
// chunks of steps; between chunks the samples of all members are reduced in member order
// (deterministic), progress is reported and cancellation checked.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>

#include "core/error.hpp"
#include "oscillators/oscillators_internal.hpp"
#include "oscillators/sl_rhs.hpp"

namespace simscope::oscillators {
namespace {

using detail::kMsdWindow;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// Work per chunk (oscillator-steps) and the sample buffer's size (values per series).
constexpr double kChunkOscSteps = 2e7;
constexpr std::int64_t kSampleValues = 4000000;

/// Scratch of one thread: the stage arrays of one member.
template <typename T>
struct Scratch {
  std::vector<T> xs, ys, ax, ay, nsum;
  void resize(int n) {
    for (auto* v : {&xs, &ys, &ax, &ay, &nsum}) v->resize(std::size_t(n));
  }
};

template <typename T>
class CpuImpl {
 public:
  void load(const Topologies& t, const State& s) {
    detail::check_load(t, s);
    try {
      topo_ = t;
      const std::size_t n = s.x.size();
      x_.resize(n), y_.resize(n);
      for (std::size_t q = 0; q < n; ++q) x_[q] = T(s.x[q]), y_[q] = T(s.y[q]);
      wT_.assign(t.weight.begin(), t.weight.end());
      deg_.resize(std::size_t(t.graphs()) * t.nodes);
      for (int g = 0; g < t.graphs(); ++g)
        for (int i = 0; i < t.nodes; ++i) {
          double d = 0;
          const std::int64_t b = t.row_ptr[std::size_t(g) * t.nodes + i],
                             e = t.row_ptr[std::size_t(g) * t.nodes + i + 1];
          for (std::int64_t q = b; q < e; ++q) d += t.weighted() ? t.weight[std::size_t(q)] : 1.0;
          deg_[std::size_t(g) * t.nodes + i] = d;
        }
      total_.assign(std::size_t(t.members), 0.0);
      window_.assign(std::size_t(t.members), 0.0);
      failed_.assign(std::size_t(t.members), 0);
    } catch (const std::bad_alloc&) {
      topo_ = Topologies{};
      throw Error("cannot allocate memory for the ensemble: lower ensemble.size or network.nodes");
    }
    step_ = 0;
    loaded_ = true;
  }

  void advance(const Model& m, double dt, std::int64_t steps, const Recording& rec, Series& out,
               Progress* progress) {
    if (!loaded_) throw Error("oscillators: advance() before load()");
    detail::check_advance(dt, steps, rec);
    for (double v : {m.omega, m.c, m.coupling})
      if (!std::isfinite(v)) throw Error("model.omega, model.c and model.coupling must be finite");
    const int N = topo_.nodes, K = topo_.members;
    const double he = m.coupling / 2;
    diag_.resize(deg_.size());
    for (std::size_t q = 0; q < deg_.size(); ++q) diag_[q] = T(1.0 - he * deg_[q]);

    const std::int64_t cap = std::max<std::int64_t>(1, kSampleValues / K);
    std::vector<double> s_msd, s_r;
    std::int64_t done = 0;
    progress_set(progress, 0);
    while (done < steps) {
      progress_check(progress);
      std::int64_t chunk =
          std::max<std::int64_t>(1, std::int64_t(kChunkOscSteps / (double(K) * N)));
      chunk = std::min({chunk, steps - done, detail::steps_for_samples(step_, rec.every, cap)});
      const std::int64_t ns = detail::samples_in(step_, chunk, rec.every);
      s_msd.assign(std::size_t(ns) * K, kNaN);
      s_r.assign(std::size_t(ns) * K, kNaN);
      run_chunk(m, he, dt, chunk, rec, s_msd.data(), s_r.data());
      // Reduce the chunk's samples over the finite members, in member order.
      const std::int64_t j0 = step_ / rec.every;
      for (std::int64_t j = 0; j < ns; ++j) {
        double sm = 0, sr = 0;
        std::int64_t n = 0;
        for (int k = 0; k < K; ++k) {
          const double a = s_msd[std::size_t(j) * K + k], b = s_r[std::size_t(j) * K + k];
          if (std::isfinite(a) && std::isfinite(b)) sm += a, sr += b, ++n;
        }
        out.step.push_back((j0 + j + 1) * rec.every);
        out.msd.push_back(n > 0 ? sm / double(n) : kNaN);
        out.order.push_back(n > 0 ? sr / double(n) : kNaN);
        out.finite.push_back(n);
        if (rec.watch >= 0 && rec.watch < K) {
          out.watch_msd.push_back(s_msd[std::size_t(j) * K + rec.watch]);
          out.watch_order.push_back(s_r[std::size_t(j) * K + rec.watch]);
        }
      }
      step_ += chunk;
      done += chunk;
      progress_set(progress, double(done) / double(steps));
    }
  }

  std::int64_t steps_done() const { return step_; }

  State state() const {
    State s;
    s.members = topo_.members;
    s.nodes = topo_.nodes;
    s.x.assign(x_.begin(), x_.end());
    s.y.assign(y_.begin(), y_.end());
    return s;
  }

  MemberStats member_stats(std::int64_t transient) const {
    MemberStats ms;
    ms.averaged_steps = std::max<std::int64_t>(0, step_ - transient);
    ms.failed = failed_;
    ms.msd_mean.resize(total_.size());
    for (std::size_t k = 0; k < total_.size(); ++k)
      ms.msd_mean[k] = failed_[k] || ms.averaged_steps == 0
                           ? kNaN
                           : (total_[k] + window_[k]) / double(ms.averaged_steps);
    return ms;
  }

  Frame frame(int members) const {
    Frame f;
    f.members = std::clamp(members, 0, topo_.members);
    f.nodes = topo_.nodes;
    f.step = step_;
    const std::size_t n = std::size_t(f.members) * topo_.nodes;
    f.theta_r.resize(2 * n);
    for (std::size_t q = 0; q < n; ++q) {
      const double x = double(x_[q]), y = double(y_[q]);
      f.theta_r[2 * q] = float(phase(x, y));
      f.theta_r[2 * q + 1] = float(std::hypot(x, y));
    }
    return f;
  }

 private:
  void run_chunk(const Model& m, double he, double dt, std::int64_t chunk, const Recording& rec,
                 double* s_msd, double* s_r) {
    const int N = topo_.nodes, K = topo_.members;
    const std::int64_t first = step_;
#pragma omp parallel
    {
      Scratch<T> sc;
      sc.resize(N);
#pragma omp for schedule(dynamic, 1)
      for (int k = 0; k < K; ++k) {
        if (failed_[std::size_t(k)]) continue;  // left NaN in the samples
        if (topo_.weighted())
          member<true>(k, m, he, dt, first, chunk, rec, sc, s_msd, s_r);
        else
          member<false>(k, m, he, dt, first, chunk, rec, sc, s_msd, s_r);
      }
    }
  }

  /// Integrates member k over steps first+1 .. first+chunk.
  template <bool Weighted>
  void member(int k, const Model& m, double he_d, double dt_d, std::int64_t first,
              std::int64_t chunk, const Recording& rec, Scratch<T>& sc, double* s_msd,
              double* s_r) {
    const int N = topo_.nodes, K = topo_.members;
    const int g = topo_.graph_of(k);
    const std::int64_t* __restrict row = topo_.row_ptr.data() + std::size_t(g) * N;
    const std::int32_t* __restrict col = topo_.col.data();
    const T* __restrict w = wT_.data();
    const T* __restrict diag = diag_.data() + std::size_t(g) * N;
    T* __restrict x = x_.data() + std::size_t(k) * N;
    T* __restrict y = y_.data() + std::size_t(k) * N;
    T* __restrict xs = sc.xs.data();
    T* __restrict ys = sc.ys.data();
    T* __restrict ax = sc.ax.data();
    T* __restrict ay = sc.ay.data();
    T* __restrict nsum = sc.nsum.data();
    const T om = T(m.omega), c = T(m.c), he = T(he_d), h = T(dt_d), h2 = T(dt_d / 2),
            h6 = T(dt_d / 6), two = T(2);
    double tot = total_[std::size_t(k)], win = window_[std::size_t(k)];
    bool bad = false;

    auto gather = [&](const T* __restrict src) {
      for (int i = 0; i < N; ++i) {
        T s = 0;
        for (std::int64_t q = row[i]; q < row[i + 1]; ++q) {
          if constexpr (Weighted) s += w[q] * src[col[q]];
          else s += src[col[q]];
        }
        nsum[i] = s;
      }
    };

    for (std::int64_t st = 0; st < chunk; ++st) {
      const std::int64_t gstep = first + st + 1;
      // Stage 1: k1 at (x, y).
      gather(x);
      for (int i = 0; i < N; ++i) {
        T dx, dy;
        detail::sl_rhs(x[i], y[i], nsum[i], diag[i], om, c, he, dx, dy);
        ax[i] = dx, ay[i] = dy;
        xs[i] = x[i] + h2 * dx, ys[i] = y[i] + h2 * dy;
      }
      // Stage 2: k2 at x + h/2 k1.
      gather(xs);
      for (int i = 0; i < N; ++i) {
        T dx, dy;
        detail::sl_rhs(xs[i], ys[i], nsum[i], diag[i], om, c, he, dx, dy);
        ax[i] += two * dx, ay[i] += two * dy;
        xs[i] = x[i] + h2 * dx, ys[i] = y[i] + h2 * dy;
      }
      // Stage 3: k3 at x + h/2 k2.
      gather(xs);
      for (int i = 0; i < N; ++i) {
        T dx, dy;
        detail::sl_rhs(xs[i], ys[i], nsum[i], diag[i], om, c, he, dx, dy);
        ax[i] += two * dx, ay[i] += two * dy;
        xs[i] = x[i] + h * dx, ys[i] = y[i] + h * dy;
      }
      // Stage 4: k4 at x + h k3; x += h/6 (k1 + 2 k2 + 2 k3 + k4).
      gather(xs);
      for (int i = 0; i < N; ++i) {
        T dx, dy;
        detail::sl_rhs(xs[i], ys[i], nsum[i], diag[i], om, c, he, dx, dy);
        ax[i] += dx, ay[i] += dy;
        x[i] += h6 * ax[i], y[i] += h6 * ay[i];
      }
      // Observables of x(gstep).
      const bool sample = gstep % rec.every == 0;
      if (sample || gstep > rec.transient || st == chunk - 1) {
        double mean = 0;
        for (int i = 0; i < N; ++i) mean += double(x[i]);
        mean /= N;
        double ss = 0;
        for (int i = 0; i < N; ++i) {
          const double d = double(x[i]) - mean;
          ss += d * d;
        }
        const double msd = ss / N;
        if (!std::isfinite(msd)) bad = true;
        if (gstep > rec.transient) {
          win += msd;
          if (gstep % kMsdWindow == 0) tot += win, win = 0;
        }
        if (sample) {
          double cs = 0, sn = 0;
          for (int i = 0; i < N; ++i) {
            const double r2 = double(x[i]) * double(x[i]) + double(y[i]) * double(y[i]);
            if (r2 > 0) {
              const double inv = 1.0 / std::sqrt(r2);
              cs += double(x[i]) * inv, sn += double(y[i]) * inv;
            } else {
              cs += 1;
            }
          }
          const std::int64_t j = gstep / rec.every - 1 - first / rec.every;
          s_msd[std::size_t(j) * K + k] = msd;
          s_r[std::size_t(j) * K + k] = std::sqrt(cs * cs + sn * sn) / N;
        }
      }
    }
    for (int i = 0; i < N && !bad; ++i)
      if (!std::isfinite(x[i]) || !std::isfinite(y[i])) bad = true;
    total_[std::size_t(k)] = tot;
    window_[std::size_t(k)] = win;
    if (bad) failed_[std::size_t(k)] = 1;
  }

  Topologies topo_;
  std::vector<T> x_, y_, wT_, diag_;
  std::vector<double> deg_, total_, window_;
  std::vector<std::uint8_t> failed_;
  std::int64_t step_ = 0;
  bool loaded_ = false;
};

class CpuEnsemble final : public Ensemble {
 public:
  Backend backend() const override { return Backend::Cpu; }
  int max_nodes() const override { return detail::kMaxNodes; }

  void load(const Topologies& t, const State& s, Precision p) override {
    f32_.reset();
    f64_.reset();
    if (p == Precision::Fp32) {
      auto impl = std::make_unique<CpuImpl<float>>();
      impl->load(t, s);
      f32_ = std::move(impl);
    } else {
      auto impl = std::make_unique<CpuImpl<double>>();
      impl->load(t, s);
      f64_ = std::move(impl);
    }
  }
  void advance(const Model& m, double dt, std::int64_t steps, const Recording& rec, Series& out,
               Progress* progress) override {
    if (f32_) return f32_->advance(m, dt, steps, rec, out, progress);
    if (f64_) return f64_->advance(m, dt, steps, rec, out, progress);
    throw Error("oscillators: advance() before load()");
  }
  std::int64_t steps_done() const override {
    return f32_ ? f32_->steps_done() : f64_ ? f64_->steps_done() : 0;
  }
  State state() const override { return f32_ ? f32_->state() : f64_ ? f64_->state() : State{}; }
  MemberStats member_stats(std::int64_t transient) const override {
    return f32_ ? f32_->member_stats(transient)
                : f64_ ? f64_->member_stats(transient) : MemberStats{};
  }
  Frame frame(int members) override {
    return f32_ ? f32_->frame(members) : f64_ ? f64_->frame(members) : Frame{};
  }

 private:
  std::unique_ptr<CpuImpl<float>> f32_;
  std::unique_ptr<CpuImpl<double>> f64_;
};

}  // namespace

namespace detail {
std::unique_ptr<Ensemble> make_cpu_ensemble() { return std::make_unique<CpuEnsemble>(); }
}  // namespace detail

}  // namespace simscope::oscillators
