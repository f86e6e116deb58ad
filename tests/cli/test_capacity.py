"""`kubesched capacity POD.yaml INPUT...`: how many more copies of a pod fit the settled cluster, on which nodes, and
why the next one does not; --max, --preempt and its victims, and the output forms."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from kubesched.cli.main import main

#: cluster-capacity's README: "4 nodes and 1 master with each node with 2 CPUs and 4GB of memory".
CC_NODES = "".join(
    f"kind: Node\nmetadata: {{name: kube-node-{i}, labels: {{kubernetes.io/hostname: kube-node-{i}}}}}\n"
    f"status: {{allocatable: {{cpu: '2', memory: 4Gi, pods: '110'}}}}\n---\n" for i in range(1, 5)) + """\
kind: Node
metadata: {name: kube-master, labels: {kubernetes.io/hostname: kube-master}}
spec: {taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]}
status: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}
"""
#: Its example pod: 150m of CPU and 100Mi of memory.
CC_POD = """kind: Pod
metadata: {name: small-pod, labels: {app: guestbook, tier: frontend}}
spec:
  containers:
  - {name: php-redis, image: gcr.io/google-samples/gb-frontend:v4, resources: {requests: {cpu: 150m, memory: 100Mi}}}
"""
#: Its second run: a ReplicationController of the same size scaled to 6 replicas runs in the cluster.
CC_SIX_REPLICAS = """kind: ReplicationController
metadata: {name: web}
spec:
  replicas: 6
  selector: {app: web}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx, resources: {requests: {cpu: 150m, memory: 100Mi}}}]}
"""
CC_STOP = ("0/5 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
           "4 Insufficient cpu.")

NODE = "kind: Node\nmetadata: {{name: {name}}}\nstatus: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '110'}}}}\n"
CLASSES = """kind: PriorityClass
apiVersion: scheduling.k8s.io/v1
metadata: {name: low}
value: 10
---
kind: PriorityClass
apiVersion: scheduling.k8s.io/v1
metadata: {name: high}
value: 1000
"""


def pod(name: str, cpu: str, *, node: str | None = None, priority: str | None = None, extra: str = "") -> str:
    """A one-container pod manifest."""
    fields = [f"containers: [{{name: c, resources: {{requests: {{cpu: '{cpu}'}}}}}}]"]
    if node:
        fields.append(f"nodeName: {node}")
    if priority:
        fields.append(f"priorityClassName: {priority}")
    if extra:
        fields.append(extra)
    return f"kind: Pod\nmetadata: {{name: {name}}}\nspec: {{{', '.join(fields)}}}\n"


def write(tmp_path: Path, name: str, *documents: str) -> str:
    """Write the documents as one file; its path."""
    path = tmp_path / name
    path.write_text("---\n".join(documents), encoding="utf-8")
    return str(path)


def run(*args: str) -> tuple[int, str, str]:
    """``kubesched capacity ARGS`` in-process: exit code, stdout, stderr."""
    result = CliRunner().invoke(main, ["capacity", *args], env={"COLUMNS": "200"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def answer(*args: str) -> Any:
    """The JSON answer of ``kubesched capacity ARGS -o json``."""
    code, out, err = run(*args, "-o", "json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(("running", "copies", "per_node"), [
    pytest.param("", 52, [13, 13, 13, 13], id="idle-cluster"),
    pytest.param(CC_SIX_REPLICAS, 46, [11, 11, 12, 12], id="six-replicas-running"),
])
def test_cluster_capacity_published_example(tmp_path: Path, running: str, copies: int, per_node: list[int]) -> None:
    """cluster-capacity's example pod on its example cluster: 52 instances, 13 per node, stopped by Insufficient
    cpu on every worker; with six replicas of the same size running, 46 (11 or 12 per node)."""
    inputs = [write(tmp_path, "nodes.yaml", CC_NODES)]
    if running:
        inputs.append(write(tmp_path, "rc.yaml", running))
    document = answer(write(tmp_path, "pod.yaml", CC_POD), *inputs)
    assert document["copies"] == copies
    assert sorted(n["copies"] for n in document["nodes"]) == per_node
    assert document["stop"] == {"reason": "Unschedulable", "copy": f"default/small-pod-capacity-{copies + 1}",
                                "message": CC_STOP}


def test_the_table_shows_the_copies_per_node_and_why_the_next_does_not_fit(tmp_path: Path) -> None:
    """The table: the count, the copies per node, and the copy that stopped them with its FitError."""
    code, out, err = run(write(tmp_path, "pod.yaml", CC_POD), write(tmp_path, "nodes.yaml", CC_NODES))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "pods/default/small-pod: 52 copies fit; seed 0"
    assert [line.split() for line in lines if "kube-node-" in line] == [
        ["│", f"kube-node-{i}", "│", "13", "│"] for i in range(1, 5)]
    assert lines[-1] == f"stopped: copy default/small-pod-capacity-53 does not fit: {CC_STOP}"


@pytest.mark.parametrize(("template", "extra", "stop"), [
    pytest.param(pod("app", "1"), [], ("Unschedulable", "default/app-capacity-4",
                                       "0/2 nodes are available: 2 Insufficient cpu."), id="resources"),
    pytest.param(pod("app", "1", extra="nodeSelector: {disk: ssd}"), [],
                 ("Unschedulable", "default/app-capacity-1",
                  "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."), id="selector"),
    pytest.param(pod("app", "1", extra="schedulingGates: [{name: example.com/wait}]"), [],
                 ("Unschedulable", "default/app-capacity-1", "waiting for scheduling gates: [example.com/wait]"),
                 id="gated"),
    pytest.param(pod("app", "1"), ["kind: ResourceQuota\nmetadata: {name: q}\nspec: {hard: {pods: '2'}}\n"],
                 ("AdmissionRefused", "default/app-capacity-3",
                  'pods "app-capacity-3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, '
                  "limited: pods=2"), id="quota"),
])
def test_the_stop_names_the_copy_that_did_not_fit_and_why(tmp_path: Path, template: str, extra: list[str],
                                                         stop: tuple[str, str, str]) -> None:
    """The copy that stops the count, with what `simulate` says of such a pending pod (its FitError, its gates) or
    the API server's refusal of it (a ResourceQuota)."""
    nodes = write(tmp_path, "nodes.yaml", NODE.format(name="a", cpu=2), NODE.format(name="b", cpu=1), *extra)
    document = answer(write(tmp_path, "pod.yaml", template), nodes)
    assert (document["stop"]["reason"], document["stop"]["copy"], document["stop"]["message"]) == stop


