"""Label selector strings, as ``kubectl -l`` and the API server's ``labelSelector`` read them: which labels each
one matches and, for one that does not parse, the v1.32 API server's message (each case's expectation is what
the binary answered to ``GET /api/v1/namespaces/default/pods?labelSelector=...``)."""

from __future__ import annotations

import pytest

from kubesched.api.selector_parse import SelectorParseError, parse_selector

LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
               "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
               "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
NAME_PART = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
OPERATORS = "expected: in, notin, =, ==, !=, gt, lt"

#: Label sets the matching cases are checked against, by name.
LABELS = {"none": {}, "b": {"a": "b"}, "c": {"a": "c"}, "empty": {"a": ""}, "five": {"a": "5"},
          "zero-three": {"a": "03"}, "twelve-x": {"a": "12", "b": "x"}, "only-b": {"b": "x"}, "in": {"in": "in"},
          "in-value": {"a": "in"}}


@pytest.mark.parametrize(("selector", "matched"), [
    pytest.param("", set(LABELS), id="empty-matches-everything"),
    pytest.param("a", set(LABELS) - {"none", "only-b", "in"}, id="exists"),
    pytest.param("!a", {"none", "only-b", "in"}, id="does-not-exist"),
    pytest.param("a=b", {"b"}, id="equals"),
    pytest.param("a==b", {"b"}, id="double-equals"),
    pytest.param("a!=b", set(LABELS) - {"b"}, id="not-equals-includes-missing-key"),
    pytest.param("a in (b,c)", {"b", "c"}, id="in"),
    pytest.param("a notin (b,c)", set(LABELS) - {"b", "c"}, id="notin-includes-missing-key"),
    pytest.param("a in ()", {"empty"}, id="empty-set-holds-the-empty-value"),
    pytest.param("a in (,b)", {"b", "empty"}, id="empty-member"),
    pytest.param("a=", {"empty"}, id="equals-nothing"),
    pytest.param("a>4", {"five", "twelve-x"}, id="greater-than-integers-only"),
    pytest.param("a<4", {"zero-three"}, id="less-than"),
    pytest.param("a>2,a<6", {"five", "zero-three"}, id="every-requirement"),
    pytest.param("a=12,b=x", {"twelve-x"}, id="two-keys"),
    pytest.param("in", {"in"}, id="in-as-a-key"),
    pytest.param("a in (in)", {"in-value"}, id="in-as-a-value"),
    pytest.param(" a\t= b ", {"b"}, id="blanks-around-tokens"),
    pytest.param("b notin (x),!in", {"none", "b", "c", "empty", "five", "zero-three", "in-value"},
                 id="set-based-and-negation"),
])
def test_selector_matches_as_the_api_server_selects(selector: str, matched: set[str]) -> None:
    """Each selector selects exactly the label sets the API server lists for it."""
    parsed = parse_selector(selector)
    assert {name for name, labels in LABELS.items() if parsed.matches(labels)} == matched


@pytest.mark.parametrize(("selector", "message"), [
    pytest.param("a b", f"unable to parse requirement: found 'b', {OPERATORS}", id="no-operator"),
    pytest.param("x!", f"unable to parse requirement: found '!', {OPERATORS}", id="bang-after-key"),
    pytest.param("a>=1", "unable to parse requirement: found '=', expected: identifier", id="greater-or-equal"),
    pytest.param("a=b=c", "found '=', expected: ',' or 'end of string'", id="second-operator"),
    pytest.param("!a=b", "found '=', expected: ',' or 'end of string'", id="negation-takes-no-value"),
    pytest.param("=a", "found '=', expected: !, identifier, or 'end of string'", id="no-key"),
    pytest.param("!=a", "found '!=', expected: !, identifier, or 'end of string'", id="not-equals-first"),
    pytest.param("a,", "found '', expected: identifier after ','", id="trailing-comma"),
    pytest.param("a=b,,c", "found ',', expected: identifier after ','", id="double-comma"),
    pytest.param("!", "unable to parse requirement: found '', expected: identifier", id="bang-alone"),
    pytest.param("x in a", "unable to parse requirement: found 'a' expected: '('", id="in-without-parenthesis"),
    pytest.param("a in", "unable to parse requirement: found '' expected: '('", id="in-at-the-end"),
    pytest.param("x in (a", "unable to parse requirement: found '', expected: ',' or ')'", id="unclosed-set"),
    pytest.param("a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'", id="blank-in-set"),
    pytest.param("a in ((b))", "unable to parse requirement: found '(', expected: ',', ')' or identifier",
                 id="nested-parenthesis"),
    pytest.param("a in (,=)", "unable to parse requirement: found '=', expected: ',', or identifier",
                 id="operator-in-set"),
    pytest.param("a=(b)", "unable to parse requirement: found '(', expected: identifier", id="set-after-equals"),
    pytest.param("a>x", "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, "
                 "the value must be an integer", id="greater-than-a-word"),
    pytest.param("a>", "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, "
                 "the value must be an integer", id="greater-than-nothing"),
    pytest.param("a=-bad", f'unable to parse requirement: values[0][a]: Invalid value: "-bad": {LABEL_VALUE}',
                 id="invalid-value"),
    pytest.param("a in (-y,-x)", f'unable to parse requirement: [values[0][a]: Invalid value: "-x": {LABEL_VALUE}, '
                 f'values[1][a]: Invalid value: "-y": {LABEL_VALUE}]', id="invalid-values-sorted"),
    pytest.param("-a", f'unable to parse requirement: <nil>: Invalid value: "-a": {NAME_PART}', id="invalid-key"),
    pytest.param("a=b,-c", f'unable to parse requirement: <nil>: Invalid value: "-c": {NAME_PART}',
                 id="invalid-second-key"),
    pytest.param("a" * 70 + "=b", f'unable to parse requirement: <nil>: Invalid value: "{"a" * 70}": name part '
                 "must be no more than 63 characters", id="long-key"),
])
def test_invalid_selector_is_refused_in_the_api_servers_words(selector: str, message: str) -> None:
    """A selector that does not parse raises the message the v1.32 API server answers with."""
    with pytest.raises(SelectorParseError) as caught:
        parse_selector(selector)
    assert str(caught.value) == message
