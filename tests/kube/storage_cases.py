"""The storage cases of tests/kube/test_controllers_fidelity.py: StatefulSets with volumeClaimTemplates (static
local volumes, then a provisioner), a Deployment with a generic ephemeral volume, and a pod whose claims are bound
to pre-bound volumes, each scaled, or a pod deleted, as the workload cases are.

PersistentVolumes and StorageClasses are cluster-wide, so each case names its own ``<case>-...``. The provisioner
of the provisioned cases, :data:`PROVISIONER`, is played by the real side (tests/kube/provisioner.py) and runs in
the scenario through its ``provisioners`` setting.
"""

from __future__ import annotations

from tests.kube.controllers_cases import Case, Obj, Step, create, deployment, node, scale, template, workload

#: The provisioner the real side plays and the scenario runs.
PROVISIONER = "fake.csi.kubesched.io"
NO_PROVISIONER = "kubernetes.io/no-provisioner"
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
RUNS_PROVISIONER: dict[str, object] = {"provisioners": [PROVISIONER]}


def storage_class(name: str, mode: str, provisioner: str = NO_PROVISIONER, *, zone: str = "") -> Obj:
    """A StorageClass with that binding mode (and allowedTopologies of one zone, when given)."""
    obj: Obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
                "provisioner": provisioner, "volumeBindingMode": mode}
    if zone:
        obj["allowedTopologies"] = [{"matchLabelExpressions": [{"key": ZONE, "values": [zone]}]}]
    return obj


def volume(name: str, storage_class_name: str, size: str, *, host: str = "", claim: tuple[str, str] | None = None
           ) -> Obj:
    """A static ReadWriteOnce PersistentVolume: a local one on ``host`` (a node's full name), else a CSI volume
    usable anywhere; pre-bound to ``claim`` (namespace, name) when given."""
    spec: Obj = {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                 "storageClassName": storage_class_name}
    if host:
        spec["local"] = {"path": f"/mnt/{name}"}
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": HOSTNAME, "operator": "In", "values": [host]}]}]}}
    else:
        spec["csi"] = {"driver": "csi.example.com", "volumeHandle": name}
    if claim is not None:
        spec["claimRef"] = {"namespace": claim[0], "name": claim[1]}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec}


def claim_spec(storage_class_name: str, size: str = "1Gi", volume_name: str = "") -> Obj:
    """A ReadWriteOnce claim's spec."""
    spec: Obj = {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class_name,
                 "resources": {"requests": {"storage": size}}}
    if volume_name:
        spec["volumeName"] = volume_name
    return spec


def claim(name: str, storage_class_name: str, volume_name: str = "") -> Obj:
    """A 1Gi PersistentVolumeClaim (naming its volume, when given)."""
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": claim_spec(storage_class_name, volume_name=volume_name)}


def mounting(spec: Obj, *volumes: str) -> Obj:
    """A pod template's spec whose container mounts ``volumes`` at /<name>."""
    spec["containers"][0]["volumeMounts"] = [{"name": v, "mountPath": f"/{v}"} for v in volumes]
    return spec


def stateful_with_claims(name: str, replicas: int, storage_class_name: str) -> Obj:
    """An OrderedReady StatefulSet whose pods mount the claim template ``data`` (1Gi, labelled ``tier: data``)."""
    pods = template(name)
    mounting(pods["spec"], "data")
    return workload("StatefulSet", name, {
        "replicas": replicas, "serviceName": name, "selector": {"matchLabels": {"app": name}}, "template": pods,
        "volumeClaimTemplates": [{"metadata": {"name": "data", "labels": {"tier": "data"}},
                                  "spec": claim_spec(storage_class_name)}]})


def with_ephemeral(obj: Obj, volume_name: str, storage_class_name: str) -> Obj:
    """The Deployment with a generic ephemeral volume (1Gi, its claims labelled ``tier: scratch``) mounted."""
    spec = obj["spec"]["template"]["spec"]
    spec["volumes"] = [{"name": volume_name, "ephemeral": {"volumeClaimTemplate": {
        "metadata": {"labels": {"tier": "scratch"}}, "spec": claim_spec(storage_class_name)}}}]
    mounting(spec, volume_name)
    return obj


