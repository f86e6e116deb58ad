"""End to end through YAML: each default plugin decides placements in ``kubesched simulate`` as kube-scheduler's
would, with kube-scheduler's messages for the pods left Pending."""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from pathlib import Path

from kubesched.io.load import load
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import PodResult, simulate
from tests.conftest import RunCli, write


def node(name: str, zone: str = "", cpu: str = "4", extra: str = "") -> str:
    """A node manifest with hostname (and zone) labels."""
    zone_label = f', topology.kubernetes.io/zone: "{zone}"' if zone else ""
    return textwrap.dedent(f"""\
        apiVersion: v1
        kind: Node
        metadata:
          name: {name}
          labels: {{kubernetes.io/hostname: {name}{zone_label}}}
        status:
          allocatable: {{cpu: "{cpu}", memory: 16Gi, pods: "110"}}
        """) + extra + "---\n"


def pod(name: str, spec: str = "", labels: str = "{}", node_name: str = "", cpu: str = "100m",
        minute: int = 0, memory: str = "", ports: str = "[]") -> str:
    """A pod manifest with one container; ``spec`` is extra YAML under spec, created at ``minute``."""
    memory_request = f", memory: {memory}" if memory else ""
    bound = f"nodeName: {node_name}\n" if node_name else ""
    container = textwrap.dedent(f"""\
        containers:
        - name: app
          image: registry.example/app:1
          resources: {{requests: {{cpu: {cpu}{memory_request}}}}}
          ports: {ports}
        """)
    return textwrap.dedent(f"""\
        apiVersion: v1
        kind: Pod
        metadata:
          name: {name}
          labels: {labels}
          creationTimestamp: "2026-11-01T00:{minute:02d}:00Z"
        spec:
        """) + textwrap.indent(bound + textwrap.dedent(spec) + container, "  ") + "---\n"


# DefaultPreemption's part of the message when no pod on either node has a lower priority.
NO_VICTIMS_ON_2 = " preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."


def run(tmp_path: Path, registry: PluginRegistry, text: str, profile: str = "default") -> dict[str, PodResult]:
    """Simulate the manifests in ``text`` with a shipped profile; results by pod name."""
    cluster = load([write(tmp_path / "cluster.yaml", text)])
    result = simulate(cluster, load_config(profile, registry), registry)
    return {p.name: p for p in result.pods}


def placed(results: dict[str, PodResult]) -> dict[str, str | None]:
    return {name: r.node for name, r in results.items()}


AFFINITY_TO_CACHE = """\
affinity:
  podAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - topologyKey: topology.kubernetes.io/zone
      labelSelector: {matchLabels: {app: cache}}
"""

ANTI_AFFINITY_WEB = """\
affinity:
  podAntiAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - topologyKey: kubernetes.io/hostname
      labelSelector: {matchLabels: {app: web}}
"""


def test_required_pod_affinity_follows_the_matching_pod_into_its_zone(tmp_path: Path,
                                                                     registry: PluginRegistry) -> None:
    """A pod with required affinity to app=cache in the same zone lands only in the cache's zone."""
    text = (node("a1", "a", cpu="16") + node("b1", "b") + node("b2", "b")
            + pod("cache", labels="{app: cache}", node_name="b1", cpu="1")
            + pod("web", AFFINITY_TO_CACHE, labels="{app: web}", minute=1))
    results = run(tmp_path, registry, text)
    assert results["web"].phase == "Bound"
    assert results["web"].node in {"b1", "b2"}


def test_unmet_pod_affinity_is_unresolvable_on_every_node(tmp_path: Path, registry: PluginRegistry) -> None:
    """No pod matches the affinity and the pod does not match its own term: Pending with kube's reason."""
    text = node("a1", "a") + node("b1", "b") + pod("web", AFFINITY_TO_CACHE, labels="{app: web}")
    results = run(tmp_path, registry, text)
    assert (results["web"].phase, results["web"].message) == (
        "Pending", "0/2 nodes are available: 2 node(s) didn't match pod affinity rules. preemption: 0/2 nodes are "
        "available: 2 Preemption is not helpful for scheduling.")


def test_first_pod_of_a_self_affine_group_may_go_anywhere(tmp_path: Path, registry: PluginRegistry) -> None:
    """A pod whose affinity term matches itself is schedulable when no pod matches yet; the next follows it."""
    self_affine = AFFINITY_TO_CACHE
    text = (node("a1", "a") + node("b1", "b")
            + pod("cache-1", self_affine, labels="{app: cache}", minute=0)
            + pod("cache-2", self_affine, labels="{app: cache}", minute=1, cpu="3"))
    results = run(tmp_path, registry, text)
    assert results["cache-1"].phase == results["cache-2"].phase == "Bound"
    assert results["cache-1"].node == results["cache-2"].node


