// UndoStack: linear undo/redo history (app/gui/undo_stack.hpp), with ints and with a workload's
// ParamSet as the window keeps it.
#include <gtest/gtest.h>

#include <string>

#include "undo_stack.hpp"
#include "workload.hpp"

using simscope::app::UndoStack;

TEST(UndoStack, FirstObserveIsTheStartingPoint) {
  UndoStack<int> u;
  EXPECT_FALSE(u.observe(1));
  EXPECT_FALSE(u.can_undo());
  EXPECT_FALSE(u.undo().has_value());
  EXPECT_FALSE(u.redo().has_value());
  EXPECT_EQ(u.current(), 1);
}

TEST(UndoStack, EqualStatesAddNoStep) {
  UndoStack<int> u;
  u.observe(1);
  EXPECT_FALSE(u.observe(1));
  EXPECT_TRUE(u.observe(2));
  EXPECT_FALSE(u.observe(2));
  EXPECT_EQ(u.undo_steps(), 1u);
}

TEST(UndoStack, UndoAndRedoWalkTheHistory) {
  UndoStack<int> u;
  for (int v : {1, 2, 3}) u.observe(v);
  EXPECT_EQ(u.undo(), 2);
  EXPECT_EQ(u.undo(), 1);
  EXPECT_FALSE(u.undo().has_value());  // the start: nothing before it
  EXPECT_EQ(u.current(), 1);
  EXPECT_EQ(u.redo(), 2);
  EXPECT_EQ(u.redo(), 3);
  EXPECT_FALSE(u.redo().has_value());
  EXPECT_EQ(u.undo_steps(), 2u);
  EXPECT_EQ(u.redo_steps(), 0u);
}

TEST(UndoStack, RestoredStateObservedAgainAddsNothing) {
  // The window restores the undone state and shows it to observe() on the next frame.
  UndoStack<int> u;
  u.observe(1);
  u.observe(2);
  const auto back = u.undo();
  EXPECT_FALSE(u.observe(*back));
  EXPECT_TRUE(u.can_redo());
}

TEST(UndoStack, NewStateAfterUndoDropsRedo) {
  UndoStack<int> u;
  for (int v : {1, 2, 3}) u.observe(v);
  u.undo();  // at 2
  EXPECT_TRUE(u.observe(5));
  EXPECT_FALSE(u.can_redo());
  EXPECT_EQ(u.undo(), 2);
  EXPECT_EQ(u.undo(), 1);
}

TEST(UndoStack, LimitDropsTheOldestSteps) {
  UndoStack<int> u(3);
  for (int v = 0; v <= 10; ++v) u.observe(v);
  EXPECT_EQ(u.undo_steps(), 3u);
  EXPECT_EQ(u.undo(), 9);
  EXPECT_EQ(u.undo(), 8);
  EXPECT_EQ(u.undo(), 7);
  EXPECT_FALSE(u.undo().has_value());
}

TEST(UndoStack, ParamSetsOfAWorkload) {
  // As the window uses it: a parameter change, a preset-like change of several, a reset.
  const auto w = simscope::app::make_workload("field");
  const simscope::ParamSet d = w->schema().defaults();
  UndoStack<simscope::ParamSet> u;
  u.observe(d);
  simscope::ParamSet a = d;
  a.set_from_string("k", "2");
  u.observe(a);
  simscope::ParamSet b = a;
  b.set_from_string("grid.size", "24");
  b.set_from_string("eps", "0.1");
  u.observe(b);
  u.observe(d);  // reset to defaults
  ASSERT_EQ(u.undo_steps(), 3u);
  EXPECT_EQ(u.undo(), b);
  EXPECT_EQ(u.undo()->get_double("k"), 2.0);
  const auto first = u.undo();
  EXPECT_EQ(first, d);
  EXPECT_EQ(u.redo(), a);
  EXPECT_EQ(u.redo()->get_int("grid.size"), 24);
}
