"""What `kubesched capacity` copies (a Pod as it is, a workload's pod as its controller would create it), and its
bad input: every problem in one run, each naming the file, the object and the field, exit 1, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.api.pod import Pod
from kubesched.capacity import CapacityRun, load_capacity_input
from kubesched.cli.main import main
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from tests.cli.test_capacity import NODE, answer, pod, write

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, resources: {requests: {cpu: 500m}}}]}
"""
REPLICA_SET = DEPLOYMENT.replace("kind: Deployment", "kind: ReplicaSet")
STATEFUL_SET = """apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, resources: {requests: {cpu: 500m}}}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 1Gi}}}
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: report}
spec:
  template:
    metadata: {labels: {app: report}}
    spec: {restartPolicy: Never, containers: [{name: r, resources: {requests: {cpu: 500m}}}]}
"""
STORAGE = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
"""


def copies_of(tmp_path: Path, registry: PluginRegistry, template: str, *inputs: str) -> CapacityRun:
    """A finished capacity run of ``template`` on two 1-CPU nodes and ``inputs``."""
    cluster = write(tmp_path, "in.yaml", NODE.format(name="a", cpu=1), NODE.format(name="b", cpu=1), *inputs)
    given = load_capacity_input(write(tmp_path, "pod.yaml", template), [cluster], None, ["default-scheduler"])
    run = CapacityRun(given, load_config("default", registry), registry)
    run.run()
    return run


def bound(run: CapacityRun, copy: Pod) -> bool:
    """Whether ``copy`` is on a node now."""
    live = run.sim.cluster.pods.get(copy.uid)
    return live is not None and bool(live.spec.node_name)


@pytest.mark.parametrize(("template", "labels", "owner"), [
    pytest.param(DEPLOYMENT, {"app": "web", "pod-template-hash": "*"}, ("ReplicaSet", "web-{pod-template-hash}"),
                 id="deployment"),
    pytest.param(STATEFUL_SET, {"app": "db", "statefulset.kubernetes.io/pod-name": "db-capacity-1",
                                "apps.kubernetes.io/pod-index": "1"}, ("StatefulSet", "db"), id="statefulset"),
    pytest.param(JOB, {"app": "report", "job-name": "report", "batch.kubernetes.io/job-name": "report",
                       "controller-uid": "*", "batch.kubernetes.io/controller-uid": "*"}, ("Job", "report"), id="job"),
])
def test_a_workloads_copies_are_the_pods_its_controller_would_create(
        tmp_path: Path, registry: PluginRegistry, template: str, labels: dict[str, str],
        owner: tuple[str, str]) -> None:
    """The template's namespace and labels with those the controller adds (``*``: a generated value; a
    StatefulSet's copy has the index its next pod would have), owned by the controller a pod of the workload has
    (a Deployment's ReplicaSet ``<name>-<pod-template-hash>``)."""
    first = copies_of(tmp_path, registry, template, STORAGE).copies[0]
    assert {k: "*" if labels.get(k) == "*" else v for k, v in first.labels.items()} == labels
    [ref] = first.metadata.owner_references
    assert (ref.kind, ref.name, ref.controller) == (owner[0], owner[1].format_map(first.labels), True)


def test_copies_of_a_running_workload_are_not_adopted_by_its_controller(tmp_path: Path,
                                                                      registry: PluginRegistry) -> None:
    """The ReplicaSet runs in the input with 2 replicas: it keeps its 2 pods and leaves the copies alone (they name
    it, under a uid of their own), so the copies fill the room left and stay, however long the cluster runs on."""
    run = copies_of(tmp_path, registry, REPLICA_SET, REPLICA_SET)
    run.sim.settle()
    replicas = [p for p in run.sim.cluster.pods.values() if p.name.startswith("web-") and "capacity" not in p.name]
    assert len(replicas) == 2
    assert [bound(run, c) for c in run.copies] == [True, True, False]


def test_a_statefulsets_copies_get_claims_of_their_own(tmp_path: Path, registry: PluginRegistry) -> None:
    """Each copy of a StatefulSet's pod gets a claim per volumeClaimTemplate, ``<template>-<copy>``, provisioned
    and bound as the set's own pods' claims are."""
    run = copies_of(tmp_path, registry, STATEFUL_SET, STORAGE)
    claims = {c.name: c.phase for c in run.sim.cluster.storage.claims()}
    assert claims == {**{f"data-db-capacity-{i}": "Bound" for i in range(1, 5)}, "data-db-capacity-5": "Pending"}
    assert [bound(run, c) for c in run.copies] == [True] * 4 + [False]


@pytest.mark.parametrize(("flags", "copies"), [
    pytest.param((), 0, id="provisioner-not-running"),
    pytest.param(("--provisioner", "ebs.csi.aws.com", "--provisioning-delay", "2"), 4, id="provisioner-flag"),
])
def test_provisioner_flags_are_simulates(tmp_path: Path, flags: tuple[str, ...], copies: int) -> None:
    """Without the CSIDriver showing it, the StorageClass's provisioner runs only when --provisioner names it, as
    in simulate: else the first copy's Immediate claim stays unbound and the copy with it."""
    immediate = STORAGE.split("---")[0].replace("WaitForFirstConsumer", "Immediate")
    cluster = write(tmp_path, "in.yaml", NODE.format(name="a", cpu=1), NODE.format(name="b", cpu=1), immediate)
    document = answer(write(tmp_path, "pod.yaml", STATEFUL_SET), cluster, *flags)
    assert document["copies"] == copies


def test_a_pod_keeps_its_spec_and_leaves_its_node(tmp_path: Path, registry: PluginRegistry) -> None:
    """A Pod read back from a cluster (on a node, Running) is copied pending, on no node, with its labels."""
    template = pod("web", "500m", node="a").replace("metadata: {name: web}",
                                                    "metadata: {name: web, labels: {app: web}}")
    run = copies_of(tmp_path, registry, template + "status: {phase: Running}\n")
    first = run.copies[0]
    assert (first.name, dict(first.labels), first.spec.node_name, first.status.phase) == (
        "web-capacity-1", {"app": "web"}, "", "Pending")


def fails(*args: str, stdin: str | None = None) -> list[str]:
    """The error lines of ``kubesched capacity ARGS``, which must exit 1 without a traceback."""
    result = CliRunner().invoke(main, ["capacity", *args], input=stdin)
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.stderr
    return result.stderr.splitlines()


@pytest.mark.parametrize(("template", "error"), [
    pytest.param(None, "error: {pod}: no such file or directory", id="missing"),
    pytest.param("kind: ConfigMap\nmetadata: {name: c}\n",
                 "error: {pod}: a ConfigMap has no pod to copy: give one Pod, or one workload whose pod template is "
                 "copied (Deployment, ReplicaSet, ReplicationController, StatefulSet, Job)", id="not-a-pod"),
    pytest.param("kind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c}]}\n---\n"
                 "kind: Pod\nmetadata: {name: b}\nspec: {containers: [{name: c}]}\n",
                 "error: {pod}: holds 2 objects (pods/default/a, pods/default/b): give one Pod, or one workload "
                 "whose pod template is copied (Deployment, ReplicaSet, ReplicationController, StatefulSet, Job)",
                 id="two-objects"),
    pytest.param("kind: DaemonSet\napiVersion: apps/v1\nmetadata: {name: agent}\n"
                 "spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, "
                 "spec: {containers: [{name: c}]}}}\n",
                 "error: {pod}: daemonsets/default/agent: a DaemonSet runs one pod per node, so its copies have "
                 "nowhere to go but their own node: give the DaemonSet's pod, or a Deployment with its template",
                 id="daemonset"),
    pytest.param("kind: ReplicaSet\nmetadata: {name: rs}\nspec: {selector: {matchLabels: {a: b}}}\n",
                 "error: {pod}: replicasets/default/rs: spec.template: Required value: capacity copies the pod "
                 "template", id="no-template"),
    pytest.param(pod("app", "1", extra="schedulerName: other"),
                 'error: {pod}: pods/default/app: spec.schedulerName: "other": no profile has this scheduler name, '
                 'so no copy would be scheduled (profiles: "default-scheduler")', id="no-profile"),
])
def test_a_pod_file_that_is_not_one_pod_or_workload_is_an_error(tmp_path: Path, template: str | None,
                                                                error: str) -> None:
    """POD.yaml must exist and hold one Pod, or one workload with a pod template, of a profile."""
    path = tmp_path / "pod.yaml"
    if template is not None:
        path.write_text(template, encoding="utf-8")
    nodes = write(tmp_path, "nodes.yaml", NODE.format(name="a", cpu=1))
    assert fails(str(path), nodes) == [error.format(pod=path)]


def test_every_problem_is_reported_in_one_run(tmp_path: Path) -> None:
    """A bad quantity in INPUT, POD.yaml holding two objects and NODE.yaml holding a pod: three lines."""
    nodes = write(tmp_path, "nodes.yaml", NODE.format(name="a", cpu="2x"))
    two = write(tmp_path, "pod.yaml", pod("a", "1"), pod("b", "1"))
    node_file = write(tmp_path, "node.yaml", pod("c", "1"))
    assert fails(two, nodes, "--add-nodes", node_file) == [
        f'error: {nodes}: nodes/a: status.allocatable.cpu: "2x" is not a valid quantity',
        f"error: {two}: holds 2 objects (pods/default/a, pods/default/b): give one Pod, or one workload whose pod "
        "template is copied (Deployment, ReplicaSet, ReplicationController, StatefulSet, Job)",
        f"error: {node_file}: pods/default/c: a Pod is not a Node: give one Node, the shape of the nodes to add"]


@pytest.mark.parametrize(("node", "error"), [
    pytest.param(None, "error: {node}: no such file or directory", id="missing"),
    pytest.param("kind: Node\nmetadata: {name: w}\nstatus: {allocatable: {memory: lots}}\n",
                 'error: {node}: nodes/w: status.allocatable.memory: "lots" is not a valid quantity', id="bad-field"),
    pytest.param(NODE.format(name="w", cpu=1) + "---\n" + NODE.format(name="v", cpu=1),
                 "error: {node}: holds 2 objects (nodes/w, nodes/v): give one Node, the shape of the nodes to add",
                 id="two-nodes"),
])
def test_a_node_file_that_is_not_one_node_is_an_error(tmp_path: Path, node: str | None, error: str) -> None:
    """NODE.yaml must exist and hold one valid Node."""
    path = tmp_path / "node.yaml"
    if node is not None:
        path.write_text(node, encoding="utf-8")
    args = (write(tmp_path, "pod.yaml", pod("app", "1")), write(tmp_path, "in.yaml", NODE.format(name="a", cpu=1)))
    assert fails(*args, "--add-nodes", str(path)) == [error.format(node=path)]


def test_a_scenario_is_not_an_input(tmp_path: Path) -> None:
    """capacity reads manifests; a Scenario file among INPUT is named as such."""
    scenario = write(tmp_path, "day.yaml", "apiVersion: kubesched.io/v1alpha1\nkind: Scenario\nspec: {steps: []}\n")
    assert fails(write(tmp_path, "pod.yaml", pod("app", "1")), scenario) == [
        f"error: {scenario}: a Scenario file is not an input of capacity: give the manifests of the cluster (files "
        "or directories)"]


def test_the_pod_file_cannot_be_standard_input(tmp_path: Path) -> None:
    """- is INPUT's: POD.yaml must be a file."""
    assert fails("-", write(tmp_path, "in.yaml", NODE.format(name="a", cpu=1)), stdin=pod("app", "1")) == [
        "error: POD.yaml must be a file: standard input (-) is read for INPUT only"]


@pytest.mark.parametrize(("args", "message"), [
    pytest.param(("--target", "3"), "--target and --max-nodes go with --add-nodes NODE.yaml", id="target-alone"),
    pytest.param(("--add-nodes", "n.yaml", "--target", "3", "--max", "2"),
                 "--target N already stops at N copies: give --target or --max, not both", id="target-and-max"),
])
def test_flags_that_do_not_go_together_are_usage_errors(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    """Exit 2 with click's usage error naming the flags."""
    result = CliRunner().invoke(main, ["capacity", "pod.yaml", "in.yaml", *args])
    assert result.exit_code == 2
    assert f"Error: {message}" in result.stderr


def test_an_input_is_required() -> None:
    """POD.yaml and at least one INPUT."""
    result = CliRunner().invoke(main, ["capacity", "pod.yaml"])
    assert result.exit_code == 2
    assert "Missing argument 'INPUT...'" in result.stderr


def test_the_answer_of_a_workload_names_it(tmp_path: Path) -> None:
    """The JSON names POD.yaml's object: its kind, namespace and name."""
    document = answer(write(tmp_path, "pod.yaml", DEPLOYMENT), write(tmp_path, "in.yaml", NODE.format(name="a",
                                                                                                     cpu=2)))
    assert (document["pod"], document["copies"]) == ({"kind": "Deployment", "namespace": "shop", "name": "web"}, 4)
