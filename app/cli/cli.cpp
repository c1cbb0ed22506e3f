#include "cli.hpp"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <clocale>
#include <cstdio>
#include <tuple>

#include "core/cuda_build.hpp"
#include "core/error.hpp"
#include "core/isa.hpp"
#include "core/quote.hpp"
#include "params/closest_names.hpp"
#include "image_size.hpp"
#include "view/plane_profile.hpp"
#include "view_png_export.hpp"
#include "session.hpp"
#include "presets/shipped_presets.hpp"
#include "view/sweep_spec.hpp"
#include "workload.hpp"

namespace simscope::app {

CliParse parse_command_line(const std::vector<std::string>& argv) {
  QStringList args;
  for (const std::string& a : argv) args << QString::fromStdString(a);
  add_front_end_version("qt", qVersion());  // run.json's "simscope" object
  QString studies, estimated;  // the workloads whose headless runs keep checkpoints, estimate
  for (const WorkloadDescriptor& d : workloads()) {
    if (d.open_checkpoint)
      studies += (studies.isEmpty() ? "" : " or ") + QString::fromStdString(d.name);
    if (d.estimate)
      estimated += (estimated.isEmpty() ? "" : " or ") + QString::fromStdString(d.name);
  }
  // The outputs of each workload, from its descriptor: names in export order, then shapes.
  QString outputs = "DIR/run.json.";
  for (const WorkloadDescriptor& d : workloads()) {
    QString names;
    for (const OutputSpec& o : d.outputs)
      names += (names.isEmpty() ? "" : ", ") + QString::fromStdString(o.name);
    outputs += " " + QString::fromStdString(d.name) + ": " + names +
               (d.shapes.empty() ? "" : "; " + QString::fromStdString(d.shapes)) + ".";
  }
  // The pages that describe them, where a clone and an installed tree (cmake --install, the
  // .deb: cmake/SimscopeInstall.cmake) both have them; tests/install/test_install.sh checks that
  // the installed tree holds every page named here.
  outputs +=
      " The outputs and options: docs/cli.md, docs/formats.md (installed: "
      "PREFIX/share/doc/simscope/docs/, the .deb's /usr/share/doc/simscope/docs/).";
  // Wrapped at 90 columns, indented as the usage lines' explanations.
  QString wrapped, line = "     ";
  for (const QString& word : outputs.split(' ')) {
    if (line.size() + 1 + word.size() > 90) wrapped += line + "\n", line = "     ";
    line += " " + word;
  }
  wrapped += line + "\n";
  // What this build computes on: a CPU-only build says so, and why (its man page is this text).
  const QString no_cuda = QString::fromStdString(cuda_build_note());
  QCommandLineParser p;
  p.setApplicationDescription(
      (no_cuda.isEmpty()
           ? QString("simscope: batched scientific computations on the GPU (CUDA) or CPU, shown "
                     "live.\n")
           : "simscope: batched scientific computations on the CPU, shown live. This build has "
             "no CUDA back end\n(" + no_cuda + ").\n") +
      "\n"
      "  simscope [--workload " + QString::fromStdString(workload_names().front()) +
      "] [--preset FILE.json|NAME] [--set NAME=VALUE]... [--backend B]\n"
      "      opens the window (GLFW + Dear ImGui).\n"
      "  simscope --headless [...] [--out IMAGE.png] [--out-dir DIR]\n"
      "      computes once and writes DIR/<output>.npy for every output, DIR/view.png and\n" +
      wrapped +
      "  simscope --list-params WORKLOAD\n"
      "      prints the workload's parameters: name, type, default, range, unit, help.\n"
      "\n"
      "  A headless " + studies + " study keeps a checkpoint in DIR/checkpoint as it goes;\n"
      "  after an interruption the same command with --resume continues it.\n"
      "\n"
      "Environment: SIMSCOPE_ISA=v2|v3|v4 runs the CPU kernels at that x86-64 level instead of\n"
      "this CPU's highest (--version says which run).\n"
      "\n"
      "Exit status: 0 success, 1 runtime error (bad input file, failed device...),\n"
      "2 command-line error, 130 / 143 interrupted by SIGINT (Ctrl+C) / SIGTERM.\n"
      "Errors are one line on stderr; no partial outputs are left.");
  // Not addHelpOption(): its --help-all lists Qt's own options, which simscope does not take.
  QCommandLineOption help({"h", "help"}, "Displays this help."), help_all("help-all");
  help_all.setFlags(QCommandLineOption::HiddenFromHelp);
  p.addOption(help);
  p.addOption(help_all);
  p.addVersionOption();
  QString names;
  for (const auto& n : workload_names())
    names += (names.isEmpty() ? "" : ", ") + QString::fromStdString(n);
  const QCommandLineOption workload(
      {"w", "workload"},
      "Workload to run: " + names + " (default " + QString::fromStdString(workload_names().front()) +
          ", or the preset's).",
      "NAME");
  const QCommandLineOption preset(
      "preset",
      "Load parameters from a JSON preset: a file, or the name of a shipped one (seed-field, "
      "seed-lsq, seed-lsq-rank, seed-oscillators: the original questions).",
      "FILE.json|NAME");
  const QCommandLineOption set({"s", "set"},
                               "Set a parameter (repeatable; applied after the preset). See "
                               "--list-params for names, types and ranges.",
                               "NAME=VALUE");
  const QCommandLineOption backend(
      "backend",
      no_cuda.isEmpty() ? QString("Compute back end: auto (CUDA when a device is usable, else "
                                  "CPU), cpu or cuda (an error when unusable).")
                        : QString("Compute back end: auto or cpu (this build has no CUDA back "
                                  "end: cuda is an error)."),
      "B", "auto");
  const QCommandLineOption headless("headless", "No window: compute, export, exit.");
  const QCommandLineOption out("out",
                               "Headless: path of the rendered view (PNG). Default "
                               "DIR/view.png.",
                               "IMAGE.png");
  const QCommandLineOption out_dir("out-dir",
                                   "Headless: output directory (created). Default "
                                   "simscope-out.",
                                   "DIR");
  const QCommandLineOption image_size("image-size", "Headless: size of the rendered view.", "WxH",
                                      "1024x832");
  const QCommandLineOption no_image("no-image", "Headless: skip view.png (no OpenGL needed).");
  const QCommandLineOption list_params("list-params", "Print the parameters of a workload.",
                                       "WORKLOAD");
  const QCommandLineOption frames(
      "frames", "GUI: quit N frames after the first full result is shown (for tests).", "N");
  const QCommandLineOption screenshot(
      "screenshot",
      "GUI: save the window as PNG and quit: once the first full result is shown, or with "
      "--frames N after N frames. The path is checked before the window opens.",
      "FILE.png");
  const QCommandLineOption quiet({"q", "quiet"},
                               "Print only errors and warnings (no progress, no summary).");
  const QCommandLineOption resume(
      "resume",
      "Headless " + studies + " study: continue the interrupted study whose checkpoint is in "
      "DIR/checkpoint (the same command line otherwise; a changed parameter is refused).");
  const QCommandLineOption checkpoint_interval(
      "checkpoint-interval",
      "Headless " + studies + " study: the longest time between two checkpoints (besides one every "
      "5 % of the members).",
      "SECONDS", QString::number(RunOptions().checkpoint_interval));
  const QCommandLineOption estimate(
      "estimate",
      "Headless " + estimated +
          " study: time at most ~2 s of the study's kernel on a sample of its members and print "
          "the projected time of the whole study for its K, N and steps, without running it.");
  const QCommandLineOption mpi_split(
      "mpi-split",
      "Headless field under mpirun: split by targets (each rank all sources, bit-identical "
      "outputs), by sources (each rank a share of them at every target, fp64 fields reduced to "
      "rank 0), or auto (sources when they would not fit a rank's memory share or outnumber "
      "the targets 8 times).",
      "targets|sources|auto", "auto");
  const QCommandLineOption profile(
      "profile",
      "Headless: also write DIR/profile.csv, every plane output along the line from (x0, y0) to "
      "(x1, y1) in the plane's coordinates (field: its two axes; lsq: pixel column w, row h), "
      "bilinearly interpolated, one point per grid spacing or SAMPLES points.",
      "x0,y0:x1,y1[:SAMPLES]");
  const QCommandLineOption pin_set(
      "pin-set",
      "Headless: also compute A, this run with NAME=VALUE changed (repeatable), and write "
      "DIR/pinned/ (A's outputs and run.json) and DIR/difference/<output>.npy (B - A, B this "
      "run).",
      "NAME=VALUE");
  const QCommandLineOption sweep(
      "sweep",
      "Run FRAMES times with the numeric parameter NAME stepped evenly from START to STOP; "
      "writes DIR/frames/0000.png ... (at --image-size), DIR/sweep.mp4 when ffmpeg is "
      "installed, and DIR/run.json listing every frame's parameters. Colours: each frame its "
      "own range (view.range=percentile: its 0.5th..99.5th percentile) unless view.range is "
      "locked (--set view.range=locked --set view.min=LO --set view.max=HI). Without --headless "
      "the window runs it (frames at the view's size, in simscope-sweep-<time>/).",
      "NAME=START:STOP:FRAMES");
  const QCommandLineOption record(
      "record",
      "GUI: record the view's next FRAMES results (a live workload's frames as it runs) into "
      "simscope-record-<time>/frames/0000.png ..., sweep.mp4 (ffmpeg) and run.json.",
      "FRAMES");
  std::vector<KnownName> option_names = {{"--help", {}}, {"--help-all", {}}, {"--version", {}}};
  for (const auto* o : {&workload, &preset, &set, &backend, &headless, &out, &out_dir, &image_size,
                        &no_image, &list_params, &frames, &screenshot, &quiet, &resume,
                        &checkpoint_interval, &profile, &pin_set, &sweep, &record, &mpi_split,
                        &estimate}) {
    p.addOption(*o);
    for (const QString& n : o->names())
      if (n.size() > 1) option_names.push_back({"--" + n.toStdString(), {}});
  }

  CliParse r;
  auto fail = [&](const QString& msg) {  // msg may echo an argument: one line, of bounded length
    std::fprintf(stderr, "simscope: error: %s (see --help)\n",
                 quote_text(msg.toStdString(), 1000).c_str());
    r.exit_code = 2;
    return r;
  };
  if (!p.parse(args)) {
    if (!p.unknownOptionNames().isEmpty()) {  // named as typed: --long or -s
      const QString n = p.unknownOptionNames().first();
      const QString typed = QString(n.size() > 1 ? "--" : "-") + n;
      const std::string hint = did_you_mean(typed.toStdString(), option_names);
      return fail("unknown option '" + typed + "'" +
                  (hint.empty() ? QString() : " (" + QString::fromStdString(hint) + ")"));
    }
    return fail(p.errorText());
  }
  if (p.isSet(help) || p.isSet(help_all)) {
    // Qt's usage line names the executable as it was started (argv[0], e.g. a build folder's
    // path): the program's name instead.
    QString text = p.helpText();
    const qsizetype eol = text.indexOf('\n');
    if (text.startsWith("Usage: ") && eol > 0 && text.left(eol).endsWith(" [options]"))
      text = "Usage: simscope [options]" + text.mid(eol);
    std::fputs(qPrintable(text), stdout);
    return r;
  }
  if (p.isSet("version")) {  // with the CPU kernels' level (SIMSCOPE_ISA, or this CPU's highest)
    std::string isa;
    try {
      isa = isa_summary();
    } catch (const Error& e) {
      return fail(QString("environment: ") + e.what());
    }
    std::printf("simscope %s\n%s\n", qPrintable(QCoreApplication::applicationVersion()),
                isa.c_str());
    return r;
  }
  if (!p.positionalArguments().isEmpty())
    return fail("unexpected argument '" + p.positionalArguments().first() + "'");

  RunOptions o;
  o.workload = p.value(workload).toStdString();
  if (p.isSet(preset)) {
    try {
      o.preset = find_preset(p.value(preset).toStdString());
    } catch (const Error& e) {
      // No such file and no shipped preset of that name: a bad preset, exit status 1, as for a
      // FILE.json that does not exist (make_session), not a command-line error.
      std::fprintf(stderr, "simscope: error: --preset: %s\n", quote_text(e.what(), 1000).c_str());
      r.exit_code = 1;
      return r;
    }
  }
  for (const QString& s : p.values(set)) {
    if (!s.contains('=')) return fail("--set expects NAME=VALUE, got '" + s + "'");
    o.sets.push_back(s.toStdString());
  }
  o.backend = p.value(backend).toStdString();
  if (o.backend != "auto" && o.backend != "cpu" && o.backend != "cuda")
    return fail("--backend expects auto, cpu or cuda, got '" + p.value(backend) + "'");
  o.headless = p.isSet(headless);
  o.out_image = p.value(out).toStdString();
  if (!o.out_image.empty() && !p.value(out).endsWith(".png", Qt::CaseInsensitive))
    return fail("--out writes PNG: the file name must end in .png, got '" + p.value(out) + "'");
  o.out_dir = p.value(out_dir).toStdString();
  try {  // the window's parser and limits (image_size.hpp); the GL's own limit where it draws
    std::tie(o.image_width, o.image_height) = parse_image_size(p.value(image_size).toStdString());
  } catch (const Error& e) {
    return fail(QString("--image-size: ") + e.what());
  }
  o.no_image = p.isSet(no_image);
  o.list_params = p.value(list_params).toStdString();
  if (p.isSet(frames)) {
    bool ok = false;
    o.frames = p.value(frames).toInt(&ok);
    if (!ok || o.frames < 1)
      return fail("--frames expects a positive integer, got '" + p.value(frames) + "'");
  }
  o.screenshot = p.value(screenshot).toStdString();
  if (p.isSet(screenshot) && !p.value(screenshot).endsWith(".png", Qt::CaseInsensitive))
    return fail("--screenshot writes PNG: the file name must end in .png, got '" +
                p.value(screenshot) + "'");
  o.quiet = p.isSet(quiet);
  o.resume = p.isSet(resume);
  if (p.isSet(checkpoint_interval)) {
    bool ok = false;
    o.checkpoint_interval = p.value(checkpoint_interval).toDouble(&ok);
    if (!ok || !(o.checkpoint_interval > 0) || o.checkpoint_interval > 1e9)
      return fail("--checkpoint-interval expects a number of seconds > 0, got '" +
                  p.value(checkpoint_interval) + "'");
  }
  if (p.isSet(mpi_split)) {
    o.mpi_split = p.value(mpi_split).toStdString();
    if (o.mpi_split != "targets" && o.mpi_split != "sources" && o.mpi_split != "auto")
      return fail("--mpi-split expects targets, sources or auto, got '" + p.value(mpi_split) + "'");
    if (!o.headless) return fail("--mpi-split is for headless runs under mpirun (add --headless)");
  }
  if (p.isSet(record)) {
    bool ok = false;
    o.record = p.value(record).toInt(&ok);
    if (!ok || o.record < 1 || o.record > 100000)
      return fail("--record expects a number of frames 1 ... 100000, got '" + p.value(record) +
                  "'");
    if (o.headless) return fail("--record records the window's view; not with --headless");
  }
  if (p.isSet(sweep)) {
    o.sweep = p.value(sweep).toStdString();
    try {
      parse_sweep(o.sweep);
    } catch (const std::exception& e) {
      return fail(QString::fromStdString(e.what()));
    }
    if (p.isSet(profile) || p.isSet(pin_set) || p.isSet(no_image) || p.isSet(out))
      return fail(
          "--sweep writes frames: it does not combine with --profile, --pin-set, --out "
          "or --no-image");
  }
  for (const QString& s : p.values(pin_set)) {
    if (!s.contains('=')) return fail("--pin-set expects NAME=VALUE, got '" + s + "'");
    o.pin_sets.push_back(s.toStdString());
  }
  if (!o.pin_sets.empty() && !o.headless)
    return fail("--pin-set needs --headless (in the window: the Pin button)");
  if (p.isSet(profile)) {
    o.profile = p.value(profile).toStdString();
    try {
      parse_profile_line(o.profile);
    } catch (const std::exception& e) {
      return fail(QString::fromStdString(e.what()));
    }
    if (!o.headless) return fail("--profile needs --headless (in the window: shift-drag a line)");
  }
  o.estimate = p.isSet(estimate);
  if (o.estimate && (!o.headless || o.resume || p.isSet(sweep) || !o.pin_sets.empty() ||
                     p.isSet(profile)))
    return fail("--estimate is for a headless study (add --headless; not with --resume, --sweep, "
                "--pin-set or --profile)");
  if ((o.resume || p.isSet(checkpoint_interval)) && !o.headless)
    return fail("--resume and --checkpoint-interval are for headless studies (add --headless)");
  if ((p.isSet(out) || p.isSet(out_dir) || o.no_image) && !o.headless)
    return fail("--out, --out-dir and --no-image need --headless");
  if (o.no_image && p.isSet(out)) return fail("--out and --no-image contradict each other");
  if (o.headless && p.isSet(frames)) return fail("--frames is for the GUI, not --headless");
  if (!o.screenshot.empty() && o.headless)
    return fail("--screenshot is for the GUI; headless runs write --out");
  try {  // unknown workload or parameter, a refused --set value: command-line errors too
    check_command_line(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simscope: error: %s\n", e.what());
    r.exit_code = 2;
    return r;
  }
  r.options = o;
  return r;
}

CliParse parse_process_command_line(int& argc, char** argv) {
  static QCoreApplication app(argc, argv);
  std::setlocale(LC_NUMERIC, "C");
  QCoreApplication::setApplicationName("simscope");
  QCoreApplication::setOrganizationName("simscope");
  QCoreApplication::setApplicationVersion(SIMSCOPE_VERSION);
  std::vector<std::string> args;
  for (const QString& a : QCoreApplication::arguments()) args.push_back(a.toStdString());
  return parse_command_line(args);
}

}  // namespace simscope::app
