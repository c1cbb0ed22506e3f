#include "output_checks.hpp"

#include <QDir>
#include <QFileInfo>

#include "core/error.hpp"

namespace simscope::app {

void check_output_dir(const std::string& dir) {
  const QFileInfo info(QString::fromStdString(dir));
  if (info.exists()) {
    if (!info.isDir()) throw Error(dir + ": output directory is an existing file, not a directory");
    if (!info.isWritable()) throw Error(dir + ": output directory is not writable");
    return;
  }
  if (info.fileName().toUtf8().size() > 255)
    throw Error(dir + ": output directory name is longer than 255 bytes");
  // The nearest existing ancestor must be a writable directory, to create the rest.
  QFileInfo up(info.absolutePath());
  while (!up.exists() && up.absoluteFilePath() != "/") up = QFileInfo(up.absolutePath());
  if (!up.isDir())
    throw Error(dir + ": cannot create the output directory (" + up.filePath().toStdString() +
                " is not a directory)");
  if (!up.isWritable())
    throw Error(dir + ": cannot create the output directory (" + up.filePath().toStdString() +
                " is not writable)");
}

void check_output_file(const std::string& path, const std::string& dir_to_create) {
  const QFileInfo info(QString::fromStdString(path));
  if (info.isDir()) throw Error(path + ": is a directory; expected a file name ending in .png");
  if (info.fileName().toUtf8().size() > 255)
    throw Error(path + ": file name longer than 255 bytes");
  const QFileInfo parent(info.absolutePath());
  if (!dir_to_create.empty()) {
    const QFileInfo created(QDir(QString::fromStdString(dir_to_create)).absolutePath());
    if (parent.absoluteFilePath() == created.absoluteFilePath()) return;  // checked separately
  }
  if (!parent.exists())
    throw Error(path + ": directory " + parent.filePath().toStdString() + " does not exist");
  if (!parent.isDir() || !parent.isWritable())
    throw Error(path + ": directory " + parent.filePath().toStdString() + " is not writable");
}

}  // namespace simscope::app
