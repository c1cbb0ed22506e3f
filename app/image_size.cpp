#include "image_size.hpp"

#include <QString>
#include <QStringList>

#include "core/error.hpp"

namespace simscope::app {

std::pair<int, int> parse_image_size(const std::string& text) {
  const QStringList wh = QString::fromStdString(text).trimmed().toLower().split('x');
  bool ok1 = false, ok2 = false;
  int w = 0, h = 0;
  if (wh.size() == 2) {
    w = wh[0].trimmed().toInt(&ok1);
    h = wh[1].trimmed().toInt(&ok2);
  }
  if (!ok1 || !ok2 || w < 1 || h < 1 || w > 1048576 || h > 1048576)
    throw Error("image size expects WxH with 1 <= W, H <= 1048576 (e.g. 1920x1080), got '" + text +
                "'");
  return {w, h};
}

}  // namespace simscope::app
