"""Benchmark: loading a cluster-scale manifest, and the memory a Simulation of it holds.

Writes a scheduler_perf-like manifest to a temporary directory (nodes of 4 CPU / 32Gi / 110 pods with hostname and
zone labels; pods of 100m / 500Mi with app labels, some bound through spec.nodeName), as a multi-document YAML
stream, as a YAML ``kind: List`` and as a JSON one, then, each in a fresh process so peak RSS is that step's own:

- times :func:`kubesched.io.load.load` (the CLI's entry) on each file and reports seconds and peak RSS, for
  objects as ``kubectl get -o yaml`` prints them and as scheduler_perf's templates have them (``--style``);
- builds a Simulation of ``--sim-nodes`` nodes and ``--sim-pods`` pods all bound (cache and snapshot populated,
  nothing to schedule) and reports its RSS, split into the loaded objects and the scheduler's cache/snapshot.

    python benchmarks/load.py [--nodes 5000] [--pods 50000] [--bound 0.5] [--sim-nodes 5000] [--sim-pods 50000]
                              [--only load|sim] [--format stream|list|json] [--style kubectl|compact] [--profile]
                              [--without-native]

Timings are this machine's (CPU seconds beside wall-clock ones, as other work may share the cores); nothing here
is asserted by tests.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import pstats
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import yaml

ZONES = ("zone-a", "zone-b", "zone-c")
APPS = 50


def _node(i: int) -> str:
    """One node as kubectl prints it (the fields the scheduler reads, and the usual others)."""
    name = f"node-{i:05d}"
    zone = ZONES[i % len(ZONES)]
    return f"""apiVersion: v1
kind: Node
metadata:
  annotations:
    node.alpha.kubernetes.io/ttl: "0"
    volumes.kubernetes.io/controller-managed-attach-detach: "true"
  creationTimestamp: "2024-05-01T10:00:00Z"
  labels:
    beta.kubernetes.io/arch: amd64
    beta.kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    kubernetes.io/hostname: {name}
    kubernetes.io/os: linux
    topology.kubernetes.io/region: region-1
    topology.kubernetes.io/zone: {zone}
  name: {name}
  resourceVersion: "{1000 + i}"
  uid: 6b1c{i:08x}-0000-4000-8000-00000000a000