def pod_with_claims(name: str, *claims: str) -> Obj:
    """A bare pod mounting ``claims``."""
    spec = mounting(template(name)["spec"], *claims)
    spec["volumes"] = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": name}}, "spec": spec}


def delete_pod(name: str) -> Step:
    """Delete a pod through the API (its controller re-creates it)."""
    return Step("delete", kind="Pod", name=name)


def _local_volumes(name: str = "statefulset-local-volumes") -> Case:
    """Static local volumes on a WaitForFirstConsumer class: three on n1 (1, 2 and 3 Gi), one too small on n2,
    none on n3; the claims take them smallest first, on n1. Whether kube's PV controller first sees a claim
    before the StatefulSet controller creates its pod (WaitForFirstConsumer, usually) or after
    (WaitForPodScheduled) is timing: only kubesched's is asserted (docs/fidelity.md)."""
    local, n1, n2 = f"{name}-local", f"{name}-n1", f"{name}-n2"
    return Case(name, (
        create(node("n1"), node("n2"), node("n3"), storage_class(local, "WaitForFirstConsumer"),
               volume(f"{name}-a", local, "1Gi", host=n1), volume(f"{name}-b", local, "2Gi", host=n1),
               volume(f"{name}-c", local, "3Gi", host=n1), volume(f"{name}-small", local, "512Mi", host=n2),
               stateful_with_claims("db", 2, local)),
        scale("StatefulSet", "db", 3), scale("StatefulSet", "db", 1), delete_pod("db-0")),
        exact_nodes=True, ordered=("StatefulSet",), differences={"claim waits": (None, [
            ((f"data-db-{i}", "WaitForFirstConsumer", "waiting for first consumer to be created before binding"), 1)
            for i in range(3)])})


def _provisioned(name: str = "statefulset-provisioned") -> Case:
    """An Immediate class whose provisioner runs, its volumes in zone z2 (allowedTopologies), where only n2 is."""
    fast = f"{name}-fast"
    return Case(name, (
        create(node("n1", labels={ZONE: "z1"}), node("n2", labels={ZONE: "z2"}),
               storage_class(fast, "Immediate", PROVISIONER, zone="z2"), stateful_with_claims("db", 2, fast)),
        scale("StatefulSet", "db", 3), scale("StatefulSet", "db", 1), delete_pod("db-0")),
        exact_nodes=True, ordered=("StatefulSet",), settings=RUNS_PROVISIONER)


def _ephemeral(name: str = "deployment-ephemeral") -> Case:
    """Each pod's generic ephemeral volume provisioned for its node (WaitForFirstConsumer); a scale-down's pod
    takes its claim with it (the garbage collector)."""
    wffc = f"{name}-wffc"
    return Case(name, (
        create(node("n1"), node("n2"), storage_class(wffc, "WaitForFirstConsumer", PROVISIONER),
               with_ephemeral(deployment("web", 2), "scratch", wffc)),
        scale("Deployment", "web", 1)), ordered=("Deployment",), settings=RUNS_PROVISIONER)


def _prebound(name: str = "prebound-volume") -> Case:
    """A pod's claim bound to the volume pre-bound to it by the volume's claimRef on n2, though a smaller free
    volume would fit it. (A claim naming its volume in volumeName was compared too, but the real PV controller left
    it Pending in loaded CI runs and bound it in quiet ones: left out until that is understood.)"""
    static, n2 = f"{name}-static", f"{name}-n2"
    return Case(name, (
        create(node("n1"), node("n2"), storage_class(static, "Immediate"),
               volume(f"{name}-reserved", static, "5Gi", host=n2, claim=(name, "data")),
               volume(f"{name}-free", static, "1Gi"), claim("data", static),
               pod_with_claims("app", "data")),), exact_nodes=True)


STORAGE_CASES: tuple[Case, ...] = (_local_volumes(), _provisioned(), _ephemeral(), _prebound())
