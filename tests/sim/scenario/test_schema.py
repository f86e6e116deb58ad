"""The scenario file's schema: what is accepted, and precise errors (file, step, field) for what is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.io.load import InputErrorList
from kubesched.sim.scenario import is_scenario_file, load_scenario
from kubesched.sim.scenario_steps import Create, DeleteNode, DrainNode, PatchNode, RunUntil, Scale
from tests.sim.scenario.helpers import HEADER, node, scenario, write

NODE_STEP = f"  - create: {{objects: [{node('n1')}]}}\n"
WORKLOAD = ("  - create:\n      objects:\n      - {kind: Deployment, apiVersion: apps/v1, metadata: {name: web}, spec: "
            "{selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: "
            "[{name: c}]}}}}\n")


def errors(tmp_path: Path, steps: str) -> list[str]:
    with pytest.raises(InputErrorList) as caught:
        scenario(tmp_path, steps)
    return [str(e) for e in caught.value.errors]


def test_every_step_type_is_read(tmp_path: Path) -> None:
    """Each action decodes into its step, with its time."""
    loaded = scenario(tmp_path, NODE_STEP + WORKLOAD + """\
  - at: 90s
    patch-node: {name: n1, labels: {disk: ssd, old: null}, taints: [{key: k, effect: NoSchedule}], unschedulable: true}
  - {at: 5m, scale: {kind: Deployment, name: web, replicas: 5}}
  - {at: 1h, drain-node: {name: n1, timeout: 10m}}
  - {at: 2h, delete: [{kind: Deployment, name: web}]}
  - {at: 3h, delete-node: {name: n1}}
  - run-until: 4h
""")
    assert [s.name for s in loaded.steps] == ["create", "create", "patch-node", "scale", "drain-node", "delete",
                                              "delete-node", "run-until"]
    assert [s.at for s in loaded.steps] == [None, None, 90.0, 300.0, 3600.0, 7200.0, 10800.0, None]
    create, patch, scale, drain = loaded.steps[0].action, loaded.steps[2].action, loaded.steps[3].action, \
        loaded.steps[4].action
    assert isinstance(create, Create)
    assert [n.name for n in create.objects.nodes] == ["n1"]
    assert isinstance(patch, PatchNode)
    assert (dict(patch.labels), patch.unschedulable) == ({"disk": "ssd", "old": None}, True)
    assert isinstance(scale, Scale)
    assert (str(scale.target), scale.replicas) == ("Deployment default/web", 5)
    assert isinstance(drain, DrainNode)
    assert drain.timeout == 600.0
    assert isinstance(loaded.steps[6].action, DeleteNode)
    assert loaded.steps[7].action == RunUntil(14400.0)


def test_create_from_files_is_relative_to_the_scenario(tmp_path: Path) -> None:
    """``from`` paths are read relative to the scenario file's directory."""
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "nodes.yaml").write_text("kind: Node\nmetadata: {name: n9}\n", encoding="utf-8")
    loaded = scenario(tmp_path, "  - create: {from: [m/nodes.yaml]}\n")
    action = loaded.steps[0].action
    assert isinstance(action, Create)
    assert [n.name for n in action.objects.nodes] == ["n9"]


def test_run_until_quiescence(tmp_path: Path) -> None:
    """``run-until: quiescence`` runs until nothing more can happen."""
    assert scenario(tmp_path, NODE_STEP + "  - run-until: quiescence\n").steps[1].action == RunUntil(None)


