// MPI initialisation and the Communicator over MPI_COMM_WORLD (mpi_job.hpp).
#include "mpi_job.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "core/error.hpp"
#include "core/isa.hpp"

#ifdef SIMSCOPE_HAVE_MPI
// The C API only; otherwise OpenMPI and MPICH pull in their deprecated C++ bindings.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace simscope::app::mpi {

namespace {

/// The first of `names` set in the environment, as an int; `fallback` when none is.
int env_int(std::initializer_list<const char*> names, int fallback) {
  for (const char* v : names) {
    const char* s = std::getenv(v);
    if (s && *s) return std::atoi(s);
  }
  return fallback;
}

/// Inside a task of an srun job step; the batch script itself has no step id.
bool in_slurm_step() { return std::getenv("SLURM_STEP_ID") || std::getenv("SLURM_STEPID"); }

}  // namespace

int launched_ranks() {
  int n = env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}, 0);
  if (n <= 0 && in_slurm_step()) n = env_int({"SLURM_NTASKS", "SLURM_NPROCS"}, 1);
  return std::max(1, n);
}

int launched_rank() {
  int r = env_int({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}, -1);
  if (r < 0 && in_slurm_step()) r = env_int({"SLURM_PROCID"}, 0);
  return std::max(0, r);
}

QuietUnlessRank0::QuietUnlessRank0() {
  if (launched_ranks() <= 1 || launched_rank() == 0) return;
  std::fflush(stderr);
  const int null = open("/dev/null", O_WRONLY);
  if (null < 0) return;
  saved_ = dup(STDERR_FILENO);
  dup2(null, STDERR_FILENO);
  close(null);
}

QuietUnlessRank0::~QuietUnlessRank0() {
  if (saved_ < 0) return;
  std::fflush(stderr);
  dup2(saved_, STDERR_FILENO);
  close(saved_);
}

int exit_after_rank0(int status) {
  if (status != 0 && launched_ranks() > 1 && launched_rank() != 0) usleep(1500 * 1000);
  return status;
}

bool built_with_mpi() {
#ifdef SIMSCOPE_HAVE_MPI
  return true;
#else
  return false;
#endif
}

std::string slurm_pmi_refusal(const std::string& library, bool takes_slurm_pmi) {
  if (takes_slurm_pmi || library.rfind("Open MPI", 0) != 0) return "";
  if (!in_slurm_step() || std::getenv("OMPI_COMM_WORLD_SIZE")) return "";
  const int tasks = env_int({"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_NPROCS"}, 1);
  if (tasks <= 1) return "";
  const char* ns = std::getenv("PMIX_NAMESPACE");
  if (ns && *ns) return "";  // a PMIx server (srun --mpi=pmix) is there for the ranks
  const char* type = std::getenv("SLURM_MPI_TYPE");
  const std::string plugin = type && *type ? type : "none";
  const std::string name = library.substr(0, library.find(','));  // "Open MPI v4.1.4"
  return "srun --mpi=" + plugin + " started these " + std::to_string(tasks) +
         " tasks, but this simscope's MPI (" + name +
         ") joins them only through PMIx: use srun --mpi=pmix (srun --mpi=list shows this "
         "Slurm's plugins)";
}

#ifdef SIMSCOPE_HAVE_MPI
std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) return "";  // callable before MPI_Init
  const std::string s(text, std::size_t(std::max(0, len)));
  return s.substr(0, s.find('\n'));
}

bool mpi_takes_slurm_pmi() {
  const std::string lib = mpi_library();
  const std::string tag = "Open MPI v";
  // Not Open MPI: no rule known. Open MPI 5: PMIx only.
  if (lib.rfind(tag, 0) != 0) return true;
  if (std::atoi(lib.c_str() + tag.size()) >= 5) return false;
  // Open MPI 4 reads Slurm's PMI through its pmix components s1 and s2, built only with
  // --with-pmi: compiled into the library, or as plugins in its component folder, <libdir>/openmpi
  // (Debian: openmpi3) beside the libmpi.so loaded.
  for (const char* c : {"mca_pmix_s1_component", "mca_pmix_s2_component"})
    if (dlsym(RTLD_DEFAULT, c)) return true;
  Dl_info info{};
  void* init = dlsym(RTLD_DEFAULT, "MPI_Init");
  if (!init || !dladdr(init, &info) || !info.dli_fname) return true;  // cannot tell: no claim
  char* real = realpath(info.dli_fname, nullptr);
  if (!real) return true;
  std::string dir(real);
  std::free(real);
  dir = dir.substr(0, dir.rfind('/'));
  struct stat st {};
  for (const char* sub : {"/openmpi/", "/openmpi3/"})
    for (const char* c : {"mca_pmix_s1.so", "mca_pmix_s2.so"})
      if (stat((dir + sub + c).c_str(), &st) == 0) return true;
  return false;
}

namespace {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(std::string("MPI: ") + what + " failed: " + std::string(text, std::size_t(len)));
}

class WorldCommunicator final : public Communicator {
 public:
  int rank() const override {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
  }
  int size() const override {
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
  }

