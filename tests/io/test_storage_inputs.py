"""Storage objects and pod volumes as the loader reads them: what the volume plugins get, and every problem in the
v1.32 API server's words and order (each expectation below is what the real binary answered for the same object)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.api.storage import (
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from kubesched.io.load import load
from tests.io.test_errors import errors_of, write

RFC1123_SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                     "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
                     "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")

CLUSTER = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions:
  - {key: topology.kubernetes.io/zone, values: [z1, z2]}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1, labels: {topology.kubernetes.io/zone: z2}}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  claimRef: {namespace: default, name: data, uid: u-data}
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [z2]}]
status: {phase: Bound}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, uid: u-data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
  storageClassName: fast
  volumeName: pv1
status: {phase: Bound}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec:
  drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 25}, topologyKeys: [topology.kubernetes.io/zone]}]
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {storageCapacity: true, attachRequired: true}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap-z1}
storageClassName: fast
capacity: 100Gi
nodeTopology: {matchLabels: {topology.kubernetes.io/zone: z1}}
---
apiVersion: v1
kind: Pod
metadata: {name: db}
spec:
  containers: [{name: c, image: x, volumeMounts: [{name: data, mountPath: /d}, {name: token, mountPath: /t}]}]
  volumes:
  - {name: data, persistentVolumeClaim: {claimName: data}}
  - {name: token, projected: {sources: []}}
  - {name: scratch}
  - name: tmp
    ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}}
  - {name: disk, gcePersistentDisk: {pdName: pd-1, readOnly: true}}
"""


def test_storage_objects_load_with_what_the_volume_plugins_read(tmp_path: Path) -> None:
    """A cluster with a class, a bound PV and claim, a CSINode, a CSIDriver and a capacity loads every one."""
    loaded = load([write(tmp_path, "cluster.yaml", CLUSTER)])
    assert loaded.warnings == ()  # no "skipped ... of kind StorageClass" any more
    by_kind = {type(obj).__name__: obj for obj in loaded.storage}
    storage_class = by_kind["StorageClass"]
    assert isinstance(storage_class, StorageClass)
    assert storage_class.volume_binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER
    assert storage_class.allowed_topologies[0].match_label_expressions[0].values == ("z1", "z2")
    pv = by_kind["PersistentVolume"]
    assert isinstance(pv, PersistentVolume)
    assert (pv.driver, pv.handle, pv.claim_ref and pv.claim_ref.key, pv.phase) == (
        "ebs.csi.aws.com", "vol-1", "default/data", "Bound")
    claim = by_kind["PersistentVolumeClaim"]
    assert isinstance(claim, PersistentVolumeClaim)
    assert (claim.volume_name, claim.class_name, str(claim.spec.storage)) == ("pv1", "fast", "1Gi")
    csi_node = by_kind["CSINode"]
    assert isinstance(csi_node, CSINode)
    assert csi_node.driver("ebs.csi.aws.com") is not None
    assert csi_node.drivers[0].allocatable_count == 25
    driver = by_kind["CSIDriver"]
    assert isinstance(driver, CSIDriver)
    assert driver.storage_capacity
    assert isinstance(by_kind["CSIStorageCapacity"], CSIStorageCapacity)


def test_a_pod_keeps_the_volumes_the_volume_plugins_read(tmp_path: Path) -> None:
    """Claims, generic ephemeral volumes and in-tree disks are kept; tokens and emptyDirs are not scheduling's."""
    (pod,) = load([write(tmp_path, "cluster.yaml", CLUSTER)]).pods
    kept = [(v.name, v.source, v.claim_of(pod.name), v.handle, v.read_only) for v in pod.spec.volumes]
    assert kept == [("data", "persistentVolumeClaim", "data", "", False),
                    ("tmp", "ephemeral", "db-tmp", "", False),
                    ("disk", "gcePersistentDisk", "", "pd-1", True)]


