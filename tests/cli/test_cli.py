"""The command line, run as a user runs it: the installed console script in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ISSUE_EXAMPLE_PROFILE, REAL_DUMP, RunCli, write

QUICKSTART = str(EXAMPLES / "quickstart.yaml")
NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


class TestSimulate:
    """Tests for ``kubesched simulate``."""

    def test_table_lists_every_pod_and_node(self, run_cli: RunCli) -> None:
        """The table has a row per pod (node, phase, message) and a per-node utilisation summary."""
        done = run_cli("simulate", QUICKSTART)
        assert done.returncode == 0, done.stderr
        out = done.stdout
        assert "default/db" in out
        assert "worker-a" in out
        assert ("0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu."
                in out)
        assert "┃ NODE     ┃ CPU       ┃ MEMORY          ┃ PODS       ┃ NVIDIA.COM/GPU ┃" in out
        assert "│ gpu-1    │ 4/8 (50%) │ 16Gi/32Gi (50%) │ 1/110 (0%) │ 1/2 (50%)      │" in out
        assert "gpu-1" in out
        assert "6 bound, 1 pending, 0 evicted; seed 0" in out

    def test_json_has_exactly_the_documented_shape(self, run_cli: RunCli) -> None:
        """JSON output: kind, seed, pods (input order, fixed keys), nodes, preemptions, events, metrics, analysis."""
        done = run_cli("simulate", QUICKSTART, "--output", "json")
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert list(result) == ["kind", "seed", "pods", "nodes", "preemptions", "events", "metrics", "analysis"]
        assert list(result["analysis"]) == ["endTime", "pods", "attempts", "resources", "fragmentation",
                                            "pendingTime", "preemptions", "series"]
        assert (result["kind"], result["seed"], result["preemptions"]) == ("SimulationResult", 0, [])
        pods = result["pods"]
        assert [p["name"] for p in pods] == ["metrics-agent", "web-1", "web-2", "web-3", "db", "trainer",
                                             "analytics"]
        assert all(list(p) == ["namespace", "name", "uid", "owner", "phase", "node", "nominatedNode", "priority",
                               "message"] for p in pods)
        assert [n["name"] for n in result["nodes"]] == ["gpu-1", "worker-a", "worker-b"]
        assert all(list(n) == ["name", "allocatable", "requested"] for n in result["nodes"])
        placed = {p["name"]: (p["phase"], p["node"]) for p in pods}
        assert placed["db"] == ("Bound", "worker-a")
        assert placed["trainer"] == ("Bound", "gpu-1")
        assert placed["analytics"] == ("Pending", None)
        assert {p["name"]: p["priority"] for p in pods}["web-1"] == 1000
        event = result["events"][0]
        assert list(event) == ["time", "type", "reason", "object", "message", "action", "regarding"]
        assert list(event["regarding"]) == ["kind", "namespace", "name", "uid"]
        assert event["type"] == "Normal"
        assert event["reason"] == "Scheduled"

    def test_same_input_and_seed_give_identical_bytes(self, run_cli: RunCli) -> None:
        """Runs with the same input and seed print byte-identical JSON and tables, whatever Python's hash seed."""
        for output, path in (("json", QUICKSTART), ("table", QUICKSTART), ("json", str(REAL_DUMP))):
            first = run_cli("simulate", path, "--seed", "7", "--output", output, env={"PYTHONHASHSEED": "1"})
            second = run_cli("simulate", path, "--seed", "7", "--output", output, env={"PYTHONHASHSEED": "2"})
            assert first.returncode == 0, first.stderr
            assert first.stdout == second.stdout

    def test_real_cluster_dump_loads_as_is(self, run_cli: RunCli) -> None:
        """A `kubectl get ... -o yaml` dump from a real API server simulates without edits."""
        done = run_cli("simulate", str(REAL_DUMP), "--output", "json")
        assert done.returncode == 0, done.stderr
        pods = {f"{p['namespace']}/{p['name']}": p for p in json.loads(done.stdout)["pods"]}
        assert len(pods) == 8
        assert pods["batch/cache-0"]["node"] == "worker-b"
        assert pods["batch/train-0"]["phase"] == "Pending"
        assert "Insufficient nvidia.com/gpu" in pods["batch/train-0"]["message"]

    def test_directory_input(self, run_cli: RunCli, tmp_path: Path) -> None:
        """A directory is read recursively."""
        write(tmp_path / "nodes" / "n1.yaml", NODE)
        write(tmp_path / "pods" / "p.json", json.dumps(
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
             "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}))
        done = run_cli("simulate", str(tmp_path), "--output", "json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["pods"][0]["node"] == "n1"

    def test_unknown_kinds_warn_once_per_kind(self, run_cli: RunCli, tmp_path: Path) -> None:
        """Kinds kubesched does not read are skipped with one warning per kind on stderr."""
        path = write(tmp_path / "in.yaml", NODE + """
---
apiVersion: v1
kind: ConfigMap
metadata: {name: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b}
""")
        done = run_cli("simulate", str(path))
        assert done.returncode == 0
        assert done.stderr.splitlines()[0] == (
            "warning: skipped 2 object(s) of kind ConfigMap: kubesched does not read this kind")
        assert [line for line in done.stderr.splitlines() if "ConfigMap" in line] == [done.stderr.splitlines()[0]]


BAD_INPUTS = {
    "quantity": ("""
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: c
    resources: {requests: {cpu: 2x}}
""", 'pods/default/web: spec.containers[0].resources.requests.cpu: "2x" is not a valid quantity'),
    "priority-class": ("""
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  priorityClassName: gold
  containers: [{name: c}]
""", 'pods/shop/web: spec.priorityClassName: pods "web" is forbidden: no PriorityClass with name gold was found'),
    "node-name": ("""
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeName: ghost
  containers: [{name: c}]
""", 'pods/default/web: spec.nodeName: node "ghost" is not in the input'),
    "missing-name": ("""
apiVersion: v1
kind: Node
metadata: {labels: {a: b}}
""", "nodes (document 2): metadata.name: Required value: name is required"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_one_clean_error_and_exit_1(case: str, run_cli: RunCli, tmp_path: Path) -> None:
    """Bad input prints the file, object and field, exits 1 and simulates nothing."""
    manifest, message = BAD_INPUTS[case]
    path = write(tmp_path / "bad.yaml", NODE + "---" + manifest)
    done = run_cli("simulate", str(path), "--output", "json")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == f"error: {path}: {message}\n"


def test_duplicate_objects_are_an_error(run_cli: RunCli, tmp_path: Path) -> None:
    """The same object defined twice, differently, is an error naming where it was first defined (an identical
    copy in another file is read once, with a warning)."""
    first = write(tmp_path / "a.yaml", NODE)
    second = write(tmp_path / "b.yaml", NODE.replace('cpu: "4"', 'cpu: "8"'))
    done = run_cli("simulate", str(first), str(second))
    assert done.returncode == 1
    assert done.stderr == f"error: {second}: nodes/n1: duplicate object: already defined in {first}\n"


def test_invalid_yaml_names_the_line(run_cli: RunCli, tmp_path: Path) -> None:
    """Unparsable YAML is reported with its position, never as a traceback."""
    path = write(tmp_path / "broken.yaml", "kind: Node\nmetadata: {name: [\n")
    done = run_cli("simulate", str(path))
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: {path}: invalid YAML at line 3 column 1:")
    assert "Traceback" not in done.stderr


def test_missing_file(run_cli: RunCli, tmp_path: Path) -> None:
    """A path that does not exist is an error, exit 1."""
    done = run_cli("simulate", str(tmp_path / "nope.yaml"))
    assert (done.returncode, done.stderr) == (1, f"error: {tmp_path / 'nope.yaml'}: no such file or directory\n")


class TestProfiles:
    """Tests for ``--profile`` and ``kubesched profile``."""

    def test_profile_file_changes_placement(self, run_cli: RunCli, tmp_path: Path) -> None:
        """A profile with MostAllocated scoring packs pods onto the busier node."""
        profile = write(tmp_path / "pack.toml", """
[[profiles]]
scheduler-name = "default-scheduler"
[profiles.plugin-config.NodeResourcesFit.scoring-strategy]
type = "MostAllocated"
""")
        spread = json.loads(run_cli("simulate", QUICKSTART, "--output", "json").stdout)
        packed = json.loads(run_cli("simulate", QUICKSTART, "--profile", str(profile), "--output", "json").stdout)
        nodes = {p["name"]: p["node"] for p in spread["pods"]}
        packed_nodes = {p["name"]: p["node"] for p in packed["pods"]}
        assert nodes["web-1"] == "worker-b"
        assert packed_nodes["web-1"] == "worker-a"

    def test_issue_example_profile_works(self, run_cli: RunCli, tmp_path: Path) -> None:
        """The example profile from the foundation issue validates."""
        profile = write(tmp_path / "p.toml", ISSUE_EXAMPLE_PROFILE)
        done = run_cli("profile", "check", str(profile))
        assert (done.returncode, done.stdout) == (0, f"ok: {profile}: 1 profile(s): default-scheduler\n")
        shown = run_cli("profile", "show", str(profile)).stdout
        assert 'type = "MostAllocated"' in shown
        assert '[profiles.plugins.filter]\ndisabled = [{ name = "*" }]\nenabled = [{ name = "NodeUnschedulable" }, ' \
               '{ name = "NodeName" }, { name = "NodeAffinity" }, { name = "NodePorts" }, ' \
               '{ name = "NodeResourcesFit" }, { name = "VolumeRestrictions" }, { name = "NodeVolumeLimits" }, ' \
               '{ name = "VolumeBinding" }, { name = "VolumeZone" }, { name = "PodTopologySpread" }, ' \
               '{ name = "InterPodAffinity" }]' in shown

    def test_invalid_profile_is_an_error_with_file_and_key(self, run_cli: RunCli, tmp_path: Path) -> None:
        """A profile error names the file and the key path and exits 1, for check and simulate alike."""
        profile = write(tmp_path / "bad.toml", """
[[profiles]]
[profiles.plugins.score]
enabled = [{ name = "NodeResourceFit", weight = 2 }]
""")
        expected = (f"error: {profile}: profiles[0].plugins.score.enabled[0].name: unknown plugin "
                    "'NodeResourceFit' (did you mean 'NodeResourcesFit'?)\n")
        for args in (("profile", "check", str(profile)), ("simulate", QUICKSTART, "--profile", str(profile))):
            done = run_cli(*args)
            assert (done.returncode, done.stderr, done.stdout) == (1, expected, "")

    def test_unknown_shipped_profile(self, run_cli: RunCli) -> None:
        """An unknown profile name lists the shipped ones."""
        done = run_cli("profile", "show", "defualt")
        assert done.returncode == 1
        assert done.stderr.startswith("error: no shipped profile named 'defualt' (did you mean 'default'?)")

    def test_show_default_lists_kube_scheduler_weights(self, run_cli: RunCli) -> None:
        """The default profile's score weights are kube-scheduler's."""
        done = run_cli("profile", "show", "default")
        assert done.returncode == 0
        assert ('enabled = [{ name = "TaintToleration", weight = 3 }, { name = "NodeAffinity", weight = 2 }, '
                '{ name = "NodeResourcesFit", weight = 1 }, { name = "PodTopologySpread", weight = 2 }, '
                '{ name = "InterPodAffinity", weight = 2 }, { name = "NodeResourcesBalancedAllocation", weight = 1 }, '
                '{ name = "ImageLocality", weight = 1 }]' in done.stdout)


class TestPlugins:
    """Tests for ``kubesched plugins``."""

    def test_json_lists_builtins_with_points_and_source(self, run_cli: RunCli) -> None:
        """Each plugin: name, extension points, source."""
        done = run_cli("plugins", "--output", "json")
        assert done.returncode == 0
        document = json.loads(done.stdout)
        by_name = {p["name"]: p for p in document["plugins"]}
        assert by_name["NodeResourcesFit"]["extensionPoints"] == ["PreFilter", "Filter", "PreScore", "Score"]
        assert by_name["NodeResourcesFit"]["source"] == "builtin"
        assert by_name["PrioritySort"]["extensionPoints"] == ["QueueSort"]

    def test_table(self, run_cli: RunCli) -> None:
        """The table names every built-in."""
        done = run_cli("plugins")
        assert done.returncode == 0
        for name in ("DefaultBinder", "NodeAffinity", "TaintToleration"):
            assert name in done.stdout

    def test_json_objects_keep_their_keys_and_add_fast_path(self, run_cli: RunCli) -> None:
        """Every plugin object: the former keys, then ``fastPath`` (batch forms, declaration, sentences)."""
        done = run_cli("plugins", "-o", "json")
        assert done.returncode == 0, done.stderr
        plugins = json.loads(done.stdout)["plugins"]
        assert {tuple(p) for p in plugins} == {
            ("name", "extensionPoints", "source", "distribution", "version", "fastPath")}
        by_name = {p["name"]: p["fastPath"] for p in plugins}
        assert by_name["NodeResourcesFit"] == {"batchForms": ["filter_nodes", "score_nodes"],
                                               "filterReads": "RESOURCES", "offTheFastPath": []}
        assert by_name["NodeAffinity"] == {"batchForms": ["filter_nodes", "score_nodes", "normalize_scores"],
                                           "filterReads": "NODE", "offTheFastPath": []}
        assert by_name["PodTopologySpread"] == {
            "batchForms": ["pre_filter_nodes", "filter_nodes", "pre_score_nodes", "score_nodes", "normalize_scores"],
            "filterReads": None,
            "offTheFastPath": [
                "no filter_reads declaration: nodes with nominated pods take the per-node two-pass filter, and "
                "preemption's dry run runs Filter on node copies while this plugin filters",
                "PreFilter AddPod/RemovePod: while these extensions run, nodes with nominated pods take the per-node "
                "two-pass filter, and preemption's dry run runs Filter on node copies"]}
        assert by_name["PrioritySort"] == {"batchForms": [], "filterReads": None, "offTheFastPath": []}

    def test_table_fast_path_column_says_yes_or_each_cause(self, run_cli: RunCli) -> None:
        """FAST PATH: ``yes``, or one line per cause keeping the plugin off part of the fast path."""
        done = run_cli("plugins")
        assert done.returncode == 0, done.stderr
        rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in done.stdout.splitlines()
                if line.startswith("│")]
        header = next(line for line in done.stdout.splitlines() if line.startswith("┃"))
        assert [cell.strip() for cell in header.split("┃")[1:-1]] == ["NAME", "EXTENSION POINTS", "SOURCE",
                                                                     "FAST PATH"]
        by_name = {row[0]: row[3] for row in rows if row[0]}
        assert by_name["NodeResourcesFit"] == by_name["DefaultBinder"] == "yes"
        assert by_name["NodePorts"] == "no filter_reads declaration"
        i = next(i for i, row in enumerate(rows) if row[0] == "InterPodAffinity")
        assert [row[3] for row in rows[i:i + 2]] == ["no filter_reads declaration", "PreFilter AddPod/RemovePod"]
        assert rows[i + 1][0] == ""


def test_directory_without_manifests(run_cli: RunCli, tmp_path: Path) -> None:
    """A directory holding no manifest is an error rather than an empty simulation."""
    write(tmp_path / "notes.txt", "nothing to see")
    done = run_cli("simulate", str(tmp_path))
    assert (done.returncode, done.stderr) == (
        1, f"error: {tmp_path}: no manifest files (.yaml, .yml, .json) in this directory\n")
