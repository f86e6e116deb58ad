"""Decode a pod's volumes and the claim spec a claim is made from (a PVC's, a volumeClaimTemplate's, a generic
ephemeral volume's), checked as the API server checks them."""

from __future__ import annotations

from collections.abc import Mapping

from kubesched.api import validation
from kubesched.api.quantity import Quantity
from kubesched.api.storage import ACCESS_MODES, READ_WRITE_ONCE_POD
from kubesched.api.volume import CSI_SOURCE, EPHEMERAL_SOURCE, PVC_SOURCE, ClaimTemplate, Volume, VolumeClaimTemplate
from kubesched.io import fields as f
from kubesched.io.meta import Obj, check_name, label_selector, object_meta
from kubesched.validation import MANIFEST

VOLUME_MODES = ("Block", "Filesystem")
#: The pod volume sources some volume plugin reads.
SCHEDULING_SOURCES = frozenset((PVC_SOURCE, EPHEMERAL_SOURCE, CSI_SOURCE, "gcePersistentDisk", "awsElasticBlockStore",
                                "azureDisk", "cinder", "iscsi", "rbd", "portworxVolume"))
#: Every pod volume source the API server knows (core/v1 VolumeSource), one of which each volume names.
POD_VOLUME_SOURCES = (
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
    "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected",
    "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image",
)
def handle(source: str, spec: Obj, path: str) -> tuple[str, bool]:
    """The identity of the disk a volume source names, for the same-disk checks and the volume limits, and whether
    it is mounted read-only."""
    read_only = f.boolean(spec.get("readOnly"), f"{path}.readOnly")
    if source == "gcePersistentDisk":
        return f.string(spec.get("pdName"), f"{path}.pdName"), read_only
    if source in ("awsElasticBlockStore", "cinder", "portworxVolume"):
        return f.string(spec.get("volumeID"), f"{path}.volumeID"), read_only
    if source == "azureDisk":
        return f.string(spec.get("diskURI"), f"{path}.diskURI"), read_only
    if source == "iscsi":
        return f.string(spec.get("iqn"), f"{path}.iqn"), read_only
    if source == "rbd":
        monitors = ",".join(sorted(f.string_list(spec.get("monitors"), f"{path}.monitors")))
        pool = f.string(spec.get("pool"), f"{path}.pool") or "rbd"
        return f"{monitors}/{pool}/{f.string(spec.get('image'), f'{path}.image')}", read_only
    if source == "csi":
        return f.string(spec.get("volumeHandle"), f"{path}.volumeHandle"), read_only
    return "", read_only


AZURE_DISK_KINDS = ("Dedicated", "Managed", "Shared")
_DISK_URI_FORMS = {"Managed": ("/subscriptions/", "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/"
                                                   "microsoft.compute/disks/{disk-id}"),
                   "": ("https://", "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd")}


def disk_kind(source: str, spec: Obj, path: str) -> str:
    """An azureDisk's kind as the API server defaults it (``Shared``), checked with its diskURI as validateAzureDisk
    checks them (NodeVolumeLimits translates only a Managed disk to CSI); "" for other sources."""
    if source != "azureDisk":
        return ""
    uri = f.string(spec.get("diskURI"), f"{path}.diskURI")
    if not uri:
        f.report(f"{path}.diskURI", "Required value")
    kind = f.string(spec.get("kind"), f"{path}.kind", "Shared")
    if kind not in AZURE_DISK_KINDS:
        choices = ", ".join(f'"{k}"' for k in AZURE_DISK_KINDS)
        f.report(f"{path}.kind", f"Unsupported value: {f.quote(kind)}: supported values: {choices}")
    prefix, form = _DISK_URI_FORMS["Managed" if kind == "Managed" else ""]
    if not uri.startswith(prefix):
        f.report(f"{path}.diskURI", f'Unsupported value: {f.quote(uri)}: supported values: "{form}"')
    return kind


def sources(obj: Obj, path: str, known: tuple[str, ...], default: str = "") -> str:
    """The one source kind a volume names, reported as the API server reports several, or none without a
    ``default`` (a pod volume without one is an emptyDir: SetDefaults_Volume)."""
    given = [key for key in known if obj.get(key) is not None]
    if not given:
        if default:
            return default
        f.report(path, "Required value: must specify a volume type")
        return ""
    if len(given) > 1:
        f.report(f"{path}.{given[1]}", "Forbidden: may not specify more than 1 volume type")
    return given[0]


def access_modes(value: object, path: str, *, required: bool) -> tuple[str, ...]:
    modes = f.string_list(value, path)
    if not modes and required:
        f.report(path, "Required value: at least 1 access mode is required")
    for mode in modes:
        if mode not in ACCESS_MODES:
            choices = ", ".join(f'"{m}"' for m in sorted(ACCESS_MODES))
            f.report(path, f"Unsupported value: {f.quote(mode)}: supported values: {choices}")
    if READ_WRITE_ONCE_POD in modes and len(modes) > 1:
        f.report(path, f"Forbidden: may not use {READ_WRITE_ONCE_POD} with other access modes")
    return modes


def _storage_request(spec: Obj, path: str, *, required: bool) -> Quantity | None:
    resources = f.mapping(spec.get("resources"), f"{path}.resources")
    requests = f.resource_list(resources.get("requests"), f"{path}.resources.requests")
    storage = requests.get("storage")
    if storage is None:
        if required:
            f.report(f"{path}.resources[storage]", "Required value")
        return None
    if storage.amount <= 0:
        f.report(f"{path}.resources[storage]", f"Invalid value: {f.quote(storage.text)}: must be greater than zero")
    return storage


