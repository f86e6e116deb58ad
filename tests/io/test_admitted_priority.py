"""Pods dumped from a live cluster carry the priority admission gave them; it is taken as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.api.pod import PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER
from kubesched.io.load import InputErrorList, load

NODE = "kind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', pods: '10'}}\n"


def pod(spec: str, name: str = "web") -> str:
    """A pod manifest with ``spec`` fields (YAML flow style) besides its one container."""
    return f"---\nkind: Pod\nmetadata: {{name: {name}, namespace: shop}}\nspec: {{containers: [{{name: a}}], {spec}}}\n"


def write(tmp_path: Path, text: str) -> Path:
    """Write one manifest file and return its path."""
    path = tmp_path / "dump.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("spec", "expected"), [
    ("priorityClassName: prod-critical, priority: 1000000, preemptionPolicy: PreemptLowerPriority",
     (1_000_000, "prod-critical", PREEMPT_LOWER_PRIORITY)),
    ("priorityClassName: batch-low, priority: 10, preemptionPolicy: Never", (10, "batch-low", PREEMPT_NEVER)),
    ("priorityClassName: batch-low, priority: 10", (10, "batch-low", PREEMPT_LOWER_PRIORITY)),
])
def test_admitted_priority_without_its_priority_class_is_accepted(tmp_path: Path, spec: str,
                                                                   expected: tuple[int, str, str]) -> None:
    """A pod with spec.priority whose class is not in the input keeps its priority and policy."""
    spec_of = load([write(tmp_path, NODE + pod(spec))]).pods[0].spec
    assert (spec_of.priority, spec_of.priority_class_name, spec_of.preemption_policy) == expected


def test_class_name_without_priority_and_without_the_class_is_still_an_error(tmp_path: Path) -> None:
    """A pod still to be admitted (no spec.priority) must find its PriorityClass in the input."""
    path = write(tmp_path, pod("priorityClassName: prod-critical"))
    with pytest.raises(InputErrorList) as caught:
        load([path])
    assert [str(e) for e in caught.value.errors] == [
        f'{path}: pods/shop/web: spec.priorityClassName: pods "web" is forbidden: no PriorityClass with name '
        "prod-critical was found"]