@pytest.mark.parametrize(("steps", "expected"), [
    pytest.param("  - {at: 1h, create: {objects: []}, scale: {}}\n",
                 "spec.steps[0]: Invalid value: create, scale: a step has exactly one action", id="two-actions"),
    pytest.param("  - {at: 1h}\n", 'spec.steps[0]: Required value: exactly one action of "create"',
                 id="no-action"),
    pytest.param("  - {cordon: {name: n1}}\n", 'spec.steps[0]: cordon: unknown field "cordon"', id="unknown-action"),
    pytest.param(NODE_STEP + "  - {at: soon, delete-node: {name: n1}}\n",
                 'spec.steps[1]: at: Invalid value: "soon": must be a duration', id="bad-at"),
    pytest.param(NODE_STEP + "  - {at: 2h, delete-node: {name: n1}}\n  - {at: 1h, run-until: 3h}\n",
                 "spec.steps[2]: at: Invalid value: 3600s: before an earlier step's time (7200s)", id="time-backwards"),
    pytest.param(NODE_STEP + "  - {drain-node: {name: n2}}\n",
                 'spec.steps[1]: drain-node.name: NotFound: node "n2" is not created by an earlier step',
                 id="unknown-node"),
    pytest.param(NODE_STEP + "  - {delete-node: {name: n1}}\n  - {patch-node: {name: n1, unschedulable: true}}\n",
                 'spec.steps[2]: patch-node.name: NotFound: node "n1"', id="node-deleted-before"),
    pytest.param("  - {scale: {kind: Deployment, name: web, replicas: 2}}\n",
                 "spec.steps[0]: scale: NotFound: Deployment default/web is not created by an earlier step",
                 id="scale-unknown"),
    pytest.param(WORKLOAD + "  - {scale: {kind: DaemonSet, name: web, replicas: 2}}\n",
                 'spec.steps[1]: scale.kind: Unsupported value: "DaemonSet": supported values: "Deployment"',
                 id="scale-kind"),
    pytest.param(WORKLOAD + "  - {scale: {kind: Deployment, name: web, replicas: -1}}\n",
                 "spec.steps[1]: scale.replicas: Invalid value: -1", id="scale-negative"),
    pytest.param(WORKLOAD + "  - {scale: {kind: Deployment, name: web, replicas: 2147483647}}\n",
                 "spec.steps[1]: scale.replicas: Invalid value: 2147483647: more pods than kubesched simulates for "
                 "one workload (at most 150000", id="scale-past-150000"),
    pytest.param(NODE_STEP + NODE_STEP, "spec.steps[1].create.objects[0] (nodes/n1): duplicate object: already "
                 "defined in", id="created-twice"),
    pytest.param(WORKLOAD.replace("Deployment", "ReplicaSet") + WORKLOAD.replace("create", "apply").replace(
        "Deployment", "ReplicaSet"), "spec.steps[1]: apply: AlreadyExists: ReplicaSet default/web already exists "
                                     "(apply updates Deployments and Nodes only)", id="apply-updates-some-kinds"),
    pytest.param("  - create: {from: [missing.yaml]}\n",
                 'spec.steps[0]: create.from[0]: Invalid value: "missing.yaml": no such file or directory',
                 id="missing-file"),
    pytest.param("  - create: {objects: [{kind: Node, metadata: {name: N_1}}]}\n",
                 'spec.steps[0].create.objects[0] (nodes/"N_1"): metadata.name: Invalid value: "N_1"',
                 id="inline-object-error"),
    pytest.param(NODE_STEP + "  - patch-node: {name: n1, taints: [{key: k, effect: Sometimes}]}\n",
                 'spec.steps[1]: patch-node.taints[0].effect: Unsupported value: "Sometimes"', id="bad-taint"),
    pytest.param(NODE_STEP + "  - patch-node: {name: n1, labels: {'a b': x}}\n",
                 "spec.steps[1]: patch-node.labels: Invalid value: \"a b\": name part must consist of", id="bad-label"),
    pytest.param(NODE_STEP + "  - patch-node: {name: n1}\n",
                 'spec.steps[1]: patch-node: Required value: one of "labels", "taints", "unschedulable"',
                 id="empty-patch"),
    pytest.param("  - run-until: forever\n",
                 'spec.steps[0]: run-until: Invalid value: "forever": "quiescence" or a time', id="bad-run-until"),
    pytest.param("  - {delete: [{kind: Secret, name: s}]}\n",
                 'spec.steps[0]: delete[0].kind: Unsupported value: "Secret"', id="delete-kind"),
])
def test_bad_scenario_is_reported_at_file_step_and_field(tmp_path: Path, steps: str, expected: str) -> None:
    """Each problem names the scenario file, the step and the field path."""
    found = errors(tmp_path, steps)
    assert any(line.startswith(f"{tmp_path / 'scenario.yaml'}: ") and expected in line for line in found), found


def test_every_problem_is_reported_in_one_run(tmp_path: Path) -> None:
    """Problems of several steps, then those of the manifests they create, come together (references between
    steps are checked once the rest is valid)."""
    found = errors(tmp_path, "  - {at: -1, create: {objects: [{kind: Node, metadata: {name: N_1}}]}}\n"
                             "  - {scale: {kind: Deployment, name: x, replicas: 1}}\n  - run-until: forever\n")
    steps = [line.split(": ")[1] for line in found]
    assert steps == ["spec.steps[0]", "spec.steps[2]", 'spec.steps[0].create.objects[0] (nodes/"N_1")'], found


def test_header_is_checked(tmp_path: Path) -> None:
    """apiVersion must be kubesched.io/v1alpha1."""
    path = tmp_path / "s.yaml"
    path.write_text(HEADER.replace("v1alpha1", "v2") + "  - run-until: 1h\n", encoding="utf-8")
    with pytest.raises(InputErrorList) as caught:
        load_scenario(path)
    assert 'apiVersion: Unsupported value: "kubesched.io/v2": supported values: "kubesched.io/v1alpha1"' in str(
        caught.value)


def test_scenario_files_are_detected_by_kind(tmp_path: Path) -> None:
    """A file whose document says kind: Scenario is a scenario; manifests are not."""
    manifest = tmp_path / "m.yaml"
    manifest.write_text("kind: Node\nmetadata: {name: n}\n", encoding="utf-8")
    assert is_scenario_file(write(tmp_path, "  - run-until: 1h\n"))
    assert not is_scenario_file(manifest)


def test_unknown_keys_outside_the_steps_are_rejected(tmp_path: Path) -> None:
    """A misspelt key at the top, in metadata or in spec is an error, not silently ignored."""
    path = tmp_path / "s.yaml"
    path.write_text(HEADER.replace("metadata: {name: test}", "metadata: {name: test, nmae: x}\nstatus: {}")
                    .replace("spec:\n", "spec:\n  setings: {}\n") + "  - run-until: 1h\n", encoding="utf-8")
    with pytest.raises(InputErrorList) as caught:
        load_scenario(path)
    assert [str(e).split(": ", 1)[1] for e in caught.value.errors] == [
        'status: unknown field "status" (known: "apiVersion", "kind", "metadata", "spec")',
        'metadata.nmae: unknown field "nmae" (known: "name", "labels", "annotations")',
        'spec.setings: unknown field "setings" (known: "settings", "steps")',
    ]