def test_max_stops_the_count(tmp_path: Path) -> None:
    """--max N: N copies, then the reason says so."""
    document = answer(write(tmp_path, "pod.yaml", CC_POD), write(tmp_path, "nodes.yaml", CC_NODES), "--max", "5")
    assert document["copies"] == 5
    assert document["stop"] == {"reason": "MaxReached", "copy": None, "message": "reached --max 5"}


def test_without_a_filter_counting_pods_the_count_ends_at_the_nodes_pods_allocatable(tmp_path: Path) -> None:
    """A profile with every Filter plugin disabled lets any copy in: the count ends once the nodes hold the pods
    their kubelets admit (it never ended before)."""
    profile = tmp_path / "open.toml"
    profile.write_text('[[profiles]]\nscheduler-name = "default-scheduler"\n'
                       '[profiles.plugins.filter]\ndisabled = [{ name = "*" }]\n', encoding="utf-8")
    nodes = "".join(NODE.replace("'110'", "'3'").format(name=n, cpu=1) + "---\n" for n in ("a", "b"))
    document = answer(write(tmp_path, "pod.yaml", pod("app", "1")),
                      write(tmp_path, "in.yaml", nodes, pod("running", "1", node="a")), "--profile", str(profile))
    assert document["copies"] == 5
    assert document["stop"] == {"reason": "PodsAllocatableReached", "copy": "default/app-capacity-6", "message": (
        "every node holds its pods allocatable (6 in all): the kubelet admits no more, though the profile's filters "
        "let this copy in")}


def _preemptible(tmp_path: Path) -> list[str]:
    """Two 2-CPU nodes, each running a 1-CPU pod of priority 10; the pod to copy has priority 1000 and 1 CPU."""
    cluster = write(tmp_path, "in.yaml", CLASSES, NODE.format(name="a", cpu=2), NODE.format(name="b", cpu=2),
                    pod("batch-a", "1", node="a", priority="low"),
                    pod("batch-b", "1", node="b", priority="low", extra="terminationGracePeriodSeconds: 0"))
    return [write(tmp_path, "pod.yaml", pod("app", "1", priority="high")), cluster]


def test_without_preempt_copies_count_free_room_and_evict_nothing(tmp_path: Path) -> None:
    """Without --preempt a copy never preempts (no PostFilter runs for it, as cluster-capacity counts free room):
    one copy per node, no victim, and the stop message has no preemption part."""
    document = answer(*_preemptible(tmp_path))
    assert (document["copies"], document["victims"]) == (2, [])
    assert document["stop"]["message"] == "0/2 nodes are available: 2 Insufficient cpu."


def test_with_preempt_copies_preempt_lower_priority_pods_listed_as_victims(tmp_path: Path) -> None:
    """--preempt: the copies may preempt the lower-priority pods, which are listed with their node, priority and
    the copy that preempted them; the stop message has the preemption part."""
    document = answer(*_preemptible(tmp_path), "--preempt")
    assert document["copies"] == 4
    assert document["victims"] == [
        {"namespace": "default", "name": "batch-b", "node": "b", "priority": 10, "preemptor": "default/app-capacity-3"},
        {"namespace": "default", "name": "batch-a", "node": "a", "priority": 10, "preemptor": "default/app-capacity-4"},
    ]
    assert document["stop"]["message"] == ("0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are "
                                           "available: 2 No preemption victims found for incoming pod.")


def test_the_same_input_and_seed_give_the_same_bytes(tmp_path: Path) -> None:
    """Byte-identical output for the same input and --seed."""
    args = (write(tmp_path, "pod.yaml", CC_POD), write(tmp_path, "nodes.yaml", CC_NODES), "--seed", "3")
    assert run(*args, "-o", "json") == run(*args, "-o", "json")
    assert run(*args) == run(*args)


def test_yaml_output_is_the_json_document(tmp_path: Path) -> None:
    """-o yaml prints the -o json document."""
    args = (write(tmp_path, "pod.yaml", CC_POD), write(tmp_path, "nodes.yaml", CC_NODES), "--max", "2")
    code, out, err = run(*args, "-o", "yaml")
    assert code == 0, err
    assert yaml.safe_load(out) == answer(*args)


def test_input_may_be_standard_input(tmp_path: Path) -> None:
    """INPUT - reads the cluster from standard input, as simulate does."""
    result = CliRunner().invoke(main, ["capacity", write(tmp_path, "pod.yaml", CC_POD), "-", "-o", "json"],
                                input=CC_NODES)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["copies"] == 52
