"""Loading manifests: files, directories, multi-document YAML, lists, JSON, defaulting and the real dump."""

from __future__ import annotations

import gc
import json
import textwrap
import uuid
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubesched.api.pod import PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER, Pod
from kubesched.io import decode_pod
from kubesched.io import load as load_module
from kubesched.io.load import ClusterInput, InputErrorList, load

# A kube-apiserver dump of our own: pods with admitted priorities, no PriorityClass objects.
REAL_DUMP = Path(__file__).resolve().parent.parent / "data" / "real-cluster-dump.yaml"

NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: {name}
status:
  allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}
"""

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: app
    resources:
      requests: {{cpu: 500m}}
"""


def write(directory: Path, name: str, text: str) -> Path:
    """Write a manifest file (dedented) under ``directory`` and return its path."""
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def pod_names(cluster: ClusterInput) -> list[str]:
    """The keys of the loaded pods, in input order."""
    return [p.key for p in cluster.pods]


def pod(cluster: ClusterInput, key: str) -> Pod:
    """The loaded pod with this ``namespace/name``."""
    return next(p for p in cluster.pods if p.key == key)


def test_single_file_with_one_object(tmp_path: Path) -> None:
    """A file holding one Pod loads that pod."""
    path = write(tmp_path, "pod.yaml", POD.format(name="web"))
    cluster = load([path])
    assert pod_names(cluster) == ["default/web"]
    assert cluster.pods[0].spec.containers[0].requests["cpu"].amount == Fraction(1, 2)


def test_paths_may_be_strings(tmp_path: Path) -> None:
    """load() accepts paths given as str."""
    path = write(tmp_path, "pod.yaml", POD.format(name="web"))
    assert pod_names(load([str(path)])) == ["default/web"]


def test_multi_document_yaml_loads_every_document_in_order(tmp_path: Path) -> None:
    """Documents separated by --- are all read, in order."""
    text = "---\n".join([NODE.format(name="n1"), POD.format(name="b"), POD.format(name="a"), NODE.format(name="n2")])
    cluster = load([write(tmp_path, "all.yaml", text)])
    assert [n.name for n in cluster.nodes] == ["n1", "n2"]
    assert pod_names(cluster) == ["default/b", "default/a"]


def test_empty_documents_are_skipped(tmp_path: Path) -> None:
    """Empty documents (bare ---, comments only) are ignored without error."""
    text = "---\n---\n# only a comment\n---\n" + POD.format(name="web") + "---\n"
    cluster = load([write(tmp_path, "pods.yaml", text)])
    assert (pod_names(cluster), cluster.warnings) == (["default/web"], ())


def test_empty_file_loads_nothing(tmp_path: Path) -> None:
    """An empty file is an empty input."""
    assert load([write(tmp_path, "empty.yaml", "")]) == ClusterInput()


def test_kind_list_items_carry_their_own_kind(tmp_path: Path) -> None:
    """A ``kind: List`` is flattened into its items, each of any kind."""
    text = """\
    apiVersion: v1
    kind: List
    items:
    - {apiVersion: v1, kind: Node, metadata: {name: n1}}
    - {apiVersion: v1, kind: Pod, metadata: {name: web}, spec: {containers: [{name: app}]}}
    """
    cluster = load([write(tmp_path, "list.yaml", text)])
    assert ([n.name for n in cluster.nodes], pod_names(cluster)) == (["n1"], ["default/web"])


def test_typed_list_items_take_the_kind_of_the_list(tmp_path: Path) -> None:
    """Items of a ``PodList`` need no kind of their own."""
    text = """\
    apiVersion: v1
    kind: PodList
    items:
    - metadata: {name: a}
      spec: {containers: [{name: app}]}
    - metadata: {name: b, namespace: batch}
      spec: {containers: [{name: app}]}
    """
    assert pod_names(load([write(tmp_path, "pods.yaml", text)])) == ["default/a", "batch/b"]


def test_typed_list_of_nodes(tmp_path: Path) -> None:
    """A ``NodeList`` yields nodes."""
    text = "kind: NodeList\nitems:\n- metadata: {name: n1}\n- metadata: {name: n2}\n"
    assert [n.name for n in load([write(tmp_path, "nodes.yaml", text)]).nodes] == ["n1", "n2"]


def test_empty_list_loads_nothing(tmp_path: Path) -> None:
    """A List with no items (or null items) is an empty input."""
    path = write(tmp_path, "list.yaml", "kind: List\nitems: []\n---\nkind: PodList\nitems: null\n")
    assert load([path]) == ClusterInput()


