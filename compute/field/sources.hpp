#pragma once
/// @file Parts of a source set: rows [begin, end) of a source file or of a generated set, read or
/// generated alone, for runs split by sources across ranks (app/run, issue 13), each rank holding
/// only its share. The whole set: field.hpp's generate_sources, load_sources and make_sources.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/range.hpp"
#include "field/field.hpp"

namespace simscope::field {

/// Whether load_source_rows(path, ...) reads only the rows asked for: true for a .npy file (C or
/// Fortran order), false for a .csv file (a text file has no index of its rows: it is read whole)
/// or another extension (which load_source_rows refuses as load_sources does).
bool source_rows_readable(const std::string& path);

/// The number of sources in `path` as load_sources(path).size() gives it, without loading them
/// from a .npy file: its header, with load_sources' checks of the dtype (float32 or float64) and
/// shape ((P, 4) or (P, 3), P >= 1), and that the file holds all P rows (a truncated file is
/// refused here). A .csv file is read whole. Throws simscope::Error as load_sources does.
std::size_t source_file_count(const std::string& path);

/// Sources [rows.begin, rows.end) of load_sources(path), bit for bit, with its checks and
/// messages (rows numbered as in the file). A .npy file: the header (source_file_count's checks,
/// on the whole file), then only those rows, read and converted in chunks of 2^18 rows, so the
/// memory held is the range's 16 B per source plus one chunk; C or Fortran order, float32 or
/// float64, either byte order. A .csv file: read whole, the range kept. An empty range reads the
/// header only (the file is still checked). rows.end may be IndexRange::kToEnd. Sets a fresh
/// generation. Throws simscope::Error as load_sources does, and "<path>: sources [b, e) asked
/// for, the file has P" for a range beyond the file's rows.
Sources load_source_rows(const std::string& path, const IndexRange& rows);

/// Sources [rows.begin, rows.end) of generate_sources(distribution, count, half_width, seed),
/// bit for bit, generating only those: the one std::mt19937_64 stream of the whole set is
/// advanced past the draws of the sources before the range (discard(), no values formed), each
/// distribution taking a fixed number of draws per source: uniform 4 (x, y, z, q); gaussian 24
/// for the 8 blob centres, then 6 per source (3 Box-Muller normals of 2 draws each); dipoles 5
/// per pair (centre, direction), a range starting at a pair's second member drawing that pair;
/// lattice none (positions from the index). The skip costs about 3 ns per draw skipped (measured:
/// 4e8 draws in 1.2 s, against 98 ns per uniform source generated), O(first) still: a rank far
/// into a very large set spends most of its set-up there (tests/bench/NOTES.md "MPI").
/// Throws simscope::Error as generate_sources does, and "sources [b, e) asked for, sources.count
/// is P" for a range beyond count. rows.end may be IndexRange::kToEnd.
Sources generate_source_rows(const std::string& distribution, std::size_t count, double half_width,
                             std::uint64_t seed, const IndexRange& rows);

/// The number of sources make_sources(spec) gives: source_file_count(spec.file) when a file is
/// set, else spec.count (checked as generate_sources checks it with the other generator
/// settings). Throws simscope::Error as those do.
std::size_t source_count(const SourceSpec& spec);

/// Sources [rows.begin, rows.end) of make_sources(spec): load_source_rows(spec.file, rows) or
/// generate_source_rows(spec.distribution, spec.count, spec.half_width, spec.seed, rows). Throws
/// simscope::Error as those do.
Sources make_source_rows(const SourceSpec& spec, const IndexRange& rows);

}  // namespace simscope::field
