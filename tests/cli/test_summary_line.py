"""The summary line under the tables counts every pod once, by how it ended: bound, pending and evicted always, and
succeeded, lost and deleted when any pod ended so."""

from __future__ import annotations

from pathlib import Path

from kubesched.cli.render import summary_counts
from kubesched.runtime import PluginRegistry
from tests.sim.controllers.helpers import node, run

JOB = """kind: Job
metadata: {name: batch}
spec:
  completions: 2
  template:
    metadata: {annotations: {kubesched.io/duration: 1m}}
    spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
"""

POD = """kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
"""


def test_pods_that_ran_to_completion_are_counted_as_succeeded(tmp_path: Path, registry: PluginRegistry) -> None:
    """A Job's two pods ran their minute: 2 succeeded beside the bound pod, none left out."""
    sim = run(tmp_path, node("n1") + POD + JOB, registry)
    assert summary_counts(sim.result()) == "1 bound, 0 pending, 0 evicted, 2 succeeded"


def test_only_the_first_three_counts_are_shown_when_nothing_else_happened(tmp_path: Path,
                                                                         registry: PluginRegistry) -> None:
    """A plain run keeps the short line users' scripts read."""
    sim = run(tmp_path, node("n1") + POD, registry)
    assert summary_counts(sim.result()) == "1 bound, 0 pending, 0 evicted"