spec:
  podCIDR: 10.{i // 256 % 256}.{i % 256}.0/24
status:
  addresses:
  - address: 192.168.{i // 256 % 256}.{i % 256}
    type: InternalIP
  - address: {name}
    type: Hostname
  allocatable:
    cpu: "4"
    ephemeral-storage: 100Gi
    memory: 32Gi
    pods: "110"
  capacity:
    cpu: "4"
    ephemeral-storage: 100Gi
    memory: 32Gi
    pods: "110"
  conditions:
  - lastHeartbeatTime: "2024-05-01T10:05:00Z"
    lastTransitionTime: "2024-05-01T10:00:10Z"
    message: kubelet is posting ready status
    reason: KubeletReady
    status: "True"
    type: Ready
  nodeInfo:
    architecture: amd64
    containerRuntimeVersion: containerd://1.7.13
    kernelVersion: 6.1.0
    kubeletVersion: v1.32.0
    operatingSystem: linux
    osImage: Debian GNU/Linux 12 (bookworm)
"""


def _pod(i: int, node: str | None) -> str:
    """One pod as kubectl prints it; bound (running, with status) when ``node`` is given, else pending."""
    app = f"app-{i % APPS}"
    name = f"{app}-{i:06d}"
    bound = ""
    status = "status:\n  phase: Pending\n  qosClass: Burstable\n"
    if node is not None:
        bound = f"  nodeName: {node}\n"
        status = f"""status:
  conditions:
  - lastProbeTime: null
    lastTransitionTime: "2024-05-01T10:01:00Z"
    status: "True"
    type: PodScheduled
  - lastProbeTime: null
    lastTransitionTime: "2024-05-01T10:01:05Z"
    status: "True"
    type: Ready
  containerStatuses:
  - image: registry.k8s.io/pause:3.10
    name: pause
    ready: true
    restartCount: 0
    started: true
    state:
      running:
        startedAt: "2024-05-01T10:01:04Z"
  hostIP: 192.168.0.1
  phase: Running
  podIP: 10.0.{i // 256 % 256}.{i % 256}
  qosClass: Burstable
  startTime: "2024-05-01T10:01:00Z"
"""
    return f"""apiVersion: v1
kind: Pod
metadata:
  creationTimestamp: "2024-05-01T10:01:00Z"
  generateName: {app}-
  labels:
    app: {app}
    pod-template-hash: 5d8f7c9b4
  name: {name}
  namespace: default
  ownerReferences:
  - apiVersion: apps/v1
    blockOwnerDeletion: true
    controller: true
    kind: ReplicaSet
    name: {app}-5d8f7c9b4
    uid: 0f0e{i % APPS:08x}-0000-4000-8000-00000000b000
  resourceVersion: "{100000 + i}"
  uid: 7c2d{i:08x}-0000-4000-8000-00000000c000
spec:
  containers:
  - image: registry.k8s.io/pause:3.10
    imagePullPolicy: IfNotPresent
    name: pause
    ports:
    - containerPort: 8080
      protocol: TCP
    resources:
      limits:
        memory: 500Mi
      requests:
        cpu: 100m
        memory: 500Mi
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
  dnsPolicy: ClusterFirst
  enableServiceLinks: true
{bound}  preemptionPolicy: PreemptLowerPriority
  priority: 0
  restartPolicy: Always
  schedulerName: default-scheduler
  securityContext: {{}}
  serviceAccountName: default
  terminationGracePeriodSeconds: 30
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
    operator: Exists
    tolerationSeconds: 300
  - effect: NoExecute
    key: node.kubernetes.io/unreachable
    operator: Exists
    tolerationSeconds: 300
{status}"""


def _compact_node(i: int) -> str:
    """One node as scheduler_perf's node template has it, named and labelled."""
    name = f"node-{i:05d}"
    return f"""apiVersion: v1
kind: Node
metadata:
  labels:
    kubernetes.io/hostname: {name}
    topology.kubernetes.io/zone: {ZONES[i % len(ZONES)]}
  name: {name}
status:
  capacity:
    cpu: "4"
    memory: 32Gi
    pods: "110"
  conditions:
  - status: "True"
    type: Ready
"""


def _compact_pod(i: int, node: str | None) -> str:
    """One pod as scheduler_perf's pod template has it, named and labelled (bound when ``node`` is given)."""
    app = f"app-{i % APPS}"
    bound = f"  nodeName: {node}\n" if node is not None else ""
    return f"""apiVersion: v1
kind: Pod
metadata:
  labels:
    app: {app}
  name: {app}-{i:06d}
  namespace: default
spec:
  containers:
  - image: registry.k8s.io/pause:3.10
    name: pause
    resources:
      limits:
        memory: 500Mi
      requests:
        cpu: 100m
        memory: 500Mi
{bound}"""


def _objects(nodes: int, pods: int, bound: float, style: str = "kubectl") -> list[str]:
    """Every object's YAML in ``style`` (``kubectl``: as ``kubectl get -o yaml`` prints them; ``compact``:
    scheduler_perf's templates): nodes, then pods, the first ``bound`` share of pods bound round-robin."""
    node_text, pod_text = (_node, _pod) if style == "kubectl" else (_compact_node, _compact_pod)
    texts = [node_text(i) for i in range(nodes)]
    bound_count = int(pods * bound)
    per_node = -(-bound_count // nodes) if nodes else 0
    if per_node > 110:
        raise SystemExit(f"{bound_count} bound pods do not fit on {nodes} nodes of 110 pods")
    texts.extend(pod_text(i, f"node-{i % nodes:05d}" if i < bound_count else None) for i in range(pods))
    return texts


def write_manifest(directory: Path, nodes: int, pods: int, bound: float, fmt: str, style: str = "kubectl") -> Path:
    """Write the manifest as a multi-document stream (``stream``) or one ``kind: List`` (``list``)."""
    texts = _objects(nodes, pods, bound, style)
    path = directory / f"cluster-{style}-{fmt}-{nodes}-{pods}.{'json' if fmt == 'json' else 'yaml'}"
    with path.open("w", encoding="utf-8") as out:
        if fmt == "json":  # kubectl get -o json: one List
            loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
            items = [yaml.load(text, Loader=loader) for text in texts]
            json.dump({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}, out,
                      indent=4)
        elif fmt == "stream":
            for text in texts:
                out.write("---\n")
                out.write(text)
        else:
            out.write("apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n")
            for text in texts:
                lines = text.splitlines()
                out.write("- " + lines[0] + "\n")
                out.writelines("  " + line + "\n" for line in lines[1:])
    return path


# -- measurements, each run in a child process --------------------------------------------------------------

def _rss_now() -> int:
    """This process's resident set, in bytes."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _rss_peak() -> int:
    """This process's peak resident set, in bytes: VmHWM, which starts afresh at exec (getrusage's ru_maxrss
    would carry the parent's peak over, and the parent held the whole manifest's text)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _measure_load(path: str, profile: bool, native: bool = True, freeze: bool = True) -> dict[str, Any]:
    from kubesched.io import load as load_module
    from kubesched.io import yaml_reader

    # As kubesched simulate loads its input (frozen out of the collector's passes), or the library's load.
    load = load_module.load_kept if freeze else load_module.load

    if not native:
        yaml_reader.NATIVE = False
        yaml_reader.PARSER = yaml_reader.PARSER.removeprefix("fastyaml-rs, then ")
    base = _rss_now()
    profiler = cProfile.Profile() if profile else None
    start, cpu_start = time.perf_counter(), time.process_time()
    if profiler:
        profiler.enable()
    cluster = load([path])
    if profiler:
        profiler.disable()
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    gc.collect()
    result = {"seconds": round(seconds, 3), "cpuSeconds": round(cpu_seconds, 3), "peakRssBytes": _rss_peak(),
              "baseRssBytes": base,
              "heldRssBytes": _rss_now() - base, "nodes": len(cluster.nodes), "pods": len(cluster.pods),
              "yamlParser": getattr(yaml_reader, "PARSER", "pure-Python reference loader")}
    if profiler:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    return result


def _measure_sim(path: str, profile: bool) -> dict[str, Any]:
    from kubesched.io.load import load
    from kubesched.profiles import load_config
    from kubesched.runtime import PluginRegistry
    from kubesched.sim.simulate import Simulation

    registry = PluginRegistry.discover()
    config = load_config("default", registry)
    gc.collect()
    base = _rss_now()
    start = time.perf_counter()
    cluster = load([path])
    load_seconds = time.perf_counter() - start
    gc.collect()
    loaded = _rss_now()
    profiler = cProfile.Profile() if profile else None
    if profiler:
        profiler.enable()
    start = time.perf_counter()
    # Allocations of the build traced: RSS alone would hide the cache in memory the load freed.
    tracemalloc.start()
    simulation = Simulation(cluster, config, registry, seed=0)
    simulation.start()
    scheduler = simulation.scheduler
    scheduler.cache.update_snapshot(scheduler.snapshot)
    gc.collect()
    traced, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    build_seconds = time.perf_counter() - start
    if profiler:
        profiler.disable()
    built = _rss_now()
    if profiler:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    return {"loadSeconds": round(load_seconds, 3), "buildSeconds": round(build_seconds, 3),
            "baseRssBytes": base, "objectsRssBytes": loaded - base, "schedulerRssBytes": built - loaded,
            "schedulerTracedBytes": traced,
            "rssBytes": built, "peakRssBytes": _rss_peak(), "nodes": len(cluster.nodes),
            "pods": scheduler.cache.pod_count()}


def _child(kind: str, path: str, profile: bool, native: bool = True, freeze: bool = True) -> dict[str, Any]:
    command = ([sys.executable, __file__, "--child", kind, path] + (["--profile"] if profile else [])
               + ([] if native else ["--without-native"]) + ([] if freeze else ["--without-freeze"]))
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _mib(value: int) -> str:
    return f"{value / 2**20:,.0f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=50000)
    parser.add_argument("--bound", type=float, default=0.5, help="share of the loaded pods bound to a node")
    parser.add_argument("--sim-nodes", type=int, default=5000)
    parser.add_argument("--sim-pods", type=int, default=50000)
    parser.add_argument("--only", choices=("load", "sim"))
    parser.add_argument("--style", choices=("kubectl", "compact"), action="append",
                        help="objects as kubectl prints them, or as scheduler_perf's templates (default: both)")
    parser.add_argument("--format", choices=("stream", "list", "json"), action="append",
                        help="manifest layout(s) to time: a YAML stream, a YAML List, a JSON List (default: all)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions to stderr")
    parser.add_argument("--without-native", action="store_true",
                        help="read YAML with the libyaml reader even where the kubesched[fast] extra is installed")
    parser.add_argument("--without-freeze", action="store_true",
                        help="time the library's load, whose objects the cycle collector walks when it resumes, "
                             "rather than kubesched simulate's (which freezes them out of its reach)")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        kind, path = options.child
        if kind == "load":
            print(json.dumps(_measure_load(path, options.profile, not options.without_native,
                                           not options.without_freeze)))
        else:
            print(json.dumps(_measure_sim(path, options.profile)))
        return
    with tempfile.TemporaryDirectory(prefix="kubesched-load-") as tmp:
        directory = Path(tmp)
        if options.only in (None, "load"):
            for style, fmt in ((s, f) for s in options.style or ("kubectl", "compact")
                               for f in options.format or ("stream", "list", "json")):
                path = write_manifest(directory, options.nodes, options.pods, options.bound, fmt, style)
                size = path.stat().st_size
                result = _child("load", str(path), options.profile, not options.without_native,
                                not options.without_freeze)
                print(f"load {style:7} {fmt:6} {result['nodes']} nodes + {result['pods']} pods "
                      f"({size / 2**20:,.0f} MiB, YAML parser {result['yamlParser']}): {result['seconds']:.2f} s "
                      f"({result.get('cpuSeconds', 0):.2f} s CPU), "
                      f"peak RSS {_mib(result['peakRssBytes'])} (objects held: {_mib(result['heldRssBytes'])})")
                path.unlink()
        if options.only in (None, "sim"):
            path = write_manifest(directory, options.sim_nodes, options.sim_pods, 1.0, "stream")
            result = _child("sim", str(path), options.profile)
            print(f"simulation of {result['nodes']} nodes + {result['pods']} bound pods: RSS "
                  f"{_mib(result['rssBytes'])} (interpreter and plugins {_mib(result['baseRssBytes'])}, "
                  f"loaded objects {_mib(result['objectsRssBytes'])}, scheduler with cache + snapshot "
                  f"{_mib(result['schedulerRssBytes'])}, of which traced allocations "
                  f"{_mib(result.get('schedulerTracedBytes', 0))}), peak {_mib(result['peakRssBytes'])}; "
                  f"load {result['loadSeconds']:.2f} s, build {result['buildSeconds']:.2f} s (traced)")


if __name__ == "__main__":
    main()
