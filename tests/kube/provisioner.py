"""A provisioner the controllers' fidelity test plays on the real control plane, as a CSI external-provisioner
would: no real one runs there, while the scenario runs the same one through its ``provisioners`` setting.

It watches (polls) the claims kube-controller-manager's PV controller annotated with its name
(``volume.kubernetes.io/storage-provisioner``), and for each one whose class binds Immediately, or for which the
scheduler selected a node, creates the PersistentVolume ``pvc-<claim uid>`` pre-bound to it, deterministically: in
the selected node's zone, else in the class's first allowed topology (its first value per key), else anywhere. It
deletes the Released volumes it made whose reclaim policy is Delete. Its own events (``Provisioning``,
``ProvisioningSucceeded``) are not recorded: only the controllers' are compared.
"""

from __future__ import annotations

import threading
from types import TracebackType

from kubesched.kube.rest import ApiError, KubeApi, Obj

STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
ZONE = "topology.kubernetes.io/zone"
#: How often it looks at the claims.
PERIOD = 0.2


class Provisioner:
    """Plays the external-provisioner of ``name`` until the block ends."""

    def __init__(self, api: KubeApi, name: str) -> None:
        self.api = api
        self.name = name
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="provisioner", daemon=True)

    def __enter__(self) -> Provisioner:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join(10)

    def _loop(self) -> None:
        while not self._stop.wait(PERIOD):
            try:
                self._tick()
            except ApiError as error:  # a transient failure: the next tick tries again
                self.errors.append(str(error))

    def _tick(self) -> None:
        volumes = {v["metadata"]["name"]: v for v in self.api.get("/api/v1/persistentvolumes").get("items") or []}
        for pv in volumes.values():
            if pv["metadata"].get("annotations", {}).get(PROVISIONED_BY) == self.name and \
                    pv.get("status", {}).get("phase") == "Released" and \
                    pv["spec"].get("persistentVolumeReclaimPolicy") == "Delete":
                self._ignore_gone("DELETE", f"/api/v1/persistentvolumes/{pv['metadata']['name']}")
        for claim in self.api.get("/api/v1/persistentvolumeclaims").get("items") or []:
            meta = claim["metadata"]
            annotations = meta.get("annotations") or {}
            if annotations.get(STORAGE_PROVISIONER) != self.name or claim["spec"].get("volumeName") or \
                    meta.get("deletionTimestamp") or f"pvc-{meta['uid']}" in volumes:
                continue
            volume = self._volume(claim, annotations.get(SELECTED_NODE, ""))
            if volume is not None:
                self._ignore_gone("POST", "/api/v1/persistentvolumes", volume)

    def _volume(self, claim: Obj, selected: str) -> Obj | None:
        """The volume for ``claim``; None while it waits for the scheduler to select a node, or its class is gone."""
        try:
            storage_class = self.api.get(f"/apis/storage.k8s.io/v1/storageclasses/{claim['spec']['storageClassName']}")
        except ApiError as error:
            if error.status == 404:
                return None
            raise
        if storage_class.get("volumeBindingMode") == "WaitForFirstConsumer" and not selected:
            return None
        segment = self._segment(storage_class, selected)
        meta = claim["metadata"]
        name = f"pvc-{meta['uid']}"
        spec: Obj = {
            "capacity": {"storage": claim["spec"]["resources"]["requests"]["storage"]},
            "accessModes": claim["spec"]["accessModes"], "storageClassName": storage_class["metadata"]["name"],
            "persistentVolumeReclaimPolicy": storage_class.get("reclaimPolicy", "Delete"),
            "volumeMode": claim["spec"].get("volumeMode", "Filesystem"),
            "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": meta["namespace"],
                         "name": meta["name"], "uid": meta["uid"], "resourceVersion": meta["resourceVersion"]},
            "csi": {"driver": self.name, "volumeHandle": name}}
        if segment:
            spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": key, "operator": "In", "values": [value]} for key, value in sorted(segment.items())]}]}}
        return {"apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": {"name": name, "annotations": {PROVISIONED_BY: self.name}}, "spec": spec}

    def _segment(self, storage_class: Obj, selected: str) -> dict[str, str]:
        """Where the volume goes: the selected node's zone, else the class's first allowed topology."""
        if selected:
            try:
                labels = self.api.get(f"/api/v1/nodes/{selected}")["metadata"].get("labels") or {}
            except ApiError as error:
                if error.status == 404:
                    return {}
                raise
            return {ZONE: labels[ZONE]} if ZONE in labels else {}
        terms = storage_class.get("allowedTopologies") or []
        return {req["key"]: req["values"][0] for req in terms[0]["matchLabelExpressions"]} if terms else {}

    def _ignore_gone(self, method: str, where: str, body: Obj | None = None) -> None:
        """A request whose object may be gone (404) or made already (409): the next tick sees the outcome."""
        try:
            self.api.request(method, where, body=body)
        except ApiError as error:
            if error.status not in (404, 409):
                raise