def test_in_tree_disks_keep_what_the_volume_limits_read(tmp_path: Path) -> None:
    """An azureDisk's kind defaults to Shared as the API server defaults it (a Managed one is kept as given), and a
    portworxVolume is kept with its volume ID: NodeVolumeLimits counts both through CSI migration."""
    path = write(tmp_path, "pod.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers: [{name: c, image: x}]
          volumes:
          - {name: a, azureDisk: {diskName: a, diskURI: "https://acc.blob.core.windows.net/c/a.vhd"}}
          - {name: b, azureDisk: {diskName: b, kind: Managed, diskURI: /subscriptions/s/disks/b}}
          - {name: c, portworxVolume: {volumeID: px-1}}
        """)
    (pod,) = load([path]).pods
    assert [(v.source, v.handle, v.disk_kind) for v in pod.spec.volumes] == [
        ("azureDisk", "https://acc.blob.core.windows.net/c/a.vhd", "Shared"),
        ("azureDisk", "/subscriptions/s/disks/b", "Managed"),
        ("portworxVolume", "px-1", "")]


def test_a_statefulset_keeps_its_volume_claim_templates(tmp_path: Path) -> None:
    """volumeClaimTemplates are read with their claim spec (the controller makes <template>-<set>-<n> claims)."""
    path = write(tmp_path, "sts.yaml", """\
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: cassandra}
        spec:
          replicas: 3
          selector: {matchLabels: {app: cassandra}}
          template:
            metadata: {labels: {app: cassandra}}
            spec: {containers: [{name: c, image: x}]}
          volumeClaimTemplates:
          - metadata: {name: data, labels: {app: cassandra}}
            spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 1Gi}}}
        """)
    (workload,) = load([path]).workloads
    (template,) = workload.volume_claim_templates  # type: ignore[union-attr]
    assert (template.name, template.spec.storage_class_name, dict(template.labels)) == (
        "data", "fast", {"app": "cassandra"})


@pytest.mark.parametrize(("manifest", "expected"), [
    pytest.param("""\
        apiVersion: v1
        kind: PersistentVolume
        metadata: {name: bad}
        spec: {accessModes: [Foo, ReadWriteOncePod, ReadWriteOnce]}
        """, [
        'persistentvolumes/bad: spec.accessModes: Unsupported value: "Foo": supported values: "ReadOnlyMany", '
        '"ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
        "persistentvolumes/bad: spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
        "persistentvolumes/bad: spec.capacity: Required value",
        'persistentvolumes/bad: spec.capacity: Unsupported value: core.ResourceList(nil): supported values: '
        '"storage"',
        "persistentvolumes/bad: spec: Required value: must specify a volume type",
    ], id="pv-without-capacity-or-source"),
    pytest.param("""\
        apiVersion: v1
        kind: PersistentVolume
        metadata: {name: bad}
        spec:
          capacity: {storage: 1Gi}
          accessModes: [ReadWriteOnce]
          local: {path: /x}
          csi: {}
        """, [
        "persistentvolumes/bad: spec.nodeAffinity: Required value: Local volume requires node affinity",
        "persistentvolumes/bad: spec.csi: Forbidden: may not specify more than 1 volume type",
    ], id="pv-local-without-affinity-and-two-sources"),
    pytest.param("""\
        apiVersion: v1
        kind: PersistentVolume
        metadata: {name: bad}
        spec:
          capacity: {storage: 1Gi}
          accessModes: [ReadWriteOnce]
          csi: {}
          nodeAffinity: {required: {nodeSelectorTerms: []}}
        """, [
        "persistentvolumes/bad: spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at least one "
        "node selector term",
        "persistentvolumes/bad: spec.csi.driver: Required value",
        f'persistentvolumes/bad: spec.csi.driver: Invalid value: "": {RFC1123_SUBDOMAIN}',
        "persistentvolumes/bad: spec.csi.volumeHandle: Required value",
    ], id="pv-csi-without-driver"),
    pytest.param("""\
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {name: bad}
        spec: {volumeMode: Foo}
        """, [
        "persistentvolumeclaims/default/bad: spec.accessModes: Required value: at least 1 access mode is required",
        "persistentvolumeclaims/default/bad: spec.resources[storage]: Required value",
        'persistentvolumeclaims/default/bad: spec.volumeMode: Unsupported value: "Foo": supported values: "Block", '
        '"Filesystem"',
    ], id="pvc-empty"),
    pytest.param("""\
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {name: bad}
        spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: "0"}}}
        """, [
        'persistentvolumeclaims/default/bad: spec.resources[storage]: Invalid value: "0": must be greater than zero',
    ], id="pvc-zero-storage"),
    pytest.param("""\
        apiVersion: storage.k8s.io/v1
        kind: StorageClass
        metadata: {name: bad}
        volumeBindingMode: Later
        allowedTopologies:
        - matchLabelExpressions:
          - {key: "", values: []}
        """, [
        "storageclasses/bad: provisioner: Required value",
        'storageclasses/bad: volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", '
        '"WaitForFirstConsumer"',
        "storageclasses/bad: allowedTopologies[0].matchLabelExpressions[0].values: Required value",
        'storageclasses/bad: allowedTopologies[0].matchLabelExpressions[0].key: Invalid value: "": name part must '
        "be non-empty",
        'storageclasses/bad: allowedTopologies[0].matchLabelExpressions[0].key: Invalid value: "": name part must '
        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ], id="storageclass-invalid"),
    pytest.param("""\
        apiVersion: storage.k8s.io/v1
        kind: CSINode
        metadata: {name: n1}
        spec:
          drivers:
          - {name: d, nodeID: n1, allocatable: {count: -1}}
          - {name: d, nodeID: n1}
          - {nodeID: ""}
        """, [
        "csinodes/n1: spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0",
        'csinodes/n1: spec.drivers[1].name: Duplicate value: "d"',
        "csinodes/n1: spec.drivers[2].name: Required value",
        f'csinodes/n1: spec.drivers[2].name: Invalid value: "": {RFC1123_SUBDOMAIN}',
        "csinodes/n1: spec.drivers[2].nodeID: Required value",
    ], id="csinode-invalid"),
    pytest.param("""\
        apiVersion: storage.k8s.io/v1
        kind: CSIStorageCapacity
        metadata: {name: c1}
        capacity: -1Gi
        """, [
        f'csistoragecapacities/default/c1: storageClassName: Invalid value: "": {RFC1123_SUBDOMAIN}',
        'csistoragecapacities/default/c1: capacity: Invalid value: "-1Gi": must be greater than or equal to 0',
    ], id="capacity-invalid"),
    pytest.param("""\
        apiVersion: v1
        kind: Pod
        metadata: {name: bad}
        spec:
          containers: [{name: c, image: x}]
          volumes:
          - {name: a, persistentVolumeClaim: {}}
          - {name: a, emptyDir: {}, configMap: {name: x}}
          - {name: b, emptyDir: {}}
          - {name: b, emptyDir: {}}
          - {name: e, ephemeral: {}}
          - {name: f, csi: {}}
          - {name: g, ephemeral: {volumeClaimTemplate: {spec: {}}}}
        """, [
        "pods/default/bad: spec.volumes[0].persistentVolumeClaim.claimName: Required value",
        "pods/default/bad: spec.volumes[1].configMap: Forbidden: may not specify more than 1 volume type",
        'pods/default/bad: spec.volumes[3].name: Duplicate value: "b"',
        "pods/default/bad: spec.volumes[4].ephemeral.volumeClaimTemplate: Required value",
        "pods/default/bad: spec.volumes[5].csi.driver: Required value",
        f'pods/default/bad: spec.volumes[5].csi.driver: Invalid value: "": {RFC1123_SUBDOMAIN}',
        "pods/default/bad: spec.volumes[6].ephemeral.volumeClaimTemplate.spec.accessModes: Required value: at least "
        "1 access mode is required",
        "pods/default/bad: spec.volumes[6].ephemeral.volumeClaimTemplate.spec.resources[storage]: Required value",
    ], id="pod-volumes-invalid"),
    pytest.param("""\
        apiVersion: v1
        kind: Pod
        metadata: {name: bad}
        spec:
          containers: [{name: c, image: x}]
          volumes:
          - {name: a, azureDisk: {diskName: x, diskURI: /subscriptions/s/resourceGroups/g/providers/x/disks/x}}
          - {name: b, azureDisk: {diskName: x, kind: Managed, diskURI: "https://a.blob.core.windows.net/c/x.vhd"}}
          - {name: c, azureDisk: {diskName: x, kind: managed, diskURI: "https://a.blob.core.windows.net/c/x.vhd"}}
        """, [
        'pods/default/bad: spec.volumes[0].azureDisk.diskURI: Unsupported value: '
        '"/subscriptions/s/resourceGroups/g/providers/x/disks/x": supported values: '
        '"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"',
        'pods/default/bad: spec.volumes[1].azureDisk.diskURI: Unsupported value: '
        '"https://a.blob.core.windows.net/c/x.vhd": supported values: '
        '"/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"',
        'pods/default/bad: spec.volumes[2].azureDisk.kind: Unsupported value: "managed": supported values: '
        '"Dedicated", "Managed", "Shared"',
    ], id="pod-azure-disk-kind-and-uri"),
    pytest.param("""\
        apiVersion: v1
        kind: PersistentVolume
        metadata: {name: bad}
        spec:
          capacity: {storage: 1Gi}
          accessModes: [ReadWriteOnce]
          azureDisk: {diskName: x, kind: Y, diskURI: ""}
        """, [
        "persistentvolumes/bad: spec.azureDisk.diskURI: Required value",
        'persistentvolumes/bad: spec.azureDisk.kind: Unsupported value: "Y": supported values: "Dedicated", '
        '"Managed", "Shared"',
        'persistentvolumes/bad: spec.azureDisk.diskURI: Unsupported value: "": supported values: '
        '"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"',
    ], id="pv-azure-disk-invalid"),
])
def test_storage_problems_are_reported_as_the_api_server_words_them(tmp_path: Path, manifest: str,
                                                                    expected: list[str]) -> None:
    """Every problem, in the binary's order; a name repeated after an invalid volume is not a duplicate."""
    path = write(tmp_path, "bad.yaml", manifest)
    assert errors_of(path) == [f"{path}: {message}" for message in expected]


def test_a_statefulset_template_may_mount_its_volume_claim_templates(tmp_path: Path) -> None:
    """The API server does not check a StatefulSet template's volume mounts (its pods get the claims' volumes):
    the v1.32 binary accepted this one, mounting its claim template."""
    path = write(tmp_path, "sts.yaml", """\
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: db}
        spec:
          selector: {matchLabels: {app: db}}
          template:
            metadata: {labels: {app: db}}
            spec: {containers: [{name: c, image: x, volumeMounts: [{name: data, mountPath: /d}]}]}
          volumeClaimTemplates:
          - metadata: {name: data}
            spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
        """)
    assert [w.metadata.name for w in load([path]).workloads] == ["db"]
