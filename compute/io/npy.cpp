/// @file .npy reader and writer.
///
/// Format (numpy/lib/format.py; NEP 1 "A Simple File Format for NumPy Arrays"):
///   6 bytes  magic "\x93NUMPY"
///   2 bytes  format version major, minor (1.0, 2.0 or 3.0)
///   2 bytes  (v1.0) or 4 bytes (v2.0, v3.0) little-endian header length HLEN
///   HLEN     header: a Python dict literal {'descr': '<f8', 'fortran_order': False,
///            'shape': (3, 4), } padded with spaces and ended by '\n'; latin-1 in v1/v2,
///            utf-8 in v3; encoding matters only for structured-dtype field names, refused here
///   data     product(shape) * itemsize bytes, C or Fortran order, byte order from 'descr'
#include "io/npy.hpp"

#include "io/atomic_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <system_error>

#include "core/error.hpp"
#include "core/shape_text.hpp"

namespace simscope::io {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(path + ": " + what);
}

/// Header text for a one-line message: at most 40 characters, non-printable bytes as '?'.
std::string printable(const std::string& s) {
  std::string out = s.substr(0, 40);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return s.size() > 40 ? out + "..." : out;
}

std::size_t itemsize(DType t) {
  switch (t) {
    case DType::Float32:
      return 4;
    case DType::Float64:
      return 8;
    case DType::Int32:
      return 4;
    case DType::Int64:
      return 8;
    case DType::UInt8:
      return 1;
  }
  return 0;
}

