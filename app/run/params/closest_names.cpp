#include "params/closest_names.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>

#include "core/quote.hpp"

namespace simscope {
namespace {

/// Lower case, with '_' and '-' read as '.'.
std::string folded(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    out += (c == '_' || c == '-') ? '.' : static_cast<char>(std::tolower(c));
  }
  return out;
}

/// Optimal string alignment distance: inserts, deletes, replacements and swaps of neighbours.
std::size_t edits(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

}  // namespace

std::vector<std::string> closest_names(const std::string& typed,
                                       const std::vector<KnownName>& known, std::size_t most) {
  const std::string t = folded(typed);
  if (t.empty()) return {};
  struct Near {
    std::size_t score, order;
    std::string name;
  };
  std::vector<Near> near;
  for (std::size_t i = 0; i < known.size(); ++i) {
    const std::string k = folded(known[i].name);
    const std::size_t dot = k.rfind('.');
    const std::string last = dot == std::string::npos ? k : k.substr(dot + 1);
    // Scores: 0 one of its words as typed, case included (K: ensemble.size, not network.k);
    // 1 a word or the last part, case and separators aside; 1 + e at e edits.
    std::size_t score = std::string::npos;
    for (const auto& w : known[i].also)
      if (w == typed) score = 0;
    for (const auto& w : known[i].also)
      if (score > 1 && folded(w) == t) score = 1;
    if (score > 1 && last == t && last != k) score = 1;
    if (score > 1 && t.size() >= 3) {
      // Edits against the whole name, its last part (size: grid.size) and its other words;
      // words of one or two letters are near by an exact match only.
      // The edits are at least the lengths' difference, so a word longer or shorter by more
      // than the bound is not near, and its table is not filled (a 60 KB key in a preset).
      auto near_by = [&](const std::string& word) {
        const std::size_t bound = std::max<std::size_t>(1, std::min(t.size(), word.size()) / 3);
        if (std::max(t.size(), word.size()) - std::min(t.size(), word.size()) > bound) return;
        const std::size_t e = edits(t, word);
        if (e <= bound) score = std::min(score, 1 + e);
      };
      near_by(k);
      near_by(last);
      for (const auto& w : known[i].also) near_by(folded(w));
    }
    if (score != std::string::npos) near.push_back({score, i, known[i].name});
  }
  std::stable_sort(near.begin(), near.end(), [](const Near& a, const Near& b) {
    return a.score != b.score ? a.score < b.score : a.order < b.order;
  });
  std::vector<std::string> out;
  for (const auto& n : near) {
    if (out.size() == most || n.score > near.front().score) break;  // the nearest only
    if (std::find(out.begin(), out.end(), n.name) == out.end()) out.push_back(n.name);
  }
  return out;
}

std::string did_you_mean(const std::string& typed, const std::vector<KnownName>& known) {
  const auto names = closest_names(typed, known);
  if (names.empty()) return {};
  std::string out = "did you mean ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += '\'';  // appended piece by piece: GCC 12 warns (-Wrestrict) on the concatenation
    out += quote_text(names[i]);
    out += '\'';
  }
  return out + "?";
}

}  // namespace simscope
