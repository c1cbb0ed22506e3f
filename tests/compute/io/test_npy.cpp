/// Tests of compute/io/npy: files written by numpy (every supported dtype, C and Fortran order,
/// both byte orders, format versions 1.0-3.0) read back element by element; write_npy output
/// loaded and checked by numpy; malformed and unsupported files refused with clear messages.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "io/npy.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using simscope::io::DType;
using simscope::io::NpyArray;
using simscope::io::read_npy;
using simscope::io::read_npy_header;
using simscope::io::read_npy_rows;
using simscope::io::write_npy;

namespace {

fs::path tmp_dir() { return simscope::test::scratch_dir(); }

std::string tmp(const std::string& name) { return (tmp_dir() / name).string(); }

/// Runs a Python script with Debian's numpy; returns its exit status.
int run_python(const std::string& name, const std::string& script) {
  const std::string file = tmp(name + ".py");
  std::ofstream(file) << script;
  const std::string cmd = std::string(SIMSCOPE_PYTHON) + " " + file + " " + tmp_dir().string();
  return std::system(cmd.c_str());
}

/// The message of the simscope::Error that `f` throws ("" and a failure when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const simscope::Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "message is not one line: " << m;
    return m;
  }
  ADD_FAILURE() << "no simscope::Error thrown";
  return "";
}

/// Writes a .npy file by hand: magic, version, header length, `header` as is, then `data`.
void write_raw(const std::string& path, int major, const std::string& header,
               const std::string& data = "") {
  std::string s("\x93NUMPY", 6);
  s += char(major);
  s += char(0);
  const std::size_t n = header.size();
  s += char(n & 0xff);
  s += char((n >> 8) & 0xff);
  if (major > 1) {
    s += char((n >> 16) & 0xff);
    s += char((n >> 24) & 0xff);
  }
  std::ofstream(path, std::ios::binary) << s << header << data;
}

/// Expected value of flat C-order element i, per dtype; the same formulas as `ref()` in Python.
double expected(const std::string& dt, std::int64_t i) {
  if (dt == "f4") return double(float(double(i - 10) / 3.0));
  if (dt == "f8") return double(i - 10) / 3.0;
  if (dt == "i4") return double(i * 100003 - 5000000);
  if (dt == "i8") return double(i * 3000000007LL - (1LL << 40));
  return double((i * 37 + 11) % 256);  // u1
}

/// Python prelude: ref(kind, n) gives the same values as expected() above.
const char* kPyRef = R"(
import sys, os, numpy as np
D = sys.argv[1]
def ref(dt, shape):
    n = int(np.prod(shape, dtype=np.int64))
    i = np.arange(n, dtype=np.int64)
    v = {'f4': ((i - 10) / 3.0).astype(np.float32), 'f8': (i - 10) / 3.0,
         'i4': (i * 100003 - 5000000).astype(np.int32), 'i8': i * 3000000007 - 2**40,
         'u1': ((i * 37 + 11) % 256).astype(np.uint8)}[dt]
    return v.reshape(shape)
)";

struct Case {
  const char* name;
  const char* dt;  // f4 f8 i4 i8 u1
  std::vector<std::size_t> shape;
  char order;   // 'C' or 'F'
  int version;  // 1, 2, 3
  char endian;  // '<' or '>'
};

const std::vector<Case> kCases = {
    {"f4_c_v1", "f4", {3, 4}, 'C', 1, '<'},          {"f8_1d_v1", "f8", {5}, 'C', 1, '<'},
    {"i4_f_3d_v1", "i4", {2, 3, 4}, 'F', 1, '<'},    {"i8_f_be_v2", "i8", {4, 3}, 'F', 2, '>'},
    {"u1_f_v3", "u1", {6, 7}, 'F', 3, '<'},          {"f8_f_3d_be", "f8", {3, 2, 5}, 'F', 1, '>'},
    {"f4_c_be_v2", "f4", {7, 3}, 'C', 2, '>'},       {"i4_1d_be_v3", "i4", {10}, 'C', 3, '>'},
    {"f8_4d_f_v3", "f8", {2, 3, 4, 5}, 'F', 3, '<'}, {"i8_c_v1", "i8", {3, 1, 2}, 'C', 1, '<'},
    {"u1_c_v2", "u1", {300}, 'C', 2, '<'},           {"f8_scalar", "f8", {}, 'C', 1, '<'},
    {"f4_empty", "f4", {0, 3}, 'C', 1, '<'},         {"f4_f_be_v3", "f4", {5, 4, 3}, 'F', 3, '>'},
};

