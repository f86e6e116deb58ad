"""Names and namespaces follow the API server's rules per kind, and uids are unique across the input."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from pathlib import Path

import pytest

from kubesched.api import validation
from kubesched.io.load import InputErrorList, load

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
             "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
         "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
           "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
           "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")


def errors_of(tmp_path: Path, *objects: Mapping[str, object]) -> list[str]:
    """The error lines for a JSON list of ``objects``, without the file name."""
    path = tmp_path / "input.json"
    path.write_text(json.dumps({"kind": "List", "items": list(objects)}), encoding="utf-8")
    with pytest.raises(InputErrorList) as caught:
        load([path])
    return [str(e).removeprefix(f"{path}: ") for e in caught.value.errors]


def pod(name: str, namespace: str | None = None, **metadata: object) -> dict[str, object]:
    """A minimal pod."""
    meta = {"name": name, **({"namespace": namespace} if namespace is not None else {}), **metadata}
    return {"kind": "Pod", "metadata": meta, "spec": {"containers": [{"name": "a"}]}}


@pytest.mark.parametrize(("value", "problems"), [
    ("web-1.example", []),
    ("Web", [SUBDOMAIN]),
    ("a/b", [SUBDOMAIN]),
    ("a" * 254, ["must be no more than 253 characters"]),
    ("-a", [SUBDOMAIN]),
])
def test_dns1123_subdomain(value: str, problems: list[str]) -> None:
    """IsDNS1123Subdomain, with the API server's wording."""
    assert validation.dns1123_subdomain(value) == problems


@pytest.mark.parametrize(("value", "problems"), [
    ("prod", []),
    ("a.b", ["must not contain dots"]),
    ("A_b", [LABEL]),
    ("a" * 64, ["must be no more than 63 characters"]),
])
def test_dns1123_label(value: str, problems: list[str]) -> None:
    """IsDNS1123Label, saying "must not contain dots" where the API server does."""
    assert validation.dns1123_label(value) == problems


def test_dns1035_label() -> None:
    """Service names must start with a letter."""
    assert (validation.dns1035_label("web"), validation.dns1035_label("1web")) == ([], [DNS1035])


@pytest.mark.parametrize(("value", "ok"), [("example.com/wait", True), ("wait", True), ("g1 g2", False),
                                           ("/x", False), ("a/b/c", False), ("Example.com/x", False)])
def test_qualified_name(value: str, ok: bool) -> None:
    """Scheduling gates and taint keys are qualified names: an optional DNS subdomain prefix and a name part."""
    assert (validation.qualified_name(value) == []) is ok


@pytest.mark.parametrize(("kind", "name", "rule"), [
    ("Pod", "Web", SUBDOMAIN),
    ("Node", "n_1", SUBDOMAIN),
    ("PriorityClass", "Gold", SUBDOMAIN),
    ("PodDisruptionBudget", "db!", SUBDOMAIN),
    ("ReplicaSet", "rs/1", SUBDOMAIN),
    ("ReplicationController", "RC", SUBDOMAIN),
    ("Namespace", "a.b", "must not contain dots"),
    ("StatefulSet", "db.0", "must not contain dots"),
    ("Service", "1web", DNS1035),
])
def test_each_kind_checks_its_name_with_the_api_server_rule(tmp_path: Path, kind: str, name: str, rule: str) -> None:
    """The name rule is the kind's: subdomain for most, label for namespaces and StatefulSets, DNS-1035 for Services."""
    obj: dict[str, object] = {"kind": kind, "metadata": {"name": name}}
    if kind == "Pod":
        obj["spec"] = {"containers": [{"name": "a"}]}
    if kind == "PriorityClass":
        obj["value"] = 1
    [message] = errors_of(tmp_path, obj)
    assert message.endswith(f'metadata.name: Invalid value: "{name}": {rule}')


def test_a_namespace_with_a_slash_cannot_alias_another_object(tmp_path: Path) -> None:
    """Namespace a/b with name c and namespace a with name b/c are both refused, so they cannot meet as one key."""
    assert errors_of(tmp_path, pod("c", "a/b"), pod("b/c", "a")) == [
        f'pods/"a/b"/c: metadata.namespace: Invalid value: "a/b": {LABEL}',
        f'pods/a/"b/c": metadata.name: Invalid value: "b/c": {SUBDOMAIN}']


def test_control_characters_in_names_never_reach_the_terminal(tmp_path: Path) -> None:
    """An escape sequence in a name is escaped wherever the name is shown."""
    [message] = errors_of(tmp_path, pod("\x1b[31mred"))
    assert message == f'pods/default/"\\x1b[31mred": metadata.name: Invalid value: "\\x1b[31mred": {SUBDOMAIN}'


def test_scheduling_gates_and_node_names_are_checked(tmp_path: Path) -> None:
    """A scheduling gate must be a qualified name; spec.nodeName and status.nominatedNodeName subdomains."""
    obj = pod("web")
    obj["spec"] = {"containers": [{"name": "a"}], "schedulingGates": [{"name": "g1 g2"}], "nodeName": "N/1"}
    obj["status"] = {"nominatedNodeName": "n\n1"}
    messages = errors_of(tmp_path, obj)
    assert [m.split(": Invalid value: ")[0] for m in messages] == [
        "pods/default/web: spec.nodeName", "pods/default/web: spec.schedulingGates[0]",
        "pods/default/web: status.nominatedNodeName"]


def test_taint_keys_and_values_are_checked(tmp_path: Path) -> None:
    """A taint key must be a qualified name and its value a label value, as they appear in FitError messages."""
    node = {"kind": "Node", "metadata": {"name": "n1"},
            "spec": {"taints": [{"key": "bad key", "value": "a\nb", "effect": "NoSchedule"}]}}
    messages = errors_of(tmp_path, node)
    assert [m.split(": Invalid value: ")[0] for m in messages] == ["nodes/n1: spec.taints[0].key",
                                                                    "nodes/n1: spec.taints[0].value"]


def test_two_objects_with_the_same_explicit_uid_are_an_error(tmp_path: Path) -> None:
    """A uid given twice is reported on the second object, naming the first; neither is lost."""
    assert errors_of(tmp_path, pod("a", uid="u-1"), {"kind": "Node", "metadata": {"name": "n", "uid": "u-1"}}) == [
        'nodes/n: metadata.uid: Duplicate value: "u-1": also the uid of pods/default/a (in '
        f'{tmp_path / "input.json"})']


def test_an_explicit_uid_equal_to_a_derived_one_is_an_error(tmp_path: Path) -> None:
    """Pod a taking the uid kubesched derives for pod b (which has none) is reported instead of merging them."""
    derived = str(uuid.uuid5(uuid.NAMESPACE_URL, "kubesched:pods/default/b"))
    assert errors_of(tmp_path, pod("a", uid=derived), pod("b")) == [
        f'pods/default/a: metadata.uid: Duplicate value: "{derived}": kubesched derives this uid for pods/default/b '
        f'(in {tmp_path / "input.json"}), which has none; give one of them another uid']