  std::vector<std::string> gather(const std::string& mine) override {
    const int R = size(), me = rank();
    // Sizes first, 64-bit, then the bytes in one MPI_Gatherv, whose counts are int.
    std::uint64_t n = mine.size();
    std::vector<std::uint64_t> sizes(me == 0 ? std::size_t(R) : 0);
    check(MPI_Gather(&n, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD),
          "gather of the result sizes");
    std::vector<int> counts, displs;
    std::string all;
    bool too_big = false;
    if (me == 0) {
      std::uint64_t total = 0;
      for (std::uint64_t s : sizes) {
        too_big = too_big || s > std::uint64_t(INT_MAX);
        displs.push_back(int(std::min<std::uint64_t>(total, INT_MAX)));
        counts.push_back(int(std::min<std::uint64_t>(s, INT_MAX)));
        total += s;
      }
      too_big = too_big || total > std::uint64_t(INT_MAX);
      if (!too_big) all.resize(total);
    }
    // Every rank must learn whether the gather is possible before taking part in it.
    int big = too_big ? 1 : 0;
    check(MPI_Bcast(&big, 1, MPI_INT, 0, MPI_COMM_WORLD), "broadcast");
    if (big)
      throw Error(
          "MPI: the ranks' results are larger than 2 GiB together: use more ranks or a "
          "smaller run (one message holds at most 2^31 - 1 bytes)");
    check(MPI_Gatherv(mine.data(), int(mine.size()), MPI_BYTE, all.data(), counts.data(),
                      displs.data(), MPI_BYTE, 0, MPI_COMM_WORLD),
          "gather of the results");
    std::vector<std::string> out;
    if (me == 0)
      for (int r = 0; r < R; ++r)
        out.push_back(
            all.substr(std::size_t(displs[std::size_t(r)]), std::size_t(counts[std::size_t(r)])));
    return out;
  }

  void start_sum(const std::vector<double>& v) override {
    send_ = v;
    recv_.assign(v.size(), 0.0);
    check(MPI_Iallreduce(send_.data(), recv_.data(), int(v.size()), MPI_DOUBLE, MPI_SUM,
                         MPI_COMM_WORLD, &request_),
          "progress exchange");
  }

  bool test_sum(std::vector<double>& out) override {
    int flag = 0;
    check(MPI_Test(&request_, &flag, MPI_STATUS_IGNORE), "progress exchange");
    if (flag) out = recv_;
    return flag != 0;
  }

  std::vector<double> reduce_sum(const std::vector<double>& v) override {
    const bool root = rank() == 0;
    std::vector<double> out(root ? v.size() : 0);
    // MPI_Reduce in pieces of at most 2^28 doubles, since counts are int.
    constexpr std::size_t kPiece = std::size_t(1) << 28;
    for (std::size_t at = 0; at < v.size(); at += kPiece) {
      const int n = int(std::min(kPiece, v.size() - at));
      check(MPI_Reduce(v.data() + at, root ? out.data() + at : nullptr, n, MPI_DOUBLE, MPI_SUM, 0,
                       MPI_COMM_WORLD),
            "reduction of the partial sums");
    }
    return out;
  }

 private:
  std::vector<double> send_, recv_;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

}  // namespace

Job::Job() = default;

std::unique_ptr<Job> Job::join() {
  // Open MPI aborts inside MPI_Init, with its own pages of text, on ranks it cannot reach.
  if (const std::string why = slurm_pmi_refusal(mpi_library(), mpi_takes_slurm_pmi()); !why.empty())
    throw LaunchRefused(why);
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  std::unique_ptr<Job> j(new Job());
  // Errors return as codes, which check() turns into simscope::Error, rather than aborting.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  j->world_ = std::make_unique<WorldCommunicator>();
  MPI_Comm local;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local),
        "MPI_Comm_split_type");
  MPI_Comm_rank(local, &j->local_rank_);
  MPI_Comm_size(local, &j->local_size_);
  MPI_Comm_free(&local);
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  j->host_.assign(name, std::size_t(len));
  j->agree_on_isa_level();
  return j;
}

void Job::agree_on_isa_level() {
  // Every rank runs the CPU kernels at the lowest level among the ranks (core/isa.hpp), so that
  // a run split across a cluster of mixed CPUs computes as one process on its oldest node would.
  // A rank that cannot choose one (a bad SIMSCOPE_ISA) counts as level -1: every rank then stops
  // with that rank's message, which rank 0 prints.
  struct {
    int level, rank;
  } mine{-1, world_->rank()}, lowest{-1, 0};
  std::string why;
  try {
    mine.level = int(isa_level());
  } catch (const Error& e) {
    why = e.what();
  }
  check(MPI_Allreduce(&mine, &lowest, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD), "MPI_Allreduce");
  char text[512] = {};
  if (world_->rank() == lowest.rank)
    std::snprintf(text, sizeof text, "%s", (mine.level < 0 ? why : isa_chosen_by()).c_str());
  check(MPI_Bcast(text, int(sizeof text), MPI_CHAR, lowest.rank, MPI_COMM_WORLD), "MPI_Bcast");
  if (lowest.level < 0)
    throw AgreedError("environment: rank " + std::to_string(lowest.rank) + ": " + text);
  if (world_->size() > 1)
    set_isa_level(IsaLevel(lowest.level), "the lowest among the " +
                                              std::to_string(world_->size()) + " ranks: rank " +
                                              std::to_string(lowest.rank) + "'s, " + text);
}

Job::~Job() { MPI_Finalize(); }

Communicator& Job::world() { return *world_; }
int Job::rank() const { return world_->rank(); }
int Job::size() const { return world_->size(); }

#else  // no MPI in this build

std::string mpi_library() { return ""; }
bool mpi_takes_slurm_pmi() { return true; }

Job::Job() = default;
std::unique_ptr<Job> Job::join() {
  throw Error(
      "this simscope was built without MPI (SIMSCOPE_MPI=OFF, or no MPI was found at "
      "configure time): it cannot split a run across the " +
      std::to_string(launched_ranks()) +
      " processes the launcher started; run it without mpirun/srun, or rebuild with "
      "libopenmpi-dev installed");
}
Job::~Job() = default;
Communicator& Job::world() { return *world_; }
int Job::rank() const { return 0; }
int Job::size() const { return 1; }

#endif

}  // namespace simscope::app::mpi