std::string py_tuple(const std::vector<std::size_t>& s) {
  std::string t = "(";
  for (auto d : s) t += std::to_string(d) + ",";
  return t + ")";
}

DType dtype_of(const std::string& dt) {
  if (dt == "f4") return DType::Float32;
  if (dt == "f8") return DType::Float64;
  if (dt == "i4") return DType::Int32;
  if (dt == "i8") return DType::Int64;
  return DType::UInt8;
}

class NpyRead : public ::testing::Test {
 protected:
  /// Generates every case file (and the bad inputs) with numpy, once for the suite.
  static void SetUpTestSuite() {
    std::string py = kPyRef;
    py += R"(
def gen(name, dt, shape, order, version, endian):
    a = ref(dt, shape)
    if endian == '>':
        a = a.astype(a.dtype.newbyteorder('>'))
    if order == 'F':
        a = np.asfortranarray(a)
        assert a.ndim < 2 or (a.flags.f_contiguous and not a.flags.c_contiguous)
    with open(os.path.join(D, name + '.npy'), 'wb') as f:
        np.lib.format.write_array(f, a, version=(version, 0))
)";
    for (const Case& c : kCases)
      py += std::string("gen('") + c.name + "', '" + c.dt + "', " + py_tuple(c.shape) + ", '" +
            c.order + "', " + std::to_string(c.version) + ", '" + c.endian + "')\n";
    py += R"(
P = lambda n: os.path.join(D, n)
np.save(P('bad_int8.npy'), np.arange(5, dtype=np.int8))
np.save(P('bad_object.npy'), np.array([1, 'a', None], dtype=object), allow_pickle=True)
np.save(P('bad_complex.npy'), np.arange(4) * (1 + 2j))
np.save(P('bad_unicode.npy'), np.array(['ab', 'cde']))
np.save(P('bad_struct.npy'), np.zeros(3, dtype=[('x', '<f4'), ('y', '<i4')]))
np.save(P('bad_float16.npy'), np.zeros(3, dtype=np.float16))
np.save(P('bool.npy'), np.array([True, False, True, True]))
np.save(P('trunc.npy'), np.arange(150, dtype=np.float64))   # 1200 bytes of data
raw = open(P('trunc.npy'), 'rb').read()
open(P('trunc.npy'), 'wb').write(raw[:len(raw) - 1200 + 37])
open(P('trunc_header.npy'), 'wb').write(raw[:40])
open(P('empty.npy'), 'wb').close()
open(P('garbage.npy'), 'wb').write(b'PK\x03\x04 this is not a numpy file at all')
)";
    ASSERT_EQ(run_python("gen_npy", py), 0) << "numpy failed to generate the test files";
  }
};

TEST_F(NpyRead, EveryDtypeOrderEndianAndVersion) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const NpyArray a = read_npy(tmp(std::string(c.name) + ".npy"));
    EXPECT_EQ(a.dtype, dtype_of(c.dt));
    EXPECT_EQ(a.shape, c.shape);
    std::size_t n = 1;
    for (auto d : c.shape) n *= d;
    ASSERT_EQ(a.size(), n);
    const std::vector<double> v = a.to_double();
    ASSERT_EQ(v.size(), n);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(v[i], expected(c.dt, std::int64_t(i))) << "element " << i;
  }
}

TEST_F(NpyRead, RawDataIsNativeCOrder) {
  // to_double() aside, the bytes themselves are native endian, C order.
  const NpyArray a = read_npy(tmp("i8_f_be_v2.npy"));  // (4, 3), Fortran, big endian
  ASSERT_EQ(a.data.size(), 12u * 8u);
  for (std::size_t i = 0; i < 12; ++i) {
    std::int64_t v;
    std::memcpy(&v, a.data.data() + 8 * i, 8);
    EXPECT_EQ(v, std::int64_t(i) * 3000000007LL - (1LL << 40));
  }
  EXPECT_EQ(a.shape_text(), "(4, 3)");
  EXPECT_EQ(read_npy(tmp("f8_1d_v1.npy")).shape_text(), "(5,)");
  EXPECT_EQ(read_npy(tmp("f8_scalar.npy")).shape_text(), "()");
  EXPECT_STREQ(simscope::io::to_string(a.dtype), "int64");
}