def test_json_file(tmp_path: Path) -> None:
    """A .json file is read as JSON."""
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "shop"},
           "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": 0.25, "memory": 1024}}}]}}
    path = tmp_path / "pod.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    requests = load([path]).pods[0].spec.containers[0].requests
    assert (requests["cpu"].milli_value(), requests["memory"].value()) == (250, 1024)


def test_json_list_file(tmp_path: Path) -> None:
    """A .json file may hold a List, flattened like YAML."""
    obj = {"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n1"}},
                                      {"kind": "Node", "metadata": {"name": "n2"}}]}
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    assert [n.name for n in load([path]).nodes] == ["n1", "n2"]


def test_directory_is_read_recursively_in_sorted_order(tmp_path: Path) -> None:
    """A directory expands to every .yaml/.yml/.json file below it, sorted by path."""
    write(tmp_path, "b.yaml", POD.format(name="from-b"))
    write(tmp_path, "a.yml", POD.format(name="from-a"))
    write(tmp_path, "c/d/deep.yaml", POD.format(name="from-deep"))
    (tmp_path / "c" / "d" / "nested.json").write_text(json.dumps(
        {"kind": "Pod", "metadata": {"name": "from-json"}, "spec": {"containers": [{"name": "app"}]}}))
    write(tmp_path, "README.md", "not: [valid yaml")
    write(tmp_path, "notes.txt", "kind: Pod\nmetadata: {name: from-txt}\n")
    cluster = load([tmp_path])
    assert pod_names(cluster) == ["default/from-a", "default/from-b", "default/from-deep", "default/from-json"]


def test_files_and_directories_are_read_in_the_order_given(tmp_path: Path) -> None:
    """Several paths are read in argument order."""
    pods = write(tmp_path, "pods/p.yaml", POD.format(name="p"))
    write(tmp_path, "more/q.yaml", POD.format(name="q"))
    assert pod_names(load([tmp_path / "more", pods])) == ["default/q", "default/p"]


def test_unknown_kinds_are_skipped_with_one_warning_per_kind(tmp_path: Path) -> None:
    """Objects of kinds kubesched does not read are skipped, with one warning per kind, sorted by kind."""
    text = """\
    kind: Secret
    metadata: {name: a}
    ---
    kind: ConfigMap
    metadata: {name: c}
    ---
    kind: Secret
    metadata: {name: b}
    ---
    kind: List
    items:
    - {kind: Secret, metadata: {name: d}}
    """
    cluster = load([write(tmp_path, "misc.yaml", textwrap.dedent(text) + "---\n" + POD.format(name="web"))])
    assert cluster.warnings == (
        "skipped 1 object(s) of kind ConfigMap: kubesched does not read this kind",
        "skipped 3 object(s) of kind Secret: kubesched does not read this kind",
    )
    assert pod_names(cluster) == ["default/web"]


def test_no_warnings_when_every_kind_is_known(tmp_path: Path) -> None:
    """An input of known kinds loads without warnings."""
    assert load([write(tmp_path, "pod.yaml", POD.format(name="web"))]).warnings == ()


def test_namespace_defaults_to_default(tmp_path: Path) -> None:
    """Namespaced objects without metadata.namespace are in "default"; cluster-scoped ones have none."""
    pdb = "kind: PodDisruptionBudget\nmetadata: {name: budget}\nspec: {minAvailable: 1}\n"
    text = "---\n".join([POD.format(name="web"), pdb, NODE.format(name="n1")])
    cluster = load([write(tmp_path, "all.yaml", text)])
    assert (cluster.pods[0].namespace, cluster.pdbs[0].namespace, cluster.nodes[0].metadata.namespace) == (
        "default", "default", "")


def test_explicit_namespace_is_kept(tmp_path: Path) -> None:
    """metadata.namespace is kept as written."""
    text = "kind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: app}]}\n"
    assert pod_names(load([write(tmp_path, "pod.yaml", text)])) == ["shop/web"]


def test_pods_without_uid_get_a_stable_uid(tmp_path: Path) -> None:
    """A pod without metadata.uid gets a uid derived from its identity, the same on every load."""
    first = load([write(tmp_path / "one", "pods.yaml", POD.format(name="web") + "---\n" + POD.format(name="api"))])
    second = load([write(tmp_path / "two", "other-name.yaml", POD.format(name="web"))])
    web, api = pod(first, "default/web").uid, pod(first, "default/api").uid
    assert web != ""
    assert api not in ("", web)
    assert pod(second, "default/web").uid == web


