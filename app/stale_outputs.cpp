#include "stale_outputs.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include "core/error.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

void remove_file(const QString& path, int& count) {
  if (!QFileInfo(path).isFile()) return;
  if (!QFile::remove(path))
    throw Error("cannot remove the earlier run's " + path.toStdString() +
                " from the output folder");
  ++count;
}

/// Removes the files of `sub` whose names match `pattern`, then `sub` itself when empty.
void remove_matching(const QDir& base, const QString& sub, const QRegularExpression& pattern,
                     int& count) {
  QDir d(base.filePath(sub));
  if (!d.exists()) return;
  for (const QString& f : d.entryList(QDir::Files))
    if (pattern.match(f).hasMatch()) remove_file(d.filePath(f), count);
  if (d.isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System))
    base.rmdir(sub);
}

}  // namespace

int remove_stale_outputs(const std::string& dir, const OutputsKept& keep) {
  const QDir base(QString::fromStdString(dir));
  int count = 0;
  if (!base.exists()) return 0;
  if (!keep.profile) remove_file(base.filePath("profile.csv"), count);
  if (!keep.pinned) {
    QDir pinned(base.filePath("pinned"));
    if (pinned.exists("run.json")) {  // a simscope export: everything in it is ours
      count += int(pinned.entryList(QDir::Files).size());
      if (!pinned.removeRecursively())
        throw Error("cannot remove the earlier run's " + pinned.path().toStdString() +
                    " from the output folder");
    }
    remove_matching(base, "difference", QRegularExpression("\\.npy$"), count);
  }
  // Frames: always cleared (a sweep writes its own afresh; fewer frames would leave old ones).
  remove_matching(base, "frames", QRegularExpression("^\\d{4,}\\.png$"), count);
  remove_file(base.filePath("sweep.mp4"), count);
  (void)keep.frames;
  if (!keep.run_outputs) {
    remove_file(base.filePath("view.png"), count);
    for (const WorkloadDescriptor& w : workloads())
      for (const OutputSpec& o : w.outputs)
        remove_file(base.filePath(QString::fromStdString(o.name + ".npy")), count);
  }
  return count;
}

}  // namespace simscope::app