/// Little-endian dtype string as written into headers.
const char* descr_of(DType t) {
  switch (t) {
    case DType::Float32:
      return "<f4";
    case DType::Float64:
      return "<f8";
    case DType::Int32:
      return "<i4";
    case DType::Int64:
      return "<i8";
    case DType::UInt8:
      return "|u1";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Header dict parser for the subset of Python literals numpy writes: strings, True/False/None,
// integers, tuples and lists. Enough to recognise and refuse structured dtypes, whose descr is
// a list.

struct Value {
  enum Kind { Str, Int, Bool, None, Seq } kind = None;
  std::string str;
  std::uint64_t num = 0;  // Int (non-negative; shapes never are negative)
  bool neg = false;       // Int was negative
  bool overflow = false;  // Int did not fit in 64 bits
  bool flag = false;      // Bool
  bool is_list = false;   // Seq: [..] rather than (..)
  std::vector<Value> items;
};

class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& path) : s_(text), path_(path) {}

  /// Parses the whole header into key -> value pairs.
  std::vector<std::pair<std::string, Value>> parse_dict() {
    std::vector<std::pair<std::string, Value>> out;
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') break;
      Value key = parse_value();
      if (key.kind != Value::Str) bad("dict key is not a string");
      expect(':');
      out.emplace_back(key.str, parse_value());
      skip_ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() != '}') bad("expected ',' or '}'");
    }
    ++i_;
    skip_ws();
    if (i_ != s_.size()) bad("unexpected text after the dict");
    return out;
  }

 private:
  [[noreturn]] void bad(const std::string& why) {
    fail(path_, "malformed .npy header (" + why + " at offset " + std::to_string(i_) +
                    "); expected a dict like {'descr': '<f8', 'fortran_order': False, "
                    "'shape': (3, 4)}");
  }
  void skip_ws() {
    while (i_ < s_.size() &&
           (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\0'))
      ++i_;
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    skip_ws();
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++i_;
  }

  Value parse_value(int depth = 0) {
    if (depth > 16) bad("nesting too deep");
    skip_ws();
    Value v;
    char c = peek();
    if (c == '\'' || c == '"') {
      v.kind = Value::Str;
      ++i_;
      while (i_ < s_.size() && s_[i_] != c) {
        if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
        v.str += s_[i_++];
      }
      if (i_ >= s_.size()) bad("unterminated string");
      ++i_;
    } else if (c == '(' || c == '[') {
      const char close = c == '(' ? ')' : ']';
      v.kind = Value::Seq;
      v.is_list = c == '[';
      ++i_;
      while (true) {
        skip_ws();
        if (peek() == close) break;
        v.items.push_back(parse_value(depth + 1));
        skip_ws();
        if (peek() == ',') {
          ++i_;
          continue;
        }
        if (peek() != close) bad(std::string("expected ',' or '") + close + "'");
      }
      ++i_;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = Value::Int;
      if (c == '-') {
        v.neg = true;
        ++i_;
      }
      if (!(peek() >= '0' && peek() <= '9')) bad("expected a digit");
      while (peek() >= '0' && peek() <= '9') {
        const unsigned d = static_cast<unsigned>(peek() - '0');
        if (v.num > (std::numeric_limits<std::uint64_t>::max() - d) / 10) v.overflow = true;
        v.num = v.num * 10 + d;
        ++i_;
      }
      if (peek() == 'L' || peek() == 'l') ++i_;  // Python 2 long suffix, e.g. (5L,)
    } else {
      std::string word;
      while ((peek() >= 'a' && peek() <= 'z') || (peek() >= 'A' && peek() <= 'Z')) word += s_[i_++];
      if (word == "True" || word == "False") {
        v.kind = Value::Bool;
        v.flag = word == "True";
      } else if (word == "None") {
        v.kind = Value::None;
      } else {
        bad(word.empty() ? "unexpected character" : "unknown word '" + printable(word) + "'");
      }
    }
    return v;
  }

  const std::string& s_;
  const std::string& path_;
  std::size_t i_ = 0;
};

/// numpy's name for a dtype kind and size, for messages about refused dtypes.
std::string numpy_name(char kind, std::size_t size, const std::string& rest) {
  const std::string n = std::to_string(size);
  const bool timed = kind == 'M' || kind == 'm';
  if ((size == 0 && kind != 'O') || (!rest.empty() && !(timed && rest.front() == '[')))
    return "unknown";
  switch (kind) {
    case 'b':
      return size == 1 ? "bool" : "bool" + n;
    case 'i':
      return "int" + std::to_string(size * 8);
    case 'u':
      return "uint" + std::to_string(size * 8);
    case 'f':
      return "float" + std::to_string(size * 8);
    case 'c':
      return "complex" + std::to_string(size * 8);
    case 'O':
      return "object";
    case 'U':
      return "str" + std::to_string(size * 32);
    case 'S':
    case 'a':
      return "bytes" + std::to_string(size * 8);
    case 'V':
      return "void" + std::to_string(size * 8);
    case 'M':
      return "datetime64" + printable(rest);
    case 'm':
      return "timedelta64" + printable(rest);
    default:
      return "unknown";
  }
}

struct Descr {
  DType dtype;
  bool swap;  ///< stored byte order differs from the native one
};

/// Parses a simple descr such as '<f8', '>i4', '|u1', '=f4' or 'f4'.
/// `expected` names what the caller's input accepts, for the message when the dtype is refused.
Descr parse_descr(const std::string& d, const std::string& path, const std::string& expected) {
  std::size_t i = 0;
  char order = '=';
  if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) order = d[i++];
  const char kind = i < d.size() ? d[i++] : '\0';
  std::size_t size = 0, j = i;
  while (j < d.size() && d[j] >= '0' && d[j] <= '9' && size < 1000000)
    size = size * 10 + (d[j++] - '0');
  const std::string rest = d.substr(j);
  const bool little_native = std::endian::native == std::endian::little;
  const bool swap = (order == '<' && !little_native) || (order == '>' && little_native);

  std::optional<DType> t;
  if (rest.empty()) {
    if (kind == 'f' && size == 4) t = DType::Float32;
    if (kind == 'f' && size == 8) t = DType::Float64;
    if (kind == 'i' && size == 4) t = DType::Int32;
    if (kind == 'i' && size == 8) t = DType::Int64;
    if (kind == 'u' && size == 1) t = DType::UInt8;
    if (kind == 'b' && size == 1) t = DType::UInt8;  // numpy's bool: one byte, 0 or 1
  }
  if (!t) {
    const std::string name = numpy_name(kind, size, rest);
    fail(path, (name == "unknown" ? "unrecognised dtype '" + printable(d) + "'"
                                  : "unsupported dtype '" + name + "' (" + printable(d) + ")") +
                   "; expected " + expected);
  }
  return {*t, swap && size > 1};
}

/// Reverses the bytes of each `size`-byte element in place.
void byteswap(std::uint8_t* p, std::size_t n_elems, std::size_t size) {
  for (std::size_t e = 0; e < n_elems; ++e, p += size) std::reverse(p, p + size);
}