def test_required_anti_affinity_puts_replicas_on_different_nodes(tmp_path: Path, registry: PluginRegistry) -> None:
    """Three replicas that refuse to share a node: two bind on the two nodes, the third stays Pending."""
    text = node("n1") + node("n2") + "".join(
        pod(f"web-{i}", ANTI_AFFINITY_WEB, labels="{app: web}", minute=i) for i in range(3))
    results = run(tmp_path, registry, text)
    assert {results["web-0"].node, results["web-1"].node} == {"n1", "n2"}
    # The incoming pod's own anti-affinity is checked before the bound replicas' (kube's order since v1.19).
    assert (results["web-2"].phase, results["web-2"].message) == (
        "Pending", "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules." + NO_VICTIMS_ON_2)


def test_existing_pods_anti_affinity_is_symmetric(tmp_path: Path, registry: PluginRegistry) -> None:
    """A running pod's anti-affinity keeps matching pods off its node even though they have no affinity."""
    guard = """\
affinity:
  podAntiAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - topologyKey: kubernetes.io/hostname
      labelSelector: {matchLabels: {team: batch}}
"""
    text = (node("big", cpu="32") + node("small", cpu="2")
            + pod("db", guard, labels="{app: db}", node_name="big")
            + pod("job", labels="{team: batch}", minute=1)
            + pod("api", labels="{team: web}", minute=2))
    results = run(tmp_path, registry, text)
    assert results["job"].node == "small"
    assert results["api"].node == "big"  # not matched by db's term: the emptier node wins


def test_pod_anti_affinity_of_incoming_pod_is_unschedulable(tmp_path: Path, registry: PluginRegistry) -> None:
    """An incoming pod whose anti-affinity matches a pod on every node reports the pod anti-affinity reason."""
    text = (node("n1") + node("n2") + pod("w1", labels="{app: web}", node_name="n1")
            + pod("w2", labels="{app: web}", node_name="n2")
            + pod("web-new", ANTI_AFFINITY_WEB, labels="{app: other}"))
    results = run(tmp_path, registry, text)
    assert results["web-new"].message == (
        "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules." + NO_VICTIMS_ON_2)


SPREAD_ZONES = """\
topologySpreadConstraints:
- maxSkew: 1
  topologyKey: topology.kubernetes.io/zone
  whenUnsatisfiable: DoNotSchedule
  labelSelector: {matchLabels: {app: web}}
"""


def test_spread_constraint_balances_replicas_across_zones(tmp_path: Path, registry: PluginRegistry) -> None:
    """Six replicas with maxSkew 1 over two zones land three per zone, though zone a has much more room."""
    text = (node("a1", "a", cpu="32") + node("a2", "a", cpu="32") + node("b1", "b", cpu="2")
            + "".join(pod(f"web-{i}", SPREAD_ZONES, labels="{app: web}", minute=i) for i in range(6)))
    results = run(tmp_path, registry, text)
    zones = Counter("a" if r.node in {"a1", "a2"} else "b" for r in results.values())
    assert all(r.phase == "Bound" for r in results.values())
    assert zones == {"a": 3, "b": 3}


def test_spread_constraint_leaves_pod_pending_when_skew_would_break(tmp_path: Path,
                                                                    registry: PluginRegistry) -> None:
    """When zone b is full, zone a may take only maxSkew more replicas; the rest wait with kube's reason."""
    text = (node("a1", "a", cpu="32") + node("b1", "b", cpu="1")
            + "".join(pod(f"web-{i}", SPREAD_ZONES, labels="{app: web}", minute=i, cpu="1") for i in range(4)))
    results = run(tmp_path, registry, text)
    # web-0 takes roomy a1, web-1 must go to b1, web-2 fits a1 again (skew 1), web-3 would make it 2.
    assert placed(results) == {"web-0": "a1", "web-1": "b1", "web-2": "a1", "web-3": None}
    assert results["web-3"].message == (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread constraints."
        + NO_VICTIMS_ON_2)


