"""Inputs a fuzzer found: each is a clean, located, one-line error (never a traceback), or loads."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.io.load import InputErrorList, load

POD_JSON = {"kind": "Pod", "metadata": {"name": "web"}, "spec": {"containers": [{"name": "a"}]}}


def errors_of(path: Path) -> list[str]:
    """Every error line load() reports for ``path`` (InputErrorList and nothing else)."""
    with pytest.raises(InputErrorList) as caught:
        load([path])
    return [str(e) for e in caught.value.errors]


def write(tmp_path: Path, name: str, text: str) -> Path:
    """Write one file and return its path."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def pod_yaml(metadata: str = "", spec: str = "") -> str:
    """A pod named web with extra ``metadata`` and ``spec`` fields (YAML flow style)."""
    return f"kind: Pod\nmetadata: {{name: web{metadata}}}\nspec: {{containers: [{{name: a}}]{spec}}}\n"


def test_unquoted_out_of_range_timestamp_is_a_located_error(tmp_path: Path) -> None:
    """An unquoted timestamp with month 13 names the field, as the API server's time parser would."""
    path = write(tmp_path, "p.yaml", pod_yaml(", creationTimestamp: 2024-13-01T00:00:00Z"))
    assert errors_of(path) == [f'{path}: pods/default/web: metadata.creationTimestamp: Invalid value: '
                               '"2024-13-01T00:00:00Z": month out of range']


@pytest.mark.parametrize("text", ["9999-12-31T23:59:59Z", '"9999-12-31T23:59:59Z"', "9999-12-31T23:59:59.999999999Z",
                                  '"9999-12-31T23:59:59+00:00"'])
def test_timestamps_up_to_year_9999_load(tmp_path: Path, text: str) -> None:
    """The last second of year 9999 is a valid RFC 3339 time, quoted or not, with a fraction or an offset."""
    pods = load([write(tmp_path, "p.yaml", pod_yaml(f", creationTimestamp: {text}"))]).pods
    assert pods[0].metadata.creation_timestamp is not None
    assert pods[0].metadata.creation_timestamp.replace(microsecond=0) == datetime(9999, 12, 31, 23, 59, 59,
                                                                                    tzinfo=UTC)


@pytest.mark.parametrize("name", ["p.yaml", "p.json"])
def test_an_integer_of_thousands_of_digits_is_a_located_error(tmp_path: Path, name: str) -> None:
    """A 5000-digit integer is out of range for its field, and the message shows only its start."""
    digits = "9" * 5000
    text = (json.dumps(POD_JSON)[:-2] + f', "priority": {digits}}}}}' if name.endswith(".json")
            else pod_yaml(spec=f", priority: {digits}"))
    path = write(tmp_path, name, text)
    assert errors_of(path) == [f"{path}: pods/default/web: spec.priority: Invalid value: {'9' * 80}... (5000 digits): "
                               "must be a 32-bit integer"]


def test_an_integer_of_a_hundred_digits_is_shown_by_its_start_and_length(tmp_path: Path) -> None:
    """An integer Python can read but no field can hold is cut in the message like a longer one."""
    path = write(tmp_path, "p.yaml", pod_yaml(spec=f", priority: {'9' * 100}"))
    assert errors_of(path) == [f"{path}: pods/default/web: spec.priority: Invalid value: {'9' * 80}... (100 digits): "
                               "must be a 32-bit integer"]


def test_an_unprintable_character_in_yaml_is_one_plain_line(tmp_path: Path) -> None:
    """PyYAML's error for a control character spans two lines; the message folds it onto one."""
    path = write(tmp_path, "p.yaml", "kind: Pod\nmetadata: {name: web\x01}\n")
    assert errors_of(path) == [f'{path}: invalid YAML: unacceptable character #x0001: special characters are not '
                               'allowed in "<unicode string>", position 30']


@pytest.mark.parametrize(("name", "text", "where"), [
    ("deep.yaml", "a: " + "[" * 1000 + "]" * 1000 + "\n", "invalid YAML at line 1 column 103"),
    ("deep.json", '{"a": ' + "[" * 1000 + "]" * 1000 + "}", "invalid JSON at line 1 column 106"),
])
def test_nesting_a_thousand_levels_deep_is_a_located_error(tmp_path: Path, name: str, text: str, where: str) -> None:
    """Nesting past 100 levels is refused where it starts, before any parser recursion runs out."""
    path = write(tmp_path, name, text)
    assert errors_of(path) == [f"{path}: {where}: nesting deeper than 100 levels"]


@pytest.mark.parametrize("value", ["\u00b2", "\u0661", "3", " 3%", "\u00b3%"])
def test_pdb_budget_strings_follow_kubernetes_int_or_string_rules(tmp_path: Path, value: str) -> None:
    """A string budget must be ASCII digits and '%': superscripts, other scripts' digits and bare numbers are not."""
    path = write(tmp_path, "pdb.json", json.dumps({"kind": "PodDisruptionBudget", "metadata": {"name": "db"},
                                                   "spec": {"minAvailable": value}}, ensure_ascii=False))
    shown = json.dumps(value, ensure_ascii=False)
    assert errors_of(path) == [
        f"{path}: poddisruptionbudgets/default/db: spec.minAvailable: Invalid value: {shown}: a "
        "valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used "
        "for validation is '[0-9]+%')"]


