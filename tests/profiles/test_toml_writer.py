"""The TOML writer: whatever it writes, tomllib reads back as the same document."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.profiles.toml_writer import dumps, key, string

Document = dict[str, Any]

BARE_KEYS = st.from_regex(r"[A-Za-z0-9_-]{1,6}", fullmatch=True)
# Keys one character away from bare: where the choice between a bare and a quoted key is made.
NEAR_BARE_KEYS = st.builds(lambda head, char, tail: head + char + tail, BARE_KEYS | st.just(""),
                           st.sampled_from('\n\r\t "\'\\.=#[é'), BARE_KEYS | st.just(""))
KEYS = st.one_of(BARE_KEYS, NEAR_BARE_KEYS, st.text(max_size=6))
SCALARS = st.one_of(
    st.text(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.booleans(),
    st.floats(allow_nan=False),
)
# Lists are written inline; mappings become [tables], or inline tables inside lists.
VALUES = st.recursive(SCALARS, lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children,
                                                                                                  max_size=3),
                      max_leaves=12)
DOCUMENTS: st.SearchStrategy[Document] = st.dictionaries(KEYS, VALUES, max_size=5)
NESTED = "nested"


@st.composite
def documents_with_table_arrays(draw: st.DrawFn) -> tuple[Document, frozenset[str]]:
    """A document with a non-empty array of tables at a drawn path, whose items may hold another one."""
    path = draw(st.lists(BARE_KEYS, min_size=1, max_size=3))
    items = draw(st.lists(DOCUMENTS, min_size=1, max_size=3))
    for item in items:
        if draw(st.booleans()):
            item[NESTED] = draw(st.lists(DOCUMENTS, min_size=1, max_size=2))
    document = draw(DOCUMENTS)
    table = document
    for part in path[:-1]:
        child = table.get(part)
        if not isinstance(child, dict):
            child = table[part] = {}
        table = child
    table[path[-1]] = items
    dotted = ".".join(path)
    return document, frozenset({dotted, f"{dotted}.{NESTED}"})


@settings(report_multiple_bugs=False)
@given(DOCUMENTS)
def test_documents_round_trip(document: Document) -> None:
    """Nested tables of strings, integers, booleans, floats, arrays and inline tables read back unchanged."""
    assert tomllib.loads(dumps(document)) == document


@settings(report_multiple_bugs=False)
@given(documents_with_table_arrays())
def test_documents_with_arrays_of_tables_round_trip(case: tuple[Document, frozenset[str]]) -> None:
    """Arrays of tables at the given paths, nested ones included, read back unchanged."""
    document, table_arrays = case
    assert tomllib.loads(dumps(document, table_arrays=table_arrays)) == document


def test_lists_of_tables_at_a_given_path_are_written_as_arrays_of_tables() -> None:
    """A list of tables at a path in ``table_arrays`` is written as ``[[path]]`` sections."""
    text = dumps({"profiles": [{"name": "a"}, {"name": "b"}]}, table_arrays=frozenset({"profiles"}))
    assert text == '[[profiles]]\nname = "a"\n\n[[profiles]]\nname = "b"\n'


def test_lists_of_tables_elsewhere_are_written_inline() -> None:
    """A list of tables at a path not in ``table_arrays`` is written as an inline array."""
    assert dumps({"enabled": [{"name": "X", "weight": 2}]}) == 'enabled = [{ name = "X", weight = 2 }]\n'


def test_values_toml_cannot_hold_are_rejected() -> None:
    """None has no TOML form: writing it is a TypeError, not a silently wrong document."""
    with pytest.raises(TypeError, match="cannot write NoneType as TOML"):
        dumps({"missing": None})


@pytest.mark.parametrize("text", [
    pytest.param('say "hi"', id="double-quote"),
    pytest.param("C:\\path\\", id="backslash"),
    pytest.param("\\u0041", id="escape-lookalike"),
    pytest.param("line\nbreak\r\n", id="newlines"),
    pytest.param("tab\there", id="tab"),
    pytest.param("\b\f", id="backspace-formfeed"),
    pytest.param("nul\x00", id="nul"),
    pytest.param("\x1f\x01", id="other-c0-controls"),
    pytest.param("del\x7f", id="delete"),
    pytest.param("'single' \"double\" '''triple'''", id="mixed-quotes"),
    pytest.param("ünïcödé 中文 🚀", id="unicode"),
    pytest.param("\u0085\u2028\u2029", id="unicode-line-separators"),
    pytest.param("", id="empty"),
])
def test_strings_round_trip(text: str) -> None:
    """Quotes, backslashes, control characters and unicode survive writing and reading."""
    assert tomllib.loads(f"value = {string(text)}") == {"value": text}


@pytest.mark.parametrize(("text", "written"), [
    pytest.param('a"b', '"a\\"b"', id="double-quote"),
    pytest.param("a\\b", '"a\\\\b"', id="backslash"),
    pytest.param("a\nb", '"a\\nb"', id="newline"),
    pytest.param("\x00", '"\\u0000"', id="nul"),
    pytest.param("\x7f", '"\\u007f"', id="delete"),
    pytest.param("é", '"é"', id="unicode-kept-literal"),
])
def test_strings_are_escaped(text: str, written: str) -> None:
    """Special characters are written as TOML escapes, other characters literally."""
    assert string(text) == written


@pytest.mark.parametrize("name", ["scoring-strategy", "NodeResourcesFit", "under_score", "42"])
def test_bare_keys_are_written_bare(name: str) -> None:
    """Keys of letters, digits, dashes and underscores are written without quotes."""
    assert key(name) == name


@pytest.mark.parametrize("name", [
    pytest.param("", id="empty"),
    pytest.param("a.b", id="dot"),
    pytest.param("with space", id="space"),
    pytest.param("a=b", id="equals"),
    pytest.param("#", id="hash"),
    pytest.param('"', id="quote"),
    pytest.param("example.com/gpu", id="resource-name"),
    pytest.param("ünï", id="unicode"),
    pytest.param("trailing\n", id="trailing-newline"),
    pytest.param("\nleading", id="leading-newline"),
])
def test_keys_needing_quotes_round_trip(name: str) -> None:
    """Keys that are not bare are quoted, both as keys and as table names."""
    document = {name: 1, "table": {name: {"x": 1}}}
    assert tomllib.loads(dumps(document)) == document