TEST_F(NpyRead, BoolReadsAsUint8ZeroOne) {
  const NpyArray a = read_npy(tmp("bool.npy"));
  EXPECT_EQ(a.dtype, simscope::io::DType::UInt8);
  EXPECT_EQ(a.data, (std::vector<std::uint8_t>{1, 0, 1, 1}));
}

TEST_F(NpyRead, UnsupportedDtypesAreNamed) {
  struct Bad {
    const char* file;
    const char* words;
  };
  for (const Bad& b : {Bad{"bad_int8.npy", "'int8' (|i1)"}, Bad{"bad_object.npy", "'object'"},
                       Bad{"bad_complex.npy", "'complex128' (<c16)"}, Bad{"bad_unicode.npy", "<U3"},
                       Bad{"bad_struct.npy", "structured"}, Bad{"bad_float16.npy", "'float16'"}}) {
    const std::string m = error_of([&] { read_npy(tmp(b.file)); });
    EXPECT_NE(m.find(b.file), std::string::npos) << m;
    EXPECT_NE(m.find(b.words), std::string::npos) << m;
    EXPECT_NE(m.find("expected"), std::string::npos) << m;
  }
}

TEST_F(NpyRead, BrokenFilesGiveClearMessages) {
  struct Bad {
    const char* file;
    const char* words;
  };
  for (const Bad& b :
       {Bad{"trunc.npy", "truncated: header says 1200 bytes of data, file has 37"},
        Bad{"trunc_header.npy", "truncated .npy header"}, Bad{"empty.npy", "empty file"},
        Bad{"garbage.npy", "not a .npy file"}, Bad{"does_not_exist.npy", "cannot open"}}) {
    const std::string m = error_of([&] { read_npy(tmp(b.file)); });
    EXPECT_NE(m.find(b.file), std::string::npos) << m;
    EXPECT_NE(m.find(b.words), std::string::npos) << m;
  }
}

// Rows [b, e) of every case file with rows (any dtype, C or Fortran order, 1-D to 4-D, both
// byte orders, versions 1-3): the values numpy wrote (expected(): flat C index
// (b + i) * row + j), shape (e - b, shape[1:]); the header alone as numpy wrote it.
TEST_F(NpyRead, RowRangesOfEveryCase) {
  for (const Case& c : kCases) {
    if (c.shape.empty()) continue;
    SCOPED_TRACE(c.name);
    const std::string f = tmp(std::string(c.name) + ".npy");
    const simscope::io::NpyHeader h = read_npy_header(f);
    EXPECT_EQ(h.dtype, dtype_of(c.dt));
    EXPECT_EQ(h.shape, c.shape);
    EXPECT_EQ(h.fortran_order, c.order == 'F' && c.shape.size() > 1);
    EXPECT_EQ(h.byteswap, c.endian == '>' && std::string(c.dt) != "u1");
    std::size_t row = 1;
    for (std::size_t k = 1; k < c.shape.size(); ++k) row *= c.shape[k];
    EXPECT_EQ(h.row_elements(), row);
    const std::size_t P = c.shape[0];
    for (const auto& [b, e] : std::vector<std::pair<std::size_t, std::size_t>>{
             {0, P}, {0, P / 2}, {P / 2, P}, {P / 3, P / 3 + 1}, {1, P > 2 ? P - 1 : P}, {P, P}}) {
      if (b > e || e > P) continue;
      SCOPED_TRACE("rows " + std::to_string(b) + ".." + std::to_string(e));
      const NpyArray a = read_npy_rows(f, b, e);
      std::vector<std::size_t> shape = c.shape;
      shape[0] = e - b;
      EXPECT_EQ(a.shape, shape);
      const std::vector<double> v = a.to_double();
      ASSERT_EQ(v.size(), (e - b) * row);
      for (std::size_t i = 0; i < v.size(); ++i)
        ASSERT_EQ(v[i], expected(c.dt, std::int64_t(b * row + i))) << "element " << i;
    }
  }
}