def claim_template(spec: Obj, path: str) -> ClaimTemplate:
    """A claim's spec (a PVC's, a volumeClaimTemplate's or an ephemeral volume's), checked as the API server's
    ValidatePersistentVolumeClaimSpec checks what the binder reads."""
    class_name = spec.get("storageClassName")
    return ClaimTemplate(
        access_modes=access_modes(spec.get("accessModes"), f"{path}.accessModes", required=True),
        storage=_storage_request(spec, path, required=True),
        storage_class_name=None if class_name is None else f.string(class_name, f"{path}.storageClassName"),
        volume_name=f.string(spec.get("volumeName"), f"{path}.volumeName"),
        selector=label_selector(spec.get("selector"), f"{path}.selector"),
        volume_mode=f.one_of(spec.get("volumeMode"), f"{path}.volumeMode", VOLUME_MODES, "Filesystem") or "Filesystem",
    )


def _volume(obj: Obj, path: str) -> Volume:
    """A pod volume: its source checked first, then its name (validateVolumes' order)."""
    name = f.string(obj.get("name"), f"{path}.name")
    source = sources(obj, path, POD_VOLUME_SOURCES, "emptyDir")
    spec = f.mapping(obj.get(source), f"{path}.{source}")
    claim_name, driver, ephemeral, ephemeral_labels = "", "", None, {}
    if source == PVC_SOURCE:
        claim_name = f.string(spec.get("claimName"), f"{path}.{source}.claimName")
        if not claim_name:
            f.report(f"{path}.{source}.claimName", "Required value")
    elif source == CSI_SOURCE:
        driver = csi_driver_name(spec, f"{path}.{source}.driver")
    elif source == EPHEMERAL_SOURCE:
        template = f.mapping(spec.get("volumeClaimTemplate"), f"{path}.{source}.volumeClaimTemplate")
        if spec.get("volumeClaimTemplate") is None:
            f.report(f"{path}.{source}.volumeClaimTemplate", "Required value")
        else:
            spec_path = f"{path}.{source}.volumeClaimTemplate.spec"
            ephemeral = claim_template(f.mapping(template.get("spec"), spec_path), spec_path)
            meta_path = f"{path}.{source}.volumeClaimTemplate.metadata"
            ephemeral_labels = f.string_map(f.mapping(template.get("metadata"), meta_path).get("labels"),
                                            f"{meta_path}.labels")
    disk, read_only = handle(source, spec, f"{path}.{source}")
    kind = disk_kind(source, spec, f"{path}.{source}")
    if not name:
        f.report(f"{path}.name", "Required value")
    else:
        check_name(name, f"{path}.name", validation.dns1123_label)
    return Volume(name=name, source=source, claim_name=claim_name, read_only=read_only, handle=disk,
                  driver=driver, ephemeral=ephemeral, ephemeral_labels=ephemeral_labels, disk_kind=kind)


def csi_driver_name(spec: Obj, path: str, key: str = "driver") -> str:
    """A CSI driver name (``spec[key]``): required, and a DNS-1123 subdomain (the API server reports both for an
    empty one)."""
    driver = f.string(spec.get(key), path)
    if not driver:
        f.report(path, "Required value")
    check_name(driver, path, validation.dns1123_subdomain)
    return driver


_remembered_volume = f.remembered(_volume)


def volumes(value: object, path: str) -> tuple[Volume, ...]:
    """A pod's volumes, none named as a valid one before it (validateVolumes); the result keeps the volumes the
    volume plugins read (claims, CSI and the disks they count or compare), not configMaps, secrets, tokens or
    emptyDirs."""
    if value is None:
        return ()
    result: list[Volume] = []
    valid_names: set[str] = set()
    for i, item in enumerate(f.sequence(value, path)):
        item_path = f"{path}[{i}]"
        if not isinstance(item, Mapping):
            f.report(item_path, MANIFEST.wrong_type(item, "an object"))
            continue
        with f.collecting() as problems:
            volume = _remembered_volume(item, item_path)
            if volume.name in valid_names:
                f.report(f"{item_path}.name", f"Duplicate value: {f.quote(volume.name)}")
        found = list(problems)
        for problem in found:
            f.report(problem.field or item_path, problem.message)
        if not found:
            valid_names.add(volume.name)
        if volume.source in SCHEDULING_SOURCES:
            result.append(volume)
    return tuple(result)




def _claim_template_item(obj: Obj, path: str) -> VolumeClaimTemplate:
    meta = object_meta(obj, f"{path}.metadata", namespaced=False)
    spec_path = f"{path}.spec"
    return VolumeClaimTemplate(name=meta.name, spec=claim_template(f.mapping(obj.get("spec"), spec_path), spec_path),
                               labels=meta.labels)


def volume_claim_templates(value: object, path: str) -> tuple[VolumeClaimTemplate, ...]:
    """A StatefulSet's volumeClaimTemplates, none named twice."""
    result = f.items(value, path, _claim_template_item)
    for i, template in enumerate(result):
        if template.name and any(t.name == template.name for t in result[:i]):
            f.report(f"{path}[{i}].metadata.name", f"Duplicate value: {f.quote(template.name)}")
    return result
