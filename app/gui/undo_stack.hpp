#pragma once
/// @file Undo and redo of a value edited over time. The window keeps one per workload for its
/// parameters: Ctrl+Z, Ctrl+Shift+Z. The owner shows the stack every settled state, e.g. once no
/// widget is being dragged. Each state that differs from the previous one becomes a step.
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace simscope::app {

/// Linear undo history of values of T, which must be equality comparable and copyable.
/// observe() records a new state; undo() and redo() step back and forth and return the state to
/// restore. A new state after an undo drops the redo steps. At most `limit` undo steps are kept;
/// the oldest go.
template <class T>
class UndoStack {
 public:
  explicit UndoStack(std::size_t limit = 200) : limit_(limit < 1 ? 1 : limit) {}

  /// Records `state` as current. The first call sets the starting point, with nothing to undo.
  /// A state equal to the current one changes nothing. Returns true when a step is added.
  bool observe(const T& state) {
    if (!current_) {
      current_ = state;
      return false;
    }
    if (*current_ == state) return false;
    undo_.push_back(std::move(*current_));
    if (undo_.size() > limit_) undo_.erase(undo_.begin());
    redo_.clear();
    current_ = state;
    return true;
  }

  bool can_undo() const { return !undo_.empty(); }
  bool can_redo() const { return !redo_.empty(); }
  std::size_t undo_steps() const { return undo_.size(); }
  std::size_t redo_steps() const { return redo_.size(); }

  /// The state before the current one, which becomes redoable; nullopt when there is none.
  std::optional<T> undo() {
    if (undo_.empty() || !current_) return std::nullopt;
    redo_.push_back(std::move(*current_));
    current_ = std::move(undo_.back());
    undo_.pop_back();
    return current_;
  }

  /// The state last undone, which becomes current again; nullopt when there is none.
  std::optional<T> redo() {
    if (redo_.empty() || !current_) return std::nullopt;
    undo_.push_back(std::move(*current_));
    current_ = std::move(redo_.back());
    redo_.pop_back();
    return current_;
  }

  /// The current state, or nullopt before the first observe().
  const std::optional<T>& current() const { return current_; }

 private:
  std::size_t limit_;
  std::optional<T> current_;
  std::vector<T> undo_, redo_;
};

}  // namespace simscope::app
