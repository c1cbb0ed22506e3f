#pragma once
/// @file Which axis a field run split across ranks cuts when the user leaves the choice to the
/// program (--mpi-split auto; FieldWorkload::choose_split).
#include <cstddef>
#include <string>

namespace simscope::app {

/// "sources" when the sources would not fit a rank's memory share (16 B each, held twice while
/// loading: 32 P B > share_bytes) or when they outnumber the targets more than kSourcesPerTarget
/// times (there the set-up that every rank repeats when split by targets, loading or generating
/// all P sources and, for the tree method, building the whole tree, outweighs each rank's share
/// of the evaluation, while the reduction moves only 32 B per target); else "targets"
/// (bit-identical to one process, 20 B per target gathered). tests/bench/NOTES.md "MPI" has the
/// figures.
constexpr double kSourcesPerTarget = 8;
std::string choose_field_split(std::size_t sources, std::size_t targets, double share_bytes);

}  // namespace simscope::app
