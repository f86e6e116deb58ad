"""Inputs real dumps contain: other tools' files beside the manifests, the same object in two bundles, and a
scheduler configuration passed as a manifest."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.io.load import load
from tests.io.test_errors import errors_of, write

NAMESPACE = """\
apiVersion: v1
kind: Namespace
metadata: {name: monitoring, labels: {team: obs}}
"""

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""

CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles: [{schedulerName: default-scheduler}]
"""


@pytest.mark.parametrize("content", [
    pytest.param('{"name": "cluster-a", "nodes": 3}\n', id="a JSON settings object"),
    pytest.param('[1, 2, 3]\n', id="a JSON list"),
    pytest.param('title: my cluster\nnodes: 3\n', id="a YAML settings map"),
])
def test_a_file_beside_the_manifests_that_holds_no_object_is_skipped_with_a_warning(tmp_path: Path,
                                                                                   content: str) -> None:
    """open-simulator's layout keeps a cluster settings file among the manifests: the rest still loads."""
    write(tmp_path / "cluster", "nodes.yaml", NODE)
    other = write(tmp_path / "cluster", "settings.json" if content[0] in "{[" else "settings.yaml", content)
    cluster = load([tmp_path / "cluster"])
    assert [n.name for n in cluster.nodes] == ["n1"]
    assert cluster.warnings == (f"skipped {other}: not a Kubernetes object (no kind or apiVersion); a file named on "
                                "the command line is read as a manifest",)


def test_the_same_file_named_on_the_command_line_is_an_error(tmp_path: Path) -> None:
    """A file the user named must be a manifest, even when its folder is named too (and it is read once)."""
    write(tmp_path / "cluster", "nodes.yaml", NODE)
    other = write(tmp_path / "cluster", "settings.json", '{"name": "cluster-a"}\n')
    assert errors_of(tmp_path / "cluster", other) == [
        f"{other}: document 1: kind: Required value: every object needs a kind"]


def test_a_manifest_in_a_folder_missing_only_its_kind_stays_an_error(tmp_path: Path) -> None:
    """A document with an apiVersion is meant as an object: a missing kind is reported, not skipped."""
    broken = write(tmp_path / "cluster", "pod.yaml", "apiVersion: v1\nmetadata: {name: web}\n")
    assert errors_of(tmp_path / "cluster") == [f"{broken}: document 1: kind: Required value: every object needs a kind"]


def test_an_object_repeated_identically_in_two_files_is_read_once(tmp_path: Path) -> None:
    """Two bundles both creating namespace monitoring: one namespace, and a warning naming both files."""
    first = write(tmp_path, "a.yaml", NAMESPACE + "---\n" + NODE)
    second = write(tmp_path, "b.yaml", NAMESPACE)
    cluster = load([first, second])
    assert [ns.name for ns in cluster.namespaces] == ["monitoring"]
    assert cluster.warnings == ("read 1 object(s) defined identically in more than one file once: "
                                f"namespaces/monitoring in {first} and {second}",)


def test_an_object_repeated_with_a_difference_is_a_duplicate_error(tmp_path: Path) -> None:
    """A second definition that differs (here in one label) cannot be told apart from a mistake."""
    first = write(tmp_path, "a.yaml", NAMESPACE)
    second = write(tmp_path, "b.yaml", NAMESPACE.replace("obs", "platform"))
    assert errors_of(first, second) == [
        f"{second}: namespaces/monitoring: duplicate object: already defined in {first}"]


def test_an_object_repeated_within_one_file_is_a_duplicate_error(tmp_path: Path) -> None:
    """Repetition is accepted across bundles only: twice in one file is a mistake in that file."""
    only = write(tmp_path, "a.yaml", NAMESPACE + "---\n" + NAMESPACE)
    assert errors_of(only) == [f"{only}: namespaces/monitoring: duplicate object: already defined in {only}"]


def test_a_scheduler_configuration_manifest_points_to_the_profile_option(tmp_path: Path) -> None:
    """A KubeSchedulerConfiguration among the manifests is skipped with the way to use it."""
    cluster = load([write(tmp_path, "all.yaml", NODE + "---\n" + CONFIG)])
    assert cluster.warnings == ("skipped 1 object(s) of kind KubeSchedulerConfiguration: a scheduler configuration "
                                "is not a cluster object: pass its file with --profile",)


