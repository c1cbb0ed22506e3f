#!/usr/bin/python3
"""Writes the seed corpora of the fuzz harnesses (tests/fuzz/corpus/<harness>/): a few valid
inputs and nasty ones (truncated headers, huge claimed shapes, bad dtypes, Fortran order,
non-UTF-8, NaN/inf text, very long lines, embedded NULs, deep JSON nesting). The files are
checked in; rerun this after changing it: /usr/bin/python3 tests/fuzz/make_corpus.py"""
import io
import json
import os
import shutil
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def npy(a, **kw):
    b = io.BytesIO()
    np.lib.format.write_array(b, np.asarray(a), allow_pickle=False, **kw)
    return b.getvalue()


def raw_npy(header, data=b"", version=(1, 0)):
    """A .npy file with a hand-written header dict (padded as numpy pads it)."""
    h = header.encode("latin-1") if isinstance(header, str) else header
    lenbytes = 2 if version[0] == 1 else 4
    pad = (64 - (6 + 2 + lenbytes + len(h) + 1) % 64) % 64
    h = h + b" " * pad + b"\n"
    n = struct.pack("<H" if lenbytes == 2 else "<I", len(h))
    return b"\x93NUMPY" + bytes(version) + n + h + data


def npy_cases():
    c = {}
    c["f8_3x4"] = npy(np.arange(12.0).reshape(3, 4))
    c["f4_5"] = npy(np.linspace(-1, 1, 5, dtype=np.float32))
    c["i4_big_endian"] = npy(np.arange(6, dtype=">i4").reshape(2, 3))
    c["i8_scalar"] = npy(np.int64(7))
    c["u1_2x2x2"] = npy(np.arange(8, dtype=np.uint8).reshape(2, 2, 2))
    c["f8_fortran"] = npy(np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    c["f8_empty_0x3"] = npy(np.zeros((0, 3)))
    c["v2"] = npy(np.arange(4.0), version=(2, 0))
    c["v3"] = raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                      np.float32([1, 2]).tobytes(), (3, 0))
    c["nan_inf"] = npy(np.array([np.nan, np.inf, -np.inf, 1e308]))
    c["magic_only"] = b"\x93NUMPY"
    c["magic_version"] = b"\x93NUMPY\x01\x00"
    c["hlen_past_end"] = b"\x93NUMPY\x01\x00\xff\xff{'descr'"
    c["v2_hlen_4g"] = b"\x93NUMPY\x02\x00\xff\xff\xff\xff{}"
    c["version_4"] = raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
                             bytes(8), (4, 0))
    c["huge_shape_3e9"] = raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3000000000,), }")
    c["huge_shape_overflow"] = raw_npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }")
    c["huge_shape_with_zero"] = raw_npy(
        "{'descr': '<f8', 'fortran_order': True, 'shape': (18446744073709551615, 0, 9), }")
    c["shape_64bit_overflow"] = raw_npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }")
    c["shape_negative"] = raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }")
    c["shape_list"] = raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': [1], }", bytes(8))
    c["truncated_data"] = npy(np.arange(100.0))[:-8]
    c["dtype_complex"] = npy(np.zeros(2, dtype=np.complex128))
    c["dtype_object"] = raw_npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", bytes(8))
    c["dtype_structured"] = npy(np.zeros(2, dtype=[("a", "<f4"), ("b", "<i4")]))
    c["dtype_datetime"] = npy(np.zeros(2, dtype="M8[ns]"))
    c["dtype_str"] = npy(np.array(["ab", "cd"]))
    c["dtype_garbage"] = raw_npy("{'descr': '<f8junk', 'fortran_order': False, 'shape': (1,), }", bytes(8))
    c["fortran_not_bool"] = raw_npy("{'descr': '<f8', 'fortran_order': 1, 'shape': (1,), }", bytes(8))
    c["missing_shape"] = raw_npy("{'descr': '<f8', 'fortran_order': False}", bytes(8))
    c["header_non_utf8"] = raw_npy(b"{'descr': '<f\xff\xfe', 'fortran_order': False, 'shape': (1,), }",
                                   bytes(8))
    c["header_nul"] = raw_npy(b"{'descr': '<f8',\x00 'fortran_order': False, 'shape': (1,), }", bytes(8))
    c["deep_nesting"] = raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': " + "(" * 200
                                + ")" * 200 + ", }")
    c["unterminated_string"] = raw_npy("{'descr': '<f8")
    c["fortran_3d"] = npy(np.asfortranarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4)))
    return c


