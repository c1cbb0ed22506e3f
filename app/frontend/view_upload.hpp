#pragma once
/// @file The one way a view image reaches the plane view, whether its values live on the device
/// or the host (GUI and headless runner alike).
#include <string>

#include "render/plane_view.hpp"
#include "workload.hpp"

namespace simscope::app {

/// Puts `image`'s rows x cols values into `view`: from device memory through the view's
/// interop buffer (CUDA-GL interop, or its device -> host -> PBO fallback: view.upload_path()
/// tells which) when they live there (image.data.device()), else from host memory (a host
/// upload; device values already copied to the host are still uploaded from the device, which
/// needs no host round trip). The image's values must stay alive while the call runs only:
/// the view keeps its own copy. Throws render::RenderError as PlaneView::set_data_* do, and
/// simscope::Error when the image holds fewer values than rows x cols.
void upload_image(render::PlaneView& view, const ViewImage& image);

/// Where `r`'s outputs live, for the status bar's upload path: "maps on the device" when every
/// output is in device memory only (the field's planes, lsq's maps on CUDA: drawn through
/// interop), "maps on the device, copied to the host" once something read them there (export,
/// histogram), "maps on the host" otherwise (the CPU back end; lsq on CUDA when its maps did not
/// fit the device).
std::string outputs_location(const RunResult& r);

/// A view's upload path (PlaneView::upload_path, PhaseView::upload_path) in words for the status
/// bar: "CUDA-GL interop" (device memory into the texture, no host copy), "host copy to
/// texture", "device to host copy to texture" (interop unavailable), "none yet" before the first
/// upload; any other text as it is.
std::string upload_path_words(const std::string& path);

}  // namespace simscope::app
