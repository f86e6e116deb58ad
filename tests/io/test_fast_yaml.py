"""The fast YAML reader (libyaml's events, or the pure-Python parser's where libyaml is absent) reads every input
as the reference reader does: the same objects, the same errors, and the depth guard."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from kubesched.io import yaml_native, yaml_reader
from kubesched.io.yaml_reader import YamlError, YamlRules, documents
from kubesched.validation import HugeInteger

RULES = YamlRules(100, "nesting deeper than {limit} levels", max_integer_digits=10)
PARSERS = [pytest.param((yaml.SafeLoader, False), id="pure-Python")]
if hasattr(yaml, "CSafeLoader"):
    PARSERS.insert(0, pytest.param((yaml.CSafeLoader, False), id="libyaml"))
    if yaml_native.NATIVE is not None:
        PARSERS.insert(0, pytest.param((yaml.CSafeLoader, True), id="native"))


@pytest.fixture(params=PARSERS)
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> type[yaml.SafeLoader]:
    """Run the test with the fast reader on each parser available (the native one where installed, with
    libyaml's for what it leaves; libyaml's; the pure-Python one)."""
    base: type[yaml.SafeLoader]
    base, native = request.param
    monkeypatch.setattr(yaml_reader, "_FAST_BASE", base)
    monkeypatch.setattr(yaml_reader, "NATIVE", native)
    return base


def _comparable(value: Any) -> Any:
    """``value`` with what has no useful equality made comparable: HugeInteger by its text, NaN by name."""
    if isinstance(value, HugeInteger):
        return ("HugeInteger", value.text)
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, dict):
        return [(_comparable(k), type(k).__name__, _comparable(v), type(v).__name__) for k, v in value.items()]
    if isinstance(value, list):
        return [(_comparable(v), type(v).__name__) for v in value]
    return value


def _outcome(read: Iterator[Any]) -> tuple[list[Any], str | None]:
    """The documents read, and the error that ended the reading (None when none did)."""
    found: list[Any] = []
    try:
        for document in read:
            found.append(_comparable(document))
    except YamlError as error:
        return found, str(error)
    return found, None


DEEP_FLOW = "a: " + "[" * 1000 + "]" * 1000 + "\n"
INPUTS = {
    "manifest": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {app: web, tier: \"1\"}\n"
                "spec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: 100m, memory: 1Gi}}\n",
    "several documents and empty ones": "a: 1\n---\n---\n- b\n--- ~\n...\n",
    "empty text": "",
    "only a comment": "# nothing\n",
    "plain scalars of every implicit type": "a: [1, -2, +3, 0x1F, 0o17, 017, 1_000, 1.5, .5, 1e3, .inf, -.Inf, .nan, "
                                            "true, False, yes, NO, on, Off, y, n, null, ~, Null, '', 2024-01-31, "
                                            "2024-01-31T10:00:00Z, 12:30, 190:20:30, <<x]\n",
    "quoted scalars stay strings": "a: ['1', \"true\", \"null\", '~', \"2024-01-31\", '0x1F']\n",
    "explicit tags": "a: !!str 1\nb: !!int '7'\nc: !!float '2'\nd: !!bool 'true'\ne: !!null ''\n"
                     "f: !!timestamp 2024-13-01\ng: ! 12\nh: !!map {x: 1}\ni: !!seq [1]\n",
    "a long integer kept as text": "a: 12345678901\nb: -12345678901234\n",
    "keys of every scalar type": "1: a\ntrue: b\n~: c\n1.5: d\n'1': e\n",
    "duplicate keys, the last winning": "a: 1\nb: 2\na: 3\n",
    "block scalars": "a: |\n  line one\n  line two\nb: >-\n  folded\n  text\n\n  para\nc: |+\n  kept\n\n",
    "multi-line plain and quoted scalars": "a: one\n  two\nb: \"x\\\n  y \\u00e9 \\x41\"\nc: 'it''s'\n",
    "anchors and aliases": "base: &b {cpu: 1}\nx: *b\ny: [&s str, *s]\n",
    "merge keys": "base: &b {cpu: 1, mem: 2}\nx:\n  <<: *b\n  mem: 3\n",
    "a value key": "a:\n  =: 1\n",
    "a value scalar": "a: =\n",
    "sets, pairs, ordered maps and binary": "a: !!set {x, y}\nb: !!omap [{x: 1}]\nc: !!pairs [{x: 1}]\n"
                                            "d: !!binary aGk=\n",
    "unicode and a byte order mark": "\ufeffname: caf\u00e9 \U0001F600\n",
    "a complex key": "? [a, b]\n: c\n",
    "an unhashable mapping key": "? {a: 1}\n: c\n",
    "a custom tag": "a: !thing 1\n",
    "a scalar its tag cannot hold": "a: !!int abc\nb: !!bool maybe\n",
    "an integer past Python's digits": "a: " + "9" * 5000 + "\n",
    "an undefined alias": "a: *nope\n",
    "a duplicate anchor": "a: &x 1\nb: &x 2\n",
    "a syntax error after good documents": "a: 1\n---\nb: 2\n---\nc: [\n",
    "a tab where indentation is expected": "a:\n\tb: 1\n",
    "a bad indentation": "a:\n  b: 1\n c: 2\n",
    "an unclosed quote": "a: \"open\n",
    "an unprintable character": "a: \x01\n",
    "an escaped surrogate": "a: \"\\ud800\"\n",
    "an escaped unprintable character": "a: \"\\x07\"\n",
    "a directive": "%YAML 1.1\n---\na: 1\n",
    "a tag directive": "%TAG !k! tag:example.com,2024:\n---\na: !k!x 1\n",
    "nesting one level short of the limit": "a: " + "[" * 98 + "1" + "]" * 98 + "\n",
    "nesting at the limit": "a: " + "[" * 99 + "1" + "]" * 99 + "\n",
    "an empty collection at the limit": "a: " + "[" * 99 + "]" * 99 + "\n",
    "nesting one level past the limit": "a: " + "[" * 100 + "1" + "]" * 100 + "\n",
    "block nesting past the limit": "".join("  " * i + f"k{i}:\n" for i in range(120)) + "  " * 120 + "v\n",
    "nesting a thousand levels deep": DEEP_FLOW,
    "nesting a hundred thousand levels deep": "[" * 100_000 + "]" * 100_000 + "\n",
}


@pytest.mark.parametrize("text", list(INPUTS.values()), ids=list(INPUTS))
def test_the_fast_reader_reads_as_the_reference_reader(parser: type[yaml.SafeLoader], text: str) -> None:
    """The same documents, value types and error message, whichever parser the fast reader uses."""
    expected = _outcome(yaml_reader._reference_documents(text, RULES))
    assert _outcome(documents(text, RULES)) == expected


@pytest.mark.parametrize("text", [DEEP_FLOW, "[" * 100_000 + "]" * 100_000 + "\n",
                                  "".join("  " * i + "- \n" for i in range(2000))],
                         ids=["flow-1000", "flow-100000", "block-2000"])
def test_deep_nesting_is_a_located_error_never_a_recursion_error(parser: type[yaml.SafeLoader], text: str) -> None:
    """Nesting past the limit is one located error line, however deep the input goes."""
    with pytest.raises(YamlError, match=r"^invalid YAML at line \d+ column \d+: nesting deeper than 100 levels$"):
        list(documents(text, RULES))


def test_a_plain_manifest_never_goes_to_the_reference_reader(parser: type[yaml.SafeLoader],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Block and flow collections and plain, quoted and typed scalars are the fast reader's own work."""

    def refuse(text: str, rules: YamlRules, skip: int = 0) -> Iterator[Any]:
        raise AssertionError("the reference reader was used")

    monkeypatch.setattr(yaml_reader, "_reference_documents", refuse)
    assert list(documents(INPUTS["manifest"] + "---\n" + INPUTS["plain scalars of every implicit type"], RULES))


def test_after_a_fallback_the_documents_already_yielded_are_not_repeated(parser: type[yaml.SafeLoader]) -> None:
    """An alias in a later document hands the rest of the text to the reference reader, from that document."""
    assert list(documents("a: 1\n---\nb: 2\n---\nc: &x 3\nd: *x\n", RULES)) == [{"a": 1}, {"b": 2},
                                                                                 {"c": 3, "d": 3}]


def test_libyaml_is_the_parser_where_pyyaml_has_it() -> None:
    """The fast reader names its parser; it is libyaml's whenever PyYAML was built with it (after the native one,
    where the extra is installed)."""
    native = "fastyaml-rs, then " if yaml_native.NATIVE else ""
    assert yaml_reader.PARSER.removeprefix(native) == ("libyaml" if hasattr(yaml, "CSafeLoader") else "pure-Python")
