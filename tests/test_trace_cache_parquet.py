"""The trace cache's parquet layout: the copy path of ``_parquet_io.read_frame`` against
pyarrow's own reader (the oracle), its Thrift page-header parser against hand-encoded
headers, and what happens to damaged cache files."""
from __future__ import annotations

import struct

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lisa_eas import read_trace
from lisa_eas.trace._parquet_io import PageLayoutError, read_frame, read_page_header, write_frame
from trace_oracles import unpack_dat

_INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def _pyarrow_read(path) -> pd.DataFrame:
    df = pq.read_table(path).to_pandas()
    df.index = pd.Index(df["__ts"].to_numpy() / 1e9, name="Time")
    return df


def _frame(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {"__ts": np.sort(rng.integers(0, 1 << 50, n)).astype(np.int64)}
    for name in _INTS:
        info = np.iinfo(name)
        v = rng.integers(info.min, info.max, n, dtype=name, endpoint=True)
        if n >= 2:
            v[:2] = (info.min, info.max)
        cols[name] = v
    f64 = rng.normal(size=n)
    f64[: min(n, 3)] = [np.nan, np.inf, -0.0][: min(n, 3)]
    cols["float64"] = f64
    cols["float32"] = rng.normal(size=n).astype(np.float32)
    cols["flag"] = rng.integers(0, 2, n).astype(bool)
    cols["comm"] = pd.Categorical.from_codes(rng.integers(0, 3, n), ["a", "<idle>", "kworker/0:1"])
    cols["text"] = np.array([f"s{i % 7}" for i in range(n)], dtype=object)
    return pd.DataFrame(cols)


@pytest.mark.parametrize("n", [0, 1, 5, 20_001, 70_000])
def test_cache_layout_roundtrip(tmp_path, n):
    df = _frame(n, seed=n)
    path = tmp_path / "e.parquet"
    write_frame(df, path)
    got, copied = read_frame(path)
    expected = df.copy()
    expected.index = pd.Index(df["__ts"].to_numpy() / 1e9, name="Time")
    oracle = _pyarrow_read(path)
    if n == 0:      # pyarrow types an empty dictionary's categories as object; the trace
        # reader (and this path) as str
        assert got["comm"].cat.categories.dtype == pd.Index(["x"]).dtype
        got, oracle = got.drop(columns="comm"), oracle.drop(columns="comm")
    pd.testing.assert_frame_equal(got, oracle, check_exact=True)
    pd.testing.assert_frame_equal(got[["__ts", *_INTS, "float64", "float32"]],
                                  expected[["__ts", *_INTS, "float64", "float32"]], check_exact=True)
    # every numeric column copied, the categorical decoded here; bool and str by pyarrow
    assert copied == 1 + len(_INTS) + 2 + 1
    assert got["flag"].dtype == bool
    if n:
        assert isinstance(got["comm"].dtype, pd.CategoricalDtype)
        assert list(got["comm"].astype(str)) == list(df["comm"].astype(str))
    md = pq.ParquetFile(path).metadata
    assert md.num_row_groups <= 1


def test_many_pages_and_row_groups_are_copied(tmp_path):
    """Another writer's layout with the same encoding (small pages, several row groups)."""
    df = _frame(50_000, seed=3)[["__ts", "int8", "uint16", "uint64", "float32", "comm"]]
    table = pa.Table.from_pandas(df, preserve_index=False)
    schema = pa.schema([f.with_nullable(False) if f.name != "comm" else f for f in table.schema])
    table = pa.Table.from_arrays(table.columns, schema=schema)
    path = tmp_path / "pages.parquet"
    pq.write_table(table, path, compression="none", use_dictionary=["comm"], row_group_size=12_345,
                   data_page_size=4096, write_statistics=True, data_page_version="1.0")
    md = pq.ParquetFile(path).metadata
    assert md.num_row_groups == 5
    got, copied = read_frame(path)
    assert copied == 5
    pd.testing.assert_frame_equal(got, _pyarrow_read(path), check_exact=True)


@pytest.mark.parametrize("required,options", [
    (False, dict(compression="none", use_dictionary=False)),       # nullable: definition levels
    (True, dict(compression="snappy", use_dictionary=False)),
    (True, dict(compression="none", use_dictionary=True)),
    (True, dict(compression="none", use_dictionary=False, data_page_version="2.0"))])
def test_other_layouts_fall_back_to_pyarrow(tmp_path, required, options):
    """Nullable, dictionary-encoded, compressed or v2 pages: pyarrow reads them, same result."""
    df = _frame(3000, seed=1)
    table = pa.Table.from_pandas(df, preserve_index=False)
    if required:
        schema = pa.schema([f.with_nullable(False) if pa.types.is_integer(f.type) else f
                            for f in table.schema])
        table = pa.Table.from_arrays(table.columns, schema=schema)
    path = tmp_path / "other.parquet"
    pq.write_table(table, path, **options)
    got, copied = read_frame(path)
    assert copied == 0
    pd.testing.assert_frame_equal(got, _pyarrow_read(path), check_exact=True)


# -- Thrift compact protocol, encoded by hand from the specification ------------------------

def _varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _zz(v: int) -> bytes:
    return _varint((v << 1) ^ (v >> 63))


def _field(delta: int, ctype: int) -> bytes:
    return bytes([(delta << 4) | ctype])


def _page_header(ptype: int, size: int, num_values: int, encoding: int, extras: bool) -> bytes:
    stats = b""
    if extras:      # Statistics: max (binary), min (binary), null_count (i64), a list, a map
        stats = (_field(1, 8) + _varint(3) + b"abc" + _field(1, 8) + _varint(1) + b"z"
                 + _field(1, 6) + _zz(0) + _field(3, 9) + bytes([(2 << 4) | 5]) + _zz(7) + _zz(-9)
                 + _field(1, 11) + _varint(1) + bytes([(8 << 4) | 1]) + _varint(1) + b"k" + b"\x01"
                 + b"\x00")
    data_page = (_field(1, 5) + _zz(num_values) + _field(1, 5) + _zz(encoding)
                 + _field(1, 5) + _zz(3) + _field(1, 5) + _zz(3)
                 + ((_field(1, 12) + stats) if extras else b"") + b"\x00")
    head = _field(1, 5) + _zz(ptype) + _field(1, 5) + _zz(size) + _field(1, 5) + _zz(size)
    if extras:      # crc (i32), then the data page header under a long-form field id
        head += _field(1, 5) + _zz(-12345) + bytes([0x0C]) + _zz(5) + data_page
    else:
        head += _field(2, 12) + data_page
    return head + b"\x00"


@pytest.mark.parametrize("extras", [False, True])
def test_page_header_parser(extras):
    raw = b"\xff" * 3 + _page_header(0, 4000, 1000, 0, extras) + b"payload"
    head, data = read_page_header(raw, 3, len(raw))
    assert head == {"type": 0, "compressed_page_size": 4000, "num_values": 1000, "encoding": 0}
    assert raw[data:] == b"payload"
    for cut in range(3, len(raw) - len(b"payload")):
        with pytest.raises(PageLayoutError):
            read_page_header(raw, 3, cut)


def test_damaged_cache_is_decoded_again(tmp_path):
    dat = unpack_dat("lisa_juno-r0_sched_load", tmp_path)
    cache_dir = tmp_path / "cache"
    cold = read_trace(dat, cache_dir=cache_dir)
    frames = {e: cold.df(e) for e in cold.events}
    target = next((cache_dir).glob("*/sched_switch.parquet"))
    data = bytearray(target.read_bytes())
    target.write_bytes(bytes(data[: len(data) // 2]))           # truncated
    other = next((cache_dir).glob("*/cpu_idle.parquet"))
    data = bytearray(other.read_bytes())
    data[4:40] = b"\xee" * 36                                   # first page header smashed
    other.write_bytes(bytes(data))
    warm = read_trace(dat, cache_dir=cache_dir)
    for e in cold.events:
        pd.testing.assert_frame_equal(warm.df(e), frames[e], check_exact=True)
    again = read_trace(dat, cache_dir=cache_dir)                # and the cache was mended
    pd.testing.assert_frame_equal(again.df("sched_switch"), frames["sched_switch"])
    assert read_frame(target)[1] >= 4


def test_cache_file_is_plain_parquet(tmp_path):
    """What the cache holds is standard parquet: any reader (here pyarrow) gets the columns."""
    dat = unpack_dat("lisa_juno-r0_sched_load", tmp_path)
    cold = read_trace(dat, cache_dir=tmp_path / "c")
    for path in (tmp_path / "c").glob("*/*.parquet"):
        df = _pyarrow_read(path)
        ref = cold.df(path.stem)
        pd.testing.assert_frame_equal(df, ref, check_exact=True)
        raw = path.read_bytes()
        assert raw[:4] == raw[-4:] == b"PAR1" and struct.unpack("<i", raw[-8:-4])[0] > 0


# -- RLE / bit-packing hybrid kernel against its plain-Python twin ---------------------------

def _uleb(v: int) -> bytes:
    return _varint(v)


def _encode_hybrid(values: list[int], width: int, rng) -> bytes:
    """An encoder written here from the format description: random choice of run kinds."""
    out = bytearray()
    i = 0
    while i < len(values):
        if rng.random() < 0.5:                      # RLE run of the current value
            v = values[i]
            j = i
            while j < len(values) and values[j] == v:
                j += 1
            out += _uleb((j - i) << 1) + v.to_bytes((width + 7) // 8, "little")
            i = j
        else:                                       # bit-packed groups (last one padded)
            groups = int(rng.integers(1, 4))
            chunk = values[i:i + 8 * groups]
            groups = -(-len(chunk) // 8)
            bits = 0
            for k, v in enumerate(chunk):
                bits |= v << (k * width)
            out += _uleb((groups << 1) | 1) + bits.to_bytes(groups * width, "little")
            i += len(chunk)
    return bytes(out)


@pytest.mark.parametrize("width", [0, 1, 2, 3, 5, 7, 8, 9, 13, 16, 17, 24, 31, 32])
def test_rle_hybrid_kernel_equals_twin(width):
    from lisa_eas.trace._parquet_rle import rle_hybrid_decode
    from reference.ref_parquet_rle import decode
    rng = np.random.default_rng(width)
    for case in range(20):
        n = int(rng.integers(1, 400))
        hi = 1 << width
        pool = rng.integers(0, hi, 4, dtype=np.uint64).tolist() if width else [0]
        values = [int(pool[k]) for k in rng.integers(0, len(pool), n)]   # runs happen
        if case % 2:
            values = [int(v) for v in rng.integers(0, hi, n, dtype=np.uint64)]
        data = b"\x07\x07" + _encode_hybrid(values, width, rng) + b"\x07"
        out = np.full(n + 3, -5, np.int64)
        pos = rle_hybrid_decode(np.frombuffer(data, np.uint8), 2, len(data) - 1, width, out, 1, n)
        ref = decode(data, 2, len(data) - 1, width, n)
        assert ref is not None and ref[0] == values
        assert pos == ref[1] and out[1:n + 1].tolist() == values
        assert out[0] == -5 and (out[n + 1:] == -5).all()      # nothing written outside


def test_rle_hybrid_kernel_on_garbage_equals_twin():
    """Truncated and random streams: the kernel and the twin agree (malformed = -1/None)."""
    from lisa_eas.trace._parquet_rle import rle_hybrid_decode
    from reference.ref_parquet_rle import decode
    rng = np.random.default_rng(7)
    malformed = 0
    for case in range(3000):
        width = int(rng.integers(0, 34))
        data = rng.integers(0, 256, int(rng.integers(0, 40)), dtype=np.uint8).tobytes()
        count = int(rng.integers(1, 60))
        out = np.zeros(count, np.int64)
        pos = rle_hybrid_decode(np.frombuffer(data, np.uint8), 0, len(data), width, out, 0, count)
        ref = decode(data, 0, len(data), width, count)
        if ref is None:
            assert pos == -1
            malformed += 1
        else:
            assert pos == ref[1] and out.tolist() == ref[0]
    assert 0 < malformed < 3000


@pytest.mark.parametrize("ncats", [1, 2, 200, 70_000])
def test_dictionary_columns_decoded_here_equal_pyarrow(tmp_path, ncats):
    """pyarrow's own encoder (RLE runs for repeats, bit-packing otherwise, every index
    width up to 17 bits), read by the dictionary path."""
    rng = np.random.default_rng(ncats)
    n = 150_000
    codes = rng.integers(0, ncats, n)
    codes[1000:5000] = 0                                       # a long repeat: an RLE run
    cats = [f"task-{i}" for i in range(ncats)]
    df = pd.DataFrame({"__ts": np.arange(n, dtype=np.int64),
                       "comm": pd.Categorical.from_codes(codes, cats)})
    path = tmp_path / "d.parquet"
    write_frame(df, path)
    got, copied = read_frame(path)
    assert copied == 2
    pd.testing.assert_frame_equal(got, _pyarrow_read(path), check_exact=True)
    assert (got["comm"].cat.codes.to_numpy() == codes).all()