// A range beyond the rows, a 0-d array, and the whole file's truncation (seen from the header
// and the file size by any range, an empty one too): one line naming the file.
TEST_F(NpyRead, RowRangeErrors) {
  struct Bad {
    std::string file;
    std::size_t b, e;
    const char* words;
  };
  for (const Bad& b :
       {Bad{"f4_c_v1.npy", 2, 4, "rows [2, 4) asked for, the array has 3 rows"},
        Bad{"f4_c_v1.npy", 2, 1, "rows [2, 1) asked for"},
        Bad{"f8_scalar.npy", 0, 1, "is 0-d (no rows)"},
        Bad{"trunc.npy", 0, 0, "truncated: header says 1200 bytes of data"},
        Bad{"trunc.npy", 0, 4, "truncated: header says 1200 bytes of data"},
        Bad{"garbage.npy", 0, 1, "not a .npy file"}, Bad{"bad_int8.npy", 0, 1, "'int8'"}}) {
    const std::string m = error_of([&] { read_npy_rows(tmp(b.file), b.b, b.e); });
    EXPECT_NE(m.find(b.file), std::string::npos) << m;
    EXPECT_NE(m.find(b.words), std::string::npos) << m;
  }
  const std::string m = error_of([&] { read_npy_header(tmp("trunc.npy")); });
  EXPECT_NE(m.find("truncated: header says 1200 bytes of data, file has 37"), std::string::npos)
      << m;
}

TEST(NpyHeader, DictInAnyOrderWithOrWithoutTrailingComma) {
  std::string data;
  for (std::int32_t v : {1, -2, 3, 4, 5, 6}) data.append(reinterpret_cast<char*>(&v), 4);
  const char* headers[] = {
      "{'shape': (2, 3), 'fortran_order': False, 'descr': '<i4'}\n",
      "{\"fortran_order\": False, \"descr\": \"=i4\", \"shape\": (2,3,),}   \n",
      "{ 'descr' : 'i4' ,'shape':(2 , 3),'fortran_order':False }",
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }\n",  // Python 2 longs
  };
  for (const char* h : headers) {
    SCOPED_TRACE(h);
    write_raw(tmp("hdr.npy"), 1, h, data);
    const NpyArray a = read_npy(tmp("hdr.npy"));
    EXPECT_EQ(a.dtype, DType::Int32);
    EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(a.to_double(), (std::vector<double>{1, -2, 3, 4, 5, 6}));
  }
  // Fortran order with '|u1': column-major bytes become row-major.
  write_raw(tmp("hdr.npy"), 2, "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3)}\n",
            std::string("\x01\x04\x02\x05\x03\x06", 6));
  EXPECT_EQ(read_npy(tmp("hdr.npy")).to_double(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(NpyHeader, MalformedHeadersAndHugeShapes) {
  struct Bad {
    const char* header;
    int version;
    const char* words;
  };
  const Bad bads[] = {
      {"", 1, "empty .npy header"},
      {"{'descr': '<f8', 'fortran_order': False}\n", 1, "lacks 'shape'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4}\n", 1, "malformed .npy header"},
      {"{'descr': '<f8', 'fortran_order': maybe, 'shape': (3,)}\n", 1, "unknown word 'maybe'"},
      {"{'descr': '<f8', 'fortran_order': 0, 'shape': (3,)}\n", 1, "'fortran_order'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (-3,)}\n", 1, "negative"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': [3]}\n", 1, "'shape' is not a tuple"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,)}\n", 1,
       "truncated: header says 8000000000000 bytes of data, file has 0"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}\n", 2,
       "overflows"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,)}\n", 3,
       "does not fit"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}\n", 4, "version 4.0"},
      {"{'descr': '<f)8', 'fortran_order': False, 'shape': (3,)}\n", 1,
       "unrecognised dtype '<f)8'"},
      {"{'descr': [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]], 'fortran_order': False}\n", 1,
       "nesting too deep"},
  };
  for (const Bad& b : bads) {
    SCOPED_TRACE(b.header);
    write_raw(tmp("bad_hdr.npy"), b.version, b.header);
    const std::string m = error_of([] { read_npy(tmp("bad_hdr.npy")); });
    EXPECT_NE(m.find("bad_hdr.npy"), std::string::npos) << m;
    EXPECT_NE(m.find(b.words), std::string::npos) << m;
  }
  // A header length pointing past the end of the file.
  std::ofstream(tmp("bad_len.npy"), std::ios::binary)
      << std::string("\x93NUMPY\x01\x00\xff\x7f{}", 12);
  EXPECT_NE(error_of([] { read_npy(tmp("bad_len.npy")); }).find("truncated .npy header"),
            std::string::npos);
}