def csv_cases():
    c = {}
    c["header_rows"] = b"x,y,z,q\n0,0,0,1\n1.5,-2e3,+4,0.25\n"
    c["no_header"] = b"1,2\n3,4\n"
    c["comments_blank_crlf"] = b"# sources\r\n\r\nx, y\r\n 1 , 2 \r\n#end\r\n3,4"
    c["bom_quoted"] = b'\xef\xbb\xbf"a","b"\n"1","2"\n'
    c["nan_inf_text"] = b"a,b,c,d\nnan,inf,-inf,1e999\nNaN,INF,-Infinity,-1e-999\n"
    c["hex_and_junk"] = b"1,0x10\n2,1.5.5\n"
    c["ragged"] = b"1,2,3\n4,5\n"
    c["empty_cells"] = b"1,,3\n,,\n"
    c["only_header"] = b"x,y\n"
    c["empty"] = b""
    c["only_commas"] = b"," * 1000 + b"\n"
    c["long_line"] = (",".join(["1.25"] * 12000)).encode() + b"\n"
    c["long_cell"] = b"1" * 60000 + b"\n"
    c["embedded_nul"] = b"1,2\x00,3\n4,5,6\n"
    c["non_utf8"] = b"\xff\xfe,\xc3\x28\n1,2\n"
    c["mixed_header"] = b"x,2\n1,2\n"
    c["plus_signs"] = b"++1,+-2\n"
    return c


def edges(nodes, members, text):
    return bytes([nodes - 1, members - 1]) + text


def edge_cases():
    c = {}
    c["ring4"] = edges(4, 1, b"0 1\n1 2\n2 3\n3 0\n")
    c["weighted_commas_tabs"] = edges(5, 2, b"# i j w\n0,1,0.5\n1\t2\t2\n2 4 -1.5e-3\n")
    c["duplicate_same"] = edges(3, 1, b"0 1\n1 0\n")
    c["duplicate_other_weight"] = edges(3, 1, b"0 1 1\n1 0 2\n")
    c["self_loop"] = edges(3, 1, b"1 1\n")
    c["out_of_range"] = edges(3, 1, b"0 3\n")
    c["negative"] = edges(3, 1, b"-1 2\n")
    c["huge_index"] = edges(3, 1, b"0 99999999999999999999999\n")
    c["nan_weight"] = edges(3, 1, b"0 1 nan\n")
    c["inf_weight"] = edges(3, 1, b"0 1 inf\n")
    c["hex_weight"] = edges(3, 1, b"0 1 0x1p3\n")
    c["four_fields"] = edges(3, 1, b"0 1 2 3\n")
    c["float_index"] = edges(3, 1, b"0.0 1\n")
    c["no_edges"] = edges(3, 1, b"# nothing\n\n")
    c["crlf"] = edges(3, 1, b"0 1\r\n1 2\r\n")
    c["embedded_nul"] = edges(3, 1, b"0 1\x00\n1 2\n")
    c["non_utf8"] = edges(3, 1, b"0 \xff\xfe\n")
    c["long_line"] = edges(3, 1, b"0 " + b"1" * 60000 + b"\n")
    c["long_junk_line"] = edges(3, 1, b"x" * 60000 + b" y\n")
    c["vertical_tab_inside"] = edges(3, 1, b"0\x0b1\x0c\n")
    c["complete_k64"] = edges(64, 1, b"".join(b"%d %d\n" % (i, j) for i in range(64)
                                              for j in range(i + 1, 64)))
    return c


