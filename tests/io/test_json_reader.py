"""The JSON reader: msgspec reads a manifest's JSON only where it gives exactly the ``json`` module's values, and
everything else goes to the ``json`` module, so values, types and messages never depend on which parser read."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.errors import InputError
from kubesched.io import json_reader
from kubesched.io.documents import MAX_DEPTH, MAX_INTEGER_DIGITS, documents
from kubesched.validation import HugeInteger


def outcome(read, text: str) -> object:
    """What a reader makes of ``text`` (as UTF-8 for :func:`json_reader.loads`): its value with every scalar's
    type, or its error line."""
    try:
        return typed(read(text.encode() if read is json_reader.loads else text, MAX_DEPTH, MAX_INTEGER_DIGITS))
    except json_reader.JsonError as exc:
        return f"error: {exc}"


def typed(value: object) -> object:
    if isinstance(value, dict):
        return [(typed(key), typed(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [typed(item) for item in value]
    return (type(value).__name__, value.text if isinstance(value, HugeInteger) else repr(value))


def read_fast(text: str) -> bool:
    """Whether msgspec's value is the one returned (not handed to the json module)."""
    return json_reader._fast(text.encode(), MAX_DEPTH, MAX_INTEGER_DIGITS) is not json_reader._FALLBACK


@pytest.mark.parametrize(("text", "fast"), [
    pytest.param('{"kind": "Pod", "spec": {"containers": [{"name": "c"}]}}', True, id="manifest"),
    pytest.param('{"a": 1, "b": 0, "a": 2}', True, id="duplicate-key-last-wins-first-place"),
    pytest.param("[18446744073709551616, -9223372036854775809, 123456789012345678901234567890]", True,
                 id="ints-past-64-bits"),
    pytest.param("9" * 999, True, id="int-999-digits"),
    pytest.param("-" + "9" * 1000, False, id="int-past-the-limit-stays-text"),
    pytest.param('["' + "1" * 1000 + '"]', False, id="digit-run-in-a-string-read-by-json-alike"),
    pytest.param("[0.1, 1E2, -0, -0.0, 1.5e-400, 2.2250738585072011e-308, 123.456e5]", True, id="floats"),
    pytest.param("[1e400, -1e400]", False, id="past-a-double-is-infinity"),
    pytest.param("[NaN, Infinity, -Infinity]", False, id="nan-and-infinity-words"),
    pytest.param('"\\ud800"', False, id="lone-surrogate-escape"),
    pytest.param('"\\ud83d\\ude00 \\u0000 \\" \\\\ \\/ \\b\\f\\n\\r\\t"', True, id="escapes"),
    pytest.param('{"a\\\\": "[", "b": "\\"]\\\\", "c": [{}]}', True, id="brackets-and-backslashes-in-strings"),
    pytest.param('"a\tb"', False, id="control-character-in-string"),
    pytest.param("\ufeff{}", False, id="byte-order-mark"),
    pytest.param("{}  x", False, id="extra-data"),
    pytest.param("", False, id="empty"),
    pytest.param("[1,]", False, id="trailing-comma"),
    pytest.param("01", False, id="leading-zero"),
    pytest.param('"\\x"', False, id="bad-escape"),
    pytest.param("[" * MAX_DEPTH + "]" * MAX_DEPTH, True, id="at-the-depth-limit"),
    pytest.param("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), False, id="past-the-depth-limit"),
    pytest.param('{"a": ' + "[" * 1000 + "]" * 1000 + "}", False, id="past-msgspec-recursion"),
    pytest.param('{"a": "' + "[" * 200 + '"}', True, id="brackets-in-a-string-do-not-nest"),
    pytest.param("[\n" * 60 + "]\n" * 60 + "\n", True, id="depth-across-lines"),
    pytest.param("\n".join(["["] * (MAX_DEPTH + 1) + ["]"] * (MAX_DEPTH + 1)), False, id="deep-across-lines"),
    pytest.param('[{"a": ' * (MAX_DEPTH // 2) + "0" + "}]" * (MAX_DEPTH // 2), True, id="alternating-at-the-limit"),
    pytest.param('[{"a": ' * (MAX_DEPTH // 2) + "[]" + "}]" * (MAX_DEPTH // 2), False, id="alternating-past-it"),
    pytest.param('{"kind": "Pod", "a": "b}', False, id="unterminated-string"),
    pytest.param('["a\\"]', False, id="escaped-closing-quote"),
    pytest.param('"', False, id="lone-quote"),
    pytest.param("[" + "1" * 999 + ", " + "2" * 999 + "]", True, id="two-runs-short-of-the-limit"),
    pytest.param(" " * 499 + "1" * 1000, False, id="int-of-1000-digits-off-the-sample"),
])
def test_reads_as_the_json_module_does(text, fast):
    assert read_fast(text) == fast
    assert outcome(json_reader.loads, text) == outcome(json_reader.reference_loads, text)


def test_depth_is_counted_across_pieces(monkeypatch):
    monkeypatch.setattr(json_reader, "_PIECE", 4)
    deep = "\n".join(["["] * (MAX_DEPTH + 1) + ["]"] * (MAX_DEPTH + 1))
    assert read_fast("\n".join(["["] * MAX_DEPTH + ["]"] * MAX_DEPTH))
    assert not read_fast(deep)
    assert outcome(json_reader.loads, deep) == (
        "error: invalid JSON at line 101 column 1: nesting deeper than 100 levels")


@settings(max_examples=300, deadline=None)
@given(text=st.text(st.sampled_from("0123456789 a\""), max_size=400), length=st.integers(1, 60))
def test_digit_runs_are_found_as_by_a_pass_over_every_byte(text, length):
    """The sampled search for a run of digits answers as a check of every byte does."""
    data = text.encode()
    assert json_reader._has_digit_run(data, length) == (b"0" * length in data.translate(json_reader._DIGITS_AS_ZERO))


@pytest.mark.parametrize("offset", range(0, 1001, 97))
@pytest.mark.parametrize("length", [MAX_INTEGER_DIGITS - 1, MAX_INTEGER_DIGITS])
def test_a_digit_run_is_found_wherever_it_starts(offset, length):
    data = b"[" + b" " * offset + b"7" * length + b"]"
    assert json_reader._has_digit_run(data, MAX_INTEGER_DIGITS) == (length >= MAX_INTEGER_DIGITS)


def test_long_integer_stays_text():
    read = json_reader.loads(b"[-" + b"9" * 1000 + b"]", MAX_DEPTH, MAX_INTEGER_DIGITS)
    assert isinstance(read, list)
    [value] = read
    assert isinstance(value, HugeInteger)
    assert value.text == "-" + "9" * 1000


_strings = st.text(st.characters(blacklist_categories=["Cs"]))  # files are valid UTF-8
_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                     _strings)
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_strings, inner,
                                                                                            max_size=4), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(value=_values, indent=st.sampled_from([None, 0, 2]), ascii_only=st.booleans())
def test_generated_json_reads_alike(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert outcome(json_reader.loads, text) == outcome(json_reader.reference_loads, text)


@pytest.mark.parametrize(("data", "expected"), [
    pytest.param(b'{"kind": "Node", "metadata": {"name": "n\xc3\xa9"}}', {"kind": "Node", "metadata": {"name": "né"}},
                 id="utf-8-read"),
    pytest.param(b'{"a": "\xff"}', "m.json: cannot read: not UTF-8 text (byte 7)", id="not-utf-8-refused-first"),
    pytest.param(b'\xef\xbb\xbf{"a": 1}',
                 "m.json: invalid JSON at line 1 column 1: Unexpected UTF-8 BOM (decode using utf-8-sig)",
                 id="byte-order-mark"),
])
def test_a_json_file_reads_as_before(tmp_path, monkeypatch, data, expected):
    monkeypatch.chdir(tmp_path)
    Path("m.json").write_bytes(data)
    def read() -> object:
        try:
            [document] = documents(Path("m.json"))
        except InputError as exc:
            return str(exc)
        return document.data

    assert read() == expected


@pytest.mark.parametrize(("data", "expected"), [
    pytest.param(b' \n\t{"kind": "Node"}', {"kind": "Node"}, id="ascii-json"),
    pytest.param(b'\n{"kind": "N\xc3\xa9"}', {"kind": "Né"}, id="utf-8-json"),
    pytest.param(b"# \xc3\xa9\nkind: Node\n", {"kind": "Node"}, id="utf-8-yaml"),
    pytest.param(b"kind: Node\n", {"kind": "Node"}, id="ascii-yaml"),
])
def test_standard_input_is_json_when_it_starts_with_a_brace(monkeypatch, data, expected):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    [document] = documents(Path("-"))
    assert document.data == expected
