#pragma once
/// @file The known names nearest to a mistyped one, for the "did you mean" of a refusal.
#include <string>
#include <vector>

namespace simscope {

/// A known name and the other words for it (a field's letters, e.g. "w" for model.omega).
struct KnownName {
  std::string name;
  std::vector<std::string> also;
};

/// Up to `most` of the names of `known` nearest to `typed`, all at the least distance, in
/// `known`'s order. Nearest: one of the name's words ("also") as typed, case included ("K":
/// ensemble.size). Then, case, '_', '-' and '.' aside: one of its words is `typed`, or its last
/// dotted part is (omega: model.omega). Then the least number of edits (insert, delete,
/// replace, swap of neighbours) between `typed` and the name, its last part or one of its
/// words, near when at most max(1, length / 3) (length: the shorter's); a `typed` of one or two
/// letters is near by a word or last part only. Empty when none is near.
std::vector<std::string> closest_names(const std::string& typed,
                                       const std::vector<KnownName>& known, std::size_t most = 3);

/// "did you mean 'a'?" or "did you mean 'a' or 'b'?" for closest_names(typed, known); empty
/// when none is near.
std::string did_you_mean(const std::string& typed, const std::vector<KnownName>& known);

}  // namespace simscope