TEST(NpyWrite, NumpyReadsWhatWeWrite) {
  auto fill = [](const std::string& dt, std::size_t n, auto* out) {
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<std::remove_pointer_t<decltype(out)>>(expected(dt, std::int64_t(i)));
  };
  std::vector<float> f(3 * 4);
  std::vector<double> d(2 * 3 * 4), d1(5), s(1);
  std::vector<std::int32_t> i4(2 * 2);
  std::vector<std::uint8_t> u1(300);
  fill("f4", f.size(), f.data());
  fill("f8", d.size(), d.data());
  fill("f8", d1.size(), d1.data());
  fill("f8", 1, s.data());
  fill("i4", i4.size(), i4.data());
  fill("u1", u1.size(), u1.data());
  write_npy(tmp("w_f4.npy"), f.data(), {3, 4});
  write_npy(tmp("w_f8.npy"), d.data(), {2, 3, 4});
  write_npy(tmp("w_f8_1d.npy"), d1.data(), {5});
  write_npy(tmp("w_f8_scalar.npy"), s.data(), {});
  write_npy(tmp("w_f4_empty.npy"), static_cast<const float*>(nullptr), {0, 3});
  write_npy(tmp("w_i4.npy"), i4.data(), {2, 2});
  write_npy(tmp("w_u1.npy"), u1.data(), {300});

  std::string py = kPyRef;
  py += R"(
ok = True
for name, dt, descr, shape in [('w_f4', 'f4', '<f4', (3, 4)), ('w_f8', 'f8', '<f8', (2, 3, 4)),
                               ('w_f8_1d', 'f8', '<f8', (5,)), ('w_f8_scalar', 'f8', '<f8', ()),
                               ('w_f4_empty', 'f4', '<f4', (0, 3)), ('w_i4', 'i4', '<i4', (2, 2)),
                               ('w_u1', 'u1', '|u1', (300,))]:
    path = os.path.join(D, name + '.npy')
    raw = open(path, 'rb').read()
    hlen = int.from_bytes(raw[8:10], 'little')
    hdr = raw[10:10 + hlen].decode('latin1')
    a = np.load(path)
    checks = [raw[6:8] == b'\x01\x00', (10 + hlen) % 64 == 0, hdr.endswith('\n'),
              a.dtype.str == descr, a.shape == shape, not np.isfortran(a) or a.ndim < 2,
              np.array_equal(a, ref(dt, shape)), len(raw) == 10 + hlen + a.nbytes]
    if not all(checks):
        print(name, checks, hdr)
        ok = False
sys.exit(0 if ok else 1)
)";
  EXPECT_EQ(run_python("check_written", py), 0);

  // And our reader agrees.
  const NpyArray a = read_npy(tmp("w_f8.npy"));
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3, 4}));
  EXPECT_EQ(a.to_double(), d);
}

TEST(NpyWrite, FailedWriteLeavesNoFiles) {
  // Target in a missing directory: an error naming the file.
  const std::string missing = tmp("no/such/dir/out.npy");
  double v = 1.0;
  std::string m = error_of([&] { write_npy(missing, &v, {1}); });
  EXPECT_NE(m.find("out.npy"), std::string::npos) << m;
  EXPECT_NE(m.find("cannot write"), std::string::npos) << m;

  // Target is a non-empty directory: the rename fails; neither target nor temporary changes.
  const fs::path dir = tmp_dir() / "occupied.npy";
  fs::create_directories(dir / "x");
  m = error_of([&] { write_npy(dir.string(), &v, {1}); });
  EXPECT_NE(m.find("occupied.npy"), std::string::npos) << m;
  EXPECT_TRUE(fs::is_directory(dir));
  for (const auto& e : fs::directory_iterator(tmp_dir()))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();

  // Overwriting an existing file replaces it whole.
  const std::string p = tmp("over.npy");
  std::vector<double> big(1000, 2.0);
  write_npy(p, big.data(), {1000});
  write_npy(p, &v, {1});
  EXPECT_EQ(read_npy(p).to_double(), std::vector<double>{1.0});
}

}  // namespace
