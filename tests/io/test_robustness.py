"""Whatever the manifest holds, loading ends in objects or in InputErrorList: never another exception."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.io.load import InputErrorList, load

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)

POD: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "shop"},
    "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}, "ports": [{"containerPort": 80}]}],
             "tolerations": [{"key": "k", "operator": "Exists"}], "nodeSelector": {"a": "b"},
             "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                 "nodeSelectorTerms": [{"matchExpressions": [{"key": "z", "operator": "In", "values": ["1"]}]}]}}}},
    "status": {"phase": "Pending"},
}
PATHS = [("metadata",), ("metadata", "name"), ("metadata", "labels"), ("metadata", "creationTimestamp"),
         ("spec",), ("spec", "containers"), ("spec", "priority"), ("spec", "tolerations"), ("spec", "affinity"),
         ("spec", "nodeSelector"), ("spec", "overhead"), ("spec", "topologySpreadConstraints"),
         ("spec", "schedulingGates"), ("status",), ("status", "startTime"), ("kind",)]


def _errors_of(path: Path) -> list[str] | None:
    """None when the file loads, else its error lines; any other exception propagates (and fails)."""
    try:
        load([path])
    except InputErrorList as exc:
        return [str(e) for e in exc.errors]
    return None


def _replace(document: dict[str, Any], path: tuple[str, ...], value: object) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(document))
    target = copy
    for key in path[:-1]:
        if not isinstance(target.get(key), dict):
            target[key] = {}
        target = target[key]
    target[path[-1]] = value
    return copy


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(PATHS), JSON)
def test_any_value_anywhere_is_loaded_or_reported(tmp_path: Path, path: tuple[str, ...], value: object) -> None:
    """Replacing any field with any JSON value never raises anything but InputErrorList."""
    manifest = tmp_path / "pod.json"
    manifest.write_text(json.dumps(_replace(POD, path, value)), encoding="utf-8")
    errors = _errors_of(manifest)
    assert errors is None or (errors and all(str(manifest) in e for e in errors))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=60))
def test_any_text_is_loaded_or_reported(tmp_path: Path, text: str) -> None:
    """Arbitrary text as a YAML file never raises anything but InputErrorList."""
    manifest = tmp_path / "any.yaml"
    manifest.write_text(text, encoding="utf-8")
    errors = _errors_of(manifest)
    assert errors is None or errors