def test_pdb_percent_over_100_uses_the_api_server_wording(tmp_path: Path) -> None:
    """101% is refused with the API server's message."""
    path = write(tmp_path, "pdb.yaml",
                 "kind: PodDisruptionBudget\nmetadata: {name: db}\nspec: {maxUnavailable: 101%}\n")
    assert errors_of(path) == [f'{path}: poddisruptionbudgets/default/db: spec.maxUnavailable: Invalid value: "101%": '
                               "must not be greater than 100%"]


def test_an_unpaired_surrogate_in_a_name_is_a_located_error(tmp_path: Path) -> None:
    """A lone surrogate in a name is escaped in the message instead of crashing the uid derivation."""
    path = write(tmp_path, "p.json", json.dumps({**POD_JSON, "metadata": {"name": "web\ud800"}}))
    [message] = errors_of(path)
    assert message.startswith(f'{path}: pods/default/"web\\ud800": metadata.name: Invalid value: "web\\ud800": a '
                              "lowercase RFC 1123 subdomain must consist of")
    message.encode("utf-8")  # printable on any terminal


def test_a_newline_in_a_value_cannot_forge_an_error_line(tmp_path: Path) -> None:
    """A value holding a newline is escaped, so each problem stays one line."""
    path = write(tmp_path, "p.json", json.dumps(
        {**POD_JSON, "spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1\nerror: forged"}}}]}}))
    assert errors_of(path) == [f'{path}: pods/default/web: spec.containers[0].resources.requests.cpu: '
                               '"1\\nerror: forged" is not a valid quantity']


@pytest.mark.parametrize(("field", "value", "message"), [
    ("nodeName", "!!set {a: null}", "Invalid value: a value of no JSON type: must be a string"),
    ("nodeName", "{a: 1}", "Invalid value: an object: must be a string"),
    ("nodeName", "[a]", "Invalid value: a list: must be a string"),
    ("nodeName", "12", "Invalid value: 12: must be a string"),
    ("priority", "'7'", 'Invalid value: "7": must be an integer'),
    ("overhead", "{cpu: {a: 1}}", "an object is not a valid quantity"),
])
def test_type_errors_are_in_kubernetes_terms(tmp_path: Path, field: str, value: str, message: str) -> None:
    """A value of the wrong type is described as JSON values are, never as a Python type or repr."""
    path = write(tmp_path, "p.yaml", pod_yaml(spec=f", {field}: {value}"))
    [line] = errors_of(path)
    assert line.endswith(f": {message}")
    assert "set" not in line.split(": spec.")[1].replace("a value of", "")
    assert "'" not in line


def test_a_map_key_with_a_newline_is_quoted_in_the_field_path(tmp_path: Path) -> None:
    """A resource name that is not a plain word is quoted in the field path too."""
    path = write(tmp_path, "p.json", json.dumps(
        {**POD_JSON, "spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu\nx": "z"}}}]}}))
    assert errors_of(path)[0] == (f'{path}: pods/default/web: spec.containers[0].resources.limits["cpu\\nx"]: '
                                  '"z" is not a valid quantity')


@pytest.mark.parametrize(("value", "problem"), [
    ("!!bool maybe", '"maybe" is not a valid !!bool'),
    ("!!int abc", '"abc" is not a valid !!int'),
    ("!!float x", '"x" is not a valid !!float'),
    ("!!int ''", '"" is not a valid !!int'),
])
def test_a_scalar_its_explicit_tag_cannot_hold_is_a_located_error(tmp_path: Path, value: str, problem: str) -> None:
    """`!!bool maybe` and the like are YAML errors at their line and column."""
    path = write(tmp_path, "p.yaml", pod_yaml(spec=f", priority: {value}"))
    assert errors_of(path) == [f"{path}: invalid YAML at line 3 column 43: {problem}"]


def test_an_explicit_timestamp_tag_is_read_as_text(tmp_path: Path) -> None:
    """`!!timestamp` with a bad month is the time field's error, as for an untagged time."""
    path = write(tmp_path, "p.yaml", pod_yaml(", creationTimestamp: !!timestamp 2024-13-01T00:00:00Z"))
    assert errors_of(path) == [f'{path}: pods/default/web: metadata.creationTimestamp: Invalid value: '
                               '"2024-13-01T00:00:00Z": month out of range']


TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from("\n\r\t\x1b\x00\u2028\ud800"), max_size=8)
ANY_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
                        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                        max_leaves=6)
FIELDS = [("metadata", "name"), ("metadata", "namespace"), ("metadata", "uid"), ("metadata", "labels"),
          ("spec", "nodeName"), ("spec", "priorityClassName"), ("spec", "schedulingGates"), ("spec", "overhead"),
          ("spec", "tolerations"), ("spec", "nodeSelector"), ("kind",)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(FIELDS), ANY_JSON)
def test_every_error_is_one_printable_line(tmp_path: Path, field: tuple[str, ...], value: object) -> None:
    """Whatever text a field holds (newlines, escapes, surrogates), each error is one line a terminal prints as is."""
    document: dict[str, Any] = json.loads(json.dumps(POD_JSON))
    document[field[0]] = {**document[field[0]], field[1]: value} if len(field) == 2 else value
    path = tmp_path / "p.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    try:
        load([path])
    except InputErrorList as caught:
        for error in caught.errors:
            assert str(error).isprintable(), str(error)
