#pragma once
/// @file Parts of a source set: rows [begin, end) of a source file or of a generated set, read
/// or generated alone. Runs split by sources across ranks use them, so each rank holds only its
/// share. The whole set: field.hpp's generate_sources, load_sources and make_sources.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/range.hpp"
#include "field/field.hpp"

namespace simscope::field {

/// Whether load_source_rows(path, ...) reads only the rows asked for. True for a .npy file in
/// C or Fortran order. False for a .csv file, which is read whole, and for another extension,
/// which load_source_rows refuses as load_sources does.
bool source_rows_readable(const std::string& path);

/// The number of sources in `path`, equal to load_sources(path).size(). A .npy file is not
/// loaded: its header gets load_sources' checks of dtype (float32 or float64) and shape
/// ((P, 4) or (P, 3), P >= 1), and the file must hold all P rows; a truncated file is refused.
/// A .csv file is read whole. Throws simscope::Error as load_sources does.
std::size_t source_file_count(const std::string& path);

/// Sources [rows.begin, rows.end) of load_sources(path), bit for bit, with its checks and
/// messages; rows are numbered as in the file. rows.end may be IndexRange::kToEnd.
/// .npy: the header is checked as in source_file_count, on the whole file; then only those rows
/// are read and converted in chunks of 2^18 rows. Memory held: 16 B per source of the range
/// plus one chunk. C or Fortran order, float32 or float64, either byte order.
/// .csv: read whole, the range kept. An empty range reads and checks the header only.
/// Sets a fresh generation. Throws simscope::Error as load_sources does, and
/// "<path>: sources [b, e) asked for, the file has P" for a range beyond the file's rows.
Sources load_source_rows(const std::string& path, const IndexRange& rows);

/// Sources [rows.begin, rows.end) of generate_sources(distribution, count, half_width, seed),
/// bit for bit, generating only those. The single std::mt19937_64 stream of the whole set is
/// advanced by discard() past the draws of earlier sources. Draws per source are fixed:
/// uniform 4 (x, y, z, q); gaussian 24 for the 8 blob centres, then 6 per source (3 Box-Muller
/// normals of 2 draws); dipoles 5 per pair (centre, direction), and a range starting at a
/// pair's second member draws that pair; lattice none, positions come from the index.
/// The skip is O(first): a rank far into a very large set spends most of its set-up there
/// (tests/bench/NOTES.md "MPI"). rows.end may be IndexRange::kToEnd.
/// Throws simscope::Error as generate_sources does, and "sources [b, e) asked for,
/// sources.count is P" for a range beyond count.
Sources generate_source_rows(const std::string& distribution, std::size_t count, double half_width,
                             std::uint64_t seed, const IndexRange& rows);

/// The number of sources make_sources(spec) gives: source_file_count(spec.file) when a file is
/// set, else spec.count, checked as generate_sources checks it with the other generator
/// settings. Throws simscope::Error as those do.
std::size_t source_count(const SourceSpec& spec);

/// Sources [rows.begin, rows.end) of make_sources(spec): load_source_rows(spec.file, rows) or
/// generate_source_rows(spec.distribution, spec.count, spec.half_width, spec.seed, rows). Throws
/// simscope::Error as those do.
Sources make_source_rows(const SourceSpec& spec, const IndexRange& rows);

}  // namespace simscope::field
