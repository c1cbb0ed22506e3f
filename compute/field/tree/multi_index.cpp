// Multi-index tables of the tree method's Cartesian expansions (multi_index.hpp).
#include "field/tree/multi_index.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <string>

#include "core/error.hpp"

namespace simscope::field::tree {

namespace {

MultiIndex build(int p) {
  MultiIndex m;
  m.order = p;
  m.count = terms(p);
  const int N = m.count;
  m.kx.resize(N), m.ky.resize(N), m.kz.resize(N), m.degree.resize(N);
  for (int n = 0; n <= p; ++n)
    for (int a = n; a >= 0; --a)
      for (int c = 0; c <= n - a; ++c) {
        const int b = n - a - c, i = index_of(a, b, c);
        m.kx[i] = std::uint8_t(a), m.ky[i] = std::uint8_t(b), m.kz[i] = std::uint8_t(c);
        m.degree[i] = std::uint8_t(n);
      }
  for (int c = 0; c < 3; ++c) {
    m.minus1[c].assign(N, -1), m.minus2[c].assign(N, -1), m.plus1[c].assign(N, -1);
  }
  for (int i = 0; i < N; ++i) {
    const int k[3] = {m.kx[i], m.ky[i], m.kz[i]};
    for (int c = 0; c < 3; ++c) {
      int d[3] = {k[0], k[1], k[2]};
      if (k[c] >= 1) {
        d[c] = k[c] - 1;
        m.minus1[c][i] = std::int16_t(index_of(d[0], d[1], d[2]));
      }
      if (k[c] >= 2) {
        d[c] = k[c] - 2;
        m.minus2[c][i] = std::int16_t(index_of(d[0], d[1], d[2]));
      }
      if (m.degree[i] < p) {
        d[c] = k[c] + 1;
        m.plus1[c][i] = std::int16_t(index_of(d[0], d[1], d[2]));
      }
    }
  }
  m.step_axis.assign(N, 0), m.step_from.assign(N, 0), m.step_inv.assign(N, 0.0);
  for (int i = 1; i < N; ++i) {
    const int k[3] = {m.kx[i], m.ky[i], m.kz[i]};
    const int a = k[0] ? 0 : k[1] ? 1 : 2;
    m.step_axis[i] = std::uint8_t(a);
    m.step_from[i] = m.minus1[a][i];
    m.step_inv[i] = 1.0 / double(k[a]);
  }
  m.inv_factorial.assign(N, 1.0);
  for (int i = 1; i < N; ++i) m.inv_factorial[i] = m.inv_factorial[m.step_from[i]] * m.step_inv[i];
  for (int c = 0; c < 3; ++c) {
    m.rec_a[c].assign(N, 0), m.rec_b[c].assign(N, 0);
    m.rec_a_coef[c].assign(N, 0.0), m.rec_b_coef[c].assign(N, 0.0);
  }
  for (int i = 1; i < N; ++i) {
    const int n = m.degree[i];
    const int k[3] = {m.kx[i], m.ky[i], m.kz[i]};
    for (int c = 0; c < 3; ++c) {
      if (k[c] >= 1) {
        m.rec_a[c][i] = m.minus1[c][i];
        m.rec_a_coef[c][i] = -double(2 * n - 1) * double(k[c]) / double(n);
      }
      if (k[c] >= 2) {
        m.rec_b[c][i] = m.minus2[c][i];
        m.rec_b_coef[c][i] = -double(n - 1) * double(k[c] * (k[c] - 1)) / double(n);
      }
    }
  }
  m.pair_begin.assign(N + 1, 0);
  for (int a = 0; a < N; ++a) {
    m.pair_begin[a] = std::int32_t(m.pair_b.size());
    const int rest = terms(p - m.degree[a]);
    for (int b = 0; b < rest; ++b) {
      m.pair_b.push_back(std::int16_t(b));
      m.pair_sum.push_back(
          std::int16_t(index_of(m.kx[a] + m.kx[b], m.ky[a] + m.ky[b], m.kz[a] + m.kz[b])));
    }
  }
  m.pair_begin[N] = std::int32_t(m.pair_b.size());
  for (int i = 0; i < N; ++i)
    if (m.kz[i] <= 1) m.harm.push_back(std::int16_t(i));
  for (std::size_t o = 0; o < m.harm.size(); ++o) {
    const int a = m.harm[o], rest = (p - m.degree[a] + 1) * (p - m.degree[a] + 1);
    m.harm_begin.push_back(std::int32_t(m.harm_sum.size()));
    for (int j = 0; j < rest; ++j) {
      const int b = m.harm[std::size_t(j)];
      m.harm_sum.push_back(
          std::int16_t(index_of(m.kx[a] + m.kx[b], m.ky[a] + m.ky[b], m.kz[a] + m.kz[b])));
    }
  }
  m.harm_begin.push_back(std::int32_t(m.harm_sum.size()));
  for (int kz = p; kz >= 2; --kz)
    for (int i = 0; i < N; ++i)
      if (m.kz[i] == kz) {
        m.fold_from.push_back(std::int16_t(i));
        m.fold_x.push_back(std::int16_t(index_of(m.kx[i] + 2, m.ky[i], kz - 2)));
        m.fold_y.push_back(std::int16_t(index_of(m.kx[i], m.ky[i] + 2, kz - 2)));
      }
  for (int i = 1; i < N; ++i)
    if (m.kz[i] <= 2) m.deriv_z2.push_back(std::int16_t(i));
  for (int i = 0; i < N; ++i)
    if (m.kz[i] >= 2) m.rest.push_back(std::int16_t(i));
  return m;
}

}  // namespace

void harmonic_row(const MultiIndex& m, const double* M, double* H) {
  double T[terms(kMaxOrder)];
  std::copy(M, M + m.count, T);
  for (std::size_t f = 0; f < m.fold_from.size(); ++f) {
    T[m.fold_x[f]] -= T[m.fold_from[f]];
    T[m.fold_y[f]] -= T[m.fold_from[f]];
  }
  const std::size_t h = m.harm.size();
  for (std::size_t j = 0; j < h; ++j) H[j] = T[m.harm[j]];
  for (std::size_t i = 0; i < m.rest.size(); ++i) H[h + i] = M[m.rest[i]];
}

void layout_row(const MultiIndex& m, const double* H, double* M) {
  // The fold of the rest alone, with zeros at kz <= 1, is what the fold added there.
  const std::size_t h = m.harm.size();
  for (std::size_t j = 0; j < h; ++j) M[m.harm[j]] = 0;
  for (std::size_t i = 0; i < m.rest.size(); ++i) M[m.rest[i]] = H[h + i];
  for (std::size_t f = 0; f < m.fold_from.size(); ++f) {
    M[m.fold_x[f]] -= M[m.fold_from[f]];
    M[m.fold_y[f]] -= M[m.fold_from[f]];
  }
  for (std::size_t j = 0; j < h; ++j) M[m.harm[j]] = H[j] - M[m.harm[j]];
  for (std::size_t i = 0; i < m.rest.size(); ++i) M[m.rest[i]] = H[h + i];
}

const MultiIndex& multi_index(int p) {
  if (p < 0 || p > kMaxOrder)
    throw Error("field tree: expansion order " + std::to_string(p) + " is outside [0, " +
                std::to_string(kMaxOrder) + "]");
  static std::array<std::unique_ptr<MultiIndex>, kMaxOrder + 1> tables;
  static std::array<std::once_flag, kMaxOrder + 1> once;
  std::call_once(once[p], [p] { tables[p] = std::make_unique<MultiIndex>(build(p)); });
  return *tables[p];
}

}  // namespace simscope::field::tree