def test_uid_of_a_pod_in_another_namespace_differs(tmp_path: Path) -> None:
    """Pods with the same name in different namespaces get different uids."""
    text = POD.format(name="web")
    text += "---\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: a}]}\n"
    cluster = load([write(tmp_path, "pods.yaml", text)])
    assert pod(cluster, "default/web").uid != pod(cluster, "shop/web").uid


def test_explicit_uid_is_kept(tmp_path: Path) -> None:
    """metadata.uid from the manifest is kept."""
    text = "kind: Pod\nmetadata: {name: web, uid: 1234-abcd}\nspec: {containers: [{name: app}]}\n"
    assert load([write(tmp_path, "pod.yaml", text)]).pods[0].uid == "1234-abcd"


def test_nodes_without_uid_get_one(tmp_path: Path) -> None:
    """Nodes without metadata.uid get a non-empty uid too."""
    assert load([write(tmp_path, "node.yaml", NODE.format(name="n1"))]).nodes[0].metadata.uid


def test_limits_only_container_gets_requests_from_limits(tmp_path: Path) -> None:
    """API defaulting: a resource with a limit and no request is requested at the limit."""
    text = """\
    kind: Pod
    metadata: {name: web}
    spec:
      initContainers:
      - name: init
        resources:
          limits: {cpu: "2"}
      containers:
      - name: app
        resources:
          limits: {cpu: "1", memory: 1Gi}
          requests: {cpu: 250m}
    """
    spec = load([write(tmp_path, "pod.yaml", text)]).pods[0].spec
    app, init = spec.containers[0], spec.init_containers[0]
    assert {k: str(v) for k, v in app.requests.items()} == {"cpu": "250m", "memory": "1Gi"}
    assert {k: str(v) for k, v in init.requests.items()} == {"cpu": "2"}


def test_node_allocatable_defaults_to_capacity(tmp_path: Path) -> None:
    """A node without status.allocatable has allocatable equal to its capacity."""
    text = "kind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '8', pods: '110'}}\n"
    allocatable = load([write(tmp_path, "node.yaml", text)]).nodes[0].status.allocatable
    assert {k: str(v) for k, v in allocatable.items()} == {"cpu": "8", "pods": "110"}


def test_pods_are_admitted_with_priority(tmp_path: Path) -> None:
    """Loaded pods carry the priority their class resolves to."""
    text = """\
    kind: PriorityClass
    apiVersion: scheduling.k8s.io/v1
    metadata: {name: high}
    value: 1000
    preemptionPolicy: Never
    ---
    kind: Pod
    metadata: {name: web}
    spec:
      priorityClassName: high
      containers: [{name: app}]
    """
    spec = load([write(tmp_path, "pod.yaml", text)]).pods[0].spec
    assert (spec.priority, spec.preemption_policy, spec.priority_class_name) == (1000, PREEMPT_NEVER, "high")


@pytest.fixture(scope="module")
def real_dump() -> ClusterInput:
    """The real kubectl dump, loaded once."""
    return load([REAL_DUMP])


def test_real_dump_loads_every_object(real_dump: ClusterInput) -> None:
    """The kubectl dump has 3 nodes, 8 pods and 1 PDB, no PriorityClass objects, and nothing is skipped."""
    counts = (len(real_dump.nodes), len(real_dump.pods), len(real_dump.priority_classes), len(real_dump.pdbs))
    assert counts == (3, 8, 0, 1)
    assert real_dump.warnings == ()


def test_real_dump_keeps_admitted_priorities(real_dump: ClusterInput) -> None:
    """Priorities admitted by the cluster are kept, though the dump holds none of the pods' PriorityClasses."""
    got = {key: (pod(real_dump, key).spec.priority, pod(real_dump, key).spec.priority_class_name,
                 pod(real_dump, key).spec.preemption_policy)
           for key in ("batch/etl-0", "batch/cache-0", "shop/web-7c5d9f6b8-4kx2m", "default/report",
                       "kube-system/coredns-6f8b9d5c47-q2w8r")}
    assert got == {
        "batch/etl-0": (10, "batch-low", PREEMPT_NEVER),
        "batch/cache-0": (100, "batch-medium", PREEMPT_LOWER_PRIORITY),
        "shop/web-7c5d9f6b8-4kx2m": (1_000_000, "prod-critical", PREEMPT_LOWER_PRIORITY),
        "default/report": (1000, "standard", PREEMPT_LOWER_PRIORITY),
        "kube-system/coredns-6f8b9d5c47-q2w8r": (2_000_000_000, "system-cluster-critical", PREEMPT_LOWER_PRIORITY),
    }