def test_spread_constraint_node_without_the_key_is_unresolvable(tmp_path: Path, registry: PluginRegistry) -> None:
    """A node lacking the constraint's topology label is never a candidate."""
    text = node("nozone") + pod("web", SPREAD_ZONES, labels="{app: web}")
    results = run(tmp_path, registry, text)
    assert results["web"].message == (
        "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label). "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")


def test_host_ports_conflict_one_pod_per_node(tmp_path: Path, registry: PluginRegistry) -> None:
    """Three pods wanting host port 8080/TCP fit only once per node."""
    ports = "[{containerPort: 8080, hostPort: 8080}]"
    text = node("n1") + node("n2") + "".join(pod(f"proxy-{i}", minute=i, ports=ports) for i in range(3))
    results = run(tmp_path, registry, text)
    assert {results["proxy-0"].node, results["proxy-1"].node} == {"n1", "n2"}
    assert results["proxy-2"].message == (
        "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports." + NO_VICTIMS_ON_2)


def test_host_port_on_another_protocol_does_not_conflict(tmp_path: Path, registry: PluginRegistry) -> None:
    """The same port number over UDP is a different host port."""
    tcp = "[{containerPort: 53, hostPort: 53}]"
    udp = "[{containerPort: 53, hostPort: 53, protocol: UDP}]"
    results = run(tmp_path, registry, node("n1") + pod("dns-tcp", ports=tcp) + pod("dns-udp", minute=1, ports=udp))
    assert placed(results) == {"dns-tcp": "n1", "dns-udp": "n1"}


def test_scheduling_gates_keep_the_pod_out_of_the_queue(tmp_path: Path, registry: PluginRegistry) -> None:
    """A gated pod is never attempted: it stays Pending with its gates listed."""
    gates = "schedulingGates: [{name: example.com/quota}, {name: example.com/approval}]\n"
    results = run(tmp_path, registry, node("n1") + pod("gated", gates) + pod("free", minute=1))
    assert (results["gated"].phase, results["gated"].message) == (
        "Pending", "waiting for scheduling gates: [example.com/quota example.com/approval]")
    assert results["free"].node == "n1"


def test_image_locality_prefers_the_node_that_has_the_image(tmp_path: Path, registry: PluginRegistry) -> None:
    """All else equal, the node that already holds the pod's (large) image wins."""
    images = "  images:\n  - names: [registry.example/app:1]\n    sizeBytes: 800000000\n"
    with_image = textwrap.dedent("""\
        apiVersion: v1
        kind: Node
        metadata: {name: warm, labels: {kubernetes.io/hostname: warm}}
        status:
          allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
        """) + images + "---\n"
    for seed_order in (node("cold") + with_image, with_image + node("cold")):
        results = run(tmp_path, registry, seed_order + pod("app"))
        assert results["app"].node == "warm"


SERVICE = """\
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}}
---
"""


def test_spread_profile_spreads_a_services_pods_over_zones(tmp_path: Path, registry: PluginRegistry) -> None:
    """With the spread profile, Service-selected pods without constraints of their own spread one per zone first."""
    text = (SERVICE + node("a1", "a", cpu="64") + node("b1", "b", cpu="8") + node("c1", "c", cpu="8")
            + "".join(pod(f"web-{i}", labels="{app: web}", minute=i, cpu="500m") for i in range(3)))
    results = run(tmp_path, registry, text, profile="spread")
    assert sorted(r.node or "-" for r in results.values()) == ["a1", "b1", "c1"]


def test_bin_packing_profile_fills_one_node_first(tmp_path: Path, registry: PluginRegistry) -> None:
    """bin-packing stacks pods on the fullest node; the default profile spreads them."""
    # Requests in the nodes' cpu:memory ratio keep BalancedAllocation neutral, so the strategy alone decides.
    text = node("n1") + node("n2") + pod("a", cpu="1", memory="4Gi") + pod("b", cpu="1", memory="4Gi", minute=1)
    packed = run(tmp_path, registry, text, profile="bin-packing")
    assert packed["a"].node == packed["b"].node
    spread = run(tmp_path, registry, text)
    assert spread["a"].node != spread["b"].node


def test_cli_json_reports_affinity_failures(tmp_path: Path, run_cli: RunCli) -> None:
    """Through the CLI: the JSON output carries the InterPodAffinity reason for the pod left Pending."""
    path = write(tmp_path / "in.yaml", node("n1") + pod("web", AFFINITY_TO_CACHE, labels="{app: web}"))
    done = run_cli("simulate", str(path), "--output", "json")
    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)["pods"]
    assert (result["phase"], result["message"]) == (
        "Pending", "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are "
        "available: 1 Preemption is not helpful for scheduling.")