/// Converts Fortran order (column-major) to C order (row-major), for any number of dims.
std::vector<std::uint8_t> fortran_to_c(const std::vector<std::uint8_t>& src,
                                       const std::vector<std::size_t>& shape, std::size_t size) {
  const std::size_t nd = shape.size();
  std::vector<std::size_t> fstride(nd), idx(nd, 0);  // element strides of the Fortran layout
  std::size_t s = 1;
  for (std::size_t k = 0; k < nd; ++k) {
    fstride[k] = s;
    s *= shape[k];
  }
  std::vector<std::uint8_t> dst(src.size());
  const std::size_t n = src.size() / size;
  std::size_t f = 0;  // Fortran offset of C element c
  for (std::size_t c = 0; c < n; ++c) {
    std::memcpy(dst.data() + c * size, src.data() + f * size, size);
    // Advance the C multi-index, last axis fastest, keeping f in step.
    for (std::size_t k = nd; k-- > 0;) {
      if (++idx[k] < shape[k]) {
        f += fstride[k];
        break;
      }
      f -= (shape[k] - 1) * fstride[k];
      idx[k] = 0;
    }
  }
  return dst;
}

std::string errno_text() { return std::strerror(errno); }

/// Writes the header and the little-endian C-order data through an AtomicFile.
/// A failed write never leaves a partial target.
void write_impl(const std::string& path, const void* data, DType t,
                const std::vector<std::size_t>& shape, bool durable) {
  std::size_t count = 1;
  bool overflow = false;
  for (std::size_t d : shape) {  // count * itemsize must fit in size_t
    if (d != 0 && count > std::numeric_limits<std::size_t>::max() / itemsize(t) / d)
      overflow = true;
    count *= d;
  }
  const bool empty = std::find(shape.begin(), shape.end(), std::size_t{0}) != shape.end();
  if (overflow && !empty)
    fail(path, "cannot write: shape " + simscope::shape_text(shape) + " is too large");
  if (count > 0 && data == nullptr) fail(path, "cannot write: no data given for a non-empty shape");
  const std::size_t nbytes = count * itemsize(t);

  std::string header = std::string("{'descr': '") + descr_of(t) + "', 'fortran_order': False, " +
                       "'shape': " + simscope::shape_text(shape) + ", }";
  // Pad with spaces so that magic(6) + version(2) + length(2) + header + '\n' is a multiple of 64.
  const std::size_t unpadded = kMagicLen + 2 + 2 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 65535) fail(path, "cannot write: .npy header too long for format 1.0");

  std::string prefix(kMagic, kMagicLen);
  prefix += '\x01';
  prefix += '\x00';
  prefix += static_cast<char>(header.size() & 0xff);
  prefix += static_cast<char>(header.size() >> 8);

  // Data must be little-endian; swap a copy on big-endian hosts.
  std::vector<std::uint8_t> swapped;
  const void* bytes = data;
  if (std::endian::native != std::endian::little && itemsize(t) > 1) {
    swapped.assign(static_cast<const std::uint8_t*>(data),
                   static_cast<const std::uint8_t*>(data) + nbytes);
    byteswap(swapped.data(), count, itemsize(t));
    bytes = swapped.data();
  }

  AtomicFile f(path, "", durable);
  if (std::fwrite(prefix.data(), 1, prefix.size(), f.file()) == prefix.size() &&
      std::fwrite(header.data(), 1, header.size(), f.file()) == header.size() && nbytes > 0)
    std::fwrite(bytes, 1, nbytes, f.file());
  f.commit();  // a short write shows as the stream's error there
}

}  // namespace