POD_WITH_MOUNTS = """\
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  volumes: [{name: cache, emptyDir: {}}]
  initContainers: [{name: init, volumeMounts: [{name: seed, mountPath: /s}]}]
  containers: [{name: app, volumeMounts: [{name: data, mountPath: /d}, {name: cache, mountPath: /c}]}]
"""


def test_a_volume_mount_naming_no_volume_is_refused_as_the_api_server_refuses_it(tmp_path: Path) -> None:
    """The v1.32 API server answers 422 with one cause per mount, containers first (checked on the binary)."""
    manifest = write(tmp_path, "pod.yaml", POD_WITH_MOUNTS)
    assert errors_of(manifest) == [
        f'{manifest}: pods/default/web: spec.containers[0].volumeMounts[0].name: Not found: "data"',
        f'{manifest}: pods/default/web: spec.initContainers[0].volumeMounts[0].name: Not found: "seed"']


def test_volume_mounts_naming_the_pods_volumes_load(tmp_path: Path) -> None:
    """Mounts of declared volumes are fine (kubesched models neither: the pod loads as if they were absent)."""
    text = POD_WITH_MOUNTS.replace("[{name: cache, emptyDir: {}}]",
                                   "[{name: cache, emptyDir: {}}, {name: data}, {name: seed}]")
    cluster = load([write(tmp_path, "pod.yaml", text)])
    assert [p.key for p in cluster.pods] == ["default/web"]


def test_a_workload_templates_volume_mounts_are_checked_at_the_template(tmp_path: Path) -> None:
    """A Deployment's template is validated as its pods will be, at spec.template.spec."""
    manifest = write(tmp_path, "deploy.yaml", """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web}
        spec:
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec: {containers: [{name: app, volumeMounts: [{name: data, mountPath: /d}]}]}
        """)
    assert errors_of(manifest) == [
        f'{manifest}: deployments/default/web: spec.template.spec.containers[0].volumeMounts[0].name: '
        'Not found: "data"']


def test_allocatable_above_capacity_loads_as_the_api_server_accepts_it(tmp_path: Path) -> None:
    """The v1.32 API server stores a node whose allocatable exceeds its capacity (checked on the binary, on create
    and on a status patch); the scheduler reads allocatable."""
    node = NODE.replace('status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}',
                        'status: {capacity: {cpu: "2"}, allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}')
    cluster = load([write(tmp_path, "node.yaml", node)])
    assert [(str(n.status.capacity["cpu"]), str(n.status.allocatable["cpu"])) for n in cluster.nodes] == [("2", "4")]


def test_a_pod_with_resource_claims_is_scheduled_with_a_warning_naming_it(tmp_path: Path) -> None:
    """DRA is off by default in v1.32: the claims are not modelled, and the pod says so, not silently."""
    text = NODE + """\
---
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: app, resources: {claims: [{name: gpu}]}}]
"""
    cluster = load([write(tmp_path, "pod.yaml", text)])
    assert [p.key for p in cluster.pods] == ["default/trainer"]
    assert cluster.warnings == ("pods/default/trainer: spec.resourceClaims: kubesched does not model resource claims "
                                "(dynamic resource allocation, off by default in v1.32): scheduled as if the pod "
                                "had none",)


@pytest.mark.parametrize(("kind", "spec", "path"), [
    pytest.param("deployments", "spec: {selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, "
                 "spec: {resourceClaims: [{name: c}], containers: [{name: app}]}}}",
                 "spec.template.spec.resourceClaims", id="a Deployment's template"),
    pytest.param("cronjobs", "spec: {schedule: '*/5 * * * *', jobTemplate: {spec: {template: {spec: "
                 "{restartPolicy: Never, resourceClaims: [{name: c}], containers: [{name: app}]}}}}}",
                 "spec.jobTemplate.spec.template.spec.resourceClaims", id="a CronJob's job template"),
])
def test_a_workload_template_with_resource_claims_is_named_once(tmp_path: Path, kind: str, spec: str,
                                                                 path: str) -> None:
    """The warning is given at the template, once, not at every pod its controller will create."""
    api = {"deployments": ("apps/v1", "Deployment"), "cronjobs": ("batch/v1", "CronJob")}[kind]
    text = f"apiVersion: {api[0]}\nkind: {api[1]}\nmetadata: {{name: a}}\n{spec}\n"
    cluster = load([write(tmp_path, "w.yaml", text)])
    assert [w.split(": kubesched")[0] for w in cluster.warnings] == [f"{kind}/default/a: {path}"]
