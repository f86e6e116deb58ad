"""The one safe YAML reader: the rules manifests and kube-scheduler configurations are both read by."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.io import yaml_reader
from kubesched.io.yaml_reader import YamlError, YamlRules, documents
from kubesched.validation import HugeInteger

RULES = YamlRules(3, "nesting deeper than {limit} levels", max_integer_digits=10)
NO_HUGE = YamlRules(3, "nested more than {limit} levels deep")


def error_of(text: str, rules: YamlRules = RULES) -> str:
    """The YamlError reading every document of ``text`` raises."""
    with pytest.raises(YamlError) as caught:
        list(documents(text, rules))
    return str(caught.value)


def test_every_document_is_read_in_order_empty_ones_as_none() -> None:
    """A multi-document stream yields each document, None for an empty one."""
    assert list(documents("a: 1\n---\n---\n- b\n", RULES)) == [{"a": 1}, None, ["b"]]


def test_timestamps_stay_text() -> None:
    """As in Kubernetes, an unquoted or explicitly tagged date is a string; the field that reads it parses it."""
    assert list(documents("a: 2024-01-31\nb: !!timestamp 2024-13-01\n", RULES)) == [
        {"a": "2024-01-31", "b": "2024-13-01"}]


@pytest.mark.parametrize(("rules", "message"), [
    pytest.param(RULES, "invalid YAML at line 1 column 6: nesting deeper than 3 levels", id="manifest-wording"),
    pytest.param(NO_HUGE, "invalid YAML at line 1 column 6: nested more than 3 levels deep", id="config-wording"),
])
def test_nesting_past_the_limit_is_a_located_error_in_the_callers_words(rules: YamlRules, message: str) -> None:
    """Depth is bounded before the parser recurses; the words are the caller's."""
    assert error_of("a: [[[[1]]]]\n", rules) == message


def test_a_long_integer_is_kept_as_text_when_the_rules_say_so() -> None:
    """Past the rules' digits an integer is a HugeInteger, reported later at its field."""
    (document,) = documents("a: 12345678901\n", RULES)
    assert isinstance(document["a"], HugeInteger)
    assert document["a"].text == "12345678901"


def test_an_integer_python_refuses_is_a_located_error_without_a_digit_limit() -> None:
    """Without a digit limit, an integer past Python's conversion limit is an invalid-YAML error at its place."""
    assert error_of("a: " + "9" * 5000 + "\n", NO_HUGE) == (
        "invalid YAML at line 1 column 4: an integer has more than 4300 digits")


def test_a_scalar_its_tag_cannot_hold_is_a_located_error_quoting_it() -> None:
    """The value is quoted and escaped, so the message stays one line."""
    assert error_of('a: !!int "x\\ny"\n') == 'invalid YAML at line 1 column 4: "x\\ny" is not a valid !!int'


def test_the_documents_before_an_error_are_yielded_first() -> None:
    """A caller can still check what came before a syntax error."""
    read = documents("a: 1\n---\nb: [\n", RULES)
    assert next(read) == {"a": 1}
    with pytest.raises(YamlError, match=r"^invalid YAML at line 4 column 1: "):
        next(read)


def test_an_unprintable_character_is_one_line_naming_it() -> None:
    """The reader's own error (which has no line mark) is folded onto one line."""
    assert error_of("a: \x01\n") == ('invalid YAML: unacceptable character #x0001: special characters are not '
                                     'allowed in "<unicode string>", position 3')


@given(st.text(st.characters(max_codepoint=0x7F), max_size=40) | st.text(max_size=12))
@settings(max_examples=300)
def test_the_unprintable_character_check_agrees_with_pyyaml_s_reader(text: str) -> None:
    """The reader's quick check for characters PyYAML refuses (ASCII text a slice at a time) finds exactly what
    PyYAML's own pattern finds."""
    expected = yaml_reader._NON_PRINTABLE.search(text) is not None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(yaml_reader, "_CHECK_CHARS", 3)
        assert yaml_reader._has_non_printable(text) is expected
