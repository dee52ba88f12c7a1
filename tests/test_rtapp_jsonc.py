"""The lenient rt-app JSON parser, checked against the real json-c where it applies."""
from __future__ import annotations

import ctypes
import ctypes.util
import json

import pytest
from conftest import DATA, require_live

from lisa_eas.errors import WorkloadError
from lisa_eas.rtapp._jsonc import BARE, JObject, parse_jsonc
from lisa_eas.rtapp._reader import plain

CORPUS = sorted((DATA / "rtapp" / "json").rglob("*.json"))


def test_json_c_extensions_and_positions():
    text = """{
  // line comment
  /* block
     comment */ "a": {'b': 1, "run": 2, "run": 3,},
  "c": [1, 2,],
  "suspend",
  "d": -1.5e3
}"""
    root = parse_jsonc(text, "x.json")
    assert [m.key for m in root] == ["a", "c", "suspend", "d"]
    a = root.get("a")
    assert (a.line, a.col) == (4, 17)
    assert [(m.key, m.value.value) for m in a.value] == [("b", 1), ("run", 2), ("run", 3)]
    assert plain(root.get("c").value) == [1, 2]
    assert root.get("suspend").value.value is BARE
    assert root.get("d").value.value == -1500.0
    # json-c keeps the last value of a repeated key at the first key's position
    assert plain(root)["a"] == {"b": 1, "run": 3}


@pytest.mark.parametrize("text, where, words", [
    ('{"a": 1', "1:8", ["end of file"]),
    ('{"a": __X__}', "1:7", ["'__X__'", "placeholder"]),
    ('{"a" 1}', "1:6", ["expected ':'", "'a'"]),
    ('{"a": 1 "b": 2}', "1:9", ["expected ','"]),
    ('{"a": "x}', "1:7", ["unterminated string"]),
    ('{"a": 1} x', "1:10", ["after the end"]),
    ('{a: 1}', "1:2", ["\"key\""]),
    ('/* x', "1:1", ["unterminated /* comment"]),
    ('[1]', "1:1", ["top level must be a JSON object"]),
    ('', "1:1", ["empty"]),
    ('{"a": 1.2.3}', "1:7", ["bad number"]),
])
def test_syntax_errors_name_position_and_fix(text, where, words):
    with pytest.raises(WorkloadError) as ei:
        parse_jsonc(text, "bad.json")
    msg = str(ei.value)
    assert msg.startswith(f"bad.json:{where}:"), msg
    for w in words:
        assert w in msg
    assert ";" in msg  # what was wrong; the fix


def _json_c():
    name = ctypes.util.find_library("json-c") or "libjson-c.so.5"
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        return None
    lib.json_object_from_file.restype = ctypes.c_void_p
    lib.json_object_from_file.argtypes = [ctypes.c_char_p]
    lib.json_object_to_json_string_ext.restype = ctypes.c_char_p
    lib.json_object_to_json_string_ext.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.json_object_put.argtypes = [ctypes.c_void_p]
    return lib


@pytest.mark.live
def test_same_trees_as_real_json_c_on_the_corpus():
    """Where json-c (rt-app 1.0's parser) accepts a file, our tree, collapsed the json-c way,
    is exactly json-c's; json-c rejects only the template and the bare-key files."""
    lib = _json_c()
    require_live(lib is not None, "libjson-c (installed with rt-app) not found")
    rejected = []
    for f in CORPUS:
        obj = lib.json_object_from_file(str(f).encode())
        ours = None
        try:
            ours = plain(parse_jsonc(f.read_text(), str(f)))
        except WorkloadError:
            pass
        if not obj:
            rejected.append(f.name)
            continue
        theirs = json.loads(lib.json_object_to_json_string_ext(obj, 0).decode())
        lib.json_object_put(obj)
        assert ours == theirs, f
        assert list(ours) == list(theirs)  # same key order
    assert sorted(rejected) == ["mp3-short_template.json", "video-long.json", "video-short.json"]


def test_every_corpus_file_parses_or_is_a_template():
    for f in CORPUS:
        if f.name == "mp3-short_template.json":
            with pytest.raises(WorkloadError, match=r"mp3-short_template.json:59:16:"):
                parse_jsonc(f.read_text(), str(f))
        else:
            assert isinstance(parse_jsonc(f.read_text(), str(f)), JObject)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_scalars = (st.none() | st.booleans() | st.integers(-10**12, 10**12)
            | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12))
_json = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=8), _json, max_size=5), st.booleans(), st.integers(0, 3))
def test_strict_json_reads_like_the_json_module(obj, ascii_only, indent):
    """On strict JSON the lenient parser agrees with Python's json module, value for value."""
    text = json.dumps(obj, ensure_ascii=ascii_only, indent=indent or None)
    assert plain(parse_jsonc(text)) == json.loads(text)


@pytest.mark.live
def test_written_corpus_is_what_json_c_reads(tmp_path):
    """Every corpus file read and written back parses in the real json-c to exactly our JSON:
    no key is collapsed (repeated events got unique names), nothing is lost."""
    from lisa_eas.rtapp import read_workload

    lib = _json_c()
    require_live(lib is not None, "libjson-c (installed with rt-app) not found")
    n = 0
    for f in CORPUS:
        try:
            wl = read_workload(f)
        except WorkloadError:
            continue
        out = tmp_path / f.name
        out.write_text(wl.to_json())
        obj = lib.json_object_from_file(str(out).encode())
        assert obj, f
        theirs = json.loads(lib.json_object_to_json_string_ext(obj, 0).decode())
        lib.json_object_put(obj)
        assert theirs == json.loads(out.read_text()), f
        n += 1
    assert n == 32
