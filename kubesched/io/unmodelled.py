"""What the loader reads past or leaves out, said per object or kind rather than dropped silently: the kinds it
skips (with a hint for the ones passed by mistake) and the fields of an object it does not model or enforce."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.admission.resource_quota import matching_resources
from kubesched.api.admission_objects import LIMIT_TYPE_CLAIM
from kubesched.io.fields import is_mapping

_SKIP_REASON = "kubesched does not read this kind"
#: Kinds users pass by mistake, with what to do instead.
_SKIP_REASONS = {
    "KubeSchedulerConfiguration": "a scheduler configuration is not a cluster object: pass its file with --profile",
}
#: Where each kind keeps its pods' spec.
_POD_SPEC_PATHS = {
    "Pod": ("spec",),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
_TEMPLATE_SPEC_PATH = ("spec", "template", "spec")


def skip_reason(kind: str) -> str:
    """Why objects of ``kind`` are skipped, and what to do instead where there is something to do."""
    return _SKIP_REASONS.get(kind, _SKIP_REASON)


def resource_claims_path(kind: str, obj: Mapping[str, Any]) -> str | None:
    """Where a pod (or a workload's pod template) asks for resource claims (dynamic resource allocation, which
    kubesched does not model), or None."""
    steps = _POD_SPEC_PATHS.get(kind, _TEMPLATE_SPEC_PATH)
    value: object = obj
    for step in steps:
        if not is_mapping(value):
            return None
        value = value.get(step)
    if is_mapping(value) and value.get("resourceClaims"):
        return ".".join(steps) + ".resourceClaims"
    return None


def unenforced_admission(kind: str, obj: Mapping[str, Any]) -> str | None:
    """What of a ResourceQuota or LimitRange kubesched does not enforce, as "field: reason", or None: quota limits
    on objects other than pods, and LimitRange items bounding PersistentVolumeClaims (claims are not modelled)."""
    spec = obj.get("spec")
    if not is_mapping(spec):
        return None
    if kind == "ResourceQuota" and is_mapping(spec.get("hard")):
        names = [str(name) for name in spec["hard"]]
        others = sorted(set(names) - set(matching_resources(names)))
        if others:
            return (f"spec.hard: {', '.join(others)}: kubesched enforces quotas on pods only; these limits are not "
                    "checked")
    if kind == "LimitRange" and isinstance(spec.get("limits"), list):
        claims = [i for i, item in enumerate(spec["limits"])
                  if is_mapping(item) and item.get("type") == LIMIT_TYPE_CLAIM]
        if claims:
            return (f"spec.limits[{claims[0]}]: kubesched does not model PersistentVolumeClaims: their storage bounds "
                    "are not checked")
    return None
