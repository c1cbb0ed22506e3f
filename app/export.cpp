#include "export.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <algorithm>

#include "core/error.hpp"
#include "params_json.hpp"
#include "png.hpp"

namespace simscope::app {

void write_output_npy(const std::string& path, const OutputArray& o) {
  if (!o.data64.empty()) {
    if (o.dtype != io::DType::Float64) throw Error(path + ": double data needs dtype float64");
    io::write_npy(path, o.data64.data(), o.shape);
    return;
  }
  switch (o.dtype) {
    case io::DType::Float32:
      io::write_npy(path, o.data.data(), o.shape);
      return;
    case io::DType::Float64: {
      std::vector<double> d(o.data.begin(), o.data.end());
      io::write_npy(path, d.data(), o.shape);
      return;
    }
    case io::DType::Int32: {
      std::vector<std::int32_t> d(o.data.begin(), o.data.end());
      io::write_npy(path, d.data(), o.shape);
      return;
    }
    case io::DType::UInt8: {
      std::vector<std::uint8_t> d(o.data.begin(), o.data.end());
      io::write_npy(path, d.data(), o.shape);
      return;
    }
    default:
      throw Error(path + ": unsupported export dtype");
  }
}

namespace {
/// The .npy files that an earlier run.json in `dir` lists (plain names only), or none.
QStringList earlier_outputs(const QDir& dir) {
  QFile f(dir.filePath("run.json"));
  if (!f.open(QIODevice::ReadOnly)) return {};
  QStringList names;
  for (const QJsonValue& o :
       QJsonDocument::fromJson(f.readAll()).object().value("outputs").toArray()) {
    const QString name = o.toObject().value("file").toString();
    if (name.endsWith(".npy") && !name.contains('/') && !name.contains('\\') && name != ".npy")
      names.push_back(name);
  }
  return names;
}
}  // namespace

std::vector<std::string> export_run(const RunResult& r, const std::string& dir_path,
                                    const QJsonObject& manifest, const ExportImage* image) {
  QDir dir(QDir(QString::fromStdString(dir_path)).absolutePath());
  const bool existed = dir.exists();
  if (!existed && !QDir().mkpath(dir.absolutePath()))
    throw Error(dir_path + ": cannot create the output directory");
  const QString staging_name =
      QString(".simscope-staging-%1").arg(QCoreApplication::applicationPid());
  QDir staging(dir.filePath(staging_name));
  staging.removeRecursively();
  if (!dir.mkdir(staging_name)) {
    if (!existed) QDir().rmdir(dir.absolutePath());
    throw Error(dir_path + ": output directory is not writable");
  }
  const QStringList earlier = earlier_outputs(dir);
  // (staged file, final path)
  std::vector<std::pair<QString, QString>> moves;
  try {
    for (const OutputArray& o : r.outputs) {
      const QString name = QString::fromStdString(o.name + ".npy");
      write_output_npy(staging.filePath(name).toStdString(), o);
      moves.emplace_back(staging.filePath(name), dir.filePath(name));
    }
    {
      QFile f(staging.filePath("run.json"));
      if (!f.open(QIODevice::WriteOnly) ||
          f.write(QJsonDocument(manifest).toJson(QJsonDocument::Indented)) < 0)
        throw Error((dir.filePath("run.json")).toStdString() + ": cannot write");
      moves.emplace_back(staging.filePath("run.json"), dir.filePath("run.json"));
    }
    if (image) {
      const QString staged = staging.filePath("view.png");
      write_png(staged.toStdString(), image->rgba, image->width, image->height,
                {{"Software", "simscope " SIMSCOPE_VERSION},
                 {"simscope.workload", QString::fromStdString(r.workload)},
                 {"simscope.params", to_text(r.params)},
                 {"simscope.view",
                  QString::fromUtf8(
                      QJsonDocument(manifest.value("render").toObject().value("view").toObject())
                          .toJson(QJsonDocument::Compact))}});
      // The image first: it may go outside the directory, where a move is likelier to fail.
      moves.insert(moves.begin(),
                   {staged, QFileInfo(QString::fromStdString(image->path)).absoluteFilePath()});
    }
    std::vector<std::string> written;
    for (const auto& [from, to] : moves) {
      QFile::remove(to);
      if (!QFile::rename(from, to) && !(QFile::copy(from, to) && QFile::remove(from))) {
        for (const auto& w : written) QFile::remove(QString::fromStdString(w));  // all or nothing
        throw Error(to.toStdString() + ": cannot move the output into place");
      }
      written.push_back(to.toStdString());
    }
    staging.removeRecursively();
    // The directory describes one run: .npy outputs of the earlier run that this one did not
    // write (another workload's, say) would be mistaken for this run's.
    for (const QString& name : earlier)
      if (std::none_of(r.outputs.begin(), r.outputs.end(), [&](const OutputArray& o) {
            return QString::fromStdString(o.name) + ".npy" == name;
          }))
        QFile::remove(dir.filePath(name));
    return written;
  } catch (...) {
    staging.removeRecursively();
    if (!existed) QDir().rmdir(dir.absolutePath());
    throw;
  }
}

}  // namespace simscope::app