def test_real_dump_keeps_uids_and_node_names(real_dump: ClusterInput) -> None:
    """Pods keep their uid and spec.nodeName from the dump; pending pods have no node."""
    etl = pod(real_dump, "batch/etl-0")
    assert (etl.uid, etl.spec.node_name) == ("2dfe86ed-817d-50c8-8789-1625773ea200", "worker-a")
    assert pod(real_dump, "default/report").spec.node_name == ""


def test_real_dump_node_resources_and_taints(real_dump: ClusterInput) -> None:
    """Node allocatable and taints are read from the dump."""
    cp = next(n for n in real_dump.nodes if n.name == "cp-1")
    allocatable = cp.status.allocatable
    assert (allocatable["cpu"].milli_value(), allocatable["memory"].value(), allocatable["pods"].value()) == (
        3920, (16393244 - 360448) * 1024, 110)
    assert [(t.key, t.value, t.effect) for t in cp.spec.taints] == [
        ("node-role.kubernetes.io/control-plane", "", "NoSchedule")]


def test_real_dump_pdbs(real_dump: ClusterInput) -> None:
    """The dump's PDB keeps its budget and disruptionsAllowed."""
    got = {p.name: (str(p.min_available), str(p.max_unavailable), p.status.disruptions_allowed)
           for p in real_dump.pdbs}
    assert got == {"web": ("None", "1", 1)}


def test_real_dump_scheduling_gates(real_dump: ClusterInput) -> None:
    """A gated pod's qualified gate name is read as it is."""
    assert pod(real_dump, "shop/canary").spec.scheduling_gates == ("example.com/wait",)


def test_every_missing_path_is_reported(tmp_path: Path) -> None:
    """Missing paths and manifest-less directories are all reported together."""
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputErrorList) as info:
        load([tmp_path / "a.yaml", empty, tmp_path / "b.yaml"])
    assert [str(e) for e in info.value.errors] == [
        f"{tmp_path / 'a.yaml'}: no such file or directory",
        f"{empty}: no manifest files (.yaml, .yml, .json) in this directory",
        f"{tmp_path / 'b.yaml'}: no such file or directory",
    ]


def test_the_cycle_collector_is_paused_while_loading_and_restored_after(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading runs without Python's cycle collector (it would rescan every loaded object) and turns it back on."""
    seen: list[bool] = []
    real = decode_pod.pod

    def recording(obj: object) -> Pod:
        seen.append(gc.isenabled())
        return real(obj)  # type: ignore[arg-type]

    monkeypatch.setitem(load_module._DECODERS, "Pod", recording)
    path = write(tmp_path, "pods.yaml", POD.format(name="a"))
    assert gc.isenabled()
    load([path])
    assert seen == [False]
    assert gc.isenabled()
    with pytest.raises(InputErrorList):
        load([tmp_path / "missing.yaml"])
    assert gc.isenabled()


def test_an_input_kept_to_the_end_is_frozen_out_of_the_collector_s_reach(tmp_path: Path) -> None:
    """kubesched simulate's load leaves its objects where the cycle collector's passes never walk them, and the
    collector on."""
    path = write(tmp_path, "pods.yaml", POD.format(name="a"))
    assert gc.get_freeze_count() == 0
    try:
        cluster = load_module.load_kept([path])
        assert gc.is_tracked(cluster.pods[0].metadata)
        assert not any(o is cluster.pods[0].metadata for o in gc.get_objects())  # frozen: in no generation
        assert gc.isenabled()
    finally:
        gc.unfreeze()


def test_an_input_with_problems_is_not_frozen(tmp_path: Path) -> None:
    """A load that fails freezes nothing (its command ends with the error lines)."""
    with pytest.raises(InputErrorList):
        load_module.load_kept([tmp_path / "missing.yaml"])
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()


@given(st.text(max_size=40).map(lambda s: s.encode("utf-8", "replace").decode("utf-8")))
def test_a_derived_uid_is_the_uuid5_of_the_object_s_location(location: str) -> None:
    """kubesched's uid for an object without one is uuid5(NAMESPACE_URL, "kubesched:" + its location)."""
    assert load_module.derived_uid(location) == str(uuid.uuid5(uuid.NAMESPACE_URL, f"kubesched:{location}"))