def init_cases():
    c = {}
    c["per_node_3"] = bytes([2, 0]) + npy(np.random.default_rng(1).normal(size=(3, 2)))
    c["per_member_2x3"] = bytes([2, 1]) + npy(np.float32(np.arange(12).reshape(2, 3, 2)))
    c["fortran_per_member"] = bytes([2, 1]) + npy(np.asfortranarray(np.arange(12.0).reshape(2, 3, 2)))
    c["nan_value"] = bytes([0, 0]) + npy(np.array([[np.nan, 1.0]]))
    c["inf_value_f4"] = bytes([0, 0]) + npy(np.float32([[1, np.inf]]))
    c["wrong_shape"] = bytes([2, 0]) + npy(np.zeros((2, 3)))
    c["int_dtype"] = bytes([2, 0]) + npy(np.zeros((3, 2), dtype=np.int32))
    c["huge_shape"] = bytes([7, 3]) + raw_npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 8, 2000000000), }")
    c["big_endian"] = bytes([1, 0]) + npy(np.arange(4.0, dtype=">f8").reshape(2, 2))
    c["not_npy"] = bytes([0, 0]) + b"0.5 0.25\n"
    return c


def set_cases():
    c = {}
    # Byte 0: workload (0 field, 1 lsq, 2 oscillators); byte 1 < 240: parameter index, else the
    # rest is NAME=VALUE.
    for i, v in enumerate([b"128", b" 1e6 ", b"0x10", b"nan", b"inf", b"1e309", b"-0",
                           b"-9223372036854775809", b"9223372036854775807", b"4.5", b"true",
                           b"yes", b"viridis", b"", b"1" * 400, b"\xff\xfe", b"1\x002",
                           b"9007199254740993", b"1e-400", b".5e+3", b"+-1", b"1e", b"xy\n"]):
        c["value_%02d" % i] = bytes([i % 3, (7 * i) % 40]) + v
    for i, kv in enumerate([b"grid.size=64", b"view.colormap=inferno", b"nonexistent=1",
                            b"noequals", b"=", b"network.nodes==5", b"init.file= a b .npy",
                            b"view.min=-1e300", b"view.max=1e301", b"precision=fp64\r"]):
        c["kv_%02d" % i] = bytes([i % 3, 255]) + kv
    return c


def preset(workload, params, view=None, extra=None):
    o = {"simscope_preset": 1, "workload": workload, "params": params}
    if view is not None:
        o["view"] = view
    o.update(extra or {})
    return json.dumps(o, indent=2).encode()


def preset_cases():
    c = {}
    c["field"] = b"\x00" + preset("field", {"grid.size": 64, "plane": "xz", "k": 2.5,
                                           "sources.file": "src.csv"},
                                  {"view.colormap": "inferno", "view.colorbar": False})
    c["lsq"] = b"\x01" + preset("lsq", {"method": "svd", "lambda": 0.0, "synth.seed": 9007199254740993})
    c["oscillators"] = b"\x02" + preset("oscillators", {"network.nodes": 10, "ensemble.size": "4",
                                                       "init.file": "/abs/x.npy",
                                                       "model.coupling": 1e-3})
    c["wrong_workload"] = b"\x01" + preset("nosuch", {})
    c["version_2"] = b"\x00" + preset("field", {}, extra={"simscope_preset": 2})
    c["version_text"] = b"\x00" + preset("field", {}, extra={"simscope_preset": "1"})
    c["unknown_top_key"] = b"\x00" + preset("field", {}, extra={"extra\nline": 1})
    c["view_not_object"] = b"\x00" + preset("field", {}, extra={"view": [1, 2]})
    c["view_under_params"] = b"\x00" + preset("field", {"view.colormap": "gray"})
    c["param_under_view"] = b"\x00" + preset("field", {}, {"grid.size": 3})
    c["bad_types"] = b"\x02" + preset("oscillators", {"network.nodes": [1], "init": None})
    c["huge_numbers"] = b"\x00" + b'{"workload":"field","params":{"grid.size":1e400,"k":-1e999}}'
    c["int64_edges"] = b"\x02" + b'{"workload":"oscillators","params":{"init.seed":9223372036854775808,"network.seed":-9223372036854775808}}'
    c["truncated"] = b"\x00" + preset("field", {"grid.size": 64})[:30]
    c["deep_arrays"] = b"\x00" + b'{"workload":"field","params":{"k":' + b"[" * 3000 + b"]" * 3000 + b"}}"
    c["deep_objects"] = b"\x00" + b'{"a":' * 2000 + b"1" + b"}" * 2000
    c["non_utf8"] = b"\x00" + b'{"workload":"field","params":{"sources.file":"\xff\xfe.csv"}}'
    c["lone_surrogate"] = b"\x00" + b'{"workload":"field","params":{"sources.file":"\\ud800.csv"}}'
    c["nul_in_key"] = b"\x00" + b'{"workload":"field","params":{"grid\\u0000size":4}}'
    c["nul_raw"] = b"\x00" + b'{"workload":"field",\x00"params":{}}'
    c["bom"] = b"\x00" + b'\xef\xbb\xbf{"workload":"field","params":{}}'
    c["duplicate_keys"] = b"\x00" + b'{"workload":"field","workload":"lsq","params":{}}'
    c["long_key"] = b"\x00" + b'{"workload":"field","params":{"' + b"k" * 60000 + b'":1}}'
    c["not_object"] = b"\x00" + b"[1,2,3]"
    c["empty"] = b"\x00"
    return c


