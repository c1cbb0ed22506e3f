// The tree method on CUDA (field.hpp, Method::Tree on Backend::Cuda). Same method, source tree
// and decisions as the CPU back end (tree_cpu.cpp; classify() and M2LOrder in
// tree_internal.hpp). The source tree is built on the host and kept per source set; its sorted
// sources and cells are uploaded once per source set, its multipoles once per order.
//   host:   the target octree and the dual traversal's interaction lists: M2L pairs per target
//           cell, P2P source cells per target leaf, L2L pairs by level.
//   device: M2L, one block per target cell, which forms the derivative tensor in shared memory
//           degree by degree while the threads share the output terms; L2L level by level, the
//           shift's powers formed likewise; then one thread per target for P2P (fp64,
//           r^2 == 0 skipped and counted) and L2P (powers in a per-thread array sized by the
//           order); the direct fp64 sums of the measured error, one block per sampled target.
// The accumulators, 4 doubles per target, are copied back and finished on the host
// (tree_evaluator.cpp), so device_output() is null for this evaluator.
// GPU status: tests/bench/NOTES.md. tests/compute/field/test_field_tree.cpp (FieldTreeCuda.*)
// compares it with the CPU tree and direct where a device is usable.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_memory.hpp"
#include "field/field_internal.hpp"
#include "field/tree/expansions.hpp"
#include "field/tree/tree_internal.hpp"

