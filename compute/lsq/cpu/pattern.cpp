// Missing-row patterns shared by many pixels (pattern.hpp): found by a hash of each pixel's
// observed rows, made once per solve.
#include "lsq/cpu/pattern.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN
namespace {

/// The fixed key of row i (splitmix64 of i + 1).
std::uint64_t row_key(std::uint64_t i) {
  std::uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// scan_pixels' pass, with the hashes (Hash) and the inf check (Inf) compiled in or out. An
/// entry v is +-inf when v == v (not NaN) but v - v != v - v (not finite): counted as integer
/// adds, so the check vectorises with the counts.
template <bool Hash, bool Inf, class E>
void scan_rows(const E* cube, std::size_t P, int M, std::size_t c0, std::size_t n, int* counts,
               std::uint64_t* hashes, bool* inf) {
  for (int i = 0; i < M; ++i) {
    const E* src = cube + std::size_t(i) * P + c0;
    const std::uint64_t key = Hash ? row_key(std::uint64_t(i)) : 0;
    int infs = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const E v = src[j];
      const bool ok = v == v;
      counts[j] += ok;
      if constexpr (Hash) hashes[j] ^= key & (std::uint64_t(0) - std::uint64_t(ok));
      if constexpr (Inf) {
        const E d = v - v;
        infs += ok & (d != d);
      }
    }
    if (Inf && infs > 0) *inf = true;
  }
}

/// Adds row src[0..n)'s observed entries to counts; returns how many are +-inf. In vectors of 8
/// (GCC vector extensions, which the vectoriser does not find for the loop above).
template <class E>
int count_row_infs(const E* src, std::size_t n, int* counts) {
  constexpr std::size_t L = 8;
  typedef E VE __attribute__((vector_size(L * sizeof(E))));
  typedef int VI __attribute__((vector_size(L * sizeof(int))));
  VI infs = {};
  std::size_t j = 0;
  for (; j + L <= n; j += L) {
    VE v;
    VI c;
    std::memcpy(&v, src + j, sizeof v);
    std::memcpy(&c, counts + j, sizeof c);
    const VE d = v - v;
    const VI ok = __builtin_convertvector(v == v, VI);  // -1 where observed
    const VI finite = __builtin_convertvector(d == d, VI);
    c -= ok;
    infs -= ok & ~finite;
    std::memcpy(counts + j, &c, sizeof c);
  }
  int r = 0;
  for (std::size_t l = 0; l < L; ++l) r += infs[l];
  for (; j < n; ++j) {
    const E v = src[j], d = v - v;
    counts[j] += v == v;
    r += (v == v) && d != d;
  }
  return r;
}

template <class E>
void scan_rows(const E* cube, std::size_t P, int M, std::size_t c0, std::size_t n, int* counts,
               std::uint64_t* hashes, bool* inf) {
  if (inf && !hashes) {
    for (int i = 0; i < M; ++i)
      if (count_row_infs(cube + std::size_t(i) * P + c0, n, counts) > 0) *inf = true;
    return;
  }
  if (hashes && inf) return scan_rows<true, true>(cube, P, M, c0, n, counts, hashes, inf);
  if (hashes) return scan_rows<true, false>(cube, P, M, c0, n, counts, hashes, inf);
  scan_rows<false, false>(cube, P, M, c0, n, counts, hashes, inf);
}

}  // namespace

const Pattern* PatternCache::get(const std::vector<std::uint64_t>& mask) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = made_.find(mask);
    if (it != made_.end()) return it->second.get();
  }
  // Made outside the lock: two threads may make the same pattern, with the same bits.
  auto p = std::make_unique<Pattern>();
  p->mask = mask;
  std::vector<int> rows;
  const int M = int(design_.m), N = int(design_.n);
  for (int i = 0; i < M; ++i)
    if (mask[std::size_t(i / 64)] >> (i % 64) & 1) rows.push_back(i);
  const std::size_t m = rows.size();
  const SharedSvd s = rows_svd(design_, rows, lambda_);  // op: N x m
  p->opc.assign(std::size_t(ld8_) * m, 0.0);
  std::copy(s.op.begin(), s.op.end(), p->opc.begin());
  p->ac.assign(m * std::size_t(ld8_), 0.0);
  for (std::size_t r = 0; r < m; ++r)
    std::copy_n(&design_.a[std::size_t(rows[r]) * N], N, &p->ac[r * std::size_t(ld8_)]);
  p->outcome = s.outcome;
  p->rows = rows;
  p->rop = s.residual_op;
  p->rop_rows = s.residual_rows;
  std::lock_guard<std::mutex> lock(mu_);
  const auto ins = made_.emplace(mask, std::move(p));
  return ins.first->second.get();
}

std::size_t PatternCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return made_.size();
}

void scan_pixels(const Cube& cube, int M, std::size_t c0, std::size_t n, std::vector<int>& counts,
                 std::vector<std::uint64_t>* hashes, bool* inf) {
  counts.assign(n, 0);
  if (hashes) hashes->assign(n, 0);
  std::uint64_t* h = hashes ? hashes->data() : nullptr;
  if (cube.dtype == io::DType::Float32)
    scan_rows(cube.f32(), cube.pixels(), M, c0, n, counts.data(), h, inf);
  else
    scan_rows(cube.f64(), cube.pixels(), M, c0, n, counts.data(), h, inf);
}

void find_patterns(const Cube& cube, int M, std::size_t c0, std::size_t n,
                   const std::vector<int>& counts, const std::vector<std::uint64_t>& hashes,
                   PatternCache& cache, std::vector<int>& pid, std::vector<const Pattern*>& pats) {
  pid.assign(n, -1);
  pats.clear();
  // A pattern's pixels share their hash's top 6 bits: without a bucket of kPatternPixels there
  // is none, and the sort below is skipped (pixels of random gaps, each its own pattern).
  std::size_t bucket[64] = {};
  bool candidate = false;
  for (std::size_t j = 0; j < n; ++j)
    if (counts[j] > 0 && counts[j] < M)
      candidate = ++bucket[hashes[j] >> 58] >= kPatternPixels || candidate;
  if (!candidate) return;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed;
  keyed.reserve(n);
  for (std::size_t j = 0; j < n; ++j)
    if (counts[j] > 0 && counts[j] < M) keyed.emplace_back(hashes[j], std::uint32_t(j));
  if (keyed.size() < kPatternPixels) return;
  std::sort(keyed.begin(), keyed.end());  // by hash, then by pixel: the run's first pixel first
  std::vector<std::uint64_t> mask(std::size_t(M + 63) / 64);
  for (std::size_t a = 0; a < keyed.size();) {
    std::size_t e = a + 1;
    while (e < keyed.size() && keyed[e].first == keyed[a].first) ++e;
    if (e - a >= kPatternPixels) {
      std::fill(mask.begin(), mask.end(), std::uint64_t(0));
      const std::size_t p = c0 + keyed[a].second;
      for (int i = 0; i < M; ++i) {
        const double v = cube.at(std::size_t(i), p);
        if (v == v) mask[std::size_t(i / 64)] |= std::uint64_t(1) << (i % 64);
      }
      const int id = int(pats.size());
      pats.push_back(cache.get(mask));
      for (std::size_t q = a; q < e; ++q) pid[keyed[q].second] = id;
    }
    a = e;
  }
}

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