def data_cases():
    # Byte 0: 0 field sources .npy, 1 field sources .csv, 2 lsq cube .npy, 3 lsq design .npy,
    # 4 lsq design .csv.
    r = np.random.default_rng(2)
    c = {}
    c["sources_f8"] = b"\x00" + npy(r.uniform(-1, 1, (5, 4)))
    c["sources_f4"] = b"\x00" + npy(np.float32(r.uniform(-1, 1, (3, 4))))
    c["sources_shape5"] = b"\x00" + npy(np.ones((2, 5)))
    c["sources_nan"] = b"\x00" + npy(np.array([[0, 0, np.nan, 1.0]]))
    c["sources_huge"] = b"\x00" + raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, 4), }")
    c["sources_csv"] = b"\x01" + b"x,y,z,q\n0,0,0.5,1\n0,0,-0.5,-1\n"
    c["sources_csv_3cols"] = b"\x01" + b"0,0,1\n"
    c["sources_csv_inf"] = b"\x01" + b"0,0,inf,1\n"
    c["cube_f4"] = b"\x02" + npy(np.float32(r.standard_normal((4, 2, 3))))
    c["cube_nan_f8"] = b"\x02" + npy(np.array([[[np.nan, 1.0]]]))
    c["cube_inf"] = b"\x02" + npy(np.array([[[np.inf, 1.0]]]))
    c["cube_2d"] = b"\x02" + npy(np.ones((2, 2)))
    c["cube_empty"] = b"\x02" + npy(np.ones((0, 2, 2)))
    c["cube_int"] = b"\x02" + npy(np.ones((1, 2, 2), dtype=np.int32))
    c["cube_huge"] = b"\x02" + raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4096, 4096, 4096), }")
    c["design_2d"] = b"\x03" + npy(r.standard_normal((4, 2)))
    c["design_1d"] = b"\x03" + npy(np.arange(3.0))
    c["design_3d"] = b"\x03" + npy(np.ones((1, 1, 1)))
    c["design_zero_rows"] = b"\x03" + npy(np.ones((0, 3)))
    c["design_csv"] = b"\x04" + b"1,0\n1,1\n1,2\n"
    c["design_csv_nan"] = b"\x04" + b"1,nan\n"
    return c


def write(name, cases):
    d = os.path.join(HERE, "corpus", name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for k, v in cases.items():
        with open(os.path.join(d, k), "wb") as f:
            f.write(v)


write("npy", npy_cases())
write("csv", csv_cases())
write("edge_list", edge_cases())
write("init_file", init_cases())
write("set_value", set_cases())
write("preset", preset_cases())
write("data_files", data_cases())
