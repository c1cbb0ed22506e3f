// Tooltips that wait (app/gui/hover_tip.hpp), in a headless Dear ImGui context stepped 0.1 s a
// frame: a button's tooltip is due only once the pointer has rested on it for kHoverTipDelay,
// never while the button is held (an active item, as a slider being dragged), and the wait starts
// again after; the status bar's upload path in words (view_upload.hpp: upload_path_words).
#include <gtest/gtest.h>
#include <imgui.h>

#include "hover_tip.hpp"
#include "view_upload.hpp"

namespace simscope::app::gui {
namespace {

class HeadlessImGui {
 public:
  HeadlessImGui() {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(400, 300);
    io.DeltaTime = 0.1f;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // NewFrame needs a built atlas
  }
  ~HeadlessImGui() { ImGui::DestroyContext(); }

  /// One frame with the pointer at (x, y), the left button down or not: whether the button's
  /// tooltip is due.
  bool frame(float x, float y, bool down = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(x, y);
    io.MouseDown[0] = down;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(300, 200));
    ImGui::Begin("panel");
    ImGui::SetCursorPos(ImVec2(20, 40));
    ImGui::Button("button", ImVec2(100, 30));
    const bool due = hover_tip_due();
    ImGui::End();
    ImGui::Render();
    return due;
  }
};

TEST(HoverTip, WaitsForThePointerToRestAndNeverShowsWhileAnItemIsActive) {
  HeadlessImGui gui;
  const float bx = 60, by = 55;  // on the button
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(gui.frame(250, 180)) << "off the button";
  int first_due = -1;
  for (int i = 0; i < 12 && first_due < 0; ++i)
    if (gui.frame(bx, by)) first_due = i;
  // Due after 0.5 s at 0.1 s a frame: the 5th or 6th frame on it (ImGui sees the hover from the
  // frame after the pointer arrives), not before.
  EXPECT_GE(first_due, 5);
  EXPECT_LE(first_due, 7);
  EXPECT_GT(first_due * 0.1, kHoverTipDelay - 0.05);
  for (int i = 0; i < 8; ++i) EXPECT_FALSE(gui.frame(bx, by, true)) << "held, frame " << i;
  EXPECT_FALSE(gui.frame(bx, by)) << "released: the wait starts again";
  bool due = false;
  for (int i = 0; i < 8 && !due; ++i) due = gui.frame(bx, by);
  EXPECT_TRUE(due) << "due again after resting";
  EXPECT_FALSE(gui.frame(250, 180)) << "off the button";
  EXPECT_FALSE(hover_tip_waiting());
}

TEST(UploadPathWords, TheStatusBarNamesThePathInWords) {
  EXPECT_EQ(upload_path_words("cuda-gl interop"), "CUDA-GL interop");
  EXPECT_EQ(upload_path_words("host upload"), "host copy to texture");
  EXPECT_EQ(upload_path_words("device->host copy"), "device to host copy to texture");
  EXPECT_EQ(upload_path_words("none"), "none yet");
  EXPECT_EQ(upload_path_words(""), "none yet");
}

}  // namespace
}  // namespace simscope::app::gui
