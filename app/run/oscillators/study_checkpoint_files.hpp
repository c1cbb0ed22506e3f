#pragma once
/// @file The files of a study checkpoint folder (study_checkpoint.hpp) as its readers and writers
/// share them: their names, durable writes, arrays read back with their dtype and shape checked,
/// and the (3, n) row layouts of sums and counts. Internal to the checkpoint's files.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "io/npy.hpp"
#include "oscillators/study.hpp"
#include "oscillators/study_checkpoint.hpp"

namespace simscope::app::checkpoint_files {

/// checkpoint.json's "format".
inline constexpr const char* kFormat = "simscope study checkpoint";

/// DIR/NAME (NAME alone when DIR is empty).
std::string path_in(const std::string& dir, const std::string& name);
/// "block_BBBBB.WHAT.npy": finished block b's array `what`.
std::string block_name(int b, const char* what);
/// "gGGGGGG.WHAT.npy": array `what` of generation g (the prefix's sums; version 3's files).
std::string gen_name(std::int64_t g, const char* what);
/// "block_BBBBB.WHAT": finished block b's file `what` (its "json" marker).
std::string block_file(int b, const char* what);
/// "partial_BBBBB.gGGGGGG.WHAT.npy": block b's array `what` under way at generation g;
/// "partial_BBBBB.WHAT" for g < 0 (its "json" record).
std::string partial_file(int b, std::int64_t g, const char* what);

/// DIR/NAME written whole, flushed to disk before it replaces the previous one.
template <typename T>
void write_atomic(const std::string& dir, const std::string& name, const T* data,
                  const std::vector<std::size_t>& shape) {
  io::write_npy(path_in(dir, name), data, shape, /*durable=*/true);
}
/// Writes `text` to DIR/NAME atomically: NAME.tmp, flushed, renamed. Throws Error naming it.
void write_text_atomic(const std::string& dir, const std::string& name, const std::string& text);
/// DIR/NAME as a JSON object; nothing when the file does not exist.
/// Throws Error naming the file when it is not an object.
std::optional<nlohmann::json> read_json(const std::string& dir, const std::string& name);

/// Reads a checkpoint array of dtype `dt` and shape `shape`. Throws Error naming the file.
io::NpyArray read_array(const std::string& dir, const std::string& name, io::DType dt,
                        const std::vector<std::size_t>& shape);
/// The values of a float64 array.
std::vector<double> as_doubles(const io::NpyArray& a);
/// Rows of a (3, n) fp64 array.
void rows3(const io::NpyArray& a, std::vector<double>& r0, std::vector<double>& r1,
           std::vector<double>& r2);
/// Counts held as fp64, as integers.
std::vector<std::int64_t> to_counts(const std::vector<double>& v);
/// (3, n) rows one after the other.
template <class A, class B, class C>
std::vector<double> stack3(const A& a, const B& b, const C& c) {
  std::vector<double> v;
  v.reserve(a.size() + b.size() + c.size());
  v.insert(v.end(), a.begin(), a.end());
  v.insert(v.end(), b.begin(), b.end());
  v.insert(v.end(), c.begin(), c.end());
  return v;
}
/// x[from, from + count) and y's interleaved: (count, 2).
std::vector<double> interleave(const std::vector<double>& x, const std::vector<double>& y,
                               std::size_t from, std::size_t count);
/// Appends (n, N, 2) interleaved values to x, y.
void split_state(const std::vector<double>& v, std::vector<double>& x, std::vector<double>& y);

/// Reduction groups of the block of `kb` members of a study of K (study_group_members).
std::size_t groups_of(int K, std::size_t kb);
/// The (3, ns, G) array of a block under way: its groups' sums of msd and R and their counts
/// at each sample, in (sample, group) order (Series::group_*).
std::vector<double> group_rows(const oscillators::Series& s);
/// Fills Series::group_* of a block under way from its (3, ns, G) array.
/// Also sets the block means: the groups' fold over the count. Only their length is used.
void read_group_rows(const io::NpyArray& a, std::size_t ns, std::size_t G,
                     oscillators::Series& s);

/// The header of study `p` (its parameters and input files), version and sizes left to set.
CheckpointHeader study_header(const std::string& workload, const ParamSet& p, Backend backend);
/// Writes `h` as DIR/checkpoint.json in version kCheckpointVersionWritten.
void write_block_header(const std::string& dir, const CheckpointHeader& h);
/// Writes block b's progress `sp` under way (generation g) and removes its older generations.
void write_partial(const std::string& dir, int b, std::int64_t g,
                   const oscillators::StudyProgress& sp);
/// Whether block b of the checkpoint (`dir`, header `h`) is finished: in the prefix, or marked.
bool block_finished(const std::string& dir, const CheckpointHeader& h, int b);

}  // namespace simscope::app::checkpoint_files