namespace simscope::field::tree {

namespace {

#define CK(call) ::simscope::cuda_check((call), #call)

constexpr int kThreads = 128;

/// A cell's centre and radius. Not double4, which CUDA 13 deprecates.
struct alignas(16) Sphere {
  double x, y, z, r;
};
constexpr int kMaxTerms = terms(kMaxOrder);  // 969

/// The multi-index tables of one order on the device.
struct DeviceTables {
  int count = 0;
  const std::uint8_t *kx, *ky, *kz, *degree;
  const std::int16_t *minus1, *minus2, *plus1;  // [3][count]
  const std::int32_t* pair_begin;
  const std::int16_t *pair_b, *pair_sum;
};

/// Term i, of degree >= 1, of the scaled powers r^k / k!, from a term of degree n-1.
__device__ double d_scaled_power(const DeviceTables& m, int i, const double r[3], const double* P) {
  const int kc[3] = {m.kx[i], m.ky[i], m.kz[i]};
  const int c = kc[0] ? 0 : kc[1] ? 1 : 2;
  return P[m.minus1[c * m.count + i]] * r[c] / double(kc[c]);
}

/// The scaled powers P, m.count terms, of (rx, ry, rz), formed by one thread.
__device__ void d_scaled_powers(const DeviceTables& m, double rx, double ry, double rz, double* P) {
  P[0] = 1;
  const double r[3] = {rx, ry, rz};
  for (int i = 1; i < m.count; ++i) P[i] = d_scaled_power(m, i, r, P);
}

/// The scaled powers in shared memory, formed by the whole block degree by degree as in
/// d_derivatives_block. Every thread must call it. Returns after a barrier.
__device__ void d_scaled_powers_block(const DeviceTables& m, double rx, double ry, double rz,
                                      double* P) {
  const double r[3] = {rx, ry, rz};
  if (threadIdx.x == 0) P[0] = 1;
  __syncthreads();
  const int order = m.degree[m.count - 1];
  for (int n = 1; n <= order; ++n) {
    const int lo = n * (n + 1) * (n + 2) / 6, hi = (n + 1) * (n + 2) * (n + 3) / 6;
    for (int i = lo + int(threadIdx.x); i < hi; i += int(blockDim.x)) P[i] = d_scaled_power(m, i, r, P);
    __syncthreads();
  }
}

/// Term i, of degree >= 1, of the derivative tensor D of 1/sqrt(|r|^2 + eps2), from the terms
/// of degrees n-1 and n-2 by the recurrence of expansions.hpp's derivatives().
__device__ double d_derivative_term(const DeviceTables& m, int i, const double r[3], double inv2,
                                    const double* D) {
  const int n = m.degree[i];
  const int kc[3] = {m.kx[i], m.ky[i], m.kz[i]};
  double a = 0, b = 0;
  for (int c = 0; c < 3; ++c) {
    if (kc[c] >= 1) a += r[c] * kc[c] * D[m.minus1[c * m.count + i]];
    if (kc[c] >= 2) b += double(kc[c] * (kc[c] - 1)) * D[m.minus2[c * m.count + i]];
  }
  return -(double(2 * n - 1) * a + double(n - 1) * b) * inv2 / double(n);
}

/// The derivative tensor D, m.count terms in shared memory, for offset (rx, ry, rz), formed by
/// the whole block degree by degree. Terms of one degree depend on lower degrees only, and the
/// layout is ordered by degree (multi_index.hpp), so each degree is formed in parallel with one
/// barrier between degrees. Every thread of the block must call it. Returns after a barrier.
__device__ void d_derivatives_block(const DeviceTables& m, double rx, double ry, double rz,
                                    double eps2, double* D, int order) {
  const double R2 = rx * rx + ry * ry + rz * rz + eps2;
  const double inv2 = 1.0 / R2;
  const double r[3] = {rx, ry, rz};
  if (threadIdx.x == 0) D[0] = sqrt(inv2);
  __syncthreads();
  for (int n = 1; n <= order; ++n) {
    const int lo = n * (n + 1) * (n + 2) / 6, hi = (n + 1) * (n + 2) * (n + 3) / 6;
    for (int i = lo + int(threadIdx.x); i < hi; i += int(blockDim.x))
      D[i] = d_derivative_term(m, i, r, inv2, D);
    __syncthreads();
  }
}

/// M2L: one block per target cell, cells[blockIdx.x], with its list list[begin[k] .. begin[k+1]).
/// Entry e uses order ord[e] (M2LOrder): the terms |n| + |k| <= ord[e] of the layout's prefix.
__global__ void k_m2l(DeviceTables m, const std::int32_t* cells, const std::int32_t* begin,
                      const std::int32_t* src, const std::int32_t* ord, const Sphere* tcell,
                      const Sphere* scell, const double* moments, double eps2, double* local) {
  __shared__ double D[kMaxTerms];
  const int k = blockIdx.x, a = cells[k];
  const int N = m.count;
  constexpr int kPer = (kMaxTerms + kThreads - 1) / kThreads;
  double acc[kPer];
  for (int j = 0; j < kPer; ++j) acc[j] = 0;
  const Sphere z = tcell[a];
  for (int e = begin[k]; e < begin[k + 1]; ++e) {
    const int b = src[e];
    const Sphere c = scell[b];
    __syncthreads();  // the previous pair's D is read by every thread before it is overwritten
    const int qo = ord[e];
    d_derivatives_block(m, z.x - c.x, z.y - c.y, z.z - c.z, eps2, D, qo);
    const double* M = moments + std::size_t(b) * N;
    for (int j = 0; j < kPer; ++j) {
      const int t = threadIdx.x + j * kThreads;
      if (t >= N) break;
      const int rest = qo - m.degree[t];  // the pairs of t with |b| <= rest: a prefix
      if (rest < 0) continue;
      const int q1 = m.pair_begin[t] + (rest + 1) * (rest + 2) * (rest + 3) / 6;
      double s = 0;
      for (int q = m.pair_begin[t]; q < q1; ++q) s += M[m.pair_b[q]] * D[m.pair_sum[q]];
      acc[j] += s;
    }
  }
  for (int j = 0; j < kPer; ++j) {
    const int t = threadIdx.x + j * kThreads;
    if (t < N) local[std::size_t(a) * N + t] += acc[j];
  }
}

/// L2L: one block per (parent, child) pair of a level.
__global__ void k_l2l(DeviceTables m, const int2* pairs, const Sphere* tcell, double* local) {
  __shared__ double S[kMaxTerms];
  const int2 pc = pairs[blockIdx.x];
  const int N = m.count;
  const Sphere zp = tcell[pc.x], zc = tcell[pc.y];
  d_scaled_powers_block(m, zc.x - zp.x, zc.y - zp.y, zc.z - zp.z, S);
  const double* L = local + std::size_t(pc.x) * N;
  double* Lc = local + std::size_t(pc.y) * N;
  for (int t = threadIdx.x; t < N; t += blockDim.x) {
    double s = 0;
    for (int q = m.pair_begin[t]; q < m.pair_begin[t + 1]; ++q)
      s += S[m.pair_b[q]] * L[m.pair_sum[q]];
    Lc[t] += s;
  }
}

/// Leaves: one block per target leaf, one thread per target (sorted index i). P2P over the
/// leaf's source cells, then L2P when the leaf has a local expansion. kCap >= m.count sizes the
/// per-thread powers' array by the order's bucket (leaf_caps), so a low order does not reserve
/// the highest order's local memory: 969 doubles, 7.8 KB per thread.
template <int kCap>
__global__ void k_leaf(DeviceTables m, const std::int32_t* leaves, const std::int32_t* begin,
                       const std::int32_t* src, const std::uint8_t* has_local,
                       const int2* tcell_range, const Sphere* tcell, const int2* scell_range,
                       const float4* sources, const double* tx, const double* ty, const double* tz,
                       const std::uint32_t* torder, std::uint32_t rb, std::uint32_t re, double eps2,
                       const double* local, double* acc, unsigned long long* skipped) {
  const int k = blockIdx.x, leaf = leaves[k];
  const int2 rg = tcell_range[leaf];
  double P[kCap];
  for (int i = rg.x + threadIdx.x; i < rg.y; i += blockDim.x) {
    const std::uint32_t ti = torder[i];
    if (ti < rb || ti >= re) continue;
    const double x = tx[ti], y = ty[ti], z = tz[ti];
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    unsigned long long skip = 0;
    for (int e = begin[k]; e < begin[k + 1]; ++e) {
      const int2 sr = scell_range[src[e]];
      for (int j = sr.x; j < sr.y; ++j) {
        const float4 s = sources[j];
        const double dx = x - double(s.x), dy = y - double(s.y), dz = z - double(s.z);
        const double r2 = dx * dx + dy * dy + dz * dz + eps2;
        if (r2 == 0) {
          ++skip;
          continue;
        }
        const double inv = rsqrt(r2), qi = double(s.w) * inv, w = qi * inv * inv;
        a0 += w * dx, a1 += w * dy, a2 += w * dz, a3 += qi;
      }
    }
    if (has_local[leaf]) {
      const Sphere c = tcell[leaf];
      d_scaled_powers(m, x - c.x, y - c.y, z - c.z, P);
      const double* L = local + std::size_t(leaf) * m.count;
      double phi = 0, g0 = 0, g1 = 0, g2 = 0;
      for (int q = 0; q < m.count; ++q) {
        phi += L[q] * P[q];
        if (m.degree[q] < m.degree[m.count - 1]) {
          g0 += L[m.plus1[q]] * P[q];
          g1 += L[m.plus1[m.count + q]] * P[q];
          g2 += L[m.plus1[2 * m.count + q]] * P[q];
        }
      }
      a0 -= g0, a1 -= g1, a2 -= g2, a3 += phi;
    }
    double* out = acc + std::size_t(ti - rb) * 4;
    out[0] = a0, out[1] = a1, out[2] = a2, out[3] = a3;
    if (skip) atomicAdd(skipped, skip);
  }
}

/// Direct fp64 sums at n targets: one block per target; threads stride over the sources.
__global__ void k_direct(const float4* sources, int P, const double* tx, const double* ty,
                         const double* tz, double eps2, double* acc) {
  __shared__ double red[4][kThreads];
  const int i = blockIdx.x;
  const double x = tx[i], y = ty[i], z = tz[i];
  double a[4] = {0, 0, 0, 0};
  for (int j = threadIdx.x; j < P; j += blockDim.x) {
    const float4 s = sources[j];
    const double dx = x - double(s.x), dy = y - double(s.y), dz = z - double(s.z);
    const double r2 = dx * dx + dy * dy + dz * dz + eps2;
    if (r2 == 0) continue;
    const double inv = rsqrt(r2), qi = double(s.w) * inv, w = qi * inv * inv;
    a[0] += w * dx, a[1] += w * dy, a[2] += w * dz, a[3] += qi;
  }
  for (int c = 0; c < 4; ++c) red[c][threadIdx.x] = a[c];
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (threadIdx.x < h)
      for (int c = 0; c < 4; ++c) red[c][threadIdx.x] += red[c][threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    for (int c = 0; c < 4; ++c) acc[std::size_t(i) * 4 + c] = red[c][0];
}

template <typename T, typename A>
DeviceBuffer<T> upload(const std::shared_ptr<DeviceAllocator>& alloc, const std::vector<T, A>& v,
                       const char* what) {
  DeviceBuffer<T> b(alloc, std::max<std::size_t>(1, v.size()), what);
  if (!v.empty()) CK(cudaMemcpy(b.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return b;
}

class CudaTreeBackend final : public TreeBackend {
 public:
  CudaTreeBackend() {
    device_ = cuda_current_device();
    alloc_ = DeviceAllocator::cuda(
        "field tree", device_, "reduce sources.count, raise tree.tolerance or use --backend cpu");
  }
  Backend backend() const override { return Backend::Cuda; }
  double peak_device_bytes() const override { return double(alloc_->peak_bytes()); }
  void tree_changed() override { uploaded_ = nullptr, uploaded_order_ = -1; }
  void moments_changed() override { uploaded_order_ = -1; }

  void direct(const SourceTree& s, const double* x, const double* y, const double* z, std::size_t n,
              double eps2, double* acc) override {
    cuda_use_device(device_);
    sync_tree(s);
    if (n == 0) return;
    std::vector<double> hx(x, x + n), hy(y, y + n), hz(z, z + n);
    auto dx = upload(alloc_, hx, "the sampled targets"),
         dy = upload(alloc_, hy, "the sampled targets"),
         dz = upload(alloc_, hz, "the sampled targets");
    DeviceBuffer<double> da(alloc_, 4 * n, "the sampled sums");
    k_direct<<<unsigned(n), kThreads>>>(src_.get(), int(s.size), dx.get(), dy.get(), dz.get(), eps2,
                                        da.get());
    CK(cudaGetLastError());
    CK(cudaMemcpy(acc, da.get(), 4 * n * sizeof(double), cudaMemcpyDeviceToHost));
  }

  void evaluate(const SourceTree& s, const Targets& t, const IndexRange& r, const Options& o,
                const TreeRule& rule, std::vector<double>& acc, TreeStats& stats,
                std::uint64_t& skipped, Progress* progress) override {
    const auto t0 = std::chrono::steady_clock::now();
    cuda_use_device(device_);
    const std::size_t T = r.end - r.begin;
    acc.assign(T * 4, 0.0);
    skipped = 0;
    if (T == 0 || s.size == 0) return;
    sync_tree(s);
    const MultiIndex& m = multi_index(rule.order);
    sync_tables(m);
    const double eps2 = o.eps * o.eps, theta = rule.theta, cost = m2l_pair_cost(m, eps2);
    const M2LOrder m2l_order(theta, rule.order);
    const std::size_t N = std::size_t(m.count);

    // Host: the target tree of the whole target set, as on the CPU, and the interaction lists.
    const TargetTree target_tree = build_target_tree(t, r);
    const Octree& tt = target_tree.tree;
    const auto& tc = tt.cells;
    const auto& sc = s.oct.cells;
    auto in_range = [&](std::int32_t a) { return target_tree.in_range(a); };
    std::vector<std::vector<std::int32_t>> m2l_of(tc.size()), m2l_ord_of(tc.size()),
        p2p_of(tc.size());
    std::vector<std::pair<std::int32_t, std::int32_t>> stack = {{0, 0}};
    std::uint64_t m2l_count = 0;
    double p2p = 0;
    while (!stack.empty()) {
      const auto [a, b] = stack.back();
      stack.pop_back();
      if (!in_range(a)) continue;
      const Cell &A = tc[a], &B = sc[b];
      switch (classify(A, B, theta, cost, s.few)) {
        case Action::M2L:
          m2l_of[a].push_back(b), ++m2l_count;
          m2l_ord_of[a].push_back(m2l_order(A, B));
          break;
        case Action::P2P: {
          // To every leaf under A: a P2P of an accepted inner cell.
          std::vector<std::int32_t> down = {a};
          while (!down.empty()) {
            const std::int32_t c = down.back();
            down.pop_back();
            if (tc[c].leaf())
              p2p_of[c].push_back(b);
            else
              for (int k = 0; k < tc[c].nchild; ++k) down.push_back(tc[c].child + k);
          }
          p2p += double(target_tree.count_in(a)) * double(B.count());
          break;
        }
        case Action::SplitTarget:
          for (int k = 0; k < A.nchild; ++k) stack.push_back({A.child + k, b});
          break;
        case Action::SplitSource:
          for (int k = 0; k < B.nchild; ++k) stack.push_back({a, B.child + k});
          break;
      }
    }
    // has_local down the tree; L2L pairs by level; CSR lists.
    std::vector<std::uint8_t> has_local(tc.size(), 0);
    std::vector<int> level(tc.size(), 0);
    std::vector<std::vector<int2>> l2l_by_level;
    for (std::size_t c = 0; c < tc.size(); ++c) {  // parents precede children
      if (!m2l_of[c].empty()) has_local[c] = 1;
      for (int k = 0; k < tc[c].nchild; ++k) {
        const std::int32_t ch = tc[c].child + k;
        level[ch] = level[c] + 1;
        if (has_local[c] && in_range(ch)) {
          has_local[ch] = 1;
          if (l2l_by_level.size() < std::size_t(level[ch])) l2l_by_level.resize(level[ch]);
          l2l_by_level[level[ch] - 1].push_back(make_int2(int(c), ch));
        }
      }
    }
    std::vector<std::int32_t> m2l_cells, m2l_begin = {0}, m2l_src, m2l_ord, leaves,
        leaf_begin = {0}, leaf_src;
    for (std::size_t c = 0; c < tc.size(); ++c) {
      if (!m2l_of[c].empty()) {
        m2l_cells.push_back(std::int32_t(c));
        m2l_src.insert(m2l_src.end(), m2l_of[c].begin(), m2l_of[c].end());
        m2l_ord.insert(m2l_ord.end(), m2l_ord_of[c].begin(), m2l_ord_of[c].end());
        m2l_begin.push_back(std::int32_t(m2l_src.size()));
      }
      if (tc[c].leaf() && in_range(std::int32_t(c))) {
        leaves.push_back(std::int32_t(c));
        leaf_src.insert(leaf_src.end(), p2p_of[c].begin(), p2p_of[c].end());
        leaf_begin.push_back(std::int32_t(leaf_src.size()));
      }
    }
    std::vector<Sphere> tcell(tc.size());
    std::vector<int2> trange(tc.size());
    for (std::size_t c = 0; c < tc.size(); ++c) {
      tcell[c] = Sphere{tc[c].centre[0], tc[c].centre[1], tc[c].centre[2], tc[c].radius};
      trange[c] = make_int2(int(tc[c].begin), int(tc[c].end));
    }
    progress_check(progress);

    // Device.
    auto d_tcell = upload(alloc_, tcell, "the target cells");
    auto d_trange = upload(alloc_, trange, "the target cells");
    auto d_order = upload(alloc_, tt.order, "the target order");
    auto d_tx = upload(alloc_, t.x, "the targets"), d_ty = upload(alloc_, t.y, "the targets"),
         d_tz = upload(alloc_, t.z, "the targets");
    auto d_m2l_cells = upload(alloc_, m2l_cells, "the M2L lists");
    auto d_m2l_begin = upload(alloc_, m2l_begin, "the M2L lists");
    auto d_m2l_src = upload(alloc_, m2l_src, "the M2L lists");
    auto d_m2l_ord = upload(alloc_, m2l_ord, "the M2L lists");
    auto d_leaves = upload(alloc_, leaves, "the P2P lists");
    auto d_leaf_begin = upload(alloc_, leaf_begin, "the P2P lists");
    auto d_leaf_src = upload(alloc_, leaf_src, "the P2P lists");
    auto d_has_local = upload(alloc_, has_local, "the target cells");
    DeviceBuffer<double> d_local(alloc_, tc.size() * N, "the local expansions");
    CK(cudaMemset(d_local.get(), 0, d_local.bytes()));
    DeviceBuffer<double> d_acc(alloc_, T * 4, "the accumulators");
    CK(cudaMemset(d_acc.get(), 0, d_acc.bytes()));
    DeviceBuffer<unsigned long long> d_skipped(alloc_, 1, "the coincidence count");
    CK(cudaMemset(d_skipped.get(), 0, sizeof(unsigned long long)));

    if (!m2l_cells.empty())
      k_m2l<<<unsigned(m2l_cells.size()), kThreads>>>(tables_, d_m2l_cells.get(), d_m2l_begin.get(),
                                                      d_m2l_src.get(), d_m2l_ord.get(),
                                                      d_tcell.get(), scell_.get(),
                                                      moments_.get(), eps2, d_local.get());
    CK(cudaGetLastError());
    for (const auto& lv : l2l_by_level) {
      if (lv.empty()) continue;
      auto d_pairs = upload(alloc_, lv, "the L2L pairs");
      k_l2l<<<unsigned(lv.size()), kThreads>>>(tables_, d_pairs.get(), d_tcell.get(),
                                               d_local.get());
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());  // d_pairs is freed at the end of this iteration
    }
    if (!leaves.empty()) {
      auto launch = [&](auto kernel) {
        kernel<<<unsigned(leaves.size()), kTargetLeaf>>>(
            tables_, d_leaves.get(), d_leaf_begin.get(), d_leaf_src.get(), d_has_local.get(),
            d_trange.get(), d_tcell.get(), srange_.get(), src_.get(), d_tx.get(), d_ty.get(),
            d_tz.get(), d_order.get(), std::uint32_t(r.begin), std::uint32_t(r.end), eps2,
            d_local.get(), d_acc.get(), d_skipped.get());
      };
      // The powers' bucket: orders <= 4, 6, 8, 12, 16, the ladder's usual orders (tree_rule.cpp).
      if (m.count <= terms(4)) launch(k_leaf<terms(4)>);
      else if (m.count <= terms(6)) launch(k_leaf<terms(6)>);
      else if (m.count <= terms(8)) launch(k_leaf<terms(8)>);
      else if (m.count <= terms(12)) launch(k_leaf<terms(12)>);
      else launch(k_leaf<kMaxTerms>);
    }
    CK(cudaGetLastError());
    CK(cudaMemcpy(acc.data(), d_acc.get(), T * 4 * sizeof(double), cudaMemcpyDeviceToHost));
    unsigned long long sk = 0;
    CK(cudaMemcpy(&sk, d_skipped.get(), sizeof sk, cudaMemcpyDeviceToHost));
    skipped = sk;
    stats.m2l = m2l_count;
    stats.p2p_pairs = p2p;
    stats.eval_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  /// Uploads the sorted sources and cells once per tree, the multipoles once per order.
  void sync_tree(const SourceTree& s) {
    if (uploaded_ != &s) {
      std::vector<float4> f(s.size);
      for (std::size_t i = 0; i < s.size; ++i) f[i] = make_float4(s.x[i], s.y[i], s.z[i], s.q[i]);
      src_ = upload(alloc_, f, "the sources");
      std::vector<Sphere> c(s.oct.cells.size());
      std::vector<int2> rg(s.oct.cells.size());
      for (std::size_t k = 0; k < c.size(); ++k) {
        const Cell& cell = s.oct.cells[k];
        c[k] = Sphere{cell.centre[0], cell.centre[1], cell.centre[2], cell.radius};
        rg[k] = make_int2(int(cell.begin), int(cell.end));
      }
      scell_ = upload(alloc_, c, "the source cells");
      srange_ = upload(alloc_, rg, "the source cells");
      uploaded_ = &s, uploaded_order_ = -1;
    }
    if (uploaded_order_ != s.order && s.order >= 0) {
      moments_ = upload(alloc_, s.moments_fp64(), "the multipoles");
      uploaded_order_ = s.order;
    }
  }

  void sync_tables(const MultiIndex& m) {
    if (tables_order_ == m.order) return;
    std::vector<std::int16_t> minus1, minus2, plus1;
    for (int c = 0; c < 3; ++c) {
      minus1.insert(minus1.end(), m.minus1[c].begin(), m.minus1[c].end());
      minus2.insert(minus2.end(), m.minus2[c].begin(), m.minus2[c].end());
      plus1.insert(plus1.end(), m.plus1[c].begin(), m.plus1[c].end());
    }
    t_kx_ = upload(alloc_, m.kx, "the index tables");
    t_ky_ = upload(alloc_, m.ky, "the index tables");
    t_kz_ = upload(alloc_, m.kz, "the index tables");
    t_deg_ = upload(alloc_, m.degree, "the index tables");
    t_m1_ = upload(alloc_, minus1, "the index tables");
    t_m2_ = upload(alloc_, minus2, "the index tables");
    t_p1_ = upload(alloc_, plus1, "the index tables");
    t_pbeg_ = upload(alloc_, m.pair_begin, "the index tables");
    t_pb_ = upload(alloc_, m.pair_b, "the index tables");
    t_ps_ = upload(alloc_, m.pair_sum, "the index tables");
    tables_ = DeviceTables{m.count,       t_kx_.get(), t_ky_.get(), t_kz_.get(),
                           t_deg_.get(),  t_m1_.get(), t_m2_.get(), t_p1_.get(),
                           t_pbeg_.get(), t_pb_.get(), t_ps_.get()};
    tables_order_ = m.order;
  }

  int device_ = 0;
  std::shared_ptr<DeviceAllocator> alloc_;
  const SourceTree* uploaded_ = nullptr;
  int uploaded_order_ = -1, tables_order_ = -1;
  DeviceBuffer<float4> src_;
  DeviceBuffer<Sphere> scell_;
  DeviceBuffer<int2> srange_;
  DeviceBuffer<double> moments_;
  DeviceBuffer<std::uint8_t> t_kx_, t_ky_, t_kz_, t_deg_;
  DeviceBuffer<std::int16_t> t_m1_, t_m2_, t_p1_, t_pb_, t_ps_;
  DeviceBuffer<std::int32_t> t_pbeg_;
  DeviceTables tables_{};
};

}  // namespace

std::unique_ptr<TreeBackend> make_cuda_tree_backend() {
  return std::make_unique<CudaTreeBackend>();
}

}  // namespace simscope::field::tree
