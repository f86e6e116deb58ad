"""Every problem in the input is reported in one run, sorted by file and position."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.io.load import InputErrorList, load


def errors_of(*paths: Path) -> list[str]:
    """Every error line load() reports for ``paths``."""
    with pytest.raises(InputErrorList) as caught:
        load(paths)
    return [str(e) for e in caught.value.errors]


def write(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` and return the path."""
    path.write_text(text, encoding="utf-8")
    return path


def test_a_bad_cpu_does_not_hide_a_bad_memory(tmp_path: Path) -> None:
    """Two bad quantities in one container are both reported."""
    path = write(tmp_path / "p.yaml", "kind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: a, "
                                      "resources: {requests: {cpu: 2x, memory: 1GB}}}]}\n")
    assert errors_of(path) == [
        f'{path}: pods/default/web: spec.containers[0].resources.requests.cpu: "2x" is not a valid quantity',
        f'{path}: pods/default/web: spec.containers[0].resources.requests.memory: "1GB" is not a valid quantity']


def test_a_bad_quantity_does_not_hide_a_missing_priority_class(tmp_path: Path) -> None:
    """Admission still runs on a pod whose fields are bad, so its unknown class is reported too."""
    path = write(tmp_path / "p.yaml", "kind: Pod\nmetadata: {name: web}\nspec: {priorityClassName: gold, "
                                      "containers: [{name: a, resources: {requests: {cpu: 2x}}}]}\n")
    assert errors_of(path) == [
        f'{path}: pods/default/web: spec.containers[0].resources.requests.cpu: "2x" is not a valid quantity',
        f'{path}: pods/default/web: spec.priorityClassName: pods "web" is forbidden: no PriorityClass with name gold '
        "was found"]


def test_problems_of_different_objects_and_fields_are_all_reported(tmp_path: Path) -> None:
    """Problems in different fields, objects and kinds all come out of one load."""
    path = write(tmp_path / "p.yaml",
                 "kind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: k, effect: Sometimes}]}\n"
                 "status: {allocatable: {cpu: lots}}\n---\n"
                 "kind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: a}], nodeName: ghost, "
                 "tolerations: [{operator: Maybe}], terminationGracePeriodSeconds: -1}\n")
    assert sorted(e.removeprefix(f"{path}: ") for e in errors_of(path)) == [
        'nodes/n1: spec.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", '
        '"PreferNoSchedule", "NoExecute"',
        'nodes/n1: status.allocatable.cpu: "lots" is not a valid quantity',
        'pods/default/web: spec.nodeName: node "ghost" is not in the input',
        "pods/default/web: spec.terminationGracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0",
        'pods/default/web: spec.tolerations[0].operator: Invalid value: "Maybe": operator must be Exists when `key` '
        'is empty, which means "match all values and all keys"',
        'pods/default/web: spec.tolerations[0].operator: Unsupported value: "Maybe": supported values: "Equal", '
        '"Exists"']


def test_errors_are_sorted_by_file_then_position(tmp_path: Path) -> None:
    """Errors come in the order of the files given, then of the documents and list items within each file."""
    late = write(tmp_path / "b.yaml", "kind: Pod\nmetadata: {name: p1, namespace: x}\nspec: {priorityClassName: "
                                      "nope, containers: [{name: a}]}\n---\nkind: Node\nmetadata: {name: n}\n"
                                      "status: {capacity: {cpu: bad}}\n")
    early = write(tmp_path / "a.yaml", "kind: List\nitems:\n- {kind: Pod, metadata: {name: q}, spec: {}}\n"
                                       "- {kind: Pod}\n")
    located = [e.split(": ")[:2] for e in errors_of(late, early)]
    assert located == [[str(late), "pods/x/p1"], [str(late), "nodes/n"], [str(early), "pods/default/q"],
                       [str(early), "pods (document 1, items[1])"], [str(early), "pods (document 1, items[1])"]]


def test_a_syntax_error_does_not_hide_problems_in_earlier_documents(tmp_path: Path) -> None:
    """Documents before a YAML syntax error are still checked, and their problems come first."""
    path = write(tmp_path / "p.yaml", "kind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: lots}}\n---\n"
                                      "kind: Pod\nmetadata: {name: [unclosed\n")
    assert errors_of(path) == [
        f'{path}: nodes/n1: status.capacity.cpu: "lots" is not a valid quantity',
        f"{path}: invalid YAML at line 7 column 1: expected ',' or ']', but got '<stream end>'"]


def test_a_missing_path_does_not_stop_the_other_files_being_checked(tmp_path: Path) -> None:
    """Missing paths come first, then the problems of the files that exist."""
    path = write(tmp_path / "p.yaml", "kind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: lots}}\n")
    assert errors_of(path, tmp_path / "gone.yaml") == [
        f"{tmp_path / 'gone.yaml'}: no such file or directory",
        f'{path}: nodes/n1: status.capacity.cpu: "lots" is not a valid quantity']
