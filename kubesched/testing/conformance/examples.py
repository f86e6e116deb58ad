"""The suite's example cluster (used unless the author gives one) and the clusters of the edge and scale checks."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from kubesched.api.meta import LabelSelector
from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodAffinityTerm
from kubesched.api.storage import NO_PROVISIONER, READ_WRITE_ONCE_POD, StorageObject
from kubesched.api.volume import Volume
from kubesched.testing.builders import make_node, make_pod
from kubesched.testing.builders_storage import make_csi_node, make_pv, make_pvc, make_storage_class

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
#: The CSI driver of the example CSI volumes, and the GCE PD both running-db and big mount.
DRIVER = "csi.example.com"
SHARED_DISK = Volume(name="disk", source="gcePersistentDisk", handle="db-disk")


def default_nodes() -> tuple[Node, ...]:
    """Three labelled nodes of different sizes in two zones: one holding images, one with a PreferNoSchedule
    taint, one cordoned with a NoSchedule taint."""
    return (make_node("node-a").capacity(cpu="4", memory="8Gi").zone("zone-1").label(disk="ssd")
            .image(300 * 1024 * 1024, "registry.example/web:1.0").obj(),
            make_node("node-b").capacity(cpu="8", memory="16Gi").zone("zone-1")
            .taint("spot", "true", "PreferNoSchedule").obj(),
            make_node("node-c").capacity(cpu="2", memory="4Gi").zone("zone-2").label(disk="hdd")
            .taint("dedicated", "batch").unschedulable().obj())


def default_running() -> tuple[Pod, ...]:
    """Pods already bound to the default nodes: web behind a host port with a CSI volume, a db with anti-affinity
    mounting a GCE PD, a batch pod holding a ReadWriteOncePod claim."""
    return (make_pod("running-web").node("node-a").req(cpu="1", memory="1Gi").label(app="web").priority(10)
            .host_port(8080).pvc("app-data").obj(),
            make_pod("running-db").node("node-b").req(cpu="2", memory="4Gi").label(app="db").priority(100)
            .pod_affinity(HOSTNAME, anti=True, app="db").volume(SHARED_DISK).obj(),
            make_pod("running-batch").node("node-c").req(cpu="500m").label(app="batch")
            .toleration("dedicated", "batch", "NoSchedule").pvc("batch-data").obj())


def default_storage() -> tuple[StorageObject, ...]:
    """The storage the pods' claims use: a local-volume class (WaitForFirstConsumer, nothing provisions it), one
    free local PV on node-a, and the claim ``web-data`` of that class, which therefore fits node-a only; claims
    bound to CSI volumes (zonal-data's and app-data's in zone-1, batch-data ReadWriteOncePod); CSINodes letting
    node-a attach one volume of the CSI driver and node-b two (node-c has none: no limit)."""
    bound = {"pv.kubernetes.io/bind-completed": "yes"}
    return (make_storage_class("local", NO_PROVISIONER).wait_for_first_consumer().obj(),
            make_pv("local-a").storage_class("local").capacity("10Gi").source("local", "/mnt/disks/a")
            .node_affinity_in(HOSTNAME, "node-a").obj(),
            make_pvc("web-data").storage_class("local").request("5Gi").obj(),
            *(make_pv(name).csi(DRIVER).bound_to("default", name).labels({ZONE: "zone-1"}).obj()
              for name in ("zonal-data", "app-data")),
            make_pv("batch-data").csi(DRIVER).access_modes(READ_WRITE_ONCE_POD).bound_to("default", "batch-data").obj(),
            *(make_pvc(name).bound(name).annotations(bound).obj() for name in ("zonal-data", "app-data")),
            make_pvc("batch-data").access_modes(READ_WRITE_ONCE_POD).bound("batch-data").annotations(bound).obj(),
            make_csi_node("node-a").driver(DRIVER, 1).obj(), make_csi_node("node-b").driver(DRIVER, 2).obj())


def default_pods() -> tuple[Pod, ...]:
    """Pods to schedule, between them using every built-in feature: a web pod with spreading, anti-affinity,
    a host port, node affinity, an image and a claim of a local volume; a pod with no requests at all; a large
    high-priority db pod with a node selector, a toleration, running-db's disk and a claim of a zone-1 CSI volume;
    a pod whose spec.nodeName already names node-b, using the ReadWriteOncePod claim running-batch holds."""
    web = (make_pod("web").req(cpu="500m", memory="512Mi").label(app="web").host_port(8080).pvc("web-data")
           .spread(1, ZONE, app="web").spread(1, HOSTNAME, "ScheduleAnyway", app="web")
           .pod_affinity(HOSTNAME, anti=True, app="web")
           .affinity_term(PodAffinityTerm(topology_key=ZONE, label_selector=LabelSelector(match_labels={"app": "db"})),
                          weight=50)
           .node_affinity_in(ZONE, "zone-1", "zone-2").preferred_node_affinity(10, "disk", "ssd"))
    web = web.container({"cpu": "100m"}, image="registry.example/web:1.0")
    return (web.obj(),
            make_pod("bare").obj(),
            make_pod("big").req(cpu="6", memory="12Gi").label(app="db").priority(1000).node_selector(disk="hdd")
            .toleration("dedicated", "batch", "NoSchedule").pod_affinity(ZONE, app="db").volume(SHARED_DISK)
            .pvc("zonal-data").obj(),
            make_pod("pinned").node("node-b").req(cpu="100m", memory="128Mi").label(app="cache").pvc("batch-data")
            .obj())


def bare_node(name: str) -> Node:
    """A node with no labels at all (not even the hostname label the builder adds)."""
    node = make_node(name).capacity(cpu="4", memory="8Gi").obj()
    return attrs.evolve(node, metadata=attrs.evolve(node.metadata, labels={}))


def large_cluster(count: int, templates: Sequence[Node] = ()) -> list[Node]:
    """``count`` nodes for scale checks: copies of ``templates`` in turn (labels, taints, capacity) under new
    names, or plain nodes over ten zones without templates."""
    if not templates:
        return [make_node(f"node-{i:05d}").capacity(cpu="8", memory="32Gi").zone(f"zone-{i % 10}").obj()
                for i in range(count)]
    nodes = []
    for i in range(count):
        template = templates[i % len(templates)]
        name = f"{template.name}-{i:05d}"
        labels = {**template.metadata.labels, HOSTNAME: name} if HOSTNAME in template.metadata.labels \
            else dict(template.metadata.labels)
        meta = attrs.evolve(template.metadata, name=name, uid=f"{name}-uid", labels=labels)
        nodes.append(attrs.evolve(template, metadata=meta))
    return nodes


def spread_over(nodes: Sequence[Node], running: Sequence[Pod], templates: Sequence[Node], copies: int = 50) \
        -> list[Pod]:
    """Copies of the running pods for a large cluster made by :func:`large_cluster` from ``templates``: each
    pod goes to about ``copies`` of the copies of its own node, so taints, ports and capacity stay as they
    were in the example cluster."""
    if not nodes or not templates:
        return []
    index = {t.name: i for i, t in enumerate(templates)}
    step = max(1, len(nodes) // copies)
    placed = []
    for i in range(0, len(nodes), step):
        template = i % len(templates)
        for pod in running:
            if index.get(pod.spec.node_name or "") != template:
                continue
            meta = attrs.evolve(pod.metadata, name=f"{pod.name}-{i}", uid=f"{pod.uid}-{i}")
            placed.append(attrs.evolve(pod, metadata=meta).with_node_name(nodes[i].name))
    return placed
