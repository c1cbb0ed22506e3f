#include "png.hpp"

#include <QFile>
#include <QImage>
#include <QImageWriter>

#include "core/error.hpp"

namespace simscope::app {

void write_png(const std::string& path, const std::vector<std::uint8_t>& rgba, int width,
               int height, const std::map<QString, QString>& text) {
  if (rgba.size() != size_t(width) * height * 4)
    throw Error(path + ": internal error: image buffer size does not match " +
                std::to_string(width) + "x" + std::to_string(height));
  QImage img(rgba.data(), width, height, width * 4, QImage::Format_RGBA8888);
  const QString target = QString::fromStdString(path);
  const QString tmp = target + ".partial";
  QImageWriter w(tmp, "png");
  for (const auto& [k, v] : text) w.setText(k, v);
  if (!w.write(img)) {
    QFile::remove(tmp);
    throw Error(path + ": cannot write PNG (" + w.errorString().toStdString() + ")");
  }
  QFile::remove(target);
  if (!QFile::rename(tmp, target)) {
    QFile::remove(tmp);
    throw Error(path + ": cannot write PNG (rename failed)");
  }
}

}  // namespace simscope::app