std::size_t NpyArray::size() const {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

std::vector<double> NpyArray::to_double() const {
  const std::size_t n = size();
  std::vector<double> out(n);
  const std::uint8_t* p = data.data();
  for (std::size_t i = 0; i < n; ++i) {
    switch (dtype) {
      case DType::Float32: {
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        out[i] = v;
        break;
      }
      case DType::Float64: {
        double v;
        std::memcpy(&v, p + 8 * i, 8);
        out[i] = v;
        break;
      }
      case DType::Int32: {
        std::int32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        out[i] = v;
        break;
      }
      case DType::Int64: {
        std::int64_t v;
        std::memcpy(&v, p + 8 * i, 8);
        out[i] = double(v);
        break;
      }
      case DType::UInt8:
        out[i] = p[i];
        break;
    }
  }
  return out;
}

std::string NpyArray::shape_text() const { return simscope::shape_text(shape); }

namespace {

std::string expected_dtypes(const std::string& accepted) {
  return accepted.empty() ? std::string("float32, float64, int32, int64 or uint8") : accepted;
}

/// Opens `path` and reads and checks its header as read_npy_header() does. `in` is left open.
/// `count` receives the number of elements.
NpyHeader open_npy(const std::string& path, const std::string& expected, std::ifstream& in,
                   std::uint64_t& count) {
  in.open(path, std::ios::binary);
  if (!in) fail(path, "cannot open (" + errno_text() + ")");
  std::error_code ec;
  const auto fsize = std::filesystem::file_size(path, ec);
  if (ec) fail(path, "cannot open (" + ec.message() + ")");
  if (fsize == 0) fail(path, "empty file; expected a .npy file");

  // Prefix: magic, version, header length.
  unsigned char pre[12] = {};
  in.read(reinterpret_cast<char*>(pre), std::min<std::uintmax_t>(fsize, sizeof pre));
  if (fsize < kMagicLen || std::memcmp(pre, kMagic, kMagicLen) != 0)
    fail(path, "not a .npy file (missing the \\x93NUMPY magic)");
  if (fsize < 8)
    fail(path, "truncated .npy header (file has only " + std::to_string(fsize) + " bytes)");
  const int major = pre[6], minor = pre[7];
  if (major < 1 || major > 3 || minor != 0)
    fail(path, "unsupported .npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + "; expected 1.0, 2.0 or 3.0");
  const std::size_t lenbytes = major == 1 ? 2 : 4;
  const std::size_t prefix = 8 + lenbytes;
  if (fsize < prefix)
    fail(path, "truncated .npy header (file has only " + std::to_string(fsize) + " bytes)");
  std::uint64_t hlen = pre[8] | (std::uint64_t(pre[9]) << 8);
  if (lenbytes == 4) hlen |= (std::uint64_t(pre[10]) << 16) | (std::uint64_t(pre[11]) << 24);
  if (hlen == 0)
    fail(path, "empty .npy header; expected a dict with 'descr', 'fortran_order', 'shape'");
  if (hlen > fsize - prefix)
    fail(path, "truncated .npy header: it says " + std::to_string(hlen) + " bytes, file has " +
                   std::to_string(fsize - prefix) + " after the prefix");

  std::string header(hlen, '\0');
  in.clear();  // the prefix read may have hit EOF on a tiny file
  in.seekg(static_cast<std::streamoff>(prefix));
  in.read(header.data(), static_cast<std::streamsize>(hlen));
  if (!in) fail(path, "cannot read the .npy header (" + errno_text() + ")");

  // Header dict.
  const Value *descr = nullptr, *fortran = nullptr, *shape = nullptr;
  HeaderParser parser(header, path);
  const auto dict = parser.parse_dict();
  for (const auto& [k, v] : dict) {
    if (k == "descr") descr = &v;
    if (k == "fortran_order") fortran = &v;
    if (k == "shape") shape = &v;
  }
  if (!descr || !fortran || !shape)
    fail(path, std::string(".npy header lacks '") +
                   (!descr     ? "descr"
                    : !fortran ? "fortran_order"
                               : "shape") +
                   "'; expected keys 'descr', 'fortran_order' and 'shape'");
  if (descr->kind == Value::Seq)
    fail(path,
         "unsupported structured dtype (record fields); expected a plain array of " + expected);
  if (descr->kind != Value::Str) fail(path, ".npy header 'descr' is not a string");
  if (fortran->kind != Value::Bool) fail(path, ".npy header 'fortran_order' is not True or False");
  if (shape->kind != Value::Seq || shape->is_list)
    fail(path, ".npy header 'shape' is not a tuple of integers");

  NpyHeader h;
  const Descr d = parse_descr(descr->str, path, expected);
  h.dtype = d.dtype;
  h.byteswap = d.swap;
  h.fortran_order = fortran->flag;
  h.data_offset = prefix + hlen;
  const std::size_t isz = itemsize(d.dtype);

  // Shape and byte count, checked for overflow before anything is allocated.
  count = 1;
  bool overflow = false;
  for (const Value& v : shape->items) {
    if (v.kind != Value::Int || v.neg)
      fail(path, ".npy header 'shape' holds a non-integer or negative size");
    if (v.overflow) fail(path, "corrupt .npy header: a 'shape' size does not fit in 64 bits");
    h.shape.push_back(static_cast<std::size_t>(v.num));
    if (v.num != 0 && count > std::numeric_limits<std::uint64_t>::max() / isz / v.num)
      overflow = true;
    else
      count *= v.num;
  }
  for (std::size_t dim : h.shape)
    if (dim == 0) {
      count = 0;
      overflow = false;
    }
  const std::uint64_t avail = fsize - prefix - hlen;
  if (overflow)
    fail(path, "corrupt .npy header: shape " + h.shape_text() + " overflows the addressable size");
  const std::uint64_t nbytes = count * isz;
  if (nbytes > avail)
    fail(path, "truncated: header says " + std::to_string(nbytes) + " bytes of data, file has " +
                   std::to_string(avail));
  return h;
}

/// Reads `n` bytes at `offset` of the open file `in` into `dst`.
void read_at(std::ifstream& in, const std::string& path, std::uint64_t offset, std::uint8_t* dst,
             std::uint64_t n) {
  if (n == 0) return;
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(dst), static_cast<std::streamsize>(n));
  if (!in) fail(path, "cannot read the data (" + errno_text() + ")");
}

}  // namespace

std::size_t NpyHeader::row_elements() const {
  std::size_t n = 1;
  for (std::size_t k = 1; k < shape.size(); ++k) n *= shape[k];
  return n;
}

std::string NpyHeader::shape_text() const { return simscope::shape_text(shape); }

NpyHeader read_npy_header(const std::string& path, const std::string& accepted) {
  std::ifstream in;
  std::uint64_t count = 0;
  return open_npy(path, expected_dtypes(accepted), in, count);
}

NpyArray read_npy(const std::string& path, const std::string& accepted) {
  std::ifstream in;
  std::uint64_t count = 0;
  const NpyHeader h = open_npy(path, expected_dtypes(accepted), in, count);
  const std::size_t isz = itemsize(h.dtype);
  NpyArray a;
  a.dtype = h.dtype;
  a.shape = h.shape;
  a.data.resize(static_cast<std::size_t>(count * isz));
  read_at(in, path, h.data_offset, a.data.data(), count * isz);
  if (h.byteswap) byteswap(a.data.data(), count, isz);
  if (h.fortran_order && a.shape.size() > 1) a.data = fortran_to_c(a.data, a.shape, isz);
  return a;
}

NpyArray read_npy_rows(const std::string& path, std::size_t begin, std::size_t end,
                       const std::string& accepted) {
  std::ifstream in;
  std::uint64_t count = 0;
  const NpyHeader h = open_npy(path, expected_dtypes(accepted), in, count);
  const std::size_t rows = h.shape.empty() ? 0 : h.shape[0];
  if (h.shape.empty() || begin > end || end > rows)
    fail(path, "rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                   ") asked for, the array " +
                   (h.shape.empty() ? std::string("is 0-d (no rows)")
                                    : "has " + std::to_string(rows) + " rows") +
                   " (shape " + h.shape_text() + ")");
  const std::size_t isz = itemsize(h.dtype), per_row = h.row_elements(), n = end - begin;
  NpyArray a;
  a.dtype = h.dtype;
  a.shape = h.shape;
  a.shape[0] = n;
  const std::uint64_t elems = std::uint64_t(n) * per_row;  // <= count: no overflow
  a.data.resize(static_cast<std::size_t>(elems * isz));
  if (elems == 0) return a;
  if (!h.fortran_order || h.shape.size() == 1) {
    // C order: the rows are one contiguous block.
    read_at(in, path, h.data_offset + std::uint64_t(begin) * per_row * isz, a.data.data(),
            elems * isz);
  } else {
    // Fortran order: element (i, c), with c the Fortran index of the trailing axes, lies at
    // i + rows * c. Each c holds the range's rows contiguously. Read as the Fortran layout of
    // shape (n, shape[1:]), then reorder.
    for (std::size_t c = 0; c < per_row; ++c)
      read_at(in, path, h.data_offset + (std::uint64_t(c) * rows + begin) * isz,
              a.data.data() + std::size_t(c) * n * isz, std::uint64_t(n) * isz);
  }
  if (h.byteswap) byteswap(a.data.data(), std::size_t(elems), isz);
  if (h.fortran_order && a.shape.size() > 1) a.data = fortran_to_c(a.data, a.shape, isz);
  return a;
}

void write_npy(const std::string& path, const float* data,
               const std::vector<std::size_t>& shape, bool durable) {
  write_impl(path, data, DType::Float32, shape, durable);
}
void write_npy(const std::string& path, const double* data,
               const std::vector<std::size_t>& shape, bool durable) {
  write_impl(path, data, DType::Float64, shape, durable);
}
void write_npy(const std::string& path, const std::int32_t* data,
               const std::vector<std::size_t>& shape, bool durable) {
  write_impl(path, data, DType::Int32, shape, durable);
}
void write_npy(const std::string& path, const std::uint8_t* data,
               const std::vector<std::size_t>& shape, bool durable) {
  write_impl(path, data, DType::UInt8, shape, durable);
}

}  // namespace simscope::io
